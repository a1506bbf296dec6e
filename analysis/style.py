"""The shared look of every figure: matplotlib's settings, and the context every figure is drawn in.

Only matplotlib here, so that the report's drawing helper (``analysis/drawing.py``), which needs the look
and nothing else, starts without pandas.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl

#: The shared look of every figure; kept small on purpose.
STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 4.5),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "lines.linewidth": 1.6,
    # Fixed salt and no date: the same data gives byte-identical SVG files.
    "svg.hashsalt": "luna-balance",
}


@contextmanager
def plot_style() -> Iterator[None]:
    """Context in which figures are drawn with the project's style (:data:`STYLE`)."""
    with mpl.rc_context(STYLE):
        yield
