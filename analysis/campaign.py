"""The campaign's output directory: per-chapter and per-campaign tables, the figures and the report.

``luna-balance campaign ... --out DIR`` writes, atomically (built beside ``DIR``, moved into place when
complete, like a run directory):

* ``chapters.parquet``: one row per campaign, chapter and seat: the chapter's game number, Luna's level,
  the seat's score, rank, win share and bonus markers placed, its SP (by rank, bonus-marker category,
  Luna's level decision) and the people's decision after the chapter;
* ``campaigns.parquet`` and ``campaigns.csv``: one row per campaign and seat: SP total, campaign rank and
  win share (1/k for a k-way tie), Luna's level in the last chapter;
* ``manifest.json``: options, seeds, engine, data digest, package versions;
* ``report.md``, ``report.html``, ``tables/*.csv``, ``figures/*``: the answer to "at which level does Luna
  settle and how often does the player win the campaign", the share of campaigns at each level in each
  chapter (heatmap), win rates per chapter, SP distributions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.intervals import wilson_interval
from analysis.plotting import new_figure, series_colors, styled
from analysis.render import Section, write_report
from sim.campaign import CHOICES, GAME_FIELDS, CampaignData, CampaignOptions, CampaignResult, run_campaigns
from sim.constants import LEVELS
from sim.gamedata import GameData
from sim.outputs import CAMPAIGNS_CSV, CAMPAIGNS_FILE, CHAPTERS_FILE, MANIFEST_FILE
from sim.run import output_directory, package_versions

LEVEL_COLUMNS = tuple(f"level_{level}" for level in LEVELS)


# ---------------------------------------------------------------- tables

def chapter_rows(result: CampaignResult) -> pd.DataFrame:
    """One row per campaign, chapter and seat (see the module docstring)."""
    n, chapters, n_seats = result.games["rank"].shape
    labels = np.array(result.options.seat_labels)
    index = np.indices((n, chapters, n_seats)).reshape(3, -1)
    frame = pd.DataFrame({
        "campaign": index[0], "chapter": index[1] + 1, "seat": index[2], "label": labels[index[2]],
        "game": result.game.reshape(-1).repeat(n_seats), "level": result.level.reshape(-1).repeat(n_seats),
    })
    for name in GAME_FIELDS:
        frame[name] = result.games[name].reshape(-1)
    frame["sp_rank"] = result.sp_rank.reshape(-1)
    frame["sp_bonus_markers"] = result.sp_bonus.reshape(-1)
    frame["sp_level"] = result.sp_level.reshape(-1)
    frame["sp"] = result.sp.reshape(-1)
    frame["decision"] = np.array(CHOICES)[result.choice.reshape(-1).repeat(n_seats)]
    return frame


def campaign_rows(result: CampaignResult) -> pd.DataFrame:
    """One row per campaign and seat: SP total, campaign rank and win share, Luna's last level."""
    n, n_seats = result.sp_total.shape
    index = np.indices((n, n_seats)).reshape(2, -1)
    return pd.DataFrame({
        "campaign": index[0], "seat": index[1], "label": np.array(result.options.seat_labels)[index[1]],
        "sp_total": result.sp_total.reshape(-1), "campaign_rank": result.campaign_rank.reshape(-1),
        "campaign_won": result.campaign_won.reshape(-1), "last_level": result.level[:, -1].repeat(n_seats),
    })


def level_by_chapter(result: CampaignResult) -> pd.DataFrame:
    """Share of campaigns with Luna at each level in each chapter, and the mean level."""
    counts = np.stack([np.bincount(result.level[:, c], minlength=len(LEVELS)) for c in range(result.level.shape[1])])
    frame = pd.DataFrame(counts / result.level.shape[0], columns=list(LEVEL_COLUMNS))
    frame.insert(0, "chapter", np.arange(1, counts.shape[0] + 1))
    frame["mean_level"] = result.level.mean(axis=0)
    return frame


def _with_interval(frame: pd.DataFrame, wins: np.ndarray, trials: int, column: str) -> pd.DataFrame:
    low, high = wilson_interval(wins, trials)
    frame[column], frame[f"{column}_low"], frame[f"{column}_high"] = wins / trials, low, high
    return frame


def win_rates_by_chapter(result: CampaignResult) -> pd.DataFrame:
    """Each seat's win rate (shared wins count 1/k) and mean SP in each chapter, with Wilson 95 % intervals."""
    n, chapters, n_seats = result.games["won"].shape
    chapter, seat = (axis.reshape(-1) for axis in np.indices((chapters, n_seats)))
    frame = pd.DataFrame({"chapter": chapter + 1, "seat": seat, "label": np.array(result.options.seat_labels)[seat],
                          "campaigns": n})
    frame = _with_interval(frame, result.games["won"].sum(axis=0).reshape(-1), n, "win_rate")
    frame["mean_sp"] = result.sp.mean(axis=0).reshape(-1)
    return frame


