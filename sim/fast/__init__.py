"""The numba engine: the reference engine's rules compiled to machine code, bit for bit the same results.

``play_chunk_numba`` is the only public name. It validates and flattens the data once per call
(:func:`sim.tables.compile_tables`), preallocates the output columns, and hands both to a jitted kernel
that plays the games. Each kernel mirrors the reference function of the same name (``sim/reference/``);
where the two read differently the comment says why they agree.

Exactness rests on four things:

* every game draws from its own SplitMix64 streams, derived from (seed, game index, stream id) as in
  ``sim/rng.py``, with wrapping ``uint64`` arithmetic (every operand is cast to ``uint64``: numba
  promotes ``uint64 op int64`` to float64), so no result depends on chunking or thread count;
* the kernels draw in the reference's order and count (setup order in ``reference.setup_game``,
  Fisher-Yates from the last index, discard-pile rebuild order, swap-remove token pool);
* the reference's Python idioms are reproduced where they matter (slices, ``dict.get``, sort keys on
  track id strings, ``list[-1]`` indexing), as noted at each place;
* a scripted seat's only float arithmetic, its action strength (``steps * strength + carry``, floored,
  the fraction carried) and an expand's ``floor(steps * expand_outposts_per_step)``, is done in float64
  with the reference's operations in the reference's order and no fastmath, which rounds exactly as
  Python's floats do; its per-round totals ``floor(resources * strength)`` come precomputed from Python.

Game state is one numpy record (``state.STATE_DTYPE``: structure of arrays, each field a typed,
fixed-shape array documented in ``state.STATE_FIELDS``), allocated once per block of games inside the
kernel and reset for each game by copying a template record: no global state, no allocation in the
per-game loop.

Modules, mirroring the reference engine's parts:

* ``_jit``: the numba options (one decorator) and the cache folder, named after the sources' hash;
* ``rng``: SplitMix64 (``sim/rng.py``); ``bits``: sector-mask bit tricks; ``state``: the record and
  the output row positions (from ``sim/columns.py``);
* ``luna``: Luna's deck, her tracks, a card's actions, her majority values, her round;
* ``board``: companies, company tracks, expansion, the display, research plans, bonus spaces;
* ``players``: the scripted players; ``game``: setup, the round, final scoring, one game;
* ``invariants``: the checks of ``--check-invariants`` (read-only on the state; off by default, and
  then not even compiled);
* ``claim``: the atomic counter the threads playing a chunk claim blocks of games from;
* ``counts``: not the engine's: the value counts with which ``--aggregate-only`` and a study reduce each
  chunk on the writer thread; ``narrow``: not the engine's either: the writer's int64-to-int32 copy of each
  output column, checked in the same pass;
* ``kernel``: ``play_chunk_numba`` (Python: validate, build tables, allocate columns, call the driver on
  every thread numba is set to) -> ``_play_games_everyday`` (the everyday engine: the Moon under the shipped
  rule readings), ``_play_games_general`` (the Belt or other readings) or, with the checks,
  ``_play_games_checked`` (the loop over the blocks of games each thread claims) -> ``_play_block``
  (one state record, games in order, copies each game's rows into the columns) -> ``game.play_game`` ->
  the rules (the functions down to ``play_game`` are compiled into the driver: ``kernel.py``, "Compile time").
"""

from sim.fast.kernel import play_chunk_numba

__all__ = ["play_chunk_numba"]
