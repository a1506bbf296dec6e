"""Balance analysis of Luna's difficulty levels: tidy tables, plots and reports.

Modules
-------
load
    Read run directories (``seats.parquet``, ``luna_rounds.parquet``, ``manifest.json``).
stats
    Score summaries, win rates (Wilson), level ladder, paired variant-vs-base differences.
intervals
    The 95 % intervals of the tables: Wilson, Newcombe (independent and paired), Student's t (``t95``).
duels
    The head-to-head table of two Lunas of different levels, the two seat orders pooled.
deck
    Deck-cycle, majority-value and blocking tables from Luna's per-round records.
style
    The shared style of every figure (matplotlib's settings only).
plotting
    Colours, figure creation and the drawing helpers, in that style.
plots
    One matplotlib Figure per function, in that style.
render
    Writes a report: CSV/PNG/SVG files, ``report.md`` and a self-contained ``report.html``.
drawing
    A report's figures as PNG and SVG bytes, some drawn in a second process.
report
    The standard run report's tables, figures and sections.
study
    A whole balance study: its plan, the runner that plays it (resumable) and its report.
parity
    The strength at which a scripted profile wins half its games against Luna.
campaign
    A campaign's output directory: per-chapter and per-campaign tables, figures and report.
readings
    What each rule reading changes: paired differences against the readings in force.
tuning
    Tuning Luna's levels: the numbers a designer may change, the tuner, and how much each one matters.
schema
    The analysis' names for the simulator's output columns (from :mod:`sim.columns`).
run_manifest
    A run's ``manifest.json`` checked as ``simulate`` checks its settings, and against the files beside it.
folder_lock
    One writer per output folder (``flock``), naming the process that holds it.

Submodules are not imported here, so ``import analysis.stats`` does not pull in matplotlib.
"""
