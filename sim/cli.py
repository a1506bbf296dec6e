"""The ``luna-balance`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# The study's plan module imports no pandas or matplotlib, so building the parser stays cheap.
from analysis.study.plan import DEFAULT_GAMES, DEFAULT_NAME, DEFAULT_RESULTS, DEFAULT_SEED
from sim.config import DEFAULT_START_BONUS, ConfigError, GameConfig, parse_levels, parse_seats
from sim.constants import (
    ALLOWED_ROUNDS,
    BACKENDS,
    DEFAULT_CHUNK_GAMES,
    MAX_LEVEL,
    MIN_LEVEL,
    ROUNDS,
    SINGULARITY_ROUNDS,
    START_BONUS_CHOICES,
)
from sim.engines import ENGINES
from sim.gamedata import DataError, load_game_data
from sim.progress import progress_bar

EXIT_USAGE = 2
_ALL_LEVELS = f"{MIN_LEVEL}-{MAX_LEVEL}"


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"luna-balance: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=1, help="run seed (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, choices=ALLOWED_ROUNDS,
                        help=f"{ROUNDS}, or {SINGULARITY_ROUNDS} for the threat card Singularity")
    parser.add_argument("--start-bonus", default=DEFAULT_START_BONUS, choices=START_BONUS_CHOICES,
                        help="Luna's starting research token: drawn at random, or none")
    parser.add_argument("--overlay", default=None, help="TOML file replacing parts of the shipped data")
    parser.add_argument("--engine", default="numba", choices=ENGINES,
                        help="numba (default, fast) or reference (readable); both give identical numbers")
    parser.add_argument("--workers", type=int, default=1, help="processes (joblib); results do not depend on it")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_GAMES,
                        help="games per chunk written (default %(default)s)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="luna-balance", description="Monte Carlo balance analysis for Luna (Skymines).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    simulate = commands.add_parser("simulate", help="play games and write a run directory")
    simulate.add_argument("--seats", required=True, help="e.g. luna:5 or scripted:passive,luna:3,luna:5")
    simulate.add_argument("--games", type=int, required=True)
    simulate.add_argument("--out", required=True, help="run directory to write")
    simulate.add_argument("--detail", choices=("rounds",), default=None,
                          help="also write luna_rounds.parquet (one row per game, Luna seat and round)")
    simulate.add_argument("--aggregate-only", action="store_true",
                          help="keep streaming summaries (aggregate.parquet, histograms.parquet), not per-game rows")
    simulate.add_argument("--backend", default="local", choices=BACKENDS,
                          help="where chunks run: local processes (joblib) or a Dask cluster")
    simulate.add_argument("--scheduler", default=None, help="Dask scheduler address, with --backend dask")
    _add_game_options(simulate)

    parity = commands.add_parser("parity", help="strength at which a scripted profile wins half its games, per level")
    parity.add_argument("--profile", required=True, help="scripted profile, e.g. balanced")
    parity.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8")
    parity.add_argument("--games", type=int, default=20_000, help="games per strength tried (default %(default)s)")
    parity.add_argument("--tolerance", type=float, default=0.01, help="bisection stops at this strength width")
    parity.add_argument("--csv", default=None, help="also write the table to this CSV file")
    _add_game_options(parity)

    levels = commands.add_parser("levels", help="play single-Luna games at each level and print a summary table")
    levels.add_argument("--games", type=int, default=2_000, help="games per level (default %(default)s)")
    levels.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8")
    levels.add_argument("--out", default=None, help="keep the run directories under this folder")
    _add_game_options(levels)

    # The study's runner and report (pandas, matplotlib) are imported only when these commands run.
    study = commands.add_parser("study", help="play a whole balance study and write its report (resumable)")
    _add_study_arguments(study)
    report = commands.add_parser("report", help="rebuild a study's tables, figures and report from its stored runs")
    report.add_argument("study_dir", metavar="DIR", help="study directory written by luna-balance study")
    return parser


def _add_study_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=DEFAULT_NAME, help="study name: it is written to RESULTS_DIR/NAME")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games per part (default %(default)s)")
    parser.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8 (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="run seed of every part (default %(default)s)")
    parser.add_argument("--variant", action="append", default=[], metavar="FILE",
                        help="overlay TOML replayed for every part with the same seeds (repeatable)")
    parser.add_argument("--engine", default=None, choices=ENGINES,
                        help="default: numba when it is available, else reference")
    parser.add_argument("--workers", type=int, default=1, help="processes (joblib); results do not depend on it")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    parser.add_argument("--results-dir", default=DEFAULT_RESULTS,
                        help="parent directory of the study (default %(default)s)")
    parser.add_argument("--keep-games", action="store_true",
                        help="also keep every part's per-game rows (seats.parquet, luna_rounds.parquet)")


def study_command_line(args: argparse.Namespace) -> str:
    """The ``luna-balance study`` command that repeats this study, recorded in ``study.json``."""
    words = ["luna-balance", "study", "--name", args.name, "--games", str(args.games), "--levels", args.levels,
             "--seed", str(args.seed)]
    for path in args.variant:
        words += ["--variant", path]
    if args.engine:
        words += ["--engine", args.engine]
    words += ["--results-dir", args.results_dir]
    if args.keep_games:
        words.append("--keep-games")
    return " ".join(words)


def command_study(args: argparse.Namespace) -> int:
    from analysis.study.runner import StudyInterrupted, run_study

    levels = parse_levels(args.levels)
    try:
        files = run_study(name=args.name, games=args.games, levels=levels, seed=args.seed, variants=args.variant,
                          engine=args.engine, workers=args.workers, quiet=args.quiet, results_dir=args.results_dir,
                          command=study_command_line(args), keep_games=args.keep_games)
    except StudyInterrupted as interrupted:
        sys.stderr.write(f"luna-balance: {interrupted}\n")
        return 130
    print(f"wrote {files.html}")
    return 0


def command_report(args: argparse.Namespace) -> int:
    from analysis.study.content import render_study_dir

    files = render_study_dir(args.study_dir)
    print(f"wrote {files.html}")
    return 0


def command_simulate(args: argparse.Namespace) -> int:
    from sim.run import RunOptions, run_simulation

    data = load_game_data(args.overlay)
    config = GameConfig(seats=parse_seats(args.seats, data.players.profiles), rounds=args.rounds,
                        start_bonus=args.start_bonus)
    options = RunOptions(games=args.games, seed=args.seed, engine=args.engine, detail=args.detail == "rounds",
                         chunk_size=args.chunk_size, workers=args.workers, overlay=args.overlay,
                         aggregate_only=args.aggregate_only, backend=args.backend, scheduler=args.scheduler)
    with progress_bar(args.games, args.quiet, "simulate") as bar:
        out = run_simulation(data, config, options, args.out, progress=bar.update)
    print(f"wrote {out}")
    return 0


def command_levels(args: argparse.Namespace) -> int:
    import tempfile

    import pandas as pd

    from sim.run import RunOptions, run_simulation

    data = load_game_data(args.overlay)
    levels = parse_levels(args.levels)
    options = RunOptions(games=args.games, seed=args.seed, engine=args.engine, chunk_size=args.chunk_size,
                         workers=args.workers, overlay=args.overlay)
    base = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="luna-levels-"))
    frames = []
    with progress_bar(args.games * len(levels), args.quiet, "levels") as bar:
        for level in levels:
            config = GameConfig(seats=parse_seats(f"luna:{level}"), rounds=args.rounds, start_bonus=args.start_bonus)
            out = run_simulation(data, config, options, base / f"level-{level}", progress=bar.update)
            frames.append(pd.read_parquet(out / "seats.parquet"))
    seats = pd.concat(frames, ignore_index=True)
    table = seats.groupby("level").agg(
        games=("game", "size"), helium=("helium", "mean"), research=("research", "mean"), cash=("cash", "mean"),
        score_total=("score_total", "mean"), score_sd=("score_total", "std"), reshuffles=("reshuffles", "mean"),
        grade2_entered=("grade2_entered", "mean"))
    print(f"Single-Luna games per level: {args.games}, seed {args.seed}, start bonus {args.start_bonus}, "
          f"engine {args.engine}")
    print(table.round(2).to_string())
    if not args.out:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 0


def command_parity(args: argparse.Namespace) -> int:
    from analysis.parity import parity_table

    data = load_game_data(args.overlay)
    if args.profile not in data.players.profiles:
        raise ConfigError(f"--profile: unknown scripted profile {args.profile!r} "
                          f"(known: {', '.join(sorted(data.players.profiles))})")
    if data.players.profiles[args.profile].passive:
        raise ConfigError(f"--profile: {args.profile!r} is passive and never wins; choose an active profile")
    if args.games < 1:
        raise ConfigError(f"--games: must be at least 1, got {args.games}")
    levels = parse_levels(args.levels)
    with progress_bar(len(levels), args.quiet, "parity") as bar:
        table = parity_table(data, args.profile, levels, args.games, args.seed, args.engine,
                             tolerance=args.tolerance, progress=bar.update, rounds=args.rounds,
                             start_bonus=args.start_bonus)
    print(f"Strength at parity of scripted:{args.profile} against Luna ({args.games} games per strength, "
          f"seed {args.seed}, common random numbers; 95% interval low-high)")
    print(table.to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"simulate": command_simulate, "levels": command_levels, "study": command_study,
                "report": command_report, "parity": command_parity}
    try:
        return handlers[args.command](args)
    except DataError as error:
        for line in error.problems:
            sys.stderr.write(f"luna-balance: {line}\n")
        return EXIT_USAGE
    except (ConfigError, ValueError, FileExistsError) as error:
        sys.stderr.write(f"luna-balance: {error}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("luna-balance: interrupted; nothing half-written was left behind\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
