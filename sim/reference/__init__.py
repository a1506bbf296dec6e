"""The reference engine: Luna's rules, clause by clause, in plain readable Python.

Written for exactness, not speed: the numba engine must reproduce its results bit for bit, so every
random draw happens here in a documented order (see ``sim/rng.py`` and ``setup_game``). Each rule
is a function acting on the :class:`GameState` it is given; ``play_game`` strings them together.

Indices used throughout: companies 0-3 in ``moon.toml`` order (astrogo, tawac, skymine, minerva);
Luna cards 0-18 in ``luna.toml`` order; sectors 1-24 as numbered on the board; display spaces 0-11
(space number minus 1); action slots 0-4 for A-E; majority types 0-4 (titanium, carbon, energy,
minerals, scientists).

The package, in the order its modules build on each other (each imports only those before it):

- ``state``: the table as typed structs (``GameState``, ``SeatState``, ``LunaState``, ``PlayerState``,
  ``RoundRecord``) and ``Rules``, the data one game reads;
- ``board``: what every seat shares: companies (value, order, lead margins, selection), company tracks,
  stations and sectors (taking and returning outposts, reaching, Luna's expansion), the action-card
  display, research plans, bonus spaces;
- ``luna``: Luna's deck and tokens, her tank and upload markers, a card's actions, her majority values,
  her planning and turns;
- ``players``: the scripted players (below);
- ``belt``: the Belt side of the board (SPEC section 7): its setup, Luna's expansion clause by clause,
  the scripted players' habit there;
- ``game``: setup, the round, final scoring and one whole game (``play_game``).

This module re-exports their public names, so ``from sim import reference; reference.play_game(...)``
reads as one engine. The numba engine (``sim/fast``) has modules of the same names.

Scripted players (SPEC section 5, modelled; numbers in ``sim/data/players``) share the same table.
Each round, before Luna plans, a scripted player draws one action kind per ON slot from its profile's
weights (one ``below(sum of weights)`` per slot on its own stream; a passive seat draws nothing) and
notes what it aims at: the best display card for each ``buy_card`` and the first research plan for
each ``research``. Its per-round resource totals are the profile's totals for the round times its
strength (floored) plus the resources of cards it bought in earlier rounds; every majority type whose
total is lower than a Luna's value that round counts as blocked. In the action phase the seats take
turns in seat order (scripted seats first, Luna last), one action each per turn. An action's strength
is ``floor(steps_by_round[round] * strength + carry)``, the fraction carried to its next action.
- invest: that many steps on the most valuable company's track; thresholds pay; a money barrier it
  cannot pay stops it; past the end each step pays ``past_end_crypcoin_per_step`` CrypCoin.
- expand: ``max(1, floor(steps * expand_outposts_per_step))`` outposts (``steps``: the action's strength;
  none when it is 0)
  of the company it holds most shares of (ties: more valuable), each in the lowest-numbered reachable
  vacant sector (it never ousts), paying ``sector_reward`` each.
- helium / research: the tank or upload marker forward (slot A at ``tank_switch_at``, E at ``research_switch_at``,
  ``past_end_crypcoin_per_step`` CrypCoin a step past the end);
  research also takes the plan it aimed at; if Luna discarded that plan meanwhile it counts a lost
  plan and loses ``plan_lost_research_penalty`` steps.
- buy_card: the card it aimed at if still there and affordable; if Luna took it, a lost card; then the
  best affordable card instead. Best: a card with a share of the most valuable company, then other
  share cards by company value, then most resources, then the lowest space.
- bonus: a marker on the first majority space (titanium, carbon, energy, minerals, then scientists)
  that is free and that its totals allow, else on the first free standard space in its preference
  order; when the space it would have taken there holds a Luna marker, a lost bonus space.
"""

from sim.constants import SLOT_LETTERS
from sim.reference.belt import (
    expand_company_belt,
    luna_belt_point,
    player_belt_piece,
    setup_belt,
    within_reach,
)
from sim.reference.board import (
    advance_track,
    column_coins,
    companies_by_value,
    company_value,
    expand_company,
    farthest_behind,
    flip_special_plan,
    lead_margins,
    markers_home,
    reachable_sectors,
    refill_display,
    refill_plan_row,
    return_column,
    seat_shares,
    select_companies,
    take_column,
    take_display_card,
)
from sim.reference.game import (
    GameResult,
    action_phase,
    apply_starting_token,
    final_scores,
    place_luna_tokens,
    play_game,
    play_round,
    preparation,
    seat_counters,
    setup_game,
    setup_luna,
    table_score,
)
from sim.reference.luna import (
    advance_research,
    apply_reveal,
    discard_research_plan,
    draw_luna_card,
    end_luna_actions,
    fire_token,
    gain_card,
    gain_helium,
    luna_majority_values,
    luna_turn,
    majority_values,
    move_marker,
    place_bonus_marker,
    plan_luna,
    resolve_card,
)
from sim.reference.players import (
    action_strength,
    choose_aim,
    count_blocked_majorities,
    plan_player,
    player_bonus,
    player_buy,
    player_expand,
    player_helium,
    player_invest,
    player_research,
    player_research_action,
    player_turn,
    ranked_display_spaces,
)
from sim.reference.state import (
    NO_CARD,
    NO_COMPANY,
    NOBODY,
    BeltRules,
    BeltState,
    GameState,
    LunaState,
    PlayerState,
    RoundRecord,
    Rules,
    SeatState,
)

SLOTS = SLOT_LETTERS  # Luna's action slots A-E (the name sim.invariants and the rules tests use)
player_markers_home = markers_home  # the rules tests' name; one function sends every seat's markers home

__all__ = [
    "NOBODY",
    "NO_CARD",
    "NO_COMPANY",
    "SLOTS",
    "BeltRules",
    "BeltState",
    "GameResult",
    "GameState",
    "LunaState",
    "PlayerState",
    "RoundRecord",
    "Rules",
    "SeatState",
    "action_phase",
    "action_strength",
    "advance_research",
    "advance_track",
    "apply_reveal",
    "apply_starting_token",
    "choose_aim",
    "column_coins",
    "companies_by_value",
    "company_value",
    "count_blocked_majorities",
    "discard_research_plan",
    "draw_luna_card",
    "end_luna_actions",
    "expand_company",
    "expand_company_belt",
    "farthest_behind",
    "final_scores",
    "fire_token",
    "flip_special_plan",
    "gain_card",
    "gain_helium",
    "lead_margins",
    "luna_belt_point",
    "luna_majority_values",
    "luna_turn",
    "majority_values",
    "markers_home",
    "move_marker",
    "place_bonus_marker",
    "place_luna_tokens",
    "plan_luna",
    "plan_player",
    "play_game",
    "play_round",
    "player_belt_piece",
    "player_bonus",
    "player_buy",
    "player_expand",
    "player_helium",
    "player_invest",
    "player_markers_home",
    "player_research",
    "player_research_action",
    "player_turn",
    "preparation",
    "ranked_display_spaces",
    "reachable_sectors",
    "refill_display",
    "refill_plan_row",
    "resolve_card",
    "return_column",
    "seat_counters",
    "seat_shares",
    "select_companies",
    "setup_belt",
    "setup_game",
    "setup_luna",
    "table_score",
    "take_column",
    "take_display_card",
    "within_reach",
]
