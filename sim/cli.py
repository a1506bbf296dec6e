"""The ``luna-balance`` command line."""

from __future__ import annotations

if __name__ == "__main__":  # python -m sim.cli: the script (sim/entry.py), which handles stop signals before importing
    import runpy  # the modules below (a good part of a second); its SystemExit ends the process here
    runpy.run_module("sim", run_name="__main__", alter_sys=True)

import argparse
import shlex
import signal
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

# The study's plan module imports no pandas or matplotlib, so building the parser stays cheap.
from analysis.study.plan import (
    DEFAULT_GAMES,
    DEFAULT_NAME,
    DEFAULT_PARITY_GAMES,
    DEFAULT_READINGS_GAMES,
    DEFAULT_RESULTS,
    DEFAULT_SEED,
    DEFAULT_STRENGTHS,
    PARITY_COMMAND_GAMES,
    PARITY_TOLERANCE,
    STUDY_FILE,
    StudyError,
    parse_profiles,
    parse_strengths,
)

# Pandas-free too: the sensitivity command's options and defaults (its measurement is imported when it runs).
from analysis.tuning.options import DEFAULT_GAMES as SENSITIVITY_GAMES
from analysis.tuning.options import DEFAULT_OPPONENT as SENSITIVITY_OPPONENT
from analysis.tuning.options import DEFAULT_SEED as SENSITIVITY_SEED
from analysis.tuning.options import SensitivityOptions, parse_opponent
from sim.cli_checks import (
    INPUT_FILES,
    check_csv_path,
    check_options,
    check_output_places,
    check_report_out,
    clamp_workers,
)
from sim.config import (
    DEFAULT_START_BONUS,
    MIN_INTERVAL_GAMES,
    ConfigError,
    GameConfig,
    parse_levels,
    parse_seats,
    strength_label,
)
from sim.constants import (
    ALLOWED_ROUNDS,
    BACKENDS,
    BOARDS,
    CHUNK_MEMORY_BYTES,
    DEFAULT_BACKEND,
    DEFAULT_BOARD,
    DEFAULT_CALIBRATION_GAMES,
    DEFAULT_RUN_SEED,
    DEFAULT_WORKERS,
    DETAIL_ROUNDS,
    MAX_LEVEL,
    MAX_SEATS,
    MIN_LEVEL,
    ROUNDS,
    SINGULARITY_ROUNDS,
    START_BONUS_CHOICES,
)
from sim.engines import DEFAULT_ENGINE, ENGINES, set_compile_notice
from sim.gamedata import DataError, load_game_data
from sim.outputs import DEFAULT_REPORT_TITLE, HTML_FILE
from sim.progress import progress_bar
from sim.shutdown import EXIT_ENGINE, EXIT_USAGE, EXIT_WORKER_DIED
from sim.stop_signals import announce_written, interrupted_exit_code, stop_signals_as_interrupts
from sim.violation import InvariantError

_ALL_LEVELS = f"{MIN_LEVEL}-{MAX_LEVEL}"
_DEFAULT_STRENGTHS = ",".join(map(strength_label, DEFAULT_STRENGTHS))


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage problem as one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"luna-balance: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _add_table_options(parser: argparse.ArgumentParser) -> None:
    """What is played besides the seats: the rounds, Luna's starting bonus and the side of the board."""
    parser.add_argument("--rounds", type=int, default=ROUNDS, choices=ALLOWED_ROUNDS,
                        help=f"{ROUNDS}, or {SINGULARITY_ROUNDS} for the threat card Singularity (default %(default)s)")
    parser.add_argument("--start-bonus", default=DEFAULT_START_BONUS, choices=START_BONUS_CHOICES,
                        help="the starting research tokens: random (each seat draws one in seat order, Luna from "
                             "the spare ones, EN 35; a scripted seat applies its bonus to its own markers) or none "
                             "(default %(default)s)")
    parser.add_argument("--board", default=DEFAULT_BOARD, choices=BOARDS,
                        help="side of the board: moon (default) or belt (the Belt module)")


def _add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", default=DEFAULT_ENGINE, choices=ENGINES,
                        help="numba (fast) or reference (readable); both give identical numbers (default %(default)s)")


