"""One game: setup, the round (planning, action phase, preparation), final scoring.

Each kernel mirrors the ``sim/reference/game.py`` function named in its docstring. A game starts from the
template record (:func:`setup_template`, filled once per block of games; see ``sim/fast/state.py``),
so :func:`setup` only draws: in the reference's order and count, which is what makes the two engines
agree game by game.
"""

from __future__ import annotations

import numpy as np

from sim.constants import BONUS_SPACES, DISPLAY_SPACES, N_COMPANIES, N_RESOURCE_TYPES, N_SLOTS, TRACK_TILE_SIDES
from sim.fast._jit import jit
from sim.fast.belt import setup_belt
from sim.fast.board import (
    advance_track,
    ensure_order,
    flip_special_plan,
    refill_display,
    refill_plan_row,
    set_owner,
    station_add,
    take_column,
)
from sim.fast.invariants import NONE as NO_VIOLATION
from sim.fast.invariants import check_scores, check_state
from sim.fast.luna import (
    SLOT_A,
    SLOT_E,
    TANK,
    discard,
    luna_plays_out,
    luna_turn,
    majority_value,
    plan_luna,
    plays_out,
    step_marker,
)
from sim.fast.players import count_blocked_majorities, plan_player, player_turn
from sim.fast.rng import BOARD_STREAM, U1, below, game_state, seat_stream, shuffle, stream_state
from sim.fast.state import (
    C_BLOCKED,
    C_BONUS_LOST,
    C_CARDS,
    C_CARDS_LOST,
    C_CASH,
    C_GAME,
    C_GRADE2,
    C_GRADE2_RESHUFFLE,
    C_GRADE2_TOKEN,
    C_HELIUM,
    C_MARKERS,
    C_OUSTED,
    C_OUSTED_BY_LUNA,
    C_OUTPOSTS,
    C_PLANS,
    C_PLANS_LOST,
    C_RANK,
    C_RESEARCH,
    C_RESHUFFLES,
    C_SCORE_CASH,
    C_SCORE_COMPANY,
    C_SCORE_HELIUM,
    C_SCORE_RESEARCH,
    C_SCORE_TOTAL,
    C_SEAT,
    C_SHARES,
    C_SLOT_A,
    C_SLOT_E,
    C_VALUE,
    DECK,
    N_ROWS,
    N_SIDES,
    NO_CARD,
    NOBODY,
    R_CARDS,
    R_CASH,
    R_DECK_SIZE,
    R_GRADE2,
    R_GRADE2_RESHUFFLE,
    R_GRADE2_TOKEN,
    R_HELIUM,
    R_MAJORITY,
    R_MAJORITY_CARDS,
    R_RESEARCH,
    R_RESHUFFLES,
    R_ROUND,
    R_SEAT,
    STACK,
)
from sim.tables import RULE_START_POSITION, START_PLACE

# ---------------------------------------------------------------- setup


@jit
def setup_template(t, st, general):
    """What ``setup_game`` does without drawing, into a zeroed record: the template every game starts from
    (``general``: ``luna.py``'s module docstring).

    The nobody/no-card markers, each seat's starting values, the research rows, the special plans face
    up and the companies' setup outposts. None of it draws or depends on a draw (the company order it
    leaves dirty is sorted once the tracks' sides are drawn), so doing it first changes nothing.
    """
    st.order_dirty = 1
    for company in range(N_COMPANIES):  # not a slice copy: see _play_block's reset (sim/fast/kernel.py)
        st.reach[company] = t.touches_mask[company]
    st.sector_owner[:] = NOBODY
    st.placer[:] = NOBODY
    st.display[:] = NO_CARD
    st.display_empty = (U1 << np.uint64(DISPLAY_SPACES)) - U1
    st.bonus_owner[:] = NOBODY
    st.scientist_owner = NOBODY
    st.card_holder[:] = NOBODY
    st.plan_decks[:] = t.row_deck
    for row in range(N_ROWS):
        refill_plan_row(st, row)
    for _ in range(t.special_face_up_at_start):
        flip_special_plan(t, st)
    for company in range(N_COMPANIES):
        for k in range(t.setup_count[company]):
            column = take_column(t, st, company)
            station_add(t, st, company, column if column >= 0 else t.n_columns - 1, -1)  # -1: the last column
            set_owner(t, st, t.setup_sectors[company, k], company)
    if general is not None:
        if t.board_belt:
            setup_belt(t, st)
    for seat in range(t.n_seats):
        st.slots[seat, :] = NO_CARD
        st.majority[seat, :] = NO_CARD
        st.passed[seat] = 1  # a scripted seat passes until its first plan (a passive seat for good)
        st.cash[seat] = t.seat_start_cash[seat]
        for slot in range(N_SLOTS):
            st.slot_on[seat, slot] = t.initial_slot_on[slot]
        level = t.seat_level[seat]
        if level < 0:
            st.markers[seat] = t.player_markers
            continue
        st.pile_len[seat, DECK] = t.n_grade1
        if t.level_grade2[level]:
            st.pile_len[seat, STACK] = t.n_grade2
        st.markers[seat] = t.bonus_markers
        st.helium[seat] = t.level_start_helium[level]
        st.research[seat] = t.level_start_research[level]
        st.passed[seat] = 0
        if t.level_switches[level]:
            if st.helium[seat] >= t.tank_switch_at:
                st.slot_on[seat, SLOT_A] = 1
            if st.research[seat] >= t.research_switch_at:
                st.slot_on[seat, SLOT_E] = 1


