"""The Belt side of the board (SPEC section 7): setup, Luna's expansion clause by clause, the people's habit.

Luna's clauses (seed text, "When I expand a company on the Belt side of the board"), per expansion point:

1. the next vacant target within reach: a vacant shuttle space, or an asteroid where the company has
   no outpost yet and that has a vacant outpost space;
2. of these the lowest (MIN) / highest (MAX) target number;
3. a shuttle space takes the top shuttle of the company's shuttle column; with none left the target
   must be an asteroid (shuttle spaces are no targets then);
4. an asteroid takes the top outpost of the company's main outpost column (on its lowest vacant slot);
5. if no target matches: a vacant outpost space of the reachable asteroid with the lowest/highest
   target number that already holds the company's outposts;
6. if no Belt space within reach is vacant at all: among the reachable shuttles and outposts of the
   reachable company on whose track she is farthest behind, the lowest/highest target number is ousted
   back to its station (an outpost to the lowest vacant home space of its main outpost column, a
   shuttle back to its shuttle column) and her piece takes its place. She never takes rewards.

Readings this project makes where the text is silent (documented in the README): "within reach" is a
target her station touches, a target holding one of the company's pieces, or a target adjacent to one;
with no outpost left to place, asteroids are no targets (the mirror of clause 3); a target's kind must
match a piece the company still has, also when ousting (else the point is forfeited, like "no outpost
left" on the Moon); when vacant spaces are within reach but none can take a piece the company has, the
point is forfeited (clause 6 needs no vacant space at all); an ousted asteroid outpost is the company's
lowest slot there.
"""

from __future__ import annotations

from sim.constants import N_COMPANIES
from sim.reference.board import companies_by_value, farthest_behind, return_column, take_column
from sim.reference.state import NO_COMPANY, NOBODY, BeltState, GameState, Rules


def setup_belt(rules: Rules, state: GameState) -> None:
    """An empty Belt; each company's setup outposts on the lowest-numbered asteroid its station touches."""
    belt = rules.belt
    state.belt = BeltState.empty(belt)
    for company in range(N_COMPANIES):
        asteroids = [target for target in belt.touches[company] if belt.asteroid[target]]
        for _ in range(belt.setup_outposts if asteroids else 0):
            column = take_column(rules, state, company)
            state.station_vacant[company][column] += 1
            slots = state.belt.owner[asteroids[0]]
            slots[slots.index(NO_COMPANY)] = company


def within_reach(rules: Rules, state: GameState, company: int) -> list[int]:
    """Targets the company's station touches, that hold one of its pieces, or adjacent to those."""
    belt = rules.belt
    reach = set(belt.touches[company])
    for target in range(1, belt.count + 1):
        if company in state.belt.owner[target]:
            reach.add(target)
            reach.update(belt.adjacent[target])
    return sorted(reach)


def has_vacancy(state: GameState, target: int) -> bool:
    """Whether the target has a vacant slot (shuttle space or outpost space)."""
    return NO_COMPANY in state.belt.owner[target]


def place_piece(rules: Rules, state: GameState, seat: int, company: int, target: int, column: int) -> None:
    """The company's top shuttle (shuttle space) or top outpost of ``column`` (asteroid) on the target's
    lowest vacant slot, placed by ``seat``."""
    belt = state.belt
    if rules.belt.asteroid[target]:
        state.station_vacant[company][column] += 1
    else:
        belt.shuttles_left[company] -= 1
    slot = belt.owner[target].index(NO_COMPANY)
    belt.owner[target][slot] = company
    belt.placer[target][slot] = seat


def oust_piece(rules: Rules, state: GameState, target: int, victim: int) -> int:
    """The victim's piece on the target (its lowest slot there) back to its station; returns who placed it."""
    belt = state.belt
    slot = belt.owner[target].index(victim)
    if rules.belt.asteroid[target]:
        state.station_vacant[victim][return_column(rules, state, victim)] -= 1
    else:
        belt.shuttles_left[victim] += 1
    placer = belt.placer[target][slot]
    belt.owner[target][slot] = NO_COMPANY
    belt.placer[target][slot] = NOBODY
    return placer


def luna_belt_point(rules: Rules, state: GameState, seat: int, company: int, lowest: bool) -> bool:
    """One expansion point of Luna's on the Belt (clauses 1-6); False when it is forfeited."""
    belt = rules.belt
    column = take_column(rules, state, company)
    has_outpost, has_shuttle = column >= 0, state.belt.shuttles_left[company] > 0
    if not has_outpost and not has_shuttle:
        return False
    pick = min if lowest else max

    def placeable(target: int) -> bool:  # the company still has a piece of the target's kind
        return has_outpost if belt.asteroid[target] else has_shuttle

    reach = within_reach(rules, state, company)
    targets = [t for t in reach if placeable(t) and has_vacancy(state, t)
               and (not belt.asteroid[t] or company not in state.belt.owner[t])]  # clauses 1 and 3
    held = [t for t in reach if belt.asteroid[t] and has_outpost and has_vacancy(state, t)
            and company in state.belt.owner[t]]  # clause 5
    if targets or held:
        target = pick(targets) if targets else pick(held)  # clause 2 (or 5)
    elif any(has_vacancy(state, t) for t in reach):
        return False  # vacant spaces within reach, but none takes a piece the company has
    else:  # clause 6
        rivals = sorted({owner for t in reach for owner in state.belt.owner[t]} - {company, NO_COMPANY})
        if not rivals:
            return False
        victim = farthest_behind(rules, state, seat, rivals)
        theirs = [t for t in reach if victim in state.belt.owner[t] and placeable(t)]
        if not theirs:
            return False
        target = pick(theirs)
        placer = oust_piece(rules, state, target, victim)
        state.seats[seat].luna.ousted += 1
        if placer != NOBODY and state.seats[placer].player is not None:
            state.seats[placer].player.outposts_ousted_by_luna += 1
    place_piece(rules, state, seat, company, target, column)
    state.seats[seat].luna.outposts_placed += 1
    return True


def expand_company_belt(rules: Rules, state: GameState, seat: int, companies: list[int], points: int,
                        lowest: bool) -> None:
    """Luna's Belt expansion: less valuable company first, ``points`` each (MIN or MAX); a forfeited
    point forfeits the company's remaining points."""
    by_value = companies_by_value(rules, state)
    for company in sorted(companies, key=by_value.index, reverse=True):
        for _ in range(points):
            if not luna_belt_point(rules, state, seat, company, lowest):
                break


def player_belt_piece(rules: Rules, state: GameState, seat: int, company: int) -> bool:
    """A scripted player's piece on the lowest-numbered reachable target with a vacant space that takes a
    piece the company has (it never ousts); it takes the target's reward. False when none is left."""
    belt = rules.belt
    column = take_column(rules, state, company)
    has_outpost, has_shuttle = column >= 0, state.belt.shuttles_left[company] > 0
    targets = [t for t in within_reach(rules, state, company)
               if has_vacancy(state, t) and (has_outpost if belt.asteroid[t] else has_shuttle)]
    if not targets:
        return False
    target = targets[0]
    place_piece(rules, state, seat, company, target, column)
    state.seats[seat].cash += belt.outpost_reward if belt.asteroid[target] else belt.shuttle_reward
    return True
