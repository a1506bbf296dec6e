#!/usr/bin/env python3
"""Create the project's environment if needed, then run one of its jobs.

    python3 dev.py study [ARGS...]   the main job: a real study with a report (luna-balance study)
    python3 dev.py test  [ARGS...]   lint, then the whole test suite (pytest, on every core); with no ARGS,
                                     then the tests that go through pandas again on pandas 2
    python3 dev.py bench [ARGS...]   the benchmark table
    python3 dev.py run   ARGS...     any luna-balance command, e.g. run simulate --seats luna:5 --games 1000 --out r

Only the Python standard library is used here, so it works on a fresh machine with Python 3.11:
the virtual environment goes to .venv/ and is made again from nothing when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed-pyproject"
# The analysis layer supports pandas 2 as well as 3 (pyproject: pandas>=2.2): an analyst's environment may hold
# either. A bare `dev.py test` runs the tests that go through pandas once more on pandas 2, from a folder put
# ahead of .venv's packages on the path (numpy and the rest stay .venv's); pytz is a pandas 2 dependency only.
PANDAS_2 = ("pandas==2.2.3", "pytz")
PANDAS_2_DIR = VENV / "pandas-2"
PANDAS_2_TESTS = ("tests/analysis", "tests/test_study.py", "tests/test_study_options.py",
                  "tests/test_study_readings.py", "tests/test_study_summaries.py", "tests/test_readings_command.py",
                  "tests/test_tune.py", "tests/test_tune_search.py", "tests/test_sensitivity.py",
                  "tests/test_campaign.py", "tests/test_notebooks.py", "tests/test_cli.py")


def ensure_environment() -> None:
    """Install the project into .venv unless it holds the current pyproject.toml's install.

    An environment installed from an older pyproject.toml is made again from nothing: installing over it would keep
    whatever the project no longer asks for (scipy stayed in developers' environments after it left the
    dependencies, and numba imported it at every engine load: 0.1-0.2 s of each warm start a fresh clone lacks).
    """
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if STAMP.exists():
        print("dev.py: pyproject.toml changed; making .venv again from nothing", flush=True)
        venv.create(VENV, clear=True, with_pip=True)
    elif not (BIN / "python").exists():
        print("dev.py: creating .venv", flush=True)
        venv.create(VENV, with_pip=True)
    print("dev.py: installing the project and its dependencies into .venv", flush=True)
    subprocess.run([BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([BIN / "python", "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(wanted)


def ensure_pandas_2() -> dict[str, str]:
    """Install :data:`PANDAS_2` into :data:`PANDAS_2_DIR` once; the environment that puts it first on the path."""
    stamp = PANDAS_2_DIR / ".installed"
    if not (stamp.exists() and stamp.read_text() == " ".join(PANDAS_2)):
        print(f"dev.py: installing {' '.join(PANDAS_2)} into {PANDAS_2_DIR.relative_to(ROOT)}", flush=True)
        subprocess.run([BIN / "python", "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade", "--target",
                        PANDAS_2_DIR, *PANDAS_2], check=True)
        stamp.write_text(" ".join(PANDAS_2))
    path = os.pathsep.join(filter(None, [str(PANDAS_2_DIR), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def compile_bytecode() -> None:
    """Write the project's bytecode next to its sources, as pip does for an installed package.

    An editable install leaves that to Python's first import, which skips it where
    PYTHONDONTWRITEBYTECODE is set (as on this project's CI machines); every command would then compile
    its ~50 modules from source, 0.06 s of a warm start. Only sources newer than their bytecode are compiled.
    """
    subprocess.run([BIN / "python", "-m", "compileall", "-q", "sim", "analysis", "benchmarks"], cwd=ROOT, check=True)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"study", "test", "bench", "run"}:
        print(__doc__)
        return 2
    job, rest = argv[0], argv[1:]
    ensure_environment()
    compile_bytecode()
    os.chdir(ROOT)
    if job == "test":
        lint = subprocess.run([BIN / "ruff", "check", "sim", "analysis", "tests", "benchmarks", "dev.py"])
        if lint.returncode != 0:
            return lint.returncode
        # every core: pytest-xdist's workers; "-n 0" (or any -n) on the command line overrides it
        chosen = any(arg.startswith(("-n", "--numprocesses")) for arg in rest)
        parallel = [] if chosen else ["-n", "auto"]
        tests = subprocess.run([BIN / "python", "-m", "pytest", *parallel, *rest])
        if tests.returncode != 0 or rest:  # a chosen selection or option: that run alone
            return tests.returncode
        print(f"dev.py: the tests that go through pandas, again on {PANDAS_2[0]}", flush=True)
        check = [BIN / "python", "-c", "import pandas, sys; sys.exit(not pandas.__version__.startswith('2.'))"]
        environment = ensure_pandas_2()
        if subprocess.run(check, env=environment).returncode != 0:
            print(f"dev.py: {PANDAS_2_DIR} does not hold pandas 2", file=sys.stderr)
            return 1
        return subprocess.run([BIN / "python", "-m", "pytest", *parallel, *PANDAS_2_TESTS], env=environment).returncode
    if job == "bench":
        return subprocess.run([BIN / "python", "-m", "benchmarks.run", *rest]).returncode
    if job == "study":
        return subprocess.run([BIN / "luna-balance", "study", *rest]).returncode
    return subprocess.run([BIN / "luna-balance", *rest]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