@jit
def setup(t, st, seed, game):
    """``setup_game``'s draws into ``st``, a copy of the template, in the reference's documented order."""
    shared = game_state(seed, np.uint64(game))
    st.rng[BOARD_STREAM] = stream_state(shared, BOARD_STREAM)
    for seat in range(t.n_seats):
        st.rng[seat_stream(seat)] = stream_state(shared, seat_stream(seat))

    # board stream: track letters, sides, action-card deck
    for i in range(t.n_letters):
        st.letters[i] = i
    shuffle(st, BOARD_STREAM, st.letters[:t.n_letters])
    for company in range(N_COMPANIES):
        st.track_side[company] = t.side_of_letter[st.letters[company], below(st, BOARD_STREAM, TRACK_TILE_SIDES)]
    for i in range(t.n_action_cards):
        st.action_deck[i] = i
    shuffle(st, BOARD_STREAM, st.action_deck[:t.n_action_cards])
    st.action_deck_len = t.n_action_cards
    refill_display(st)
    ensure_order(t, st)  # the sides are drawn: from now on station_add keeps the order

    # each Luna's stream: her grade-1 deck, then her grade-2 stack (the template holds their sizes)
    for seat in range(t.n_seats):
        if t.seat_level[seat] < 0:
            continue
        for i in range(t.n_grade1):
            st.piles[seat, DECK, i] = t.grade1[i]
        shuffle(st, seat_stream(seat), st.piles[seat, DECK, :t.n_grade1])
        n2 = st.pile_len[seat, STACK]
        for i in range(n2):
            st.piles[seat, STACK, i] = t.grade2[i]
        shuffle(st, seat_stream(seat), st.piles[seat, STACK, :n2])

    if t.start_bonus_random:  # board stream: one starting token per seat, drawn from a swap-remove pool
        pool = st.pool
        n_pool = t.n_tokens
        for i in range(n_pool):
            pool[i] = i
        for seat in range(t.n_seats):
            pick = below(st, BOARD_STREAM, n_pool)
            token = pool[pick]
            pool[pick] = pool[n_pool - 1]
            n_pool -= 1
            if t.seat_level[seat] < 0 and t.seat_passive[seat]:
                continue  # a passive seat draws its token but takes nothing
            if t.token_helium[token] > 0:
                if not drops_token_helium(t, seat):  # her Luna tokens are placed after it: none fires
                    step_marker(t, st, seat, TANK, t.token_helium[token])
            else:
                advance_track(t, st, seat, t.token_company[token], t.token_steps[token])


@jit
def drops_token_helium(t, seat):
    """``apply_starting_token`` with ``start_position = place``: a Luna seat whose level places her markers
    (``places_markers``) applies no helium steps of her starting token."""
    level = t.seat_level[seat]
    return (level >= 0 and t.rules[RULE_START_POSITION] == START_PLACE
            and (t.level_start_helium[level] > 0 or t.level_start_research[level] > 0))


