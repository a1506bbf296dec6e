"""What each rule reading changes (SPEC section 8): paired differences against the readings in force.

For every level and every *reading* (each switch set alone to each reading other than the one in force,
and each preset of the data), the same games (same seed, same game numbers: common random numbers) are
played with and without it, and per Luna seat and game the difference of her total score, final helium
and research, CrypCoin, and per round her majority values (titanium + carbon + energy + minerals, and
scientists; the table also holds each resource alone) is averaged, with a 95 % interval
``mean(d) ± t · sd(d) / sqrt(n)`` (Student's t, n - 1 degrees of freedom: 1.96 for thousands of games, 2.26
for ten). A reading that changes nothing in those games shows a difference of exactly 0 with a zero-width
interval.

``luna-balance readings`` writes the table (``readings.csv``), a compact figure and ``report.html``
(:func:`run_readings_dir`, atomically); the study's "Rule readings" section uses :func:`compare_readings`
and :func:`readings_figure` as well.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.intervals import paired_difference_of_sums
from analysis.plotting import new_figure, series_colors, styled
from analysis.render import Section, interval_end, signed, write_report
from sim.columns import Chunk
from sim.config import DEFAULT_BOARD, DEFAULT_START_BONUS, GameConfig, Seat, check_games, parse_seats
from sim.constants import MAJORITY_TYPES, ROUNDS, RULE_SWITCHES
from sim.engines import DEFAULT_ENGINE, engine_function
from sim.gamedata import GameData
from sim.outputs import MANIFEST_FILE, READINGS_FILE
from sim.run import chunk_bounds, default_chunk_size, output_directory, package_versions

GAME_METRICS = {"score_total": "total score", "helium": "final helium", "research": "final research",
                "cash": "CrypCoin"}  # per-game seat columns compared, and how a reader calls them
ROUND_METRICS = {"majority_resources": "majority values (titanium+carbon+energy+minerals)",
                 "majority_scientists": "majority scientists"}  # per round, from the luna_rounds columns; plotted
#: Per round as well, in the table only: each resource's majority value alone (the four add up to the first above).
TYPE_METRICS = {f"majority_{name}": f"majority {name}" for name in MAJORITY_TYPES if name != "scientists"}
COLUMNS = ["reading", "switch", "level", "metric", "round", "n", "mean_base", "mean_reading", "diff", "sd",
           "ci_low", "ci_high"]


def readings_to_compare(data: GameData) -> dict[str, dict[str, str]]:
    """Label -> the switch changes of each reading compared: every switch alone at each reading other than
    the one in force (``"draw_order=majority_first"``), then each preset (``"preset=companion-app"``)."""
    rules = data.luna.rules
    in_force = rules.readings()
    compared = {f"{switch}={reading}": {switch: reading}
                for switch, readings in RULE_SWITCHES.items() for reading in readings if reading != in_force[switch]}
    for name, readings in rules.presets.items():
        compared[f"preset={name}"] = dict(readings)
    return compared


def with_readings(data: GameData, readings: dict[str, str]) -> GameData:
    """``data`` with the switches ``readings`` set (and no preset over them)."""
    rules = data.luna.rules.model_copy(update={**data.luna.rules.readings(), **readings, "preset": ""})
    return dataclasses.replace(data, luna=data.luna.model_copy(update={"rules": rules}))


def _per_seat_game(chunk: Chunk, luna_seats: Sequence[int]) -> dict[str, np.ndarray]:
    """The compared values of Luna's seats (integers), one row per (game, Luna seat) in chunk order."""
    seats = chunk.seats
    mask = np.isin(seats["seat"], luna_seats)
    values = {metric: seats[metric][mask].astype(np.int64) for metric in GAME_METRICS}
    rounds = chunk.rounds
    per_round = {metric: rounds[metric] for metric in ("majority_scientists", *TYPE_METRICS)}
    per_round["majority_resources"] = sum(rounds[metric].astype(np.int64) for metric in TYPE_METRICS)
    in_round = {rnd: rounds["round"] == rnd for rnd in np.unique(rounds["round"])}
    for metric in (*ROUND_METRICS, *TYPE_METRICS):
        for rnd, rows in in_round.items():
            values[f"{metric}@{rnd}"] = per_round[metric][rows].astype(np.int64)
    return values