# --quiet on a command that plays games: it also silences the first compile's notice (main: set_compile_notice).
_QUIET_HELP = "no progress bar or compile notice"


def _workers_help(dask: bool) -> str:
    """--workers: joblib processes, and with a Dask backend how many of the cluster's workers (sim.dispatch)."""
    if dask:
        return (f"processes (joblib; default {DEFAULT_WORKERS}), or with --backend dask the Dask workers to use "
                "(default: the whole cluster); results do not depend on it")
    return "processes (joblib; default %(default)s); results do not depend on it"


def _add_game_options(parser: argparse.ArgumentParser, chunks: bool = True, dask: bool = False) -> None:
    """Seed, table options, overlay, engine, quiet; with ``chunks`` also how the games are split up (``dask``: the
    command has --backend, which changes what --workers counts)."""
    parser.add_argument("--seed", type=int, default=DEFAULT_RUN_SEED, help="run seed (default %(default)s)")
    _add_table_options(parser)
    parser.add_argument("--overlay", default=None, help="TOML file replacing parts of the shipped data")
    _add_engine_option(parser)
    if chunks:
        parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help=_workers_help(dask))
        parser.add_argument("--chunk-size", type=int, default=None,
                            help=f"games per chunk written (default: as many as fit a chunk's columns in "
                                 f"{CHUNK_MEMORY_BYTES // 2**20} MiB)")
    parser.add_argument("--quiet", action="store_true", help=_QUIET_HELP)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="luna-balance", description="Monte Carlo balance analysis for Luna (Skymines).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    simulate = commands.add_parser("simulate", help="play games and write a run directory")
    simulate.add_argument("--seats", required=True, help="e.g. luna:5 or scripted:passive,luna:3,luna:5")
    simulate.add_argument("--games", type=int, required=True, help="games to play")
    simulate.add_argument("--out", required=True, help="run directory to write")
    simulate.add_argument("--detail", choices=(DETAIL_ROUNDS,), default=None,
                          help="also write luna_rounds.parquet (one row per game, Luna seat and round)")
    simulate.add_argument("--aggregate-only", action="store_true",
                          help="keep streaming summaries (aggregate.parquet, histograms.parquet), not per-game rows")
    simulate.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                          help="where chunks run: local processes (joblib) or a Dask cluster (default %(default)s)")
    simulate.add_argument("--scheduler", default=None, help="Dask scheduler address, with --backend dask")
    simulate.add_argument("--check-invariants", action="store_true",
                          help="check every game's invariants after setup, each round and scoring; the first "
                               f"broken one stops the run (exit {EXIT_ENGINE}, nothing written)")
    _add_game_options(simulate, dask=True)

    parity = commands.add_parser("parity", help="strength at which a scripted profile wins half its games, per level")
    parity.add_argument("--profile", required=True, help="scripted profile, e.g. balanced")
    parity.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8 (default %(default)s)")
    parity.add_argument("--games", type=int, default=PARITY_COMMAND_GAMES,
                        help="games per strength tried (default %(default)s)")
    parity.add_argument("--tolerance", type=float, default=PARITY_TOLERANCE,
                        help="bisection stops at this strength width (default %(default)s)")
    parity.add_argument("--csv", default=None, help="also write the table to this CSV file")
    _add_game_options(parity, chunks=False)  # its searches play in this process, in one chunk per strength

    levels = commands.add_parser("levels", help="play single-Luna games at each level and print a summary table")
    levels.add_argument("--games", type=int, default=2_000, help="games per level (default %(default)s)")
    levels.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8 (default %(default)s)")
    levels.add_argument("--out", default=None, help="keep the run directories under this folder")
    _add_game_options(levels)

    campaign = commands.add_parser("campaign", help="play campaigns: chapters, SP, Luna's level changes")
    _add_campaign_arguments(campaign)

    # The study's runner and report (pandas, matplotlib) are imported only when these commands run.
    study = commands.add_parser("study", help="play a whole balance study and write its report (resumable)")
    _add_study_arguments(study)
    report = commands.add_parser("report", help="rebuild a study's tables, figures and report from its stored runs")
    report.add_argument("study_dir", metavar="DIR", help="study directory written by luna-balance study")
    readings = commands.add_parser("readings", help="what each rule reading (SPEC 8) changes, per level, paired")
    _add_readings_arguments(readings)
    sensitivity = commands.add_parser("sensitivity", help="one level's parameters changed one at a time: paired "
                                      "effects on Luna's score and win rate")
    _add_sensitivity_arguments(sensitivity)
    runs_report = commands.add_parser("runs-report", help="a report over run directories written by simulate")
    runs_report.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories written by simulate")
    runs_report.add_argument("--out", required=True, help="directory to write the report into")
    runs_report.add_argument("--title", default=DEFAULT_REPORT_TITLE, help="the report's title (default: %(default)s)")
    tune = commands.add_parser("tune", help="move level parameters toward target metrics (a target file; an "
                                            "interrupted tuning leaves nothing and starts over when run again)")
    _add_tune_arguments(tune)
    return parser


