"""Invariants of a reference-engine game state, checkable at any point of a game.

``check_invariants(rules, state)`` returns one line per broken invariant (an empty list when all
hold); ``assert_invariants`` raises ``AssertionError`` listing them. Nothing here depends on the
phase of the round, so the checks can run after setup, after any rule function, or after each
``play_round``.

What is checked (per the rules in SPEC section 2 and the board model in section 4):

* every Luna seat's cards are conserved: each card of her level (the grade-1 cards, plus the
  grade-2 cards at levels that use them) lies exactly once across deck, grade-2 stack, action slots,
  majority slots and discard pile; a card only lies in a slot that is ON; slots A/E stay OFF at a
  level without switches; the grade-2 counters add up to the cards that left the stack;
* Luna tokens: an unfired token lies ahead of her marker (or at/below her start position);
* her bonus markers in reserve plus those on bonus spaces equal the board's count, and she never
  occupies a majority bonus space (her cards never designate the top row);
* 15 outposts per company (sectors + station), station vacancy counts within 0..column size,
  sector owners valid;
* cash never negative; helium 0..tank_max and research 0..research_max (Luna and scripted seats);
  track markers 0..spaces; a scripted seat's bonus markers in reserve + on the board (standard,
  majority and scientist spaces) equal its allowance;
* each action card is in exactly one place (display, deck, one seat's collected cards);
* research display bookkeeping (deck sizes, special-plan statuses flipped in order);
* on the Belt (SPEC section 7): no target over its capacity, the outposts on asteroids count among the
  15, shuttles conserved (Belt + shuttle column = 4 per company), placers only on held slots.

For ``--check-invariants`` (``sim/engines.py``): :func:`round_checker` stops a game at its first
broken invariant with ``sim.violation.InvariantError``, and :func:`check_final_rows` adds the
end-of-game check that each seat's total is the sum of its seven scoring categories. The numba
engine's in-kernel checks (``sim/fast/invariants.py``) mirror these.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from sim.columns import SCORE_CATEGORY_COLUMNS
from sim.constants import SPECIAL_FACE_DOWN, SPECIAL_FACE_UP, SPECIAL_REMOVED
from sim.reference import NO_CARD, NO_COMPANY, NOBODY, SLOTS, GameState, Rules
from sim.violation import InvariantError

# Every per-seat line of check_invariants starts "seat N: " or "seat N (kind): "; the rest is the board's.
_SEAT_LINE = re.compile(r"seat (\d+)(?: \([^)]*\))?: ")


def _check_luna(rules: Rules, state: GameState, seat: int, problems: list[str]) -> None:
    luna = state.seats[seat].luna
    where = f"seat {seat} (luna:{luna.level})"
    spec = rules.levels[luna.level]

    # Cards: each card of the level exactly once across her five piles.
    expected = Counter(rules.grade1 + (rules.grade2 if spec.grade2 else []))
    if len(luna.slots) != 5 or len(luna.slot_on) != 5 or len(luna.majority) != 2:
        problems.append(f"{where}: slots/slot_on must have 5 entries and majority 2")
    held = Counter(luna.deck) + Counter(luna.grade2_stack) + Counter(luna.discard)
    held += Counter(card for card in [*luna.slots, *luna.majority] if card != NO_CARD)
    for card in sorted(set(expected) | set(held)):
        if held[card] != expected[card]:
            name = rules.cards[card].id if 0 <= card < len(rules.cards) else repr(card)
            problems.append(f"{where}: card {name} appears {held[card]} times (expected {expected[card]})")
    if any(rules.cards[card].grade != 2 for card in luna.grade2_stack if 0 <= card < len(rules.cards)):
        problems.append(f"{where}: a grade-1 card lies in the grade-2 stack")

    # Slots: a card only in an ON slot; no switches at level 0 means A and E never turn ON. (Which
    # slots are ON is not checked further: tests switch slots OFF to play a single known slot.)
    for slot, card in enumerate(luna.slots):
        if card != NO_CARD and not luna.slot_on[slot]:
            problems.append(f"{where}: slot {SLOTS[slot]} holds a card but is OFF")
    if not spec.slot_switches and (luna.slot_on[0] or luna.slot_on[4]):
        problems.append(f"{where}: slot A or E switched ON at a level without ON/OFF markers")
    for slot, first in enumerate(luna.slot_first_round):
        if first and (not luna.slot_on[slot] or not 1 <= first <= state.round):
            problems.append(f"{where}: slot {SLOTS[slot]} first used in round {first} (round {state.round})")

    # Grade-2 counters: every card that left the stack was counted once.
    left_stack = (len(rules.grade2) if spec.grade2 else 0) - len(luna.grade2_stack)
    if luna.grade2_by_reshuffle + luna.grade2_by_token != left_stack:
        problems.append(f"{where}: grade-2 counters {luna.grade2_by_reshuffle}+{luna.grade2_by_token} "
                        f"but {left_stack} cards left the stack")

    # Own tracks.
    if not 0 <= luna.helium <= rules.board.tank_max:
        problems.append(f"{where}: helium {luna.helium} outside 0-{rules.board.tank_max}")
    if not 0 <= luna.research <= rules.board.research_max:
        problems.append(f"{where}: research {luna.research} outside 0-{rules.board.research_max}")
    # A token is removed when it fires, and every token her marker reached after the start fired.
    for name, remaining, all_tokens, marker, start in (
            ("helium", luna.helium_tokens, spec.helium_tokens, luna.helium, spec.start_helium),
            ("research", luna.research_tokens, spec.research_tokens, luna.research, spec.start_research)):
        if not Counter(remaining) <= Counter(all_tokens):
            problems.append(f"{where}: {name} tokens {remaining} are not among the level's {all_tokens}")
        for token in remaining:
            if start < token <= marker:
                problems.append(f"{where}: {name} token at {token} not fired though the marker is at {marker}")

    # Bonus markers: reserve + board = all of hers; never on a majority bonus space.
    on_board = sum(owner == seat for row in state.bonus_space_owner for owner in row)
    if luna.markers_in_reserve < 0 or luna.markers_in_reserve + on_board != rules.board.bonus_markers:
        problems.append(f"{where}: bonus markers {luna.markers_in_reserve} in reserve + {on_board} on the board "
                        f"!= {rules.board.bonus_markers}")
    if seat in state.bonus_space_owner[0]:
        problems.append(f"{where}: a bonus marker on a majority bonus space")


def _check_player(rules: Rules, state: GameState, seat: int, problems: list[str]) -> None:
    """A scripted seat: its own tracks and its bonus markers (standard, majority and scientist spaces)."""
    player = state.seats[seat].player
    where = f"seat {seat} (scripted)"
    if not 0 <= player.helium <= rules.board.tank_max:
        problems.append(f"{where}: helium {player.helium} outside 0-{rules.board.tank_max}")
    if not 0 <= player.research <= rules.board.research_max:
        problems.append(f"{where}: research {player.research} outside 0-{rules.board.research_max}")
    on_board = sum(owner == seat for row in state.bonus_space_owner for owner in row)
    on_board += state.scientist_space_owner == seat
    if player.markers_in_reserve < 0 or player.markers_in_reserve + on_board != rules.player_markers:
        problems.append(f"{where}: bonus markers {player.markers_in_reserve} in reserve + {on_board} on the board "
                        f"!= {rules.player_markers}")


def _check_belt(rules: Rules, state: GameState, problems: list[str]) -> None:
    """The Belt: no target over its capacity, no shuttle on an asteroid nor outpost on a shuttle space
    (slots per target = capacity), shuttles conserved (on the Belt + in the column = the column's size),
    placers only on held slots, and no outpost on the Moon's sectors."""
    belt = rules.belt
    if any(owner != NO_COMPANY for owner in state.sector_owner):
        problems.append("an outpost on a Moon sector in a Belt game")
    if len(state.belt.owner) != belt.count + 1 or state.belt.owner[0]:
        problems.append(f"the Belt has {len(state.belt.owner) - 1} targets, not {belt.count}")
        return
    for target in range(1, belt.count + 1):
        owners, placers = state.belt.owner[target], state.belt.placer[target]
        if len(owners) != belt.capacity[target] or len(placers) != len(owners):
            problems.append(f"Belt target {target}: {len(owners)} slots, capacity {belt.capacity[target]}")
        if any(owner not in (NO_COMPANY, 0, 1, 2, 3) for owner in owners):
            problems.append(f"Belt target {target}: unknown company in {owners}")
        for owner, placer in zip(owners, placers, strict=False):
            if placer != NOBODY and (owner == NO_COMPANY or not 0 <= placer < len(state.seats)):
                problems.append(f"Belt target {target}: placer {placer} recorded without a piece of a seat's making")
    for company in range(4):
        on_belt = sum(state.belt.owner[t].count(company) for t in range(1, belt.count + 1) if not belt.asteroid[t])
        left = state.belt.shuttles_left[company]
        if left < 0 or on_belt + left != belt.shuttles:
            problems.append(f"{rules.companies[company]}: {on_belt} shuttles on the Belt + {left} in the column "
                            f"!= {belt.shuttles}")


def check_invariants(rules: Rules, state: GameState) -> list[str]:
    """Every broken invariant of ``state`` as one line; empty when all hold."""
    problems: list[str] = []
    seat_count = len(rules.config.seats)
    if len(state.seats) != seat_count or len(state.track_position) != seat_count:
        problems.append(f"{seat_count} seats configured but {len(state.seats)} seats / "
                        f"{len(state.track_position)} track rows in the state")

    for seat, holder in enumerate(state.seats):
        configured = rules.config.seats[seat] if seat < seat_count else None
        if configured is not None and (holder.luna is not None) != (configured.kind == "luna"):
            problems.append(f"seat {seat}: kind does not match the configuration")
        if holder.cash < 0:
            problems.append(f"seat {seat}: negative cash {holder.cash}")
        if holder.luna is not None:
            if configured is not None and holder.luna.level != configured.level:
                problems.append(f"seat {seat}: level {holder.luna.level} but luna:{configured.level} configured")
            _check_luna(rules, state, seat, problems)
        if holder.player is not None:
            _check_player(rules, state, seat, problems)

    for seat, positions in enumerate(state.track_position):
        for company, position in enumerate(positions):
            if not 0 <= position <= rules.track_spaces:
                problems.append(f"seat {seat}: {rules.companies[company]} track marker at {position} "
                                f"outside 0-{rules.track_spaces}")

    # Outposts: each company's are on the board or in its station, 15 in all.
    if state.sector_owner[0] != NO_COMPANY:
        problems.append("sector 0 does not exist but has an owner")
    per_company = rules.columns * rules.column_size
    for company in range(4):
        vacant = state.station_vacant[company]
        if len(vacant) != rules.columns or any(not 0 <= v <= rules.column_size for v in vacant):
            problems.append(f"{rules.companies[company]}: station vacancies {vacant} outside 0-{rules.column_size}")
        on_board = state.sector_owner.count(company)
        if state.belt is not None:
            on_board += sum(owners.count(company) for target, owners in enumerate(state.belt.owner)
                            if rules.belt.asteroid[target])
        in_station = per_company - sum(vacant)
        if on_board + in_station != per_company:
            problems.append(f"{rules.companies[company]}: {on_board} outposts on the board + {in_station} in the "
                            f"station != {per_company}")
    if any(owner not in (NO_COMPANY, 0, 1, 2, 3) for owner in state.sector_owner):
        problems.append(f"sector owners hold an unknown company: {state.sector_owner}")

    if (state.belt is None) != (rules.belt is None):
        problems.append("the Belt state does not match the board played")
    elif state.belt is not None:
        _check_belt(rules, state, problems)

    # Action cards: each exactly once among display, deck and the seats' collected cards.
    if len(state.display) != 12:
        problems.append(f"the display has {len(state.display)} spaces, not 12")
    places = Counter(card for card in state.display if card != NO_CARD) + Counter(state.action_deck)
    for holder in state.seats:
        places += Counter(holder.cards)
    all_cards = range(len(rules.action_cards))
    for card in sorted(set(places) | set(all_cards)):
        if places[card] != (1 if card in all_cards else 0):
            problems.append(f"action card {card} is in {places[card]} places (expected 1)")

    # Bonus spaces: each holds at most one marker, of a seat at the table.
    for owner in [*(o for row in state.bonus_space_owner for o in row), state.scientist_space_owner]:
        if owner != NOBODY and not 0 <= owner < len(state.seats):
            problems.append(f"bonus space held by {owner}, which is not a seat")
    # Who placed an outpost is only recorded for an outpost on the board.
    for sector, placer in enumerate(state.sector_placer):
        if placer != NOBODY and (state.sector_owner[sector] == NO_COMPANY or not 0 <= placer < len(state.seats)):
            problems.append(f"sector {sector}: placer {placer} recorded without an outpost of a seat's making")

    # Research display bookkeeping.
    for row, left in enumerate(state.plan_decks):
        if not 0 <= left <= rules.research.row_deck:
            problems.append(f"research row {'ABC'[row]}: {left} plans left in its deck")
    flipped = state.specials_flipped
    if any(status not in (SPECIAL_FACE_DOWN, SPECIAL_FACE_UP, SPECIAL_REMOVED) for status in state.special_plans) or \
            any(status == SPECIAL_FACE_DOWN for status in state.special_plans[:flipped]) or \
            any(status != SPECIAL_FACE_DOWN for status in state.special_plans[flipped:]):
        problems.append(f"special plans {state.special_plans} inconsistent with {flipped} flipped")
    return problems


def assert_invariants(rules: Rules, state: GameState) -> None:
    """Raise ``AssertionError`` listing every broken invariant."""
    problems = check_invariants(rules, state)
    if problems:
        raise AssertionError("invariants broken:\n" + "\n".join(problems))


def _violation(game: int, round: int, problem: str) -> InvariantError:
    """``problem`` (a line of :func:`check_invariants`) as the error naming its game, seat and round."""
    seat_line = _SEAT_LINE.match(problem)
    if seat_line is None:
        return InvariantError(game, None, round, problem)
    return InvariantError(game, int(seat_line.group(1)), round, problem[seat_line.end():])


def round_checker(rules: Rules, game: int) -> Callable[[GameState], None]:
    """The ``check`` of ``reference.play_game`` for game ``game``: raise on the state's first broken invariant.

    Raises
    ------
    sim.violation.InvariantError
        Naming the game, the seat (None for a board-wide problem), the state's round and the problem.
    """
    def check(state: GameState) -> None:
        problems = check_invariants(rules, state)
        if problems:
            raise _violation(game, state.round, problems[0])

    return check


def check_final_rows(game: int, rounds: int, rows: Sequence[dict]) -> None:
    """Raise ``InvariantError`` for the first seat whose ``score_total`` is not the sum of its categories.

    ``rows`` are ``reference.play_game``'s per-seat rows of game ``game``, played over ``rounds`` rounds.
    """
    for seat, row in enumerate(rows):
        categories = sum(row[column] for column in SCORE_CATEGORY_COLUMNS)
        if row["score_total"] != categories:
            raise InvariantError(game, seat, rounds, f"score_total {row['score_total']} but its categories "
                                                         f"sum to {categories}")
