"""The shared output-contract checker, ``shared/tools/check_run.py``, for the tests that write run directories.

It lives beside the checkout, not in it: a clone elsewhere has none, and its tests skip (or leave out) the check.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHECK_RUN = Path(__file__).resolve().parents[2] / "shared" / "tools" / "check_run.py"
MISSING = "shared/tools/check_run.py is not beside this checkout"


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