def _add_readings_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8 (default %(default)s)")
    parser.add_argument("--games", type=int, default=10_000, help="games per level and reading (default %(default)s)")
    parser.add_argument("--seats", default="", help="seats before Luna, e.g. scripted:balanced (default: Luna alone)")
    parser.add_argument("--out", required=True, help="directory to write (readings.csv, figures, report.html)")
    _add_game_options(parser, chunks=False)  # one process plays a level whole, with and without each reading


def command_readings(args: argparse.Namespace) -> int:
    from analysis.readings import games_to_play, run_readings_dir

    data = load_game_data(args.overlay)
    levels = parse_levels(args.levels)
    if args.games < MIN_INTERVAL_GAMES:
        raise ConfigError(f"--games: at least {MIN_INTERVAL_GAMES} games give an interval, got {args.games}")
    opponents = parse_seats(args.seats, data.players.profiles) if args.seats else ()
    if any(seat.kind == "luna" for seat in opponents):
        raise ConfigError("--seats: only scripted seats sit before Luna here (she is added last, at each level)")
    if len(opponents) >= MAX_SEATS:
        raise ConfigError(f"--seats: at most {MAX_SEATS - 1} scripted seats, got {len(opponents)} (Luna is added "
                          f"as the last of a game's {MAX_SEATS} seats)")
    GameConfig(seats=(*opponents, *parse_seats("luna:0")), rounds=args.rounds, start_bonus=args.start_bonus,
               board=args.board)
    with progress_bar(games_to_play(data, levels, args.games), args.quiet, "readings") as bar:
        out = run_readings_dir(data, levels, args.games, args.seed, args.out, opponents, args.engine, args.rounds,
                               args.start_bonus, args.overlay, progress=bar.update, board=args.board)
    announce_written(out / HTML_FILE)
    return 0


