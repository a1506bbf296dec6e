"""``python -m sim``: the ``luna-balance`` script (:mod:`sim.entry`), stop signals handled before any import.

``python -m sim.cli`` hands over to this module before its own imports (numpy, numba, pyarrow: a good part of a
second), so it is the script too.
"""

import sys

from sim.entry import main

sys.exit(main())
