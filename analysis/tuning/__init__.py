"""Tuning Luna's levels: the numbers a designer may change, and how much each one matters.

Modules
-------
parameters
    The tunable numbers of Luna's raw data as named parameters with valid ranges, the overlay that sets
    them, why a set of values cannot be played, and the overlay file writer.

Submodules are not imported here, so ``import analysis.tuning.parameters`` pulls in neither pandas nor
matplotlib.
"""
