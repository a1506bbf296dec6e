"""The shared board: companies, their tracks and stations, the moon's sectors, the action-card display,
the research plans and the bonus spaces. These rules apply to every seat alike; where Luna and a
scripted player differ (a money barrier), the function says so.
"""

from __future__ import annotations

from sim.constants import BONUS_COLUMNS, BONUS_ROWS, DISPLAY_SPACES, N_COMPANIES, SPECIAL_FACE_UP
from sim.reference.state import NO_CARD, NO_COMPANY, NOBODY, GameState, Rules

# ---------------------------------------------------------------- companies


def column_coins(rules: Rules, vacant: int) -> int:
    """Coin icons showing in a column whose top ``vacant`` home spaces are vacant."""
    return sum(rules.coin_icons[:vacant])


def company_value(rules: Rules, state: GameState, company: int) -> int:
    """Visible coin icons in the company's station."""
    return sum(column_coins(rules, vacant) for vacant in state.station_vacant[company])


def companies_by_value(rules: Rules, state: GameState) -> list[int]:
    """Companies, most valuable first: coin icons, then vacant home spaces, then track ID alphabetically."""
    def key(company: int) -> tuple[int, int, str]:
        return (-company_value(rules, state, company), -sum(state.station_vacant[company]),
                rules.sides[state.track_side[company]].id)
    return sorted(range(N_COMPANIES), key=key)


def seat_shares(rules: Rules, state: GameState, seat: int) -> list[int]:
    """Per company, the seat's shares: its track marker's position plus one per share card it holds."""
    shares = list(state.track_position[seat])
    for card in state.seats[seat].cards:
        if rules.card_share[card] != NO_COMPANY:
            shares[rules.card_share[card]] += 1
    return shares


def lead_margins(state: GameState, seat: int) -> list[int]:
    """Per company: her marker minus the best other marker (0 when no other marker stands there).

    Positive: she leads by that many spaces; 0: she shares the lead; negative: she is that far behind.
    """
    margins = []
    for company in range(N_COMPANIES):
        others = [state.track_position[other][company] for other in range(len(state.seats)) if other != seat]
        margins.append(state.track_position[seat][company] - max(others, default=0))
    return margins


def select_companies(rules: Rules, state: GameState, seat: int, selection: str) -> list[int]:
    """The companies a card's ``advance_company`` names, in the order they are advanced."""
    by_value = companies_by_value(rules, state)
    if selection == "most_valuable":
        return by_value[:1]
    if selection == "two_most_valuable":
        return by_value[:2]
    if selection == "second_most_valuable":
        return by_value[1:2]
    if selection == "least_valuable":
        return by_value[-1:]
    if selection == "all_four":
        return by_value
    # Biggest lead first; when she leads nowhere the shared lead, then the smallest gap behind, all of
    # which is "largest margin first". Ties go to the more valuable company.
    margins = lead_margins(state, seat)
    by_lead = sorted(range(N_COMPANIES), key=lambda company: (-margins[company], by_value.index(company)))
    if selection == "lead_biggest_margin":
        return by_lead[:1]
    if selection == "two_biggest_leads":
        return by_lead[:2]
    raise ValueError(f"unknown company selection {selection!r}")


def farthest_behind(rules: Rules, state: GameState, seat: int, candidates: list[int]) -> int:
    """Among ``candidates``, the company on whose track she is farthest behind (smallest margin first).

    Ties go to the more valuable company.
    """
    margins = lead_margins(state, seat)
    by_value = companies_by_value(rules, state)
    return min(candidates, key=lambda company: (margins[company], by_value.index(company)))


# ---------------------------------------------------------------- company tracks


def advance_track(rules: Rules, state: GameState, seat: int, company: int, steps: int) -> None:
    """Share marker forward: thresholds pay, ``past_end_crypcoin_per_step`` per step past the end; at a money
    barrier Luna pays what she has and moves on anyway, while a scripted player stops unless it can pay in full."""
    side = state.track_side[company]
    holder = state.seats[seat]
    for _ in range(steps):
        position = state.track_position[seat][company]
        if position >= rules.track_spaces:
            holder.cash += rules.board.past_end_crypcoin_per_step
            continue
        price = rules.barrier_price[side].get(position, 0)
        if holder.luna is None and price > holder.cash:
            break
        holder.cash -= min(price, holder.cash)
        holder.cash += rules.threshold_reward[side].get(position, 0)
        state.track_position[seat][company] = position + 1


# ---------------------------------------------------------------- stations and sectors


def take_column(rules: Rules, state: GameState, company: int) -> int:
    """Main outpost column to take the top outpost from: most vacant spaces among columns whose final
    space is occupied, ties to the column closest to the logo; -1 when the station is empty."""
    best = -1
    for column, vacant in enumerate(state.station_vacant[company]):
        if vacant < rules.column_size and (best < 0 or vacant > state.station_vacant[company][best]):
            best = column
    return best