def _add_tune_arguments(parser: argparse.ArgumentParser) -> None:
    from analysis.tuning.search import DEFAULT_TUNE_GAMES, DEFAULT_TUNE_SEED

    parser.add_argument("target", metavar=INPUT_FILES["target"],
                        help="the target file: per level a metric, target, tolerance and the parameters that may move, "
                             "or an even [ladder]")
    parser.add_argument("--out", required=True, help="output directory (tuned.toml, tuning.csv, report.html)")
    parser.add_argument("--games", type=int, default=DEFAULT_TUNE_GAMES,
                        help="games per candidate on a race's last stage (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_TUNE_SEED, help="seed of every game (default %(default)s)")
    parser.add_argument("--overlay", default=None, help="start from this overlay instead of the shipped data")
    _add_engine_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no compile notice or per-race lines")


def _add_campaign_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seats", required=True, help="scripted seats, then luna (its level is the campaign's), "
                        "e.g. scripted:balanced@1,luna")
    parser.add_argument("--start-level", type=int, default=None,
                        help="Luna's first level (default: the rulebook's, campaign.toml's luna.start_level_solo "
                             "against one person, start_level_group against more)")
    parser.add_argument("--chapters", type=int, default=None, help="chapters per campaign (default: campaign.toml)")
    parser.add_argument("--policy", default="adjust",
                        help="adjust, keep, toward:<p> or levels:5,4,4,3 (default %(default)s)")
    parser.add_argument("--campaigns", type=int, default=1_000, help="campaigns to play (default %(default)s)")
    parser.add_argument("--calibration-games", type=int, default=None,
                        help=f"toward:<p> only: games per level measuring Luna's win rate (default "
                             f"{DEFAULT_CALIBRATION_GAMES})")
    parser.add_argument("--out", required=True, help="output directory to write")
    parser.add_argument("--seed", type=int, default=DEFAULT_RUN_SEED, help="run seed (default %(default)s)")
    _add_table_options(parser)
    parser.add_argument("--overlay", default=None, help="TOML file replacing parts of the data, [campaign] too")
    _add_engine_option(parser)
    parser.add_argument("--quiet", action="store_true", help=_QUIET_HELP)


def _add_sensitivity_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", type=int, required=True, help=f"Luna's level, {MIN_LEVEL}-{MAX_LEVEL}")
    parser.add_argument("--opponent", default=SENSITIVITY_OPPONENT,
                        help="scripted:<profile>[@strength], or none for Luna alone (default %(default)s)")
    parser.add_argument("--games", type=int, default=SENSITIVITY_GAMES,
                        help="paired games per change (default %(default)s)")
    parser.add_argument("--seed", type=int, default=SENSITIVITY_SEED,
                        help="run seed of the base and every change (default %(default)s)")
    _add_engine_option(parser)
    parser.add_argument("--cards", action=argparse.BooleanOptionalAction, default=True,
                        help="also change every number on Luna's cards (default: yes)")
    parser.add_argument("--out", required=True, help="output directory to write")
    parser.add_argument("--quiet", action="store_true", help=_QUIET_HELP)


def _add_study_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", default=DEFAULT_NAME,
                        help="study name: it is written to RESULTS_DIR/NAME (default %(default)s)")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games per part (default %(default)s)")
    parser.add_argument("--levels", default=_ALL_LEVELS, help=f"e.g. {_ALL_LEVELS} or 2,5,8 (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="run seed of every part (default %(default)s)")
    parser.add_argument("--variant", action="append", default=[], metavar="FILE",
                        help="overlay TOML replayed for every part with the same seeds (repeatable)")
    parser.add_argument("--engine", default=None, choices=ENGINES,
                        help="default: numba when it is available, else reference")
    parser.add_argument("--profiles", default=None,
                        help="scripted profiles that play every level, e.g. balanced,tank (default: all but passive)")
    parser.add_argument("--strengths", default=_DEFAULT_STRENGTHS,
                        help="strengths each profile plays at, e.g. 0.8,1,1.2 (default %(default)s)")
    _add_table_options(parser)
    parser.add_argument("--parity", action="store_true",
                        help="also find each profile's strength at parity per level (a report section)")
    parser.add_argument("--parity-games", type=int, default=None,
                        help=f"games per strength tried, with --parity (default {DEFAULT_PARITY_GAMES})")
    parser.add_argument("--readings", action="store_true",
                        help="also compare every rule reading (SPEC 8) per level, Luna alone (a report section)")
    parser.add_argument("--readings-games", type=int, default=None,
                        help=f"games per level and reading, with --readings (default {DEFAULT_READINGS_GAMES})")
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help=_workers_help(dask=True))
    parser.add_argument("--backend", default=DEFAULT_BACKEND, choices=BACKENDS,
                        help="where the games run: local processes (joblib) or a Dask cluster (default %(default)s)")
    parser.add_argument("--scheduler", default=None, help="Dask scheduler address, with --backend dask")
    parser.add_argument("--quiet", action="store_true", help="no progress bar or messages")
    parser.add_argument("--results-dir", default=DEFAULT_RESULTS,
                        help="parent directory of the study (default %(default)s)")
    parser.add_argument("--keep-games", action="store_true",
                        help="also keep every part's per-game rows (seats.parquet, luna_rounds.parquet)")


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """The study options of the command line, parsed and checked (one-line errors naming the option)."""
    if args.parity_games is not None and not args.parity:
        raise StudyError("--parity-games: only with --parity")
    if args.readings_games is not None and not args.readings:
        raise StudyError("--readings-games: only with --readings")
    readings_games = (DEFAULT_READINGS_GAMES if args.readings_games is None else args.readings_games) if args.readings \
        else 0
    return {"profiles": None if args.profiles is None else parse_profiles(args.profiles),
            "strengths": parse_strengths(args.strengths), "rounds": args.rounds, "start_bonus": args.start_bonus,
            "board": args.board, "parity": args.parity,
            "parity_games": DEFAULT_PARITY_GAMES if args.parity_games is None else args.parity_games,
            "backend": args.backend, "scheduler": args.scheduler, "readings_games": readings_games}