# ---------------------------------------------------------------- the round

@jit
def action_phase(t, st, general):
    """``action_phase``: turns round the table in seat order, one action a turn, until every seat passed."""
    while True:
        acted = False
        for seat in range(t.n_seats):
            if not st.passed[seat]:
                if t.seat_level[seat] >= 0:
                    if plays_out(t, st, seat, general):
                        luna_plays_out(t, st, seat, general)
                    else:
                        luna_turn(t, st, seat, general)
                else:
                    player_turn(t, st, seat, general)
                acted = True
        if not acted:
            return


@jit
def preparation(t, st):
    """``preparation``: every seat's bonus markers home (each seat only touches its own), Luna's majority
    cards to her discard pile, display refilled, next special plan."""
    for seat in range(t.n_seats):
        back = 0
        for space in range(BONUS_SPACES):  # selects, not branches: where her markers lie is the game's chance
            owner = st.bonus_owner[space]
            mine = owner == seat
            back += 1 if mine else 0
            st.bonus_owner[space] = NOBODY if mine else owner
        st.markers[seat] += back
        if t.seat_level[seat] < 0:
            if st.scientist_owner == seat:
                st.scientist_owner = NOBODY
                st.markers[seat] += 1
            continue
        for side in range(N_SIDES):
            if st.majority[seat, side] != NO_CARD:
                discard(st, seat, st.majority[seat, side])
                st.majority[seat, side] = NO_CARD
    refill_display(st)
    flip_special_plan(t, st)


@jit
def play_round(t, st, detail, general):
    """``play_round``; with ``detail``, the k-th Luna seat's record goes to ``round_rows[k, round - 1]``
    (``general``: ``luna.py``'s module docstring)."""
    st.round += 1
    rnd = st.round
    for seat in range(t.n_seats):  # scripted seats plan first (each on its own stream)
        if t.seat_level[seat] < 0:
            plan_player(t, st, seat)
    for k in range(t.n_luna):
        seat = t.luna_seats[k]
        if detail:  # round 1's row counts from setup on (a starting token can bring in a grade-2 card)
            first = rnd == 1
            st.round_start[seat, 0] = st.pile_len[seat, DECK]
            st.round_start[seat, 1] = 0 if first else st.reshuffles[seat]
            st.round_start[seat, 2] = 0 if first else st.grade2_by_reshuffle[seat]
            st.round_start[seat, 3] = 0 if first else st.grade2_by_token[seat]
        plan_luna(t, st, seat, general)
    if detail:
        for k in range(t.n_luna):
            seat = t.luna_seats[k]
            row = st.round_rows[k, rnd - 1]
            row[R_SEAT] = seat
            row[R_ROUND] = rnd
            for slot in range(N_SLOTS):
                row[R_CARDS + slot] = st.slots[seat, slot]
            for side in range(N_SIDES):
                row[R_MAJORITY_CARDS + side] = st.majority[seat, side]
            for index in range(N_RESOURCE_TYPES):
                row[R_MAJORITY + index] = majority_value(t, st, seat, index)
            row[R_DECK_SIZE] = st.round_start[seat, 0]
    count_blocked_majorities(t, st)
    action_phase(t, st, general)
    if detail:
        for k in range(t.n_luna):
            seat = t.luna_seats[k]
            row = st.round_rows[k, rnd - 1]
            by_reshuffle = st.grade2_by_reshuffle[seat] - st.round_start[seat, 2]
            by_token = st.grade2_by_token[seat] - st.round_start[seat, 3]
            row[R_RESHUFFLES] = st.reshuffles[seat] - st.round_start[seat, 1]
            row[R_GRADE2] = by_reshuffle + by_token
            row[R_GRADE2_RESHUFFLE] = by_reshuffle
            row[R_GRADE2_TOKEN] = by_token
            row[R_HELIUM] = st.helium[seat]
            row[R_RESEARCH] = st.research[seat]
            row[R_CASH] = st.cash[seat]
    if rnd < t.rounds:
        preparation(t, st)


# ---------------------------------------------------------------- final scoring, one game

