"""The two engines behind one call shape, for rules tests that run a clause on both.

``REFERENCE`` calls ``sim.reference``; ``NUMBA`` runs the numba kernel of the same rule on the same
reference state, through :mod:`tests.rules.numba_bridge` (the Belt's clauses through
:mod:`tests.rules.numba_belt`), and writes the result back into it, so a test
asserts the same hand-traced values on either. Every method takes ``rules`` first (the numba side needs
the tables), also where the reference function does without. Only the clauses a test drives are here;
whole games (``play_game``) are compared engine against engine in ``tests/test_engine_exactness.py``.
"""

from __future__ import annotations

from sim import reference as ref
from sim.constants import ACTION_KINDS, SLOT_LETTERS
from sim.invariants import assert_invariants

from . import numba_belt as belt
from . import numba_bridge as nb


class ReferenceEngine:
    """``sim.reference`` itself (looked up at call time, so the rules tests' round checker applies)."""

    id = "reference"

    def __getattr__(self, name: str):
        return getattr(ref, name)

    def use_data(self, rules, data):
        """Nothing to do: the reference reads everything from ``rules``."""

    def lead_margins(self, rules, state, seat):
        return ref.lead_margins(state, seat)

    def discard_research_plan(self, rules, state, seat, action, slot):
        ref.discard_research_plan(state, seat, action, slot)

    def place_bonus_marker(self, rules, state, seat, action, slot):
        ref.place_bonus_marker(state, seat, action, slot)

    def flip_special_plan(self, rules, state):
        ref.flip_special_plan(state)


