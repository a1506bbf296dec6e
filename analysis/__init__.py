"""Balance analysis of Luna's difficulty levels: tidy tables, plots and reports.

Modules
-------
load
    Read run directories (``seats.parquet``, ``luna_rounds.parquet``, ``manifest.json``).
stats
    Score summaries, win rates (Wilson), level ladder, paired variant-vs-base differences.
deck
    Deck-cycle, majority-value and blocking tables from Luna's per-round records.
plots
    One matplotlib Figure per function, in one shared style.
report
    CSV/PNG/SVG files, ``report.md`` and a self-contained ``report.html``.

Submodules are not imported here, so ``import analysis.stats`` does not pull in matplotlib.
"""
