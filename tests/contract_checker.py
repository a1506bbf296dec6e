"""The workplace's ``shared/`` folder (the specification, Luna's published facts, the output-contract checker
``tools/check_run.py``) for the tests that compare against it.

It is not in the repository: it lies beside the checkout in the project's workplace. A clone elsewhere finds it
through ``LUNA_SHARED_DIR`` or at the workplace's own path; without it those tests skip (or leave out) the check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_WORKPLACE_SHARED = "/work/shared"  # where the project's workplace keeps it, for a clone made elsewhere (CI's)
_PLACES = [os.environ.get("LUNA_SHARED_DIR", ""), Path(__file__).resolve().parents[2] / "shared", _WORKPLACE_SHARED]
SHARED_DIR = next((Path(place) for place in _PLACES if place and Path(place).is_dir()), Path("shared"))
CHECK_RUN = SHARED_DIR / "tools" / "check_run.py"
MISSING = f"shared/tools/check_run.py is not beside this checkout (nor at LUNA_SHARED_DIR or {_WORKPLACE_SHARED})"


def check_runs(*directories: Path) -> subprocess.CompletedProcess:
    """Run the checker over ``directories`` with this interpreter; exit code 0 is a pass.

    It runs on ``.venv``'s own packages, without ``PYTHONPATH``: it is not the project's code, so the second pass of
    ``dev.py test`` on pandas 2 (a folder put first on ``PYTHONPATH``) is not for it. Under pandas 2.2.3 with
    pyarrow 26 it aborted at exit about once in 40 runs ("terminate called without an active exception"), after
    printing its verdict: arrow's threads at interpreter shutdown, apache/arrow#34314.
    """
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run([sys.executable, str(CHECK_RUN), *map(str, directories)], capture_output=True, text=True,
                          env=environment)