def campaign_summary(result: CampaignResult) -> pd.DataFrame:
    """Per seat: SP total (mean, sd, min, max) and the share of campaigns it won, with a Wilson interval."""
    totals, n = result.sp_total, result.sp_total.shape[0]
    frame = pd.DataFrame({"seat": np.arange(totals.shape[1]), "label": list(result.options.seat_labels),
                          "campaigns": n, "mean_sp": totals.mean(axis=0),
                          "sd_sp": totals.std(axis=0, ddof=1) if n > 1 else np.nan,
                          "min_sp": totals.min(axis=0), "max_sp": totals.max(axis=0)})
    return _with_interval(frame, result.campaign_won.sum(axis=0), n, "campaign_win_rate")


def sp_distribution(result: CampaignResult) -> pd.DataFrame:
    """Share of campaigns with each SP total, per seat."""
    rows = []
    for seat, label in enumerate(result.options.seat_labels):
        values, counts = np.unique(result.sp_total[:, seat], return_counts=True)
        rows += [{"seat": seat, "label": label, "sp_total": int(v), "campaigns": int(c),
                  "share": c / result.sp_total.shape[0]} for v, c in zip(values, counts, strict=True)]
    return pd.DataFrame(rows)


def decisions_by_chapter(result: CampaignResult) -> pd.DataFrame:
    """Share of campaigns with each decision after each chapter but the last."""
    chapters = result.choice.shape[1] - 1
    counts = np.stack([np.bincount(result.choice[:, c], minlength=len(CHOICES)) for c in range(chapters)]) \
        if chapters else np.zeros((0, len(CHOICES)), dtype=np.int64)
    frame = pd.DataFrame(counts / result.choice.shape[0], columns=list(CHOICES)).drop(columns="none")
    frame.insert(0, "after_chapter", np.arange(1, chapters + 1))
    return frame.loc[:, (frame != 0).any(axis=0) | (frame.columns == "after_chapter")]


def calibration_table(result: CampaignResult) -> pd.DataFrame:
    """Luna's measured win rate per level (``toward`` only), with Wilson intervals."""
    games = result.options.calibration_games
    frame = pd.DataFrame({"level": list(LEVELS), "games": games})
    return _with_interval(frame, np.asarray(result.win_rate) * games, games, "luna_win_rate")


def percent_of(count: int, total: int, decimals: int = 0) -> str:
    """``count`` of ``total`` as a percentage to ``decimals``, a half rounded up, worked out in integers.

    Formatting the float share rounds the exact halves a count of campaigns often gives both ways: ``9 / 40`` is
    22.5 % and ``f"{9 / 40:.0%}"`` gives the even 22 %, while ``111 / 200`` is stored a hair above 0.555 and gives
    56 %. The integers have no such hair, so every half goes up.
    """
    scale = 10**decimals
    rounded = (200 * scale * int(count) + int(total)) // (2 * int(total))  # 100 * scale * count / total, halves up
    whole, part = divmod(rounded, scale)
    return f"{whole}.{part:0{decimals}d}%" if decimals else f"{whole}%"


def seat_names(labels: Sequence[str]) -> list[str]:
    """Each seat's label, with its seat number where two seats share one (``scripted:balanced (seat 1)``)."""
    return [f"{label} (seat {seat})" if labels.count(label) > 1 else label for seat, label in enumerate(labels)]


def answer(result: CampaignResult) -> str:
    """The designer's question in one sentence: where Luna settles and how often each person wins."""
    options, levels = result.options, result.level[:, -1]
    counts = np.bincount(levels, minlength=len(LEVELS))
    modes = np.flatnonzero(counts == counts.max())  # a tie names every level that shares the most campaigns
    mode = " and ".join(", ".join(str(level) for level in modes).rsplit(", ", 1))
    people = [seat for seat in range(len(options.seats)) if seat != options.luna_seat]
    won = result.campaign_won.sum(axis=0)
    low, high = wilson_interval(won, len(levels))
    names = seat_names(list(options.seat_labels))
    who = "; ".join(f"{names[seat]} wins the campaign in {won[seat] / len(levels):.1%} of them "
                    f"(95 % interval {low[seat]:.1%}-{high[seat]:.1%})" for seat in people)
    luna = won[options.luna_seat] / len(levels)
    # beside her campaigns: her fixed SP can win her campaigns out of all proportion to her games (a QA pass saw
    # 100 % of the campaigns from about half of the chapters), which the designer should see at once
    luna_chapters = result.games["won"][:, :, options.luna_seat].mean()
    chapters = f"{options.chapters} chapter{'s' if options.chapters > 1 else ''}"
    return (f"Against {', '.join(names[seat] for seat in people)}, starting at level "
            f"{result.level[0, 0]} with policy {options.policy.label} over {chapters}, Luna plays "
            f"the last chapter most often at level{'s' if len(modes) > 1 else ''} {mode} "
            f"({percent_of(counts[modes[0]], len(levels))} of {len(levels)} campaigns"
            f"{' each' if len(modes) > 1 else ''}; "
            f"mean level {levels.mean():.2f}); {who}; Luna wins {luna:.1%} (and {luna_chapters:.1%} of the "
            "chapters).")