def study_command_line(args: argparse.Namespace, options: dict[str, Any] | None = None) -> str:
    """The ``luna-balance study`` command that repeats this study, recorded in ``study.json``.

    Options left at their defaults are left out, so a default study's command reads as it always did.
    """
    options = study_options(args) if options is None else options
    words = ["luna-balance", "study", "--name", args.name, "--games", str(args.games), "--levels", args.levels,
             "--seed", str(args.seed)]
    for path in args.variant:
        words += ["--variant", path]
    if args.engine:
        words += ["--engine", args.engine]
    if options["profiles"] is not None:
        words += ["--profiles", ",".join(options["profiles"])]
    if options["strengths"] != DEFAULT_STRENGTHS:
        words += ["--strengths", ",".join(map(strength_label, options["strengths"]))]
    if options["rounds"] != ROUNDS:
        words += ["--rounds", str(options["rounds"])]
    if options["start_bonus"] != DEFAULT_START_BONUS:
        words += ["--start-bonus", options["start_bonus"]]
    if options["board"] != DEFAULT_BOARD:
        words += ["--board", options["board"]]
    if options["parity"]:
        words += ["--parity", "--parity-games", str(options["parity_games"])]
    if options["readings_games"]:
        words += ["--readings", "--readings-games", str(options["readings_games"])]
    if options["backend"] != DEFAULT_BACKEND:
        words += ["--backend", options["backend"], "--scheduler", str(options["scheduler"])]
    words += ["--results-dir", args.results_dir]
    if args.keep_games:
        words.append("--keep-games")
    return shlex.join(words)  # a path with a space stays one word when the line is pasted back


def command_study(args: argparse.Namespace) -> int:
    from analysis.study.runner import StudyInterrupted, run_study

    levels = parse_levels(args.levels)
    options = study_options(args)
    try:
        files = run_study(name=args.name, games=args.games, levels=levels, seed=args.seed, variants=args.variant,
                          engine=args.engine, workers=args.workers, quiet=args.quiet, results_dir=args.results_dir,
                          command=study_command_line(args, options), keep_games=args.keep_games, **options)
    except StudyInterrupted as interrupted:
        sys.stderr.write(f"luna-balance: {interrupted}\n")
        return interrupted_exit_code(interrupted)
    announce_written(files.html)
    return 0


def command_report(args: argparse.Namespace) -> int:
    from analysis.study.content import render_study_dir
    from analysis.study.lock import study_lock

    # the study's own lock: run beside a study still playing, it said "N part(s) not finished ... rerun", and
    # during the study's report step wrote a second report into the folder at the same time (a QA pass)
    with study_lock(args.study_dir, reading=True):
        files = render_study_dir(args.study_dir)
    announce_written(files.html)
    return 0


def command_simulate(args: argparse.Namespace) -> int:
    from sim.run import RunOptions, run_simulation

    data = load_game_data(args.overlay)
    config = GameConfig(seats=parse_seats(args.seats, data.players.profiles), rounds=args.rounds,
                        start_bonus=args.start_bonus, board=args.board)
    options = RunOptions(games=args.games, seed=args.seed, engine=args.engine, detail=args.detail == DETAIL_ROUNDS,
                         chunk_size=args.chunk_size, workers=args.workers, overlay=args.overlay,
                         aggregate_only=args.aggregate_only, backend=args.backend, scheduler=args.scheduler,
                         check_invariants=args.check_invariants)
    with progress_bar(args.games, args.quiet, "simulate") as bar:
        out = run_simulation(data, config, options, args.out, progress=bar.update)
    announce_written(out)
    return 0


