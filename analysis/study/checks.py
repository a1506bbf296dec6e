"""Checks of a study's variants against its parts, made before anything is played.

An overlay that loads fine may still be unable to play a part: too few starting tokens for a part's seats
(``start_bonus = "random"`` draws one per seat), or a profile made passive, which has no strength at parity.
A study plays every base part before any variant part, so such a problem found by the engine would come only
after hours of games; :func:`check_variants` finds it from the data alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from analysis.schema import BASE_VARIANT
from analysis.study.plan import StudyError, StudyPlan
from sim.gamedata import GameData, starting_token_shortfall


def check_variants(plan: StudyPlan, data: Mapping[str, GameData]) -> None:
    """Refuse, in one line, a part or parity search that the data of its variant cannot play.

    Parameters
    ----------
    plan
        The study's plan.
    data
        Resolved data per variant name, ``base`` included (read from the files the user gave, so a message
        names them).

    Raises
    ------
    StudyError
        A part whose seats need more starting tokens than its variant's data has (the engines' own check,
        :func:`sim.gamedata.starting_token_shortfall`), or a parity profile that a variant makes passive.
    """
    sources = {variant.name: variant.source for variant in plan.variants}
    for part in plan.parts:
        seats = len(part.seats.split(","))
        shortfall = starting_token_shortfall(data[part.variant], plan.start_bonus, seats)
        if shortfall:
            where = "" if part.variant == BASE_VARIANT else f"variant {part.variant!r}, "
            raise StudyError(f"{where}part {part.name}: {shortfall}")
    for variant in plan.variants:
        profiles = data[variant.name].players.profiles
        passive = [profile for profile in plan.parity_profiles if profiles[profile].passive]
        if passive:
            # the parity command refuses a passive profile; a variant's search would widen to 64 and stop there
            raise StudyError(f"{sources[variant.name]}: players.profiles.{passive[0]}.passive: {passive[0]!r} is "
                             "passive in this variant and never wins, so it has no strength at parity; leave it out "
                             "of {profiles} or drop {parity}", mentions=("profiles", "parity"))
