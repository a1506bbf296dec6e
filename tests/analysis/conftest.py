"""Fixtures for the analysis tests: tiny hand-built frames and synthetic run directories.

The synthetic runs are random but internally consistent (totals sum, ``won`` sums to 1 per game,
per-round counters add up to the per-game ones), so loaders and plots see realistic shapes without
the simulator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.schema import CARD_COLUMNS, CATEGORY_SCORES, COMPANIES, INTERACTION_COLUMNS, MAJORITY_COLUMNS

GRADE1 = [f"I-{number}" for number in range(1, 13)]
GRADE2 = [f"II-{number}" for number in range(1, 8)]


def _parse_seat(spec: str) -> tuple[str, int, str]:
    kind, _, value = spec.partition(":")
    if kind == "luna":
        return kind, int(value), ""
    return kind, -1, value


def synthetic_frames(
    seat_specs: Sequence[str],
    games: int,
    seed: int = 0,
    score_shift: int = 0,
    interactions: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Random, consistent seats and luna_rounds frames for ``games`` games."""
    rng = np.random.default_rng(seed)
    seat_rows = []
    round_rows = []
    for game in range(games):
        totals = []
        for seat, spec in enumerate(seat_specs):
            kind, level, profile = _parse_seat(spec)
            base = 3 + max(level, 0)
            categories = rng.integers(0, base + 6, size=len(CATEGORY_SCORES)) + (score_shift if kind == "luna" else 0)
            row = {"game": game, "seat": seat, "kind": kind, "level": level, "profile": profile, "strength": 1.0}
            row.update(dict(zip(CATEGORY_SCORES, categories.tolist(), strict=True)))
            row["score_total"] = int(categories.sum())
            for company in COMPANIES:
                row[f"shares_{company}"] = int(rng.integers(0, 8))
                row[f"value_{company}"] = int(rng.integers(0, 16))
            row.update(
                helium=int(rng.integers(0, 29)), research=int(rng.integers(0, 16)), cash=int(rng.integers(0, 30))
            )
            for counter in ("cards_gained", "bonus_markers_placed", "plans_discarded", "outposts_placed", "ousted"):
                row[counter] = int(rng.integers(0, 6))
            reshuffles = grade2_reshuffle = grade2_token = 0
            if kind == "luna":
                per_round = []
                for round_number in range(1, 8):
                    reshuffled = int(rng.random() < 0.3)
                    by_reshuffle = reshuffled if level >= 2 else 0
                    by_token = int(rng.random() < 0.2) if level >= 3 else 0
                    cards = rng.choice(GRADE1 + GRADE2, size=5, replace=False).tolist()
                    if level == 0 or round_number < 3:
                        cards[0] = cards[4] = ""
                    majorities = rng.integers(0, 5, size=5).tolist()
                    per_round.append((round_number, cards, majorities, reshuffled, by_reshuffle, by_token))
                for round_number, cards, majorities, reshuffled, by_reshuffle, by_token in per_round:
                    round_row = {"game": game, "seat": seat, "round": round_number}
                    round_row.update(dict(zip(CARD_COLUMNS, cards, strict=True)))
                    round_row.update(dict(zip(MAJORITY_COLUMNS, majorities, strict=True)))
                    round_row.update(
                        reshuffles=reshuffled,
                        grade2_entered=by_reshuffle + by_token,
                        grade2_by_reshuffle=by_reshuffle,
                        grade2_by_token=by_token,
                        deck_size_start=12,
                        helium=round_number,
                        research=round_number // 2,
                        cash=round_number,
                    )
                    round_rows.append(round_row)
                    reshuffles += reshuffled
                    grade2_reshuffle += by_reshuffle
                    grade2_token += by_token
            row.update(
                reshuffles=reshuffles,
                grade2_entered=grade2_reshuffle + grade2_token,
                grade2_by_reshuffle=grade2_reshuffle,
                grade2_by_token=grade2_token,
                slot_a_first_round=0 if level <= 0 else int(rng.integers(0, 8)),
                slot_e_first_round=0 if level <= 0 else int(rng.integers(0, 8)),
            )
            if interactions and kind == "scripted":
                row.update({column: int(rng.integers(0, 4)) for column in INTERACTION_COLUMNS})
            totals.append(row["score_total"])
            seat_rows.append(row)
        ranks = pd.Series(totals).rank(method="min", ascending=False).astype(int).tolist()
        winners = ranks.count(1)
        for row, rank in zip(seat_rows[-len(seat_specs) :], ranks, strict=True):
            row["rank"] = rank
            row["won"] = 1.0 / winners if rank == 1 else 0.0
    return pd.DataFrame(seat_rows), pd.DataFrame(round_rows)