def command_campaign(args: argparse.Namespace) -> int:
    from analysis.campaign import run_campaign_dir
    from sim import campaign

    data = load_game_data(args.overlay)
    rules = campaign.load_campaign_data(args.overlay)
    seats, luna = campaign.parse_campaign_seats(args.seats, data.players.profiles)
    chapters = campaign.check_chapters(rules.chapters if args.chapters is None else args.chapters)
    try:
        policy = campaign.parse_policy(args.policy, chapters)
    except ConfigError as error:
        if args.chapters is None and args.overlay and chapters != campaign.load_campaign_data().chapters:
            # "gives 4 levels for 3 chapters" when nothing on the command line said 3 (a QA pass)
            raise ConfigError(f"{error.problem} (the chapters of {args.overlay}'s [campaign] table; --chapters sets "
                              "them)", error.option, error.mentions) from None
        raise
    if args.calibration_games is not None and policy.kind != "toward":
        # an option that would change nothing is refused rather than ignored: the designer meant something by it
        raise ConfigError(f"--calibration-games: only the toward:<p> policy measures levels, not {args.policy!r}")
    calibration = DEFAULT_CALIBRATION_GAMES if args.calibration_games is None else args.calibration_games
    options = campaign.CampaignOptions(
        seats=seats, luna_seat=luna, chapters=chapters, start_level=campaign.start_level(rules, seats, policy,
                                                                                           args.start_level),
        policy=policy, campaigns=args.campaigns, seed=args.seed, engine=args.engine, rounds=args.rounds,
        start_bonus=args.start_bonus, calibration_games=calibration, board=args.board)
    with progress_bar(args.campaigns * chapters, args.quiet, "campaign") as bar:
        out, sentence = run_campaign_dir(data, rules, options, args.out, overlay=args.overlay, progress=bar.update)
    announce_written(out, sentence)
    return 0


def command_levels(args: argparse.Namespace) -> int:
    from sim.levels import play_levels
    from sim.run import RunOptions

    data = load_game_data(args.overlay)
    levels = parse_levels(args.levels)
    options = RunOptions(games=args.games, seed=args.seed, engine=args.engine, chunk_size=args.chunk_size,
                         workers=args.workers, overlay=args.overlay)
    with progress_bar(args.games * len(levels), args.quiet, "levels") as bar:
        table = play_levels(data, levels, options, args.out, rounds=args.rounds, start_bonus=args.start_bonus,
                            board=args.board, progress=bar.update)
    print(f"Single-Luna games per level: {args.games}, seed {args.seed}, start bonus {args.start_bonus}, "
          f"board {args.board}, engine {args.engine}")
    print(table.round(2).to_string())
    return 0


def command_parity(args: argparse.Namespace) -> int:
    from analysis.parity import parity_table, strength_decimals

    data = load_game_data(args.overlay)
    if args.profile not in data.players.profiles:
        raise ConfigError(f"--profile: unknown scripted profile {args.profile!r} "
                          f"(known: {', '.join(sorted(data.players.profiles))})")
    if data.players.profiles[args.profile].passive:
        raise ConfigError(f"--profile: {args.profile!r} is passive and never wins; choose an active profile")
    if args.games < 1:
        raise ConfigError(f"--games: must be at least 1, got {args.games}")
    levels = parse_levels(args.levels)
    if args.csv is not None:  # checked before the search, which is what takes the time
        check_csv_path(args.csv)
    with progress_bar(len(levels), args.quiet, "parity") as bar:
        table = parity_table(data, args.profile, levels, args.games, args.seed, args.engine,
                             tolerance=args.tolerance, progress=bar.update, rounds=args.rounds,
                             start_bonus=args.start_bonus, board=args.board)
    print(f"Strength at parity of scripted:{args.profile} against Luna ({args.games} games per strength, "
          f"seed {args.seed}, common random numbers; 95% interval low-high)")
    decimals = strength_decimals(args.tolerance)  # what the bisection settles, in every row alike (1.20, not 1.2)
    print(table.to_string(index=False, formatters={column: f"{{:.{decimals}f}}".format
                                                   for column in ("strength", "low", "high")}))
    if args.csv:
        from analysis.render import atomic_write

        atomic_write(args.csv, table.to_csv(index=False, lineterminator="\n"))
    return 0