@dataclasses.dataclass
class _PairedSums:
    """One compared value's running sums over the pairs of games added so far; Python integers, so exact."""

    n: int = 0
    base: int = 0
    reading: int = 0
    difference: int = 0
    squares: int = 0  # of the differences

    def add(self, base: np.ndarray, reading: np.ndarray) -> None:
        difference = reading - base  # int64: a game's values are small counts
        self.n += difference.size
        self.base += int(base.sum())
        self.reading += int(reading.sum())
        self.difference += int(difference.sum())
        self.squares += int(np.dot(difference, difference))

    def row(self) -> dict:
        mean, sd, low, high = paired_difference_of_sums(self.n, self.difference, self.squares)
        return {"n": self.n, "mean_base": self.base / self.n, "mean_reading": self.reading / self.n, "diff": mean,
                "sd": sd, "ci_low": low, "ci_high": high}


def _paired_sums(play: Callable[..., Chunk], data: GameData, variants: dict[str, GameData], config: GameConfig,
                 seed: int, games: int, progress: Callable[[int], None] | None) -> dict[str, dict[str, _PairedSums]]:
    """Per reading compared (``variants``), the sums of :func:`_per_seat_game`'s values of games ``0 .. games - 1``
    against those of the readings in force (``data``), keyed as those values are.

    The games are played a default chunk at a time, each chunk under the readings in force and then under each
    reading, and its values are let go once added: memory holds one chunk whatever the number of games (keeping
    each game's values to the end, a million games of one level held 857-974 MB; in one call, 3.6 GB). The games are
    those of one call (the chunk size changes no game)."""
    sums: dict[str, dict[str, _PairedSums]] = {}
    for first, count in chunk_bounds(games, default_chunk_size(config, True)):
        base = _per_seat_game(play(data, config, seed, first, count, True), config.luna_seats)
        if progress:
            progress(count)
        for label, variant in variants.items():
            reading = _per_seat_game(play(variant, config, seed, first, count, True), config.luna_seats)
            pairs = sums.setdefault(label, {key: _PairedSums() for key in base})
            for key, values in base.items():
                pairs[key].add(values, reading[key])
            if progress:
                progress(count)
    return sums


def _difference_rows(pairs: dict[str, _PairedSums]) -> list[dict]:
    rows = []
    for key, sums in pairs.items():
        metric, _, rnd = key.partition("@")
        rows.append({"metric": metric, "round": int(rnd) if rnd else 0, **sums.row()})
    return rows


def compare_readings(data: GameData, levels: Sequence[int], games: int, seed: int, opponents: Sequence[Seat] = (),
                     engine: str = DEFAULT_ENGINE, rounds: int = ROUNDS, start_bonus: str = DEFAULT_START_BONUS,
                     progress: Callable[[int], None] | None = None, board: str = DEFAULT_BOARD) -> pd.DataFrame:
    """Per level and reading compared, the paired differences (reading minus readings in force).

    Parameters
    ----------
    data
        Game data; its readings in force are the base every reading is compared with.
    levels
        Luna's levels; at each she sits last, after ``opponents``.
    games
        Games per level (numbered 0 .. games - 1; the same numbers with and without each reading).
    seed
        Run seed.
    opponents
        Seats before Luna (``parse_seats``); none: Luna alone.
    engine, rounds, start_bonus, board
        As for ``simulate``.
    progress
        Called with the games just played.

    Returns
    -------
    pandas.DataFrame
        :data:`COLUMNS`: per reading, level, metric and round (0 for a per-game metric) the pairs ``n``,
        both means, the mean difference, its sd and 95 % interval.
    """
    games = check_games(games, least=2)  # one pair gives no interval
    play = engine_function(engine)
    compared = readings_to_compare(data)
    variants = {label: with_readings(data, readings) for label, readings in compared.items()}  # validated once
    rows = []
    for level in levels:
        config = GameConfig(seats=(*opponents, *parse_seats(f"luna:{level}")), rounds=rounds, start_bonus=start_bonus,
                            board=board)
        sums = _paired_sums(play, data, variants, config, seed, games, progress)
        for label, readings in compared.items():
            # a preset is a preset even when it sets one switch (it read as that switch's name)
            switch = "preset" if label.startswith("preset=") else next(iter(readings))
            for row in _difference_rows(sums[label]):
                rows.append({"reading": label, "switch": switch, "level": level, **row})
    return pd.DataFrame(rows, columns=COLUMNS)


