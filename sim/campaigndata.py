"""The campaign's data schema (``sim/data/campaign.toml``): a chapter's modelled scoring and Luna's fixed
campaign rules. Schema only, like moondata.py and beltdata.py, so that the loader (``sim/gamedata.py``) can check
an overlay's ``[campaign]`` table without importing the campaign's engine-driven code (``sim/campaign.py``).
"""

from __future__ import annotations

from itertools import pairwise

from pydantic import Field, field_validator, model_validator

from sim.constants import DATA_DIR, MAX_LEVEL, MAX_SEATS, MIN_LEVEL
from sim.strict import Strict

CAMPAIGN_FILE = DATA_DIR / "campaign.toml"
#: Game numbers reserved per campaign: chapter ``c`` of campaign ``i`` is game ``i * MAX_CHAPTERS + c``.
MAX_CHAPTERS = 64


class CampaignLuna(Strict):
    """Luna's fixed campaign rules (rulebook facts)."""

    note: str
    bonus_marker_sp: int = Field(ge=0)
    lowered_sp: int = Field(ge=0)
    kept_after_loss_sp: int = Field(ge=0)
    start_level_solo: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)
    start_level_group: int = Field(ge=MIN_LEVEL, le=MAX_LEVEL)


class CampaignData(Strict):
    """``sim/data/campaign.toml``: the modelled scoring of a chapter and Luna's fixed bonuses."""

    note: str
    chapters: int = Field(ge=1, le=MAX_CHAPTERS)
    sp_by_rank: tuple[int, ...]
    bonus_marker_sp: int = Field(ge=0)
    bonus_marker_min: int = Field(ge=0)
    luna: CampaignLuna

    @field_validator("sp_by_rank")
    @classmethod
    def _one_per_rank(cls, values: tuple[int, ...]) -> tuple[int, ...]:
        if len(values) != MAX_SEATS:
            raise ValueError(f"needs one value per rank 1-{MAX_SEATS}, got {len(values)}")
        if any(value < 0 for value in values) or any(a < b for a, b in pairwise(values)):
            raise ValueError(f"must be non-negative and never rise with the rank, got {list(values)}")
        return values

    @model_validator(mode="after")
    def _provenance(self) -> CampaignData:
        if not self.note.startswith("modelled"):
            raise ValueError("note: a modelled table's note starts with 'modelled:'")
        return self