def command_sensitivity(args: argparse.Namespace) -> int:
    from analysis.tuning import sensitivity as sens

    options = SensitivityOptions(level=args.level, opponent=parse_opponent(args.opponent, load_game_data()),
                                 games=args.games, seed=args.seed, engine=args.engine, cards=args.cards)
    plan = sens.plan_changes(options)
    with progress_bar(options.games * (len(plan.changes) + 1), args.quiet, "sensitivity") as bar:
        out, sentence = sens.run_sensitivity_dir(plan, args.out, progress=bar.update)
    announce_written(out, sentence)
    return 0


def _os_problem(error: OSError) -> str:
    """A failed write or read (disk full, file-size limit, permissions) as ``path: problem``."""
    path = error.filename or ""
    problem = error.strerror or str(error)
    return f"{path}: {problem}" if path else problem


def command_runs_report(args: argparse.Namespace) -> int:
    from analysis.report import render_study

    check_report_out(Path(args.out), STUDY_FILE)
    files = render_study(args.runs, args.out, title=args.title)
    announce_written(files.html)  # as every command that writes says
    return 0


def command_tune(args: argparse.Namespace) -> int:
    from analysis.tuning.output import run_tune

    def said(line: str) -> None:
        sys.stderr.write(f"luna-balance: {line}\n")

    run_tune(args.target, args.out, games=args.games, seed=args.seed, engine=args.engine, overlay=args.overlay,
             log=print, progress=None if args.quiet else said)
    announce_written(args.out)
    return 0


def main(argv: list[str] | None = None) -> int:
    if hasattr(signal, "SIGXFSZ"):  # over a file-size limit a write should fail (EFBIG), not kill the process
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with stop_signals_as_interrupts() as stop:
        # here, not in _run: an interrupt while the parser is built (it imports modules) is a stop like any other
        try:
            code = _run(argv)
        except KeyboardInterrupt as error:
            return stop.exit_code(interrupt=error)
        return stop.exit_code(code)


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    set_compile_notice(not getattr(args, "quiet", False))
    handlers = {"simulate": command_simulate, "levels": command_levels, "study": command_study,
                "report": command_report, "parity": command_parity, "runs-report": command_runs_report,
                "campaign": command_campaign, "sensitivity": command_sensitivity, "tune": command_tune,
                "readings": command_readings}
    try:
        check_options(args)
        clamp_workers(args)
        check_output_places(args)
        return handlers[args.command](args)
    except InvariantError as error:  # the run directory was not written (run_simulation cleans up)
        sys.stderr.write(f"luna-balance: {error}\n")
        return EXIT_ENGINE
    except DataError as error:
        for line in error.problems:
            sys.stderr.write(f"luna-balance: {line}\n")
        return EXIT_USAGE
    except (ConfigError, ValueError, FileExistsError, OverflowError) as error:  # OverflowError: a value too large
        # for the output files' columns; a check shared with the Python API names its parameter as an option here
        text = error.message(command_line=True) if isinstance(error, ConfigError) else str(error)
        for line in text.splitlines() or [type(error).__name__]:
            sys.stderr.write(f"luna-balance: {line}\n")  # a message of several problems: one line each
        return EXIT_USAGE
    except OSError as error:  # every writer cleans up after itself, so nothing half-written is left
        sys.stderr.write(f"luna-balance: {_os_problem(error)}\n")
        return EXIT_USAGE
    except MemoryError as error:  # numpy's says how much: the commands that hold every game at once, at --games 1e10
        fewer = "fewer campaigns (--campaigns)" if args.command == "campaign" else "fewer games (--games)"
        sys.stderr.write(f"luna-balance: out of memory ({error or 'MemoryError'}); nothing half-written was left "
                         f"behind: ask for {fewer}\n")
        return EXIT_USAGE
    except BrokenProcessPool:  # joblib's pool lost a worker; its 40 lines of traceback only say that
        sys.stderr.write("luna-balance: a worker process died (killed, or out of memory: try fewer --workers or a "
                         "smaller --chunk-size); nothing half-written was left behind\n")
        return EXIT_WORKER_DIED