def games_to_play(data: GameData, levels: Sequence[int], games: int) -> int:
    """Games :func:`compare_readings` plays (for a progress bar)."""
    return len(levels) * games * (1 + len(readings_to_compare(data)))


def summary_table(table: pd.DataFrame) -> pd.DataFrame:
    """Reading x level: the total score's difference and interval as ``+1.23 (0.45 to 2.01)`` (a reader's view)."""
    score = table[table["metric"] == "score_total"]
    cells = score.assign(cell=[f"{signed(d, 2)} ({interval_end(lo, 2)} to {interval_end(hi, 2)})" if sd > 0
                               else f"{signed(d, 2)} (none)"
                               for d, lo, hi, sd in zip(score["diff"], score["ci_low"], score["ci_high"], score["sd"],
                                                        strict=True)])
    wide = cells.pivot(index="reading", columns="level", values="cell")
    wide.columns = [f"L{level}" for level in wide.columns]
    return wide.reindex(list(dict.fromkeys(score["reading"]))).reset_index()


def findings(table: pd.DataFrame) -> list[str]:
    """One sentence per reading: whether it changes Luna's score at the levels compared, and how much."""
    sentences = []
    for reading, rows in table[table["metric"] == "score_total"].groupby("reading", sort=False):
        if (rows["sd"] == 0).all() and (rows["diff"] == 0).all():
            sentences.append(f"{reading}: changes nothing in these games (every paired difference is 0).")
            continue
        clear = rows[(rows["ci_low"] > 0) | (rows["ci_high"] < 0)]
        largest = rows.loc[rows["diff"].abs().idxmax()]
        where = ", ".join(f"L{level}" for level in clear["level"]) or "no level"
        sentences.append(f"{reading}: Luna's total score moves by up to {abs(largest['diff']):.2f} points (the "
                         f"largest change, {signed(largest['diff'], 2)} at L{largest['level']}); the interval "
                         f"excludes 0 at {where}.")
    return sentences


@styled
def readings_figure(table: pd.DataFrame) -> Figure:
    """Paired differences by level (score, helium, research, CrypCoin) and by round (majority values),
    one series per reading, with their 95 % intervals."""
    figure, axes = new_figure(2, 3, width=13, height=7)
    readings = list(dict.fromkeys(table["reading"]))
    colors = series_colors("reading", readings)
    panels = [(metric, "level") for metric in GAME_METRICS] + [(metric, "round") for metric in ROUND_METRICS]
    offsets = np.linspace(-0.3, 0.3, max(len(readings), 1))
    for ax, (metric, x) in zip(axes.flat, panels, strict=True):
        rows = table[table["metric"] == metric]
        if x == "round":  # the mean over the levels compared, so one line per reading; see ROUND_PANELS_NOTE
            rows = rows.groupby(["reading", "round"], sort=False)[["diff", "ci_low", "ci_high"]].mean().reset_index()
        for offset, reading in zip(offsets, readings, strict=True):
            series = rows[rows["reading"] == reading]
            # arrays: matplotlib reads a one-row Series with float(), which pandas 2.2 deprecates
            centre = series["diff"].to_numpy(dtype=float)
            errors = np.vstack([centre - series["ci_low"].to_numpy(dtype=float),
                                series["ci_high"].to_numpy(dtype=float) - centre])
            ax.errorbar(series[x].to_numpy(dtype=float) + offset, centre, yerr=errors,
                        fmt="o", markersize=3, color=colors[reading], label=reading)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(sorted(rows[x].unique()))
        label = GAME_METRICS.get(metric) or ROUND_METRICS[metric]
        ax.set_title(label if x == "level" else f"{label}, mean over levels", fontsize=9)
        ax.set_xlabel(x)
        ax.set_ylabel("difference (reading - in force)")
    axes[0, 0].legend(fontsize=7)
    return figure


