"""The progress bar every long-running command shows (simulate, levels, parity, study)."""

from __future__ import annotations

import sys
from typing import Any


def progress_bar(total: int, quiet: bool, label: str) -> Any:
    """A tqdm bar on stderr counting ``total`` units; silent when ``quiet`` or stderr is no terminal.

    Use it as a context manager and pass its ``update`` as a ``progress`` callback.
    """
    from tqdm import tqdm  # imported on use: building the parser or a plan should not pay for it

    return tqdm(total=total, unit="game", desc=label, disable=quiet or not sys.stderr.isatty(),
                smoothing=0.1, dynamic_ncols=True, file=sys.stderr)
