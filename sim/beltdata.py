"""Schema of the modelled Belt side of the board (``sim/data/belt.toml``, SPEC section 7).

The rules of Luna's expansion on the Belt are exact (seed text); the geometry they act on is modelled:
which target is an asteroid and how many outpost spaces it has, adjacency, which targets each station
touches, the shuttle column and the people's rewards. ``sim.gamedata`` loads this file beside
``moon.toml`` and merges an overlay's ``[belt]`` table over it; a problem is one ``file: field: problem``
line like every other data file's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from sim.constants import BELT_MAX_OUTPOST_SPACES, COMPANIES
from sim.strict import Strict as _Strict


class BeltTarget(_Strict):
    """One Belt target: its target number ``id``, kind, how many pieces it holds, and its neighbours."""

    id: int = Field(ge=1)
    kind: Literal["asteroid", "shuttle"]
    capacity: int = Field(ge=1)  # outpost spaces of an asteroid; 1 for a shuttle space
    adjacent: list[int]

    @model_validator(mode="after")
    def _capacity(self) -> BeltTarget:
        if self.kind == "shuttle" and self.capacity != 1:
            raise ValueError(f"capacity: a shuttle space holds exactly 1 shuttle, got {self.capacity}")
        if self.kind == "asteroid" and self.capacity > BELT_MAX_OUTPOST_SPACES:
            raise ValueError(f"capacity: an asteroid has at most {BELT_MAX_OUTPOST_SPACES} outpost spaces, "
                             f"got {self.capacity}")
        return self


class BeltSpaces(_Strict):
    note: str
    targets: list[BeltTarget] = Field(min_length=1)

    @model_validator(mode="after")
    def _numbered_and_symmetric(self) -> BeltSpaces:
        count = len(self.targets)
        ids = [target.id for target in self.targets]
        if ids != list(range(1, count + 1)):
            raise ValueError(f"targets: ids must be the target numbers 1-{count} in order, got {ids}")
        for target in self.targets:
            for other in target.adjacent:
                if not 1 <= other <= count or other == target.id:
                    raise ValueError(f"targets: {target.id} lists {other} as adjacent, which is not another target")
                if target.id not in self.targets[other - 1].adjacent:
                    raise ValueError(f"targets: {target.id} lists {other} as adjacent but not the other way round")
        return self


class BeltStations(_Strict):
    note: str
    shuttles: int = Field(ge=0)  # the shuttle column of each station
    setup_outposts: int = Field(ge=0)
    touches: dict[str, list[int]]


class BeltRewards(_Strict):
    note: str
    outpost_space: int = Field(ge=0)  # CrypCoin for a person per outpost placed on an asteroid's outpost space
    shuttle_space: int = Field(ge=0)  # CrypCoin for a person per shuttle placed


class BeltData(_Strict):
    """The whole Belt file, cross-checked: stations name the companies, setup fits the asteroids."""

    spaces: BeltSpaces
    stations: BeltStations
    rewards: BeltRewards

    @model_validator(mode="after")
    def _consistent(self) -> BeltData:
        count = len(self.spaces.targets)
        if set(self.stations.touches) != set(COMPANIES):
            raise ValueError(f"stations.touches: must name exactly the companies {list(COMPANIES)}")
        setup = [0] * (count + 1)
        for company in COMPANIES:
            touched = self.stations.touches[company]
            if not touched or any(not 1 <= target <= count for target in touched):
                raise ValueError(f"stations.touches.{company}: targets must be within 1-{count}")
            if self.stations.setup_outposts:
                asteroids = sorted(t for t in touched if self.spaces.targets[t - 1].kind == "asteroid")
                if not asteroids:
                    raise ValueError(f"stations.touches.{company}: no asteroid to place the setup outposts on")
                setup[asteroids[0]] += self.stations.setup_outposts
        for target, pieces in enumerate(setup):
            if target and pieces > self.spaces.targets[target - 1].capacity:
                raise ValueError(f"spaces.targets.{target - 1}.capacity: asteroid {target} gets {pieces} setup "
                                 f"outposts but has {self.spaces.targets[target - 1].capacity} outpost spaces")
        return self