#: What the by-round panels' whiskers are. The levels replay the same game numbers, so their differences are
#: correlated by an amount the table does not hold: the mean's own interval lies somewhere between the averaged
#: bounds (perfect correlation) and 1/sqrt(levels) of their width (none); the averaged bounds never understate it.
ROUND_PANELS_NOTE = ("by round, the mean over the levels compared, its whiskers the levels' 95 % intervals averaged "
                     "(at least as wide as the mean's own interval)")

SECTION_TEXT = ("Each reading of an ambiguous rule (SPEC section 8) against the readings in force: the same games"
                " (same seed and game numbers) played with and without it; differences are per Luna seat and game,"
                " with 95 % intervals. A reading that changes nothing shows 0 with no interval.")


def settings_sentence(data: GameData, levels: Sequence[int], games: int, seed: int, opponents: Sequence[Seat],
                      engine: str, rounds: int, start_bonus: str, board: str, overlay: str | None) -> str:
    """What the compared games were: the seats, games, seed, board, rounds, starting bonus, data and readings in
    force (every difference is against these)."""
    against = f" against {', '.join(seat.label for seat in opponents)}" if opponents else " alone"
    in_force = ", ".join(f"{switch}={reading}" for switch, reading in data.luna.rules.readings().items())
    return (f"Played: Luna{against} at level{'s' if len(levels) > 1 else ''} {', '.join(map(str, levels))}, "
            f"{games} games per level and reading, seed {seed}, the {board} side, {rounds} rounds, starting bonus "
            f"{start_bonus}, {engine} engine, {f'the overlay {overlay}' if overlay else 'the shipped data'}; readings "
            f"in force: {in_force}.")


def write_readings_files(table: pd.DataFrame, folder: Path, title: str, settings: str = "") -> None:
    """``readings.csv``, the figure and the report of ``table`` into ``folder``; ``settings`` opens the text."""
    table.to_csv(folder / READINGS_FILE, index=False, lineterminator="\n")
    text = " ".join(part for part in (settings, SECTION_TEXT, *findings(table)) if part)
    write_report(folder, {"readings_score": summary_table(table), "readings": table},
                 {"readings": readings_figure(table)}, title=title,
                 sections=[Section("readings", "Rule readings", text, ("readings_score", "readings"))],
                 captions={"readings": "What each rule reading changes (paired differences, 95 % intervals; "
                                       f"{ROUND_PANELS_NOTE})"})


def run_readings_dir(data: GameData, levels: Sequence[int], games: int, seed: int, out: str | Path,
                     opponents: Sequence[Seat] = (), engine: str = DEFAULT_ENGINE, rounds: int = ROUNDS,
                     start_bonus: str = DEFAULT_START_BONUS, overlay: str | None = None,
                     progress: Callable[[int], None] | None = None, board: str = DEFAULT_BOARD) -> Path:
    """Compare the readings and write ``out`` atomically (built beside it, moved into place when complete).

    Raises
    ------
    sim.run.OutputPathError
        No directory can be written at ``out`` (checked before any game is played).
    """
    out = Path(out)
    started = time.perf_counter()
    with output_directory(out, "readings", inputs=(overlay,)) as temporary:
        table = compare_readings(data, levels, games, seed, opponents, engine, rounds, start_bonus, progress, board)
        settings = settings_sentence(data, levels, games, seed, opponents, engine, rounds, start_bonus, board, overlay)
        write_readings_files(table, temporary, "Luna: what each rule reading changes", settings)
        manifest = {"config": {"levels": list(levels), "games": games, "seed": seed,
                               "seats": [seat.label for seat in opponents], "engine": engine, "rounds": rounds,
                               "start_bonus": start_bonus, "board": board, "overlay": overlay},
                    "readings_in_force": data.luna.rules.readings(), "compared": readings_to_compare(data),
                    "data": {"digest": data.digest, "sources": list(data.sources)}, "versions": package_versions(),
                    "seconds": round(time.perf_counter() - started, 3)}
        (temporary / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    return out
