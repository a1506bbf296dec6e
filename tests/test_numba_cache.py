"""The numba engine's drivers and their on-disk cache: one folder per version of the kernels' sources, the
user's ``NUMBA_CACHE_DIR`` respected, one everyday driver, parallel, whatever size of run compiles it first,
and one driver call at a time however many Python threads play."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from sim.fast import _jit

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str, **environ: str) -> dict:
    """Run ``code`` in a fresh interpreter on this checkout; it prints one JSON object, returned here."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           **environ}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


# ---------------------------------------------------------------- the folder name

def test_editing_any_dependency_changes_the_cache_folder(tmp_path):
    copies = []
    for source in _jit.KERNEL_SOURCES:
        copy = tmp_path / source.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
        copies.append(copy)
    original = _jit.sources_hash(copies)
    assert original == _jit.sources_hash(_jit.KERNEL_SOURCES)  # names and contents, not locations
    assert _jit.CACHE_DIR.name == _jit.CACHE_PREFIX + original
    for copy in copies:
        text = copy.read_bytes()
        copy.write_bytes(text + b"\n# edited\n")
        assert _jit.sources_hash(copies) != original, f"an edit of {copy.name} keeps the cache folder"
        copy.write_bytes(text)
    assert _jit.sources_hash(copies) == original
    assert _jit.sources_hash(copies, facts=repr(("a", "b", "c", "d"))) != original  # the company names count


def test_the_sources_cover_every_sim_module_the_engine_imports():
    found = run_python("import json, sys; import sim.fast; "
                       "print(json.dumps({'modules': sorted(m.__file__ for n, m in sys.modules.items() "
                       "if n.startswith('sim.') and getattr(m, '__file__', None))}))")
    imported = {Path(name).resolve() for name in found["modules"]}
    assert _jit.PACKAGE_DIR / "kernel.py" in imported
    missing = imported - {path.resolve() for path in _jit.KERNEL_SOURCES}
    assert not missing, f"sim modules the kernels import but the cache folder's hash ignores: {missing}"


def test_the_default_folder_is_in_tree_and_a_user_folder_wins(tmp_path):
    digest = _jit.sources_hash()  # the current version's folder: checking it is writable creates no new one
    assert _jit.cache_dir(digest, environ={}) == _jit.PACKAGE_DIR / "__pycache__" / f"luna-balance-{digest}"
    assert _jit.cache_dir("0123", environ={"NUMBA_CACHE_DIR": str(tmp_path)}) == tmp_path / "luna-balance-0123"


def test_a_new_in_tree_folder_removes_the_older_versions(tmp_path):
    current, older, other = tmp_path / "luna-balance-new", tmp_path / "luna-balance-old", tmp_path / "keep-me"
    for folder in (current, older, other):
        folder.mkdir()
    _jit.prune_siblings(current)
    assert current.is_dir() and other.is_dir() and not older.exists()


def test_jit_leaves_numba_s_cache_setting_alone():
    before = numba.config.CACHE_DIR

    @_jit.jit
    def twice(x):
        return 2 * x

    assert numba.config.CACHE_DIR == before
    assert twice(21) == 42


def test_a_user_numba_cache_dir_is_respected(tmp_path):
    found = run_python(
        "import json, numba, numpy as np\n"
        "from sim.fast import _jit\n"
        "from sim.fast.rng import mix64\n"
        "mix64(np.uint64(1))\n"
        "print(json.dumps({'folder': str(_jit.CACHE_DIR), 'numba': numba.config.CACHE_DIR}))\n",
        NUMBA_CACHE_DIR=str(tmp_path))
    folder = Path(found["folder"])
    assert folder.parent == tmp_path and folder.name.startswith(_jit.CACHE_PREFIX)
    assert found["numba"] == str(tmp_path)  # the process's own setting is left as the user made it
    assert list(folder.rglob("rng.mix64-*.nbi")), "the kernel was not cached in the user's folder"



_MIX = ("import json, numpy as np\nfrom sim.fast.rng import mix64\n"
        "print(json.dumps({'mixed': int(mix64(np.uint64(1)))}))\n")


