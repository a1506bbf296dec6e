"""Tuning Luna's levels: the numbers a designer may change, and how much each one matters.

Modules
-------
parameters
    The tunable numbers of Luna's raw data as named parameters with valid ranges, the overlay that sets
    them, why a set of values cannot be played, and the overlay file writer.
options, sensitivity, plots
    ``luna-balance sensitivity``: its options and defaults (no pandas), the paired measurement of each change,
    and its tornado plot.
targets, search, evaluate, tune, fresh, output
    ``luna-balance tune``: the target file, the racing search over integer parameters, the candidates'
    data and metrics, the search per level, the verdict on fresh games (and the levels around in order), and
    the output directory (``tuned.toml``, ``tuning.csv``, ``report.html``).

Submodules are not imported here, so ``import analysis.tuning.parameters`` pulls in neither pandas nor
matplotlib.
"""
