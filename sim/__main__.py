"""``python -m sim``: the ``luna-balance`` script (:mod:`sim.entry`), stop signals handled before any import.

``python -m sim.cli`` runs too, but Python imports the whole of :mod:`sim.cli` (numpy, numba, pyarrow: a good part
of a second) before its first line can handle anything; a Ctrl-C then is Python's traceback, a SIGTERM a silent end.
"""

import sys

from sim.entry import main

sys.exit(main())
