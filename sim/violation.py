"""The error both engines raise when a game breaks an invariant under ``--check-invariants``.

Its own small module because both engines raise it: the reference's checker (``sim/invariants.py``)
imports the reference engine and the numba engine's (``sim/fast/invariants.py``) imports numba, and
neither engine should load the other.
"""

from __future__ import annotations


class InvariantError(RuntimeError):
    """Game ``game`` broke the invariant ``check`` at seat ``seat`` (None: a board-wide check) in round ``round``.

    ``round`` is 0 for the state after setup and the number of the round just played otherwise (the
    last round for the end-of-game score check). A ``RuntimeError``, not a ``ValueError``: it means the
    engine broke, not that the input was bad.
    """

    def __init__(self, game: int, seat: int | None, round: int, check: str) -> None:
        # every field in args, so the error survives pickling (a joblib worker's error reaches the parent)
        super().__init__(game, seat, round, check)
        self.game, self.seat, self.round, self.check = game, seat, round, check

    def __str__(self) -> str:
        seat = "-" if self.seat is None else str(self.seat)
        return f"invariant broken in game {self.game}, seat {seat}, round {self.round}: {self.check}"