# ---------------------------------------------------------------- figures

@styled
def plot_level_trajectories(levels: pd.DataFrame, campaigns: int) -> Figure:
    """Heatmap of the share of campaigns at each level (rows) in each chapter (columns), numbers in the cells.

    ``levels`` is :func:`level_by_chapter`'s table of ``campaigns`` campaigns; the cells' numbers are worked out
    from the counts of campaigns (see :func:`percent_of`).
    """
    grid = levels[list(LEVEL_COLUMNS)].to_numpy(dtype=float).T
    counts = np.rint(grid * campaigns).astype(np.int64)  # each share is a count over campaigns
    figure, axes = new_figure(width=max(4.5, 1.0 + 0.8 * grid.shape[1]))
    ax = axes[0, 0]
    image = ax.imshow(grid, aspect="auto", cmap="Blues", origin="lower", vmin=0.0, vmax=1.0)
    ax.set_xticks(np.arange(grid.shape[1]), labels=[str(c) for c in levels["chapter"]])
    ax.set_yticks(np.arange(len(LEVELS)), labels=[str(level) for level in LEVELS])
    ax.grid(False)
    ax.plot(np.arange(grid.shape[1]), levels["mean_level"], color="black", marker="o", linewidth=1.0, alpha=0.7)
    ax.set_xlabel("Chapter")
    ax.set_ylabel("Luna's level")
    ax.set_title("Share of campaigns at each level (line: mean level)")
    figure.colorbar(image, ax=ax, label="Share of campaigns")
    if grid.size <= 400:
        for (row, col), count in np.ndenumerate(counts):
            if count > 0:
                label = "<1%" if 200 * count < campaigns else percent_of(count, campaigns)  # below 0.5 %
                ax.text(col, row, label, ha="center", va="center", fontsize=7,
                        color="white" if grid[row, col] > 0.6 else "black")
    return figure


@styled
def plot_sp_distribution(distribution: pd.DataFrame) -> Figure:
    """Bars of the share of campaigns with each SP total, one colour per seat."""
    figure, axes = new_figure()
    ax = axes[0, 0]
    # one series per seat: two seats of one label drew their bars over each other under one legend entry
    seats = distribution.drop_duplicates("seat").sort_values("seat")
    names = dict(zip(seats["seat"], seat_names(list(seats["label"])), strict=True))
    colors = series_colors("label", list(names.values()))
    width = 0.8 / max(len(names), 1)
    for position, (seat, name) in enumerate(names.items()):
        rows = distribution[distribution["seat"] == seat]
        ax.bar(rows["sp_total"] + (position - (len(names) - 1) / 2) * width, rows["share"], width=width,
               color=colors[name], label=name)
    ax.set_xlabel("Success points in the campaign")
    ax.set_ylabel("Share of campaigns")
    ax.set_title("SP totals per seat")
    ax.legend()
    return figure


# ---------------------------------------------------------------- the directory

SECTIONS = (
    Section("answer", "Where Luna settles", "", ("level_trajectories", "level_by_chapter", "decisions_by_chapter")),
    Section("campaign", "Who wins the campaign", "", ("campaign_summary", "sp_distribution")),  # campaign_text
    Section("chapters", "Chapters", "Each seat's win rate in each chapter's game (a shared win counts 1/k) and its"
            " mean SP in that chapter.", ("win_rates_by_chapter",)),
    Section("calibration", "Measured win rates (toward:<p>)",
            "Luna's win rate (rank 1) per level against the same seats, measured before the campaigns; the policy"
            " takes an offered change when it brings this rate closer to p.", ("calibration",)),
)


