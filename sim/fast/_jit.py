"""The numba options of every kernel, set once, and the on-disk cache they compile into.

``jit`` is the one decorator of the engine's kernels:

* ``cache=True``: compiled code is reused across processes;
* ``nogil=True``: a kernel releases the GIL while it runs, so the threads playing a chunk run at once
  (``sim.fast.kernel``: one driver call per thread);
* ``error_model="numpy"`` and no ``boundscheck``: the tables are validated in Python
  (:func:`sim.tables.compile_tables`), so the kernels need no Python-style checks;
* no ``fastmath``: a scripted seat's float arithmetic must round exactly as Python's does.

The cache folder. Numba checks a cached function against the source of the file that defines it, and
nothing else; but the kernels freeze module-level constants of other files at compile time (output
column positions from ``sim/columns.py``, opcodes and capacities from ``sim/tables.py``, sizes from
``sim/constants.py``, the SplitMix64 constants from ``sim/rng.py``) and call kernels of their sibling
modules. So every kernel is cached in a folder named after a hash of all those sources
(:data:`KERNEL_SOURCES`): an edit in any of them gives a fresh folder, and the next run compiles anew.
The folder is ``$NUMBA_CACHE_DIR/luna-balance-<hash>`` when the user set ``NUMBA_CACHE_DIR``, else
``sim/fast/__pycache__/luna-balance-<hash>``, else (a read-only install) numba's user-wide cache
directory. An in-tree folder of an older version of the sources is removed when a new one is made
(a folder under ``NUMBA_CACHE_DIR`` may serve another checkout, so it is left alone there). A
``NUMBA_CACHE_DIR`` that cannot be written is not passed over for another place: the kernels are compiled
without a cache, and the compile notice says why (:func:`user_cache_problem`).

Selects. Most of a game's time is mispredicted branches: which card comes, which company leads, which
display space shows a share is the game's chance, so a branch on it goes wrong about as often as not
(issue 9: the same game played over and over, which the predictor learns, ran 2.3x faster at level 8).
The kernels pick such values with selects (``a if c else b``, compiled to ``cmov``), and two LLVM
options keep LLVM from turning them back into branches: ``-disable-cgp-select2branch`` (CodeGenPrepare
makes a branch of a select whose operand is a load) and, on x86-64, ``-x86-cmov-converter=false``
(which makes branches of ``cmov`` groups in loops).

Inlining. Numba compiles each kernel on its own and links its callees' code in; LLVM may then inline a call,
but its default budget at -O3 (a cost of 250 per call site) leaves most of the engine's calls as real calls,
each with numba's status-code return and spilled registers, dozens per card. ``-inline-threshold``
(:data:`INLINE_THRESHOLD`) raises that budget: 4-10 % less time per game at every level (1 thread, 200,000
games, best of 3, side by side with the default; issue 9), for 6 s more of the cold compile of the serial
driver the engine then had (50 -> 56 s on that machine) and 5 s more of its parallel driver's (9 -> 14 s);
1000 gave about half of both, 10000 no more speed. Unlike numba's own ``inline="always"`` (which the smallest
kernels use), LLVM inlines compiled code, not typed Python: numba's inlining of the same calls into the card
loop gained 4-7 % and made that serial compile half as long again.

These options are set for the process when this module is imported, before any kernel compiles; they
change which instructions LLVM emits, never a result. They also apply to any other numba code the same
process compiles, which was not measured here.

Loading. Before numba loads a cached function it readies its whole compiler (imports and registers every
implementation it has), which a process that only loads the engine never uses: the engine's first call in a warm
process took 0.30-0.38 s with it and 0.17 s without. The kernels' cache loads ready numba's runtime alone
(:func:`_load_without_the_compiler`); a compile in the same process still readies everything.

How the folder is set: numba's cache locator (``numba/core/caching.py``,
``UserProvidedCacheLocator``) reads ``numba.config.CACHE_DIR``, the attribute ``NUMBA_CACHE_DIR``
sets, when a function is decorated with ``cache=True``, and keeps that path for the function's life.
So :func:`jit` sets the attribute for the moment of each decoration only: the rest of the process
(any other library's numba cache) keeps the user's setting, and, unlike a change of
``os.environ``, nothing leaks into child processes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import llvmlite.binding
import numba
from numba.core.caching import NullCache
from numba.misc.appdirs import AppDirs

try:
    from numba.core.runtime import rtsys as _runtime
except ImportError:  # a numba that keeps its runtime elsewhere: loads keep numba's own refresh
    _runtime = None

from sim.constants import COMPANIES

INLINE_THRESHOLD = 3000  # LLVM's inline cost budget per call site (module docstring, "Inlining")


def _runs_on_x86_64() -> bool:
    """Whether numba compiles for x86-64 here (it compiles for the processor it runs on)."""
    return platform.machine().lower() in ("x86_64", "amd64")


def _set_llvm_options() -> None:
    """Ask LLVM to keep the kernels' selects as selects and to inline more (module docstring)."""
    llvmlite.binding.set_option("", "-disable-cgp-select2branch")
    llvmlite.binding.set_option("", f"-inline-threshold={INLINE_THRESHOLD}")
    if _runs_on_x86_64():  # the option exists only where the x86 backend runs
        llvmlite.binding.set_option("", "-x86-cmov-converter=false")