def return_column(rules: Rules, state: GameState, company: int) -> int:
    """Main outpost column an ousted outpost returns to (its lowest vacant home space).

    As for taking; when every final space is vacant: most vacant spaces, then fewest coin icons,
    then closest to the logo.
    """
    column = take_column(rules, state, company)
    # Fix (rules tests): the main column can be full, e.g. vacancies [5, 0, 0] (column 1 emptied,
    # columns 2-3 untouched): the main column is column 2, which has no vacant home space, and the
    # outpost used to be pushed to -1 vacancies. Then the columns with room are exactly the emptied
    # ones, and the "all final spaces vacant" rule below picks among them (most vacant, closest to logo).
    if column >= 0 and state.station_vacant[company][column] > 0:
        return column
    vacants = state.station_vacant[company]
    return min(range(len(vacants)), key=lambda c: (-vacants[c], column_coins(rules, vacants[c]), c))


def reachable_sectors(rules: Rules, state: GameState, company: int) -> list[int]:
    """Sectors touching the company's station or adjacent to a sector holding one of its outposts."""
    reachable = set(rules.station_touches[company])
    for sector in range(1, rules.sector_count + 1):
        if state.sector_owner[sector] == company:
            reachable.update(rules.adjacent[sector])
    return sorted(reachable)


def expand_company(rules: Rules, state: GameState, seat: int, companies: list[int], points: int,
                   lowest: bool) -> None:
    """Luna's moon-side expansion, less valuable company first, ``points`` outposts each (MIN or MAX).

    With no vacant reachable sector she ousts an outpost of the rival she is farthest behind on.
    """
    by_value = companies_by_value(rules, state)
    luna = state.seats[seat].luna
    for company in sorted(companies, key=by_value.index, reverse=True):
        for _ in range(points):
            column = take_column(rules, state, company)
            if column < 0:
                break  # no outpost left to place: the remaining points are forfeited
            reachable = reachable_sectors(rules, state, company)
            vacant = [s for s in reachable if state.sector_owner[s] == NO_COMPANY]
            if vacant:
                target = min(vacant) if lowest else max(vacant)
            else:
                rivals = sorted({state.sector_owner[s] for s in reachable} - {company})
                if not rivals:
                    break
                victim = farthest_behind(rules, state, seat, rivals)
                held = [s for s in reachable if state.sector_owner[s] == victim]
                target = min(held) if lowest else max(held)
                state.station_vacant[victim][return_column(rules, state, victim)] -= 1
                luna.ousted += 1
                placer = state.sector_placer[target]
                if placer != NOBODY and state.seats[placer].player is not None:
                    state.seats[placer].player.outposts_ousted_by_luna += 1
            state.station_vacant[company][column] += 1
            state.sector_owner[target] = company
            state.sector_placer[target] = seat
            luna.outposts_placed += 1


# ---------------------------------------------------------------- display and research plans


def refill_display(state: GameState) -> None:
    """Fill empty display spaces, lowest first, from the top of the action-card deck."""
    for space in range(DISPLAY_SPACES):
        if state.display[space] == NO_CARD and state.action_deck:
            state.display[space] = state.action_deck.pop()


def take_display_card(state: GameState, seat: int, space: int) -> None:
    """The card on a display space (if any) into the seat's collection; the space stays empty until refilled."""
    card = state.display[space]
    if card != NO_CARD:
        state.seats[seat].cards.append(card)
        state.display[space] = NO_CARD


def refill_plan_row(state: GameState, row: int) -> None:
    """Fill the row's empty spaces, lowest first, from its deck; each refill is a new plan generation."""
    for space in range(len(state.plan_rows[row])):
        if not state.plan_rows[row][space] and state.plan_decks[row] > 0:
            state.plan_rows[row][space] = True
            state.plan_decks[row] -= 1
            state.plan_generation[row][space] += 1


def flip_special_plan(state: GameState) -> None:
    """The next face-down special plan (in index order) face up, if one is left."""
    if state.specials_flipped < len(state.special_plans):
        state.special_plans[state.specials_flipped] = SPECIAL_FACE_UP
        state.specials_flipped += 1


# ---------------------------------------------------------------- bonus spaces


def markers_home(state: GameState, seat: int) -> None:
    """Every bonus marker of the seat (on a bonus space or the scientist space) back to its reserve."""
    holder = state.seats[seat]
    acting = holder.luna if holder.luna is not None else holder.player
    for row in range(BONUS_ROWS):
        for column in range(BONUS_COLUMNS):
            if state.bonus_space_owner[row][column] == seat:
                state.bonus_space_owner[row][column] = NOBODY
                acting.markers_in_reserve += 1
    if state.scientist_space_owner == seat:  # only scripted seats take it
        state.scientist_space_owner = NOBODY
        acting.markers_in_reserve += 1
