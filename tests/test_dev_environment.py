"""dev.py's environment: installed once per pyproject.toml, and made again from nothing when it changes.

The installs themselves are stand-ins here (recorded, not run): what is checked is which of them dev.py asks for.
"""

from __future__ import annotations

import hashlib
import importlib.util
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """dev.py loaded as a module, its project root and .venv in ``tmp_path``, its venv and pip calls recorded."""
    spec = importlib.util.spec_from_file_location("dev_under_test", ROOT / "dev.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\ndependencies = ['numpy']\n")
    venv_dir = tmp_path / ".venv"
    monkeypatch.setattr(module, "ROOT", tmp_path)
    monkeypatch.setattr(module, "VENV", venv_dir)
    monkeypatch.setattr(module, "BIN", venv_dir / "bin")
    monkeypatch.setattr(module, "STAMP", venv_dir / ".installed-pyproject")
    module.calls = []

    def create(path: Path, **options: object) -> None:
        module.calls.append(("create", options.get("clear", False)))
        (path / "bin").mkdir(parents=True, exist_ok=True)
        (path / "bin" / "python").write_text("")

    def run(command: list, **options: object) -> None:
        module.calls.append(("pip", " ".join(map(str, command[3:]))))

    monkeypatch.setattr(module, "venv", types.SimpleNamespace(create=create))
    monkeypatch.setattr(module, "subprocess", types.SimpleNamespace(run=run))
    return module


def _digest(dev: types.ModuleType) -> str:
    return hashlib.sha256((dev.ROOT / "pyproject.toml").read_bytes()).hexdigest()


def test_a_fresh_clone_gets_a_new_environment_and_a_stamp(dev: types.ModuleType) -> None:
    dev.ensure_environment()
    assert dev.calls[0] == ("create", False)
    assert any(kind == "pip" and "-e" in what for kind, what in dev.calls)
    assert dev.STAMP.read_text() == _digest(dev)


def test_an_environment_of_this_pyproject_is_left_alone(dev: types.ModuleType) -> None:
    dev.ensure_environment()
    dev.calls.clear()
    dev.ensure_environment()
    assert dev.calls == []


def test_a_changed_pyproject_makes_the_environment_again_from_nothing(dev: types.ModuleType) -> None:
    """Regression: installing over the old environment kept scipy after it left the dependencies."""
    dev.ensure_environment()
    dev.calls.clear()
    (dev.ROOT / "pyproject.toml").write_text("[project]\nname = 'x'\ndependencies = []\n")
    dev.ensure_environment()
    assert dev.calls[0] == ("create", True)
    assert any(kind == "pip" and "-e" in what for kind, what in dev.calls[1:])
    assert dev.STAMP.read_text() == _digest(dev)


def test_an_install_cut_short_is_finished_in_the_same_environment(dev: types.ModuleType) -> None:
    """A .venv with its Python but no stamp (the first install was interrupted) is installed into, not made anew."""
    (dev.BIN).mkdir(parents=True)
    (dev.BIN / "python").write_text("")
    dev.ensure_environment()
    assert [kind for kind, _ in dev.calls] == ["pip", "pip"]
    assert dev.STAMP.read_text() == _digest(dev)