# "persistent id": bytes whose unpickling error has a line break in its message (a garbled file of random bytes gave
# it now and then: the one-line notice came out as two lines, a CI run failed on it).
_DAMAGED_DATA = {"truncated data": lambda data: data[:200], "garbled data": lambda data: os.urandom(2000),
                 "persistent id": lambda data: b"Pdamaged\n."}


@pytest.mark.parametrize("damage", [*_DAMAGED_DATA, "truncated index"])
def test_a_damaged_cache_file_is_compiled_again_not_a_traceback(tmp_path, damage):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}

    def mix() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", _MIX], cwd=ROOT, env=env, capture_output=True, text=True)

    first = mix()
    assert first.returncode == 0, first.stderr
    (index,) = tmp_path.rglob("rng.mix64-*.nbi")
    (data,) = tmp_path.rglob("rng.mix64-*.nbc")
    if damage == "truncated index":
        index.write_bytes(index.read_bytes()[:40])
    else:
        data.write_bytes(_DAMAGED_DATA[damage](data.read_bytes()))
    again = mix()  # numba let the unpickling error through: a traceback on every run until the folder was deleted
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
    assert again.stderr.startswith("luna-balance: the numba cache of mix64 in ") and again.stderr.count("\n") == 1
    assert again.stderr.endswith("; compiling it again\n") and "Traceback" not in again.stderr
    repaired = mix()
    assert repaired.returncode == 0 and repaired.stdout == first.stdout and repaired.stderr == ""


_MIX_ON_A_FULL_DISK = """
import errno, os
from numba.core import caching


def full_disk(cache_file, name, data):  # as numba's write of a temporary file fails on a full disk
    raise OSError(errno.ENOSPC, "No space left on device", os.path.join(cache_file._cache_path, name + ".tmp.1a2b"))


caching.IndexDataCacheFile._save_data = full_disk
""" + _MIX