def campaign_text(result: CampaignResult) -> str:
    """The "Who wins the campaign" section's text, from the SP rules the campaigns were played under (an overlay's
    ``[campaign]`` table included)."""
    rules, seats = result.rules, len(result.options.seats)
    by_rank = list(rules.sp_by_rank[:seats])
    luna = rules.luna
    # a Luna kept at her level after a lost chapter, in last place, against the most the seat that beat her gets
    kept_last = by_rank[-1] + luna.bonus_marker_sp + luna.kept_after_loss_sp
    winner_most = by_rank[0] + rules.bonus_marker_sp
    last = (f" With {seats} seats, a Luna kept at her level after losing a chapter in last place earns {kept_last} SP"
            f" for it, more than the {winner_most} at most of the seat that won it: she can win a campaign without"
            " winning a chapter." if kept_last > winner_most else "")
    return ("SP totals per seat; the campaign's winner has the most SP (a k-way tie counts 1/k). Intervals: Wilson"
            f" score 95 %. SP by rank ({', '.join(map(str, by_rank))} for ranks 1-{seats}) and the bonus-marker"
            f" category ({rules.bonus_marker_sp} SP) are modelled (campaign.toml); the base game's other SP"
            f" categories are not, so Luna's fixed SP (+{luna.bonus_marker_sp} always, +{luna.lowered_sp} when"
            f" lowered, +{luna.kept_after_loss_sp} when kept after a loss) weigh more here than at a real table.{last}")


def settings_sentence(result: CampaignResult, overlay: str | None) -> str:
    """What every chapter's game was: the board, rounds, starting bonus, engine, seed and data."""
    options = result.options
    data = f"the overlay {overlay}" if overlay else "the shipped data"
    return (f"Each chapter is one game on the {options.board} side, {options.rounds} rounds, starting bonus "
            f"{options.start_bonus}, {options.engine} engine, seed {options.seed}, with {data}.")


def _manifest(result: CampaignResult, data: GameData, seconds: float, overlay: str | None) -> dict:
    options = result.options
    return {
        "config": {"seats": list(options.seat_labels), "chapters": options.chapters,
                   "start_level": options.start_level, "policy": options.policy.label, "campaigns": options.campaigns,
                   "seed": options.seed, "rounds": options.rounds, "start_bonus": options.start_bonus,
                   "board": options.board, "engine": options.engine, "overlay": overlay,
                   "calibration_games": options.calibration_games if options.policy.kind == "toward" else None},
        "campaign_rules": result.rules.model_dump(),
        "data": {"digest": data.digest, "sources": list(data.sources)},
        "versions": package_versions(),
        "seconds": round(seconds, 3),
    }


def write_campaign_files(result: CampaignResult, folder: Path, overlay: str | None = None) -> None:
    """Write the tables, figures and report of ``result`` into ``folder`` (no manifest)."""
    chapter_rows(result).to_parquet(folder / CHAPTERS_FILE, index=False)
    campaigns = campaign_rows(result)
    campaigns.to_parquet(folder / CAMPAIGNS_FILE, index=False)
    campaigns.to_csv(folder / CAMPAIGNS_CSV, index=False, lineterminator="\n")
    levels = level_by_chapter(result)
    distribution = sp_distribution(result)
    tables = {"level_by_chapter": levels, "decisions_by_chapter": decisions_by_chapter(result),
              "campaign_summary": campaign_summary(result), "sp_distribution": distribution,
              "win_rates_by_chapter": win_rates_by_chapter(result)}
    if result.win_rate is not None:
        tables["calibration"] = calibration_table(result)
    figures = {"level_trajectories": plot_level_trajectories(levels, result.level.shape[0]),
               "sp_distribution": plot_sp_distribution(distribution)}
    sentence = answer(result)
    texts = {"answer": sentence, "campaign": campaign_text(result)}
    sections = [Section(s.id, s.title, texts[s.id], s.items) if s.id in texts else s for s in SECTIONS]
    write_report(folder, tables, figures, title="Luna campaign", sections=sections,
                 introduction=f"{sentence} {settings_sentence(result, overlay)}",
                 captions={"level_trajectories": "Share of campaigns with Luna at each level in each chapter",
                           "sp_distribution": "SP totals per seat"})


def run_campaign_dir(data: GameData, rules: CampaignData, options: CampaignOptions, out: str | Path,
                     overlay: str | None = None, progress: Callable[[int], None] | None = None) -> tuple[Path, str]:
    """Play the campaigns and write the output directory ``out`` atomically.

    Returns the directory and the answer sentence. ``out`` is checked before any game is played.

    Raises
    ------
    sim.run.OutputPathError
        No directory can be written at ``out``.
    """
    out = Path(out)
    started = time.perf_counter()
    with output_directory(out, "campaign", inputs=(overlay,)) as temporary:
        result = run_campaigns(data, rules, options, progress=progress)
        write_campaign_files(result, temporary, overlay)
        manifest = _manifest(result, data, time.perf_counter() - started, overlay)
        (temporary / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n")
    return out, answer(result)