class NumbaEngine:
    """The numba kernels on a converted reference state (see the bridge for what converts how)."""

    id = "numba"

    def use_data(self, rules, data):
        """Rules built from other game data (an overlay): the tables come from that data."""
        nb.use_data(rules, data)

    # ---------------------------------------------------------------- tracks and deck

    def gain_helium(self, rules, state, seat, steps):
        op = nb.GAIN_HELIUM if state.seats[seat].luna is not None else nb.PLAYER_HELIUM
        nb.run(rules, state, None, op, seat, steps)

    def advance_research(self, rules, state, seat, steps):
        op = nb.ADVANCE_RESEARCH if state.seats[seat].luna is not None else nb.PLAYER_RESEARCH
        nb.run(rules, state, None, op, seat, steps)

    def advance_track(self, rules, state, seat, company, steps):
        nb.run(rules, state, None, nb.ADVANCE_TRACK, seat, company, steps)

    def draw_luna_card(self, rules, state, seat, rng):
        return nb.run(rules, state, {seat: rng}, nb.DRAW_LUNA_CARD, seat)[1]

    # ---------------------------------------------------------------- companies and the moon

    def column_coins(self, rules, vacant):
        return nb.kernel_value(rules, nb.COLUMN_COINS, vacant)

    def company_value(self, rules, state, company):
        return nb.values(nb.run(rules, state, None, nb.ORDER)[0])[company]

    def companies_by_value(self, rules, state):
        return nb.order(nb.run(rules, state, None, nb.ORDER)[0])

    def lead_margins(self, rules, state, seat):
        return nb.margins(nb.run(rules, state, None, nb.LEAD_MARGINS, seat)[0])

    def select_companies(self, rules, state, seat, selection):
        return nb.chosen(nb.run(rules, state, None, nb.SELECT, seat, *nb.selection(selection))[0])

    def take_column(self, rules, state, company):
        return nb.run(rules, state, None, nb.TAKE_COLUMN, company)[1]

    def return_column(self, rules, state, company):
        return nb.run(rules, state, None, nb.RETURN_COLUMN, company)[1]

    def reachable_sectors(self, rules, state, company):
        mask = nb.run(rules, state, None, nb.REACHABLE, company)[1]
        return [sector for sector in range(1, rules.sector_count + 1) if mask >> (sector - 1) & 1]

    def expand_company(self, rules, state, seat, companies, points, lowest):
        nb.run(rules, state, None, nb.EXPAND, seat, points, int(lowest), chosen=list(companies))

    def expand_company_belt(self, rules, state, seat, companies, points, lowest):
        belt.run(rules, state, belt.EXPAND, seat, points, int(lowest), chosen=list(companies))

    # ---------------------------------------------------------------- cards

    def resolve_card(self, rules, state, seat, card, slot):
        if rules.belt is not None:  # the Belt's pieces travel through the Belt bridge
            belt.run(rules, state, belt.RESOLVE_CARD, seat, card, slot)
            return
        nb.run(rules, state, None, nb.RESOLVE_CARD, seat, card, slot)

    def _one_action(self, rules, state, seat, action, slot):
        tables, card = nb.one_action_tables(rules, action)
        nb.run(rules, state, None, nb.RESOLVE_CARD, seat, card, slot, tables=tables)

    def gain_card(self, rules, state, seat, action, slot):
        self._one_action(rules, state, seat, action, slot)

    def discard_research_plan(self, rules, state, seat, action, slot):
        self._one_action(rules, state, seat, action, slot)

    def place_bonus_marker(self, rules, state, seat, action, slot):
        self._one_action(rules, state, seat, action, slot)

    def flip_special_plan(self, rules, state):
        nb.run(rules, state, None, nb.FLIP_SPECIAL_PLAN)

    # ---------------------------------------------------------------- scripted players

    def plan_player(self, rules, state, seat, rng):
        nb.run(rules, state, {seat: rng}, nb.PLAN_PLAYER, seat)

    def choose_aim(self, rules, state, player, kind):
        """The aim the kernel writes for the player's next planned action (``state`` is left alone)."""
        seat = next(s for s, holder in enumerate(state.seats) if holder.player is player)
        n = min(len(player.plan), len(player.aims))  # the reference's zip: the earlier actions' aims
        assert n < len(SLOT_LETTERS), "a player plans at most one action per slot"
        return nb.aim(nb.peek(rules, state, nb.CHOOSE_AIM, seat, n, ACTION_KINDS.index(kind)), seat, n)

    def count_blocked_majorities(self, rules, state):
        nb.run(rules, state, None, nb.COUNT_BLOCKED)

    def luna_majority_values(self, rules, state):
        return nb.luna_values(nb.peek(rules, state, nb.LUNA_MAJORITY_VALUES))

    def player_turn(self, rules, state, seat):
        nb.run(rules, state, None, nb.PLAYER_TURN, seat)

    def player_invest(self, rules, state, seat, steps):
        nb.run(rules, state, None, nb.PLAYER_INVEST, seat, steps)

    def player_expand(self, rules, state, seat, steps):
        if rules.belt is not None:  # the Belt's pieces travel through the Belt bridge
            belt.run(rules, state, belt.PLAYER_EXPAND, seat, steps)
            return
        nb.run(rules, state, None, nb.PLAYER_EXPAND, seat, steps)

    def player_helium(self, rules, state, seat, steps):
        nb.run(rules, state, None, nb.PLAYER_HELIUM, seat, steps)

    def player_research(self, rules, state, seat, steps):
        nb.run(rules, state, None, nb.PLAYER_RESEARCH, seat, steps)

    def player_research_action(self, rules, state, seat, steps, aim):
        nb.run(rules, state, None, nb.PLAYER_RESEARCH_ACTION, seat, steps, *aim)

    def player_buy(self, rules, state, seat, aimed):
        nb.run(rules, state, None, nb.PLAYER_BUY, seat, aimed)

    def player_bonus(self, rules, state, seat):
        nb.run(rules, state, None, nb.PLAYER_BONUS, seat)

    # ---------------------------------------------------------------- the round

    def setup_game(self, rules, seed, game):
        """The kernel's setup, written over the reference's (which supplies only what the record lacks)."""
        if rules.belt is not None:
            return belt.setup_game(rules, seed, game)
        state, rngs = ref.setup_game(rules, seed, game)
        nb.setup(rules, seed, game, state, rngs)
        return state, rngs

    def plan_luna(self, rules, state, seat, rng):
        nb.run(rules, state, {seat: rng}, nb.PLAN_LUNA, seat)

    def luna_turn(self, rules, state, seat, rng):
        nb.run(rules, state, {seat: rng}, nb.LUNA_TURN, seat)

    def end_luna_actions(self, rules, state, seat, rng):
        nb.run(rules, state, {seat: rng}, nb.END_LUNA_ACTIONS, seat)

    def preparation(self, rules, state):
        nb.run(rules, state, None, nb.PREPARATION)

    def play_round(self, rules, state, rngs, records):
        rec, _ = nb.run(rules, state, rngs, nb.PLAY_ROUND)
        if records is not None:
            for seat, record in nb.round_records(rules, rec).items():
                records[seat].append(record)
        assert_invariants(rules, state)  # as the rules tests' checker does after every reference round

    def final_scores(self, rules, state):
        return nb.final_rows(rules, nb.run(rules, state, None, nb.FINAL_SCORES)[0])


REFERENCE = ReferenceEngine()
NUMBA = NumbaEngine()
ENGINES = {engine.id: engine for engine in (REFERENCE, NUMBA)}
