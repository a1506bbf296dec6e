"""The ``luna-balance`` script: stop signals are handled before the command's modules are imported.

Importing :mod:`sim.cli` loads numpy, numba, pydantic and pyarrow, a good part of a second in which a Ctrl-C
printed Python's KeyboardInterrupt traceback and a SIGTERM or SIGHUP ended Python at once. Here they are a stop
like any later one: one line and the shell's code for the signal (nothing has been written yet).
"""

from __future__ import annotations

import io
import sys

from sim.environment import thread_count_problem
from sim.shutdown import EXIT_USAGE, exit_code_at_the_end
from sim.stop_signals import report_interrupt, stop_signals_as_interrupts


def main() -> int:
    """Import the command line under :func:`stop_signals_as_interrupts`, then run it.

    It runs inside the same handling (its own, nested, takes over): a signal that landed in the import system's lock
    code is sent again a moment later, and had it come in a gap between the two, with Python's defaults back, it
    would have ended the process at once.
    """
    if problem := thread_count_problem():  # before numba is imported: it reads the setting then (sim/environment.py)
        sys.stderr.write(f"luna-balance: {problem}\n")
        return EXIT_USAGE
    # A path or name the terminal's encoding cannot show is written with escapes: a run whose --out had a letter
    # outside PYTHONIOENCODING=ascii was written whole, then its "wrote" line failed the command (exit 2, a QA pass)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    with stop_signals_as_interrupts():
        try:
            from sim.cli import main as command_line
        except KeyboardInterrupt as error:
            return report_interrupt(error, "nothing was written")
        try:
            code = command_line()
        except KeyboardInterrupt as error:  # in the instant between the command's end and the next line
            code = report_interrupt(error)
        return exit_code_at_the_end(code)


if __name__ == "__main__":  # python -m sim.entry: the script itself (so is python -m sim)
    sys.exit(main())
