"""The project's shape: no import cycle among its modules, no module too long to read.

The import graph is read from the source (``ast``), not from ``sys.modules``, so a lazy import inside
a function counts as much as one at the top: a cycle through a lazy import is still a lower layer
pointing at an upper one.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "analysis")
MAX_MODULE_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def project_modules() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _imported(module: str, path: Path, known: set[str]) -> set[str]:
    """Project modules that ``module`` imports anywhere in its source (``from x import y`` counts x.y if a module)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            # the deepest project module the name points into
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


@functools.cache
def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    known = set(modules)
    graph = {name: _imported(name, path, known) for name, path in modules.items()}
    # a package's __init__ re-exports its submodules; importing a submodule runs the package first,
    # so an edge into a package's own submodule from its __init__ is not a cycle of layers
    for name in graph:
        graph[name] = {target for target in graph[name] if not target.startswith(f"{name}.")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_find_cycle_reports_a_cycle_and_passes_a_tree():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_lazy_imports(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    from sim.run import run_simulation\n")
    assert _imported("analysis.mod", source, {"sim.run", "sim", "analysis.mod"}) == {"sim.run"}


def test_no_import_cycle_among_project_modules():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_only_the_command_line_imports_the_command_line():
    # sim.cli sits on top: a module below it importing it would close a cycle (it once did, through the study);
    # above it only the script's entry, which sets the stop handlers before importing it
    importers = sorted(name for name, targets in import_graph().items() if "sim.cli" in targets)
    assert importers == ["sim.entry"]


@pytest.mark.parametrize("module", sorted(project_modules()))
def test_module_is_short_enough_to_read(module):
    lines = project_modules()[module].read_text().count("\n")
    assert lines <= MAX_MODULE_LINES, f"{module}: {lines} lines; split it by responsibility"


def _external_imports(path: Path) -> set[str]:
    """Top-level package names of every import in ``path``'s source, lazy ones included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found


def test_no_module_imports_scipy():
    # numba imports scipy.linalg at every engine load whenever scipy is installed (it looks for a BLAS): as a
    # dependency for t quantiles alone it cost every simulate 0.1-0.2 s of a ~1 s warm start (issue 9)
    importers = sorted(name for name, path in project_modules().items() if "scipy" in _external_imports(path))
    assert importers == []


def test_external_imports_sees_lazy_and_dotted_imports(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("import os.path\ndef f():\n    from scipy.special import stdtrit\nfrom . import sibling\n")
    assert _external_imports(source) == {"os", "scipy"}