@jit
def final_scores(t, st, game):
    """``final_scores`` and the per-game counters of ``play_game`` into ``result`` and ``won``."""
    best = np.iinfo(np.int64).min
    for seat in range(t.n_seats):
        row = st.result[seat]
        helium = st.helium[seat]  # Luna's or the scripted seat's marker (a passive seat's stays on 0)
        research = st.research[seat]
        total = st.cash[seat] + t.helium_score[helium] + t.research_score[research]
        row[C_GAME] = game
        row[C_SEAT] = seat
        row[C_SCORE_CASH] = st.cash[seat]
        row[C_SCORE_HELIUM] = t.helium_score[helium]
        row[C_SCORE_RESEARCH] = t.research_score[research]
        for company in range(N_COMPANIES):
            shares = st.track_pos[seat, company] + st.card_shares[seat, company]
            value = st.value[company]
            row[C_SCORE_COMPANY + company] = shares * value
            row[C_SHARES + company] = shares
            row[C_VALUE + company] = value
            total += shares * value
        row[C_SCORE_TOTAL] = total
        best = max(best, total)
        row[C_HELIUM] = helium
        row[C_RESEARCH] = research
        row[C_CASH] = st.cash[seat]
        row[C_CARDS] = st.cards_gained[seat]
        row[C_MARKERS] = st.markers_placed[seat]
        row[C_PLANS] = st.plans_discarded[seat]
        row[C_OUTPOSTS] = st.outposts_placed[seat]
        row[C_OUSTED] = st.ousted[seat]
        row[C_RESHUFFLES] = st.reshuffles[seat]
        row[C_GRADE2] = st.grade2_by_reshuffle[seat] + st.grade2_by_token[seat]
        row[C_GRADE2_RESHUFFLE] = st.grade2_by_reshuffle[seat]
        row[C_GRADE2_TOKEN] = st.grade2_by_token[seat]
        row[C_SLOT_A] = st.slot_first_round[seat, SLOT_A]
        row[C_SLOT_E] = st.slot_first_round[seat, SLOT_E]
        for index in range(N_RESOURCE_TYPES):
            row[C_BLOCKED + index] = st.blocked[seat, index]
        row[C_BONUS_LOST] = st.bonus_spaces_lost[seat]
        row[C_CARDS_LOST] = st.cards_lost[seat]
        row[C_PLANS_LOST] = st.plans_lost[seat]
        row[C_OUSTED_BY_LUNA] = st.outposts_ousted_by_luna[seat]
    winners = 0
    for seat in range(t.n_seats):
        if st.result[seat, C_SCORE_TOTAL] == best:
            winners += 1
    for seat in range(t.n_seats):
        total = st.result[seat, C_SCORE_TOTAL]
        rank = 1
        for other in range(t.n_seats):
            if st.result[other, C_SCORE_TOTAL] > total:
                rank += 1
        st.result[seat, C_RANK] = rank
        st.won[seat] = 1.0 / winners if total == best else 0.0


@jit(inline="always")  # compiled into the driver, not on its own: sim/fast/kernel.py, "Compile time"
def play_game(t, st, seed, game, detail, check, general):
    """``play_game`` of game number ``game`` from a fresh copy of the template in ``st``; its rows are left
    in ``st.result``, ``st.won`` and ``st.round_rows``.

    ``check`` is ``None`` or ``True``. With ``True``, the invariants of ``sim/fast/invariants.py`` are
    checked after setup, after every round and after final scoring, and the game stops at the first
    broken one; returns its ``(check, seat, round)`` (``check`` 0 when all held, and always 0 with
    ``None``). ``None`` is a type of its own to numba, which prunes the ``is not None`` branches before
    typing them: the everyday engine neither compiles nor carries the checks. ``general`` likewise:
    ``None`` plays the Moon under the shipped rule readings only, ``True`` any board and readings
    (``luna.py``'s module docstring); the template in ``st`` was made with the same ``general``.
    """
    setup(t, st, seed, game)
    if check is not None:
        found = check_state(t, st)
        if found[0] != NO_VIOLATION:
            return found
    for _ in range(t.rounds):
        play_round(t, st, detail, general)
        if check is not None:
            found = check_state(t, st)
            if found[0] != NO_VIOLATION:
                return found
    final_scores(t, st, game)
    if check is not None:
        return check_scores(t, st)
    return np.int64(NO_VIOLATION), np.int64(NOBODY), np.int64(st.round)