def test_a_cache_on_a_full_disk_was_a_failed_run_blamed_on_its_out(tmp_path):
    # NUMBA_CACHE_DIR on a full tmpfs: the engine compiled, its save raised ENOSPC, and simulate ended
    # "luna-balance: OUT: No space left on device" (exit 2) without a game written
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path)}
    full = subprocess.run([sys.executable, "-c", _MIX_ON_A_FULL_DISK], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert full.returncode == 0, full.stderr
    (folder,) = tmp_path.iterdir()
    assert full.stderr.startswith(f"luna-balance: the compiled engine could not be saved in the numba cache ({folder}")
    assert full.stderr.endswith(": No space left on device); this run goes on, and the next one compiles it again\n")
    assert full.stderr.count("\n") == 1 and not list(tmp_path.rglob("*.nb[ic]"))
    later = subprocess.run([sys.executable, "-c", _MIX], cwd=ROOT, env=env, capture_output=True, text=True)
    assert later.returncode == 0 and later.stdout == full.stdout and later.stderr == ""
    assert list(tmp_path.rglob("rng.mix64-*.nbi"))


# ---------------------------------------------------------------- one everyday driver, on every thread (issue 9)

_DRIVERS = """
import json, numba
import numpy as np
from numba.core.registry import cpu_target
from sim.config import GameConfig, parse_seats
from sim.fast import game, kernel, play_chunk_numba
from sim.gamedata import load_game_data

# how often numba readies its compiler (its target context's refresh), before and after a compile of other code
context, refreshes = cpu_target.target_context, []
ready = context.refresh
context.refresh = lambda: (refreshes.append(1), ready())[1]
calls = []
play_on_threads = kernel._play_on_threads


def recorded(driver, arguments, threads):
    played = play_on_threads(driver, arguments, threads)
    calls.append({{"threads": threads, "played": played, "blocks": int(arguments[-1].shape[0])}})
    return played


kernel._play_on_threads = recorded
data, config = load_game_data(), GameConfig(seats=parse_seats("luna:3"))
scores = int(play_chunk_numba(data, config, 1, 0, {games}, False).seats["score_total"].sum())
readied_for_the_engine, first_calls = len(refreshes), list(calls)
sorted_first = numba.njit(lambda values: np.sort(values)[0])(np.array([3, 1, 2]))  # needs numba's numpy registry
readied_for_the_compile = len(refreshes) - readied_for_the_engine
again = int(play_chunk_numba(data, config, 1, 0, {games}, False).seats["score_total"].sum())
# every driver the kernel module has (each named _play_games...)
drivers = sorted(name for name in dir(kernel) if name.startswith("_play_games"))
# the wrappers between the driver and the rules that were compiled as functions of their own
wrappers = [function.__name__ for function in (kernel._play_claimed_blocks, kernel._play_block, game.play_game)
            if function.signatures]
(compiled,) = kernel._play_games_everyday.overloads.values()
# A library loaded from the cache keeps the names it links against in its linking module: a function compiled
# with nogil releases the GIL around its body (PyEval_SaveThread), which lets the chunk's threads run at once.
functions = {{function.name for function in compiled.library._shared_module.functions}}
stats = kernel._play_games_everyday.stats
print(json.dumps({{"threads": numba.get_num_threads(), "drivers": drivers, "wrappers": wrappers,
                  "releases_gil": "PyEval_SaveThread" in functions, "calls": first_calls,
                  "loaded": sum(stats.cache_hits.values()), "compiled": sum(stats.cache_misses.values()),
                  "readied_for_the_engine": readied_for_the_engine, "readied_for_the_compile": readied_for_the_compile,
                  "sorted_first": int(sorted_first), "same_scores_after_the_compile": again == scores}}))
"""


@pytest.mark.slow
def test_a_small_first_run_compiles_the_driver_that_a_large_run_plays_on_every_thread(tmp_path):
    # Issue 9: a serial driver compiled by a small run was loaded by the parallel one (one cache entry for
    # both), so every later run used one core; then a serial twin meant a second compile for the first large
    # run. Now one driver serves every size, and a chunk of several blocks is played on every thread.
    environ = {"NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_NUM_THREADS": "2"}
    small = run_python(_DRIVERS.format(games=100), **environ)  # as a user's first try or the test suite would
    assert small["threads"] == 2
    assert small["drivers"] == ["_play_games_checked", "_play_games_everyday", "_play_games_general"]
    assert small["compiled"] == 1 and small["loaded"] == 0
    assert small["calls"] == [{"threads": 1, "played": [1], "blocks": 1}]  # one block: one thread
    assert small["releases_gil"], "the driver holds the GIL: its threads would take turns"
    # each function compiled on its own is one more machine-code pass over the whole engine (kernel.py,
    # "Compile time"): the wrappers are compiled into the driver
    assert small["wrappers"] == []
    large = run_python(_DRIVERS.format(games=5 * 1024), **environ)
    assert large["compiled"] == 0 and large["loaded"] == 1, "the large run compiled the engine again"
    (call,) = large["calls"]
    assert call["threads"] == 2 and call["blocks"] == 5
    assert len(call["played"]) == 2 and sum(call["played"]) == 5  # two calls at once shared the five blocks
    assert large["releases_gil"], "the driver loaded from the cache holds the GIL: its threads would take turns"
    # Loading readies numba's runtime, not its compiler (sim/fast/_jit.py, "Loading"): 0.13-0.2 s of a warm start.
    # A compile later in the process readies the compiler itself, and the loaded engine plays on unchanged.
    assert small["readied_for_the_engine"] >= 1  # the compile did
    assert large["readied_for_the_engine"] == 0, "loading the engine from the cache readied numba's compiler"
    assert large["readied_for_the_compile"] >= 1 and large["sorted_first"] == 1
    assert large["same_scores_after_the_compile"] and small["same_scores_after_the_compile"]


# ---------------------------------------------------------------- Python threads calling the engine at once

_THREADS = """
import json, threading
import numba
from sim.config import GameConfig, parse_seats
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data

data, config = load_game_data(), GameConfig(seats=parse_seats("luna:3"))
play_chunk_numba(data, config, 1, 0, 10, False)


def totals():
    return [int(play_chunk_numba(data, config, 1, 50 * i, 50, False).seats["score_total"].sum()) for i in range(100)]


found = {{}}
threads = [threading.Thread(target=lambda k=k: found.update({{k: totals()}})) for k in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps({{"layer": numba.threading_layer(), "threaded": [found[0], found[1]], "alone": totals()}}))
"""


@pytest.mark.slow
def test_two_python_threads_playing_at_once_do_not_end_the_process():
    # Two callers at once (a Dask worker runs its tasks in threads) take turns, each chunk on the engine's own
    # threads, and get the numbers they would alone. On numba's workqueue layer (its fallback without OpenMP or
    # TBB), which ended the process when two threads launched the parallel loop the drivers once were.
    found = run_python(_THREADS.format(), NUMBA_THREADING_LAYER="workqueue", NUMBA_NUM_THREADS="2")
    assert found["layer"] == "workqueue"
    assert found["threaded"] == [found["alone"], found["alone"]]


_FORK = """
import json, os, time
from sim.config import GameConfig, parse_seats
from sim.fast import play_chunk_numba
from sim.gamedata import load_game_data

data, config = load_game_data(), GameConfig(seats=parse_seats("luna:3"))
games = 3 * 1024  # three blocks: two threads, the engine's helper thread among them
expected = int(play_chunk_numba(data, config, 1, 0, games, False).seats["score_total"].sum())
reading, writing = os.pipe()
child = os.fork()
if child == 0:  # the parent's helper thread does not exist here
    total = int(play_chunk_numba(data, config, 1, 0, games, False).seats["score_total"].sum())
    os.write(writing, str(total).encode())
    os._exit(0)
deadline = time.monotonic() + 120
while os.waitpid(child, os.WNOHANG) == (0, 0) and time.monotonic() < deadline:
    time.sleep(0.05)
finished = time.monotonic() < deadline
if not finished:
    os.kill(child, 9)
    os.waitpid(child, 0)
os.close(writing)
print(json.dumps({{"finished": finished, "expected": expected, "child": os.read(reading, 64).decode()}}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_process_plays_on_threads_of_its_own():
    # Without starting its own helper threads the child would hand a block to a thread it does not have and wait
    # for it for ever (Python 3.11's multiprocessing forks on Linux by default).
    found = run_python(_FORK.format(), NUMBA_NUM_THREADS="2")
    assert found["finished"], "the forked child hung playing a chunk"
    assert found["child"] == str(found["expected"])


# ---------------------------------------------------------------- the invariant checks compile apart (issue 9)

_CHECKS = """
import json
from sim.config import GameConfig, parse_seats
from sim.fast import invariants, kernel, play_chunk_numba
from sim.fast._jit import is_compiled
from sim.gamedata import load_game_data

before = is_compiled(kernel.driver_for(True))
play_chunk_numba(load_game_data(), GameConfig(seats=parse_seats("luna:3")), 1, 0, 100, False, {check})
print(json.dumps({{"checked_on_disk_before": before, "check_state": len(invariants.check_state.signatures),
                  "check_scores": len(invariants.check_scores.signatures),
                  "everyday": len(kernel._play_games_everyday.signatures),
                  "checked": len(kernel._play_games_checked.signatures)}}))
"""


@pytest.mark.slow
def test_the_everyday_engine_compiles_no_invariant_check(tmp_path):
    environ = {"NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_NUM_THREADS": "2"}
    plain = run_python(_CHECKS.format(check=False), **environ)
    assert plain == {"checked_on_disk_before": False, "check_state": 0, "check_scores": 0, "everyday": 1,
                     "checked": 0}
    checked = run_python(_CHECKS.format(check=True), **environ)
    assert checked == {"checked_on_disk_before": False, "check_state": 1, "check_scores": 1, "everyday": 0,
                       "checked": 1}
    again = run_python(_CHECKS.format(check=True), **environ)  # loaded from the cache, said so beforehand
    assert again["checked_on_disk_before"] is True and again["checked"] == 1



# ---------------------------------------------------------------- the Belt and the readings compile apart (issue 9)

_GENERAL = """
import json, sys
from sim.config import GameConfig, parse_seats
from sim.constants import RULE_SWITCHES
from sim.fast import belt, kernel, luna, play_chunk_numba
from sim.fast._jit import is_compiled
from sim.gamedata import load_game_data

board, reading = sys.argv[1], sys.argv[2] == "reading"
path = {path!r}
switch, readings = next(iter(RULE_SWITCHES.items()))
open(path, "w").write(f'[luna.rules]\\n{{switch}} = "{{readings[1]}}"\\n')
data = load_game_data(path) if reading else load_game_data()
before = is_compiled(kernel.driver_for(False, True))
play_chunk_numba(data, GameConfig(seats=parse_seats("luna:3"), board=board), 1, 0, 100, False)
print(json.dumps({{"general_on_disk_before": before, "everyday": len(kernel._play_games_everyday.signatures),
                  "general": len(kernel._play_games_general.signatures),
                  "belt": len(belt.expand_company_belt.signatures) + len(belt.setup_belt.signatures),
                  "readings": len(luna.luna_turn_readings.signatures) + len(luna.expand_general.signatures)}}))
"""


def _general_run(tmp_path: Path, board: str, reading: str, environ: dict) -> dict:
    code = _GENERAL.format(path=str(tmp_path / "reading.toml"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           **environ}
    done = subprocess.run([sys.executable, "-c", code, board, reading], cwd=ROOT, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
def test_the_everyday_engine_compiles_neither_the_belt_nor_the_readings(tmp_path):
    environ = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_NUM_THREADS": "2"}
    moon = _general_run(tmp_path, "moon", "shipped", environ)
    assert moon == {"general_on_disk_before": False, "everyday": 1, "general": 0, "belt": 0, "readings": 0}
    belt = _general_run(tmp_path, "belt", "shipped", environ)
    assert belt["general_on_disk_before"] is False and belt["general"] == 1 and belt["belt"] > 0
    assert belt["everyday"] == 0  # a Belt game takes the general driver
    reading = _general_run(tmp_path, "moon", "reading", environ)  # the Belt's compile serves the readings too
    assert reading["general_on_disk_before"] is True and reading["general"] == 1 and reading["everyday"] == 0


def test_llvm_is_asked_to_keep_selects_and_inline_more_and_the_x86_option_only_on_x86(monkeypatch):
    import llvmlite.binding

    asked = []
    monkeypatch.setattr(llvmlite.binding, "set_option", lambda name, option: asked.append(option))
    monkeypatch.setattr(_jit.platform, "machine", lambda: "x86_64")
    _jit._set_llvm_options()
    inline = f"-inline-threshold={_jit.INLINE_THRESHOLD}"
    assert asked == ["-disable-cgp-select2branch", inline, "-x86-cmov-converter=false"]
    asked.clear()
    # LLVM ends the process on an option no backend of the build registered: elsewhere only the generic one
    monkeypatch.setattr(_jit.platform, "machine", lambda: "aarch64")
    _jit._set_llvm_options()
    assert asked == ["-disable-cgp-select2branch", inline]


def test_no_cache_folder_numba_may_write_compiles_without_a_cache_not_a_traceback(monkeypatch, capsys):
    """A NUMBA_CACHE_DIR the user cannot write, or a read-only install whose user has no writable home (a container
    run as another user): numba refused cache=True at import, and every command, even `report`, was a traceback."""
    from numba.core import caching

    import sim.fast.kernel  # noqa: F401 (the engine's kernels, decorated with their cache before the patch below)
    from sim import engines
    from sim.config import GameConfig, parse_seats
    from sim.gamedata import load_game_data

    monkeypatch.setattr(caching.CacheImpl, "_locator_classes", [])  # as when no folder can be written
    monkeypatch.setattr(_jit, "UNCACHED", {"reason": ""}, raising=False)

    @_jit.jit
    def thrice(x):
        return 3 * x

    assert _jit.UNCACHED["reason"].startswith(f"no numba cache can be written in {_jit.CACHE_DIR}")
    assert not _jit.is_compiled(thrice)
    assert thrice(14) == 42 and _jit.is_compiled(thrice)
    # the compile notice says every run compiles, not that later runs load the cache
    monkeypatch.setattr(_jit, "is_compiled", lambda dispatcher: False)
    monkeypatch.setitem(engines._compile_notice, "said", False)
    monkeypatch.setitem(engines._compile_notice, "enabled", True)
    capsys.readouterr()
    engines.engine_function("numba")(load_game_data(), GameConfig(seats=parse_seats("luna:2")), 1, 0, 5, False)
    notice = capsys.readouterr().err
    assert "so every run compiles it: set NUMBA_CACHE_DIR to a folder you can write" in notice
    assert "from the cache" not in notice and "happens once" not in notice


def test_a_cache_load_failing_after_a_stop_signal_leaves_the_cache_alone(tmp_path, capsys):
    """Regression (1 stop in 120 at start-up): a SIGTERM landing while numba loaded the engine from the cache left
    numba's own state half-changed (a generator of its typing registries closed), an engine thread's load then
    failed ("RuntimeError: generator raised StopIteration") and was taken for a damaged file: the cache index was
    deleted, so the next run compiled the engine again for up to a minute, and the stop said two lines."""
    from types import SimpleNamespace

    from sim.stop_signals import stop_signals_as_interrupts

    index = tmp_path / "kernel.nbi"
    index.write_bytes(b"a sound index")

    def load(signature: object, target_context: object) -> object:
        raise RuntimeError("generator raised StopIteration")

    cache = SimpleNamespace(load_overload=load, _cache_file=SimpleNamespace(_index_path=str(index)))
    _jit._load_damaged_as_missing(SimpleNamespace(_cache=cache, __name__="kernel"))
    with stop_signals_as_interrupts() as stop:
        stop.signum = signal.SIGTERM  # as its handler records it, raising in the main thread
        with pytest.raises(RuntimeError):
            cache.load_overload(None, None)
    assert index.read_bytes() == b"a sound index"
    assert capsys.readouterr().err == ""


def test_a_driver_s_first_call_on_threads_compiles_it_on_the_calling_thread():
    """Regression (a Ctrl-C 1.9-2 s into a run with an empty cache took up to a minute to end): the engine's threads
    and the caller called the driver at once, an engine thread won numba's compiler lock and compiled, and the
    interrupted caller then waited for that compile. The caller compiles (or loads) the driver first now."""
    import threading

    from sim.fast import kernel

    calls = []

    class Driver:
        def __init__(self) -> None:
            self.signatures: list = []

        def typeof_pyval(self, value: object) -> str:
            return type(value).__name__

        def compile(self, signature: tuple) -> None:
            calls.append(("compile", threading.current_thread() is threading.main_thread(), signature))
            self.signatures = [signature]

        def __call__(self, *arguments: object) -> int:
            calls.append(("play", bool(self.signatures)))
            return 1

    assert kernel._play_on_threads(Driver(), (1, 2.0), 2) == [1, 1]
    assert calls[0] == ("compile", True, ("int", "float"))
    assert calls[1:] == [("play", True), ("play", True)]


def test_a_numba_cache_dir_that_is_a_file_scattered_the_cache_in_the_source_tree(tmp_path):
    """Regression (a QA pass): NUMBA_CACHE_DIR naming a file, numba passed over it without a word and wrote 131
    cache files into sim/__pycache__ and sim/fast/__pycache__, outside the versioned folder; the notice said later
    runs would load the cache. Now the kernels compile without a cache, and the reason is the notice's."""
    blocker = tmp_path / "cachefile"
    blocker.write_text("")
    assert _jit.user_cache_problem(blocker / "luna-balance-x", {"NUMBA_CACHE_DIR": str(blocker)}) == (
        f"NUMBA_CACHE_DIR ({blocker}) is not a folder that can be written")
    fine = tmp_path / "fine"
    assert _jit.user_cache_problem(fine / "luna-balance-x", {"NUMBA_CACHE_DIR": str(fine)}) == ""
    assert _jit.user_cache_problem(blocker / "luna-balance-x", {}) == ""  # not the user's choice: numba's places

    def cache_files() -> set[Path]:
        return {path for folder in ("sim", "analysis") for path in (ROOT / folder).rglob("*.nb[ic]")}

    before = cache_files()
    script = ("import sim.fast._jit as j\n"
              "@j.jit\n"
              "def thrice(x):\n"
              "    return 3 * x\n"
              "assert thrice(14) == 42\n"
              "print(j.UNCACHED['reason'])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(blocker)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"NUMBA_CACHE_DIR ({blocker}) is not a folder that can be written"
    assert cache_files() == before