def write_run(
    directory: Path,
    seat_specs: Sequence[str],
    games: int = 40,
    seed: int = 0,
    variant: str | None = None,
    score_shift: int = 0,
    with_rounds: bool = True,
    interactions: bool = False,
) -> Path:
    """Write a synthetic run directory (seats, optional rounds, manifest) and return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    seats, rounds = synthetic_frames(seat_specs, games, seed, score_shift, interactions)
    seats.to_parquet(directory / "seats.parquet")
    if with_rounds:
        rounds.to_parquet(directory / "luna_rounds.parquet")
    config = {
        "seats": list(seat_specs),
        "games": games,
        "seed": seed,
        "rounds": 7,
        "start_bonus": "random",
        "overlay": None,
        "engine": "reference",
        "detail": "rounds" if with_rounds else None,
    }
    if variant is not None:
        config["variant"] = variant
    manifest = {"config": config, "versions": {"luna_balance": "0.1.0"}}
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return directory


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """Factory: ``make_run(name, seat_specs, **options)`` writes a synthetic run under tmp_path."""

    def factory(name: str, seat_specs: Sequence[str], **options) -> Path:
        return write_run(tmp_path / "runs" / name, seat_specs, **options)

    return factory


@pytest.fixture(scope="session")
def study_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A small study: Luna solo at levels 1-3, Luna vs two profiles at levels 2-3, and a variant."""
    root = tmp_path_factory.mktemp("study_runs")
    runs = [write_run(root / f"solo_l{level}", [f"luna:{level}"], games=30, seed=level) for level in (1, 2, 3)]
    for profile in ("passive", "balanced"):
        for level in (2, 3):
            runs.append(
                write_run(
                    root / f"{profile}_l{level}",
                    [f"scripted:{profile}", f"luna:{level}"],
                    games=30,
                    seed=10 + level,
                    interactions=profile == "balanced",
                )
            )
    runs.append(write_run(root / "solo_l3_cheap", ["luna:3"], games=30, seed=3, variant="cheap", score_shift=1))
    return runs


def _filled(rows: Sequence[dict], defaults: dict) -> pd.DataFrame:
    return pd.DataFrame([{**defaults, **row} for row in rows])


SEAT_DEFAULTS: dict = {
    "game": 0,
    "seat": 0,
    "kind": "luna",
    "level": 0,
    "profile": "",
    "strength": 1.0,
    **{column: 0 for column in ("score_total", *CATEGORY_SCORES)},
    **{f"shares_{company}": 0 for company in COMPANIES},
    **{f"value_{company}": 0 for company in COMPANIES},
    **{
        column: 0
        for column in (
            "helium",
            "research",
            "cash",
            "cards_gained",
            "bonus_markers_placed",
            "plans_discarded",
            "outposts_placed",
            "ousted",
            "reshuffles",
            "grade2_entered",
            "grade2_by_reshuffle",
            "grade2_by_token",
            "slot_a_first_round",
            "slot_e_first_round",
        )
    },
    "rank": 1,
    "won": 1.0,
}

ROUND_DEFAULTS: dict = {
    "game": 0,
    "seat": 0,
    "round": 1,
    "level": 2,
    **{column: "" for column in CARD_COLUMNS},
    **{column: 0 for column in MAJORITY_COLUMNS},
    **{
        column: 0
        for column in (
            "reshuffles",
            "grade2_entered",
            "grade2_by_reshuffle",
            "grade2_by_token",
            "deck_size_start",
            "helium",
            "research",
            "cash",
        )
    },
}


@pytest.fixture
def build_seats() -> Callable[[Sequence[dict]], pd.DataFrame]:
    """Factory: a seats frame from partial rows, every other contract column filled with a default."""
    return lambda rows: _filled(rows, SEAT_DEFAULTS)


@pytest.fixture
def build_rounds() -> Callable[[Sequence[dict]], pd.DataFrame]:
    """Factory: a luna_rounds frame (with ``level`` attached, as the loader does) from partial rows."""
    return lambda rows: _filled(rows, ROUND_DEFAULTS)