_set_llvm_options()
X86_64 = _runs_on_x86_64()

PACKAGE_DIR = Path(__file__).resolve().parent
SIM_DIR = PACKAGE_DIR.parent
# Every source the compiled kernels depend on: this package and each sim module it imports (a test
# checks that importing sim.fast loads no other sim module).
KERNEL_SOURCES: tuple[Path, ...] = (
    *sorted(PACKAGE_DIR.glob("*.py")),
    *(SIM_DIR / name for name in ("beltdata.py", "campaigndata.py", "columns.py", "config.py", "constants.py",
                                   "gamedata.py", "moondata.py", "playerdata.py", "rng.py", "strict.py", "tables.py",
                                   "violation.py")),
)
CACHE_PREFIX = "luna-balance-"

OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy", "boundscheck": False}


def sources_hash(paths: Iterable[Path] = KERNEL_SOURCES, facts: str = repr(COMPANIES)) -> str:
    """A short hash of the sources' names and contents and of ``facts``.

    ``facts`` are the values the kernels freeze that no source file holds: the company names, read
    from ``sim/data/moon.toml``, whose count sets the output column positions.
    """
    digest = hashlib.sha256(facts.encode())
    for path in paths:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def cache_dir(digest: str | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """The folder the kernels are cached in (see the module docstring)."""
    name = CACHE_PREFIX + (digest or sources_hash())
    user_dir = environ.get("NUMBA_CACHE_DIR", "")
    if user_dir:
        return Path(user_dir) / name
    in_tree = PACKAGE_DIR / "__pycache__" / name
    if _writable(in_tree):
        return in_tree
    return Path(AppDirs(appname="numba", appauthor=False).user_cache_dir) / name


def prune_siblings(folder: Path) -> None:
    """Remove the other versions' cache folders next to ``folder``."""
    for sibling in folder.parent.glob(CACHE_PREFIX + "*"):
        if sibling != folder and sibling.is_dir():
            shutil.rmtree(sibling, ignore_errors=True)


def user_cache_problem(folder: Path, environ: Mapping[str, str] = os.environ) -> str:
    """Why the user's ``NUMBA_CACHE_DIR`` cannot hold ``folder`` ("" when it can, or is not set).

    Numba passes over such a folder without a word, to a ``__pycache__`` beside the sources or a user-wide cache:
    a QA pass found 131 cache files scattered in the source tree, outside the versioned folder that keeps stale
    kernels apart. The user chose the place, so the kernels are rather compiled without a cache, and the compile
    notice says why (:data:`UNCACHED`)."""
    user_dir = environ.get("NUMBA_CACHE_DIR", "")
    if not user_dir or _writable(folder):
        return ""
    return f"NUMBA_CACHE_DIR ({user_dir}) is not a folder that can be written"


CACHE_DIR = cache_dir()
if CACHE_DIR.parent == PACKAGE_DIR / "__pycache__":
    prune_siblings(CACHE_DIR)

#: Why the kernels are compiled without a cache ("" while they have one): a ``NUMBA_CACHE_DIR`` that cannot be
#: written (:func:`user_cache_problem`), or no folder at all numba may write, which numba refuses ``cache=True``
#: for with a ``RuntimeError`` at decoration, that is at import (a read-only install whose user has no writable
#: home, as in a container): every command, even ``report``, ended in that traceback. The kernels are then
#: compiled in every process instead, and the compile notice says so (:mod:`sim.engines`).
UNCACHED = {"reason": user_cache_problem(CACHE_DIR)}


@contextlib.contextmanager
def _caching_into(folder: Path) -> Iterator[None]:
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(folder)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = saved


def jit(function: Callable | None = None, **options: Any) -> Callable:
    """``numba.njit`` with the engine's options (module docstring), cached in :data:`CACHE_DIR`.

    Used bare (``@jit``) on every kernel; keyword ``options`` add to or override the engine's.
    """
    def decorate(function: Callable) -> Callable:
        with _caching_into(CACHE_DIR):
            try:
                cached = {"cache": False} if UNCACHED["reason"] else {}
                dispatcher = numba.njit(**{**OPTIONS, **options, **cached})(function)
            except RuntimeError as error:  # numba found no folder it may write (see UNCACHED)
                if "cannot cache" not in str(error):
                    raise
                UNCACHED["reason"] = f"no numba cache can be written in {CACHE_DIR} or numba's other places"
                dispatcher = numba.njit(**{**OPTIONS, **options, "cache": False})(function)
        _load_damaged_as_missing(dispatcher)
        _unsaved_as_uncached(dispatcher)
        return dispatcher

    return decorate if function is None else decorate(function)




def _load_without_the_compiler(cache: object) -> Callable | None:
    """numba's ``Cache.load_overload`` for ``cache`` without its first step, ``target_context.refresh()``; None when
    this numba's cache lacks the parts it calls (the caller keeps numba's own load then).

    That refresh readies numba's compiler: it imports and registers every implementation numba has (its numpy
    functions, typed containers, random generators, linear algebra, ...), which only a compile needs. Loading
    compiled code needs numba's runtime (the reference counting and allocation the kernels call), which is readied
    here instead; had the runtime not been (an earlier try skipped the refresh alone), the first call of the loaded
    engine crashed. A compile in the same process still readies everything: numba's compiler refreshes both of its
    contexts when it starts. The engine's first call in a warm process: 0.30-0.38 s with the refresh, 0.17 s
    without (the module docstring's "Loading").
    """
    load_cached = getattr(cache, "_load_overload", None)
    guard = getattr(cache, "_guard_against_spurious_io_errors", None)
    if _runtime is None or load_cached is None or guard is None:
        return None

    def load(signature: object, target_context: object) -> object:
        _runtime.initialize(target_context)
        with guard():  # numba's own tolerance of a cache file changed while it is read
            return load_cached(signature, target_context)

    return load


def _load_damaged_as_missing(dispatcher: Callable) -> None:
    """Make a damaged cache file of ``dispatcher`` a cache miss: compiled again and saved over, with one line said.

    Numba loads a cached function by unpickling its index and data files and lets any error through: a file
    truncated (a full disk, a copy cut short) or garbled ended every run of the engine in a pickle traceback,
    until the user found and deleted the folder. The function's index is removed, so saving the recompiled code
    writes a fresh one (numba's save reads the index first, and a damaged one would fail there too). The load it
    wraps is :func:`_load_without_the_compiler`'s where this numba allows, else numba's own. Unknown numba
    internals leave the dispatcher as it is.
    """
    cache = getattr(dispatcher, "_cache", None)
    load = _load_without_the_compiler(cache) or getattr(cache, "load_overload", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if load is None or index is None:
        return

    @functools.wraps(load)
    def load_overload(signature: object, target_context: object) -> object:
        try:
            return load(signature, target_context)
        except Exception as error:  # a damaged file fails in any of pickle's and numba's ways
            from sim.stop_signals import stopping  # here: not a source of the kernels (KERNEL_SOURCES)

            if stopping():  # a stop's interrupt in the main thread can leave numba's own state half-changed, and
                raise  # an engine thread then fails here (a generator raised StopIteration): not the file's fault
            Path(index).unlink(missing_ok=True)
            problem = " ".join(str(error).split())  # one line: pickle's own messages may hold a line break
            sys.stderr.write(f"luna-balance: the numba cache of {dispatcher.__name__} in {Path(index).parent} could "
                             f"not be read ({type(error).__name__}: {problem}); compiling it again\n")
            return None

    cache.load_overload = load_overload


#: Why compiled code could not be saved in the cache this process ("" while every save worked): said once, and the
#: compile notice then promises no cached start (:mod:`sim.engines`).
UNSAVED = {"reason": ""}


def _unsaved_as_uncached(dispatcher: Callable) -> None:
    """Make a failed save of ``dispatcher``'s compiled code a cache that is not there, said in one line.

    The code is compiled and in memory before numba saves it; a cache folder on a full disk made the save raise
    ``No space left on device``, which ended the run it had just compiled for, blamed on its ``--out`` (a QA pass).
    numba writes each cache file under a temporary name and removes it on failure, but it writes the function's
    index before its code: the index is removed too, or the next run would take the missing code for a damaged
    file. The run goes on, and the next one compiles again. Unknown numba internals leave the dispatcher as it is.
    """
    cache = getattr(dispatcher, "_cache", None)
    save = getattr(cache, "save_overload", None)
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if save is None or index is None or isinstance(cache, NullCache):
        return

    @functools.wraps(save)
    def save_overload(signature: object, data: object) -> None:
        try:
            save(signature, data)
        except OSError as error:
            with contextlib.suppress(OSError):
                Path(index).unlink(missing_ok=True)
            if not UNSAVED["reason"]:
                folder = Path(error.filename).parent if error.filename else CACHE_DIR  # not numba's temporary name
                UNSAVED["reason"] = f"{folder}: {error.strerror or error}"
                sys.stderr.write(f"luna-balance: the compiled engine could not be saved in the numba cache "
                                 f"({UNSAVED['reason']}); this run goes on, and the next one compiles it again\n")

    cache.save_overload = save_overload


def is_compiled(dispatcher: Callable) -> bool:
    """Whether calling the jitted ``dispatcher`` loads machine code rather than compiling it.

    True when it was compiled or loaded in this process already, or when its cache index file is in the
    cache folder (then numba loads it from disk). Unknown numba internals count as compiled, so a
    message built on this errs on the side of silence.
    """
    if getattr(dispatcher, "signatures", None):
        return True
    if isinstance(getattr(dispatcher, "_cache", None), NullCache):  # compiled without a cache (UNCACHED)
        return False
    try:
        index = Path(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return True
    return index.exists()
