"""Schemas of the scripted-player data (``sim/data/players/``): the player model and the profiles.

All of it is modelled (SPEC section 5); each file carries its provenance note. ``sim.gamedata`` loads
and overlays these files together with Luna's and the board's.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from sim.constants import BONUS_COLUMNS, BONUS_ROWS, MAX_SEATS, STANDARD_BONUS_CELLS
from sim.strict import Count
from sim.strict import Strict as _Strict


class PlayerModel(_Strict):
    note: str
    start_cash: Count
    bonus_markers_by_humans: list[Count] = Field(min_length=MAX_SEATS, max_length=MAX_SEATS)  # by scripted seats 1-4
    majority_bonus_reward: Count
    scientist_bonus_reward: Count
    standard_bonus_rewards: list[list[int]]
    standard_bonus_preference: list[tuple[int, int]]
    sector_reward: Count
    expand_outposts_per_step: float = Field(gt=0)
    plan_lost_research_penalty: Count

    @model_validator(mode="after")
    def _bonus_spaces(self) -> PlayerModel:
        lower_rows = BONUS_ROWS - 1
        if len(self.standard_bonus_rewards) != lower_rows or any(
                len(row) != BONUS_COLUMNS for row in self.standard_bonus_rewards):
            raise ValueError(f"standard_bonus_rewards: must be {lower_rows} rows of {BONUS_COLUMNS} "
                             "(the lower rows of the bonus spaces)")
        if any(reward < 0 for row in self.standard_bonus_rewards for reward in row):
            # a reward below zero would take a seat's CrypCoin below zero (found by the invariant checks)
            raise ValueError("standard_bonus_rewards: must be at least 0")
        cells = sorted(self.standard_bonus_preference)
        if cells != list(STANDARD_BONUS_CELLS):
            raise ValueError("standard_bonus_preference: must list each of the 8 cells [row 1-2, column 0-3] once")
        return self


class ProfileWeights(_Strict):
    invest: Count
    expand: Count
    helium: Count
    research: Count
    buy_card: Count
    bonus: Count


class ProfileResources(_Strict):
    titanium: list[Count] = Field(min_length=7, max_length=7)
    carbon: list[Count] = Field(min_length=7, max_length=7)
    energy: list[Count] = Field(min_length=7, max_length=7)
    minerals: list[Count] = Field(min_length=7, max_length=7)
    scientists: list[Count] = Field(min_length=7, max_length=7)


class Profile(_Strict):
    name: str = Field(pattern=r"^[a-z_]+$")
    note: str
    passive: bool
    start_cash: int | None = Field(default=None, ge=0)  # None: the model's start_cash
    weights: ProfileWeights
    steps_by_round: list[Count] = Field(min_length=7, max_length=7)
    resources_by_round: ProfileResources

    @model_validator(mode="after")
    def _acts_if_not_passive(self) -> Profile:
        if not self.passive and sum(self.weights.model_dump().values()) == 0:
            raise ValueError("weights: an active profile needs at least one positive weight")
        return self


class PlayerData(_Strict):
    model: PlayerModel
    profiles: dict[str, Profile]

    @model_validator(mode="after")
    def _names(self) -> PlayerData:
        for key, profile in self.profiles.items():
            if profile.name != key:
                raise ValueError(f"profiles.{key}.name: {profile.name!r} differs from the file name {key!r}")
        return self


