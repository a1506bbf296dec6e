"""The numbers a designer tunes, as named parameters of Luna's *raw* data (the dicts ``luna.toml`` holds).

A parameter is a dotted path into that data:

* ``levels.<L>.helium_tokens.<i>`` / ``levels.<L>.research_tokens.<i>`` (kind ``token``): the i-th
  token's space on the tank or research track;
* ``levels.<L>.start_helium`` / ``levels.<L>.start_research`` (kind ``start``, levels 6-8): the space
  Luna starts on;
* ``levels.<L>.grade2`` (kind ``switch``, 0 or 1): whether the level uses grade-2 cards;
* ``cards.<card id>.<field path>`` (kind ``card``): every number on a card, e.g.
  ``cards.I-6.majority.left``, ``cards.I-4.reveal.count``, ``cards.I-10.actions.2.count`` (an
  expansion's points are its ``count``).

What is valid, beyond the loader's own checks (``sim.gamedata``: tokens on the track, no space twice,
numbers not negative): a level's tokens lie on the track in increasing order, all after its start
position (a token on or below the start would never be reached); a card number lies between the
schema's least value (0 for majority values, 1 for amounts) and a search bound of twice the largest
number of the same field on any card of the data (at least 2), so a tuner's search space is finite.
A :class:`Parameter`'s ``low`` and ``high`` are that range with every other number as given.

:func:`overlay_for` turns values into an overlay mapping (``sim.gamedata.load_game_data`` and
``sim.play.play`` take it as is), :func:`invalid_reason` says why values cannot be played, and
:func:`write_overlay` writes an overlay file that ``study --variant`` and ``--overlay`` accept;
:func:`variant_data` builds the changed ``GameData`` from already loaded data (no file read).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.constants import DATA_DIR, LEVELS, LUNA_FILE
from sim.gamedata import DataError, GameData, LunaData, merge_overlay, read_toml, validate_data

TOKEN_TRACKS = {"helium_tokens": ("start_helium", "tank_max"), "research_tokens": ("start_research", "research_max")}
START_FIELDS = ("start_helium", "start_research")
START_LEVELS = (6, 7, 8)  # the levels whose start positions are tuned (the rulebook's levels with a head start)
KINDS = ("token", "start", "switch", "card")
# A card number's least valid value, by the field that holds it (the schema's Field(ge=...)).
_MAJORITY_FIELDS = ("left", "right", "scientists")
_CARD_LOW = {"majority": 0, "reveal": 1, "actions": 1}
_VALUES = "<values>"  # what validation problems name before invalid_reason drops it


@dataclass(frozen=True)
class Parameter:
    """One tunable number of Luna's data and its valid range when every other number is as given."""

    name: str  # dotted path, e.g. "levels.5.helium_tokens.0" or "cards.I-6.majority.left"
    kind: str  # one of KINDS
    low: int
    high: int

    def value(self, raw_luna: Mapping[str, Any] | None = None) -> int:
        """The parameter's value in ``raw_luna`` (default: the shipped ``luna.toml``); a switch is 0 or 1."""
        return int(_resolve(_raw(raw_luna), self.name))


@functools.cache
def _shipped() -> dict[str, Any]:
    return read_toml(DATA_DIR / LUNA_FILE)


def shipped_luna() -> dict[str, Any]:
    """A copy of the shipped ``luna.toml`` as read (the raw data parameters name)."""
    return copy.deepcopy(_shipped())


def luna_with(overlay: Mapping[str, Any]) -> dict[str, Any]:
    """Luna's raw data with an overlay mapping's ``luna`` table merged over the shipped ``luna.toml``."""
    return merge_overlay(shipped_luna(), overlay.get("luna", {}), "luna.")


def _raw(raw_luna: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return _shipped() if raw_luna is None else raw_luna


def _card(raw: Mapping[str, Any], card_id: str) -> Mapping[str, Any]:
    for card in raw["cards"]:
        if card["id"] == card_id:
            return card
    raise KeyError(card_id)


def _resolve(raw: Mapping[str, Any], name: str) -> Any:
    parts = name.split(".")
    node: Any = _card(raw, parts[1]) if parts[0] == "cards" and len(parts) > 1 else raw[parts[0]]
    for part in parts[2:] if parts[0] == "cards" else parts[1:]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


# ---------------------------------------------------------------- the parameters and their ranges

def _check_level(level: int) -> str:
    if isinstance(level, bool) or level not in LEVELS:
        raise ValueError(f"level: must be one of {LEVELS[0]}-{LEVELS[-1]}, got {level!r}")
    return str(level)


def level_parameters(level: int, raw_luna: Mapping[str, Any] | None = None) -> list[Parameter]:
    """The tunable numbers of one level: token positions, start positions (levels 6-8), grade-2 use.

    Parameters
    ----------
    level : int
        Luna's level, 0-8.
    raw_luna : mapping, optional
        Luna's raw data (default: the shipped ``luna.toml``).

    Returns
    -------
    list of Parameter
        Helium tokens, research tokens (in track order), then the start positions, then ``grade2``.
    """
    key = _check_level(level)
    raw = _raw(raw_luna)
    board, data = raw["board"], raw["levels"][key]
    found = []
    for track, (start_field, max_field) in TOKEN_TRACKS.items():
        tokens = data[track]
        for index in range(len(tokens)):
            low = tokens[index - 1] + 1 if index else data[start_field] + 1
            high = tokens[index + 1] - 1 if index + 1 < len(tokens) else board[max_field]
            found.append(Parameter(f"levels.{key}.{track}.{index}", "token", low, high))
    if level in START_LEVELS:
        for track, (start_field, max_field) in TOKEN_TRACKS.items():
            high = data[track][0] - 1 if data[track] else board[max_field]
            found.append(Parameter(f"levels.{key}.{start_field}", "start", 0, high))
    found.append(Parameter(f"levels.{key}.grade2", "switch", 0, 1))
    return found


def _card_field_group(path: tuple[str, ...], card: Mapping[str, Any]) -> tuple[str, str]:
    """The group whose largest value bounds a card number: the majority field, or the action's type."""
    if path[0] == "majority":
        return ("majority", "scientists" if path[1] == "scientists" else "side")
    if path[0] == "reveal":
        return ("reveal", card["reveal"]["type"])
    return ("actions", card["actions"][int(path[1])]["type"])


def _card_numbers(raw: Mapping[str, Any]) -> list[tuple[str, tuple[str, ...], Mapping[str, Any]]]:
    """(card id, field path, card) of every number on every card, in card and field order."""
    found = []
    for card in raw["cards"]:
        found += [(card["id"], ("majority", field), card) for field in _MAJORITY_FIELDS if field in card["majority"]]
        if card.get("reveal") and "count" in card["reveal"]:
            found.append((card["id"], ("reveal", "count"), card))
        found += [(card["id"], ("actions", str(index), "count"), card)
                  for index, action in enumerate(card["actions"]) if "count" in action]
    return found


def _card_bounds(raw: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    """The search bound of each group of card numbers: twice its largest value on any card, at least 2."""
    largest: dict[tuple[str, str], int] = {}
    for card_id, path, card in _card_numbers(raw):
        group = _card_field_group(path, card)
        largest[group] = max(largest.get(group, 0), int(_resolve(raw, f"cards.{card_id}.{'.'.join(path)}")))
    return {group: max(2, 2 * value) for group, value in largest.items()}


def card_parameters(raw_luna: Mapping[str, Any] | None = None) -> list[Parameter]:
    """Every number on Luna's cards: majority values, reveal amounts, action amounts, expansion points.

    Parameters
    ----------
    raw_luna : mapping, optional
        Luna's raw data (default: the shipped ``luna.toml``).

    Returns
    -------
    list of Parameter
        Kind ``card``, in card order and, within a card, majority, reveal, actions.
    """
    raw = _raw(raw_luna)
    bounds = _card_bounds(raw)
    return [Parameter(f"cards.{card_id}.{'.'.join(path)}", "card", _CARD_LOW[path[0]],
                      bounds[_card_field_group(path, card)])
            for card_id, path, card in _card_numbers(raw)]


def all_parameters(raw_luna: Mapping[str, Any] | None = None) -> dict[str, Parameter]:
    """Every parameter of every level and card, by name."""
    if raw_luna is None:
        return dict(_shipped_parameters())
    found = [parameter for level in LEVELS for parameter in level_parameters(level, raw_luna)]
    return {parameter.name: parameter for parameter in found + card_parameters(raw_luna)}


@functools.cache
def _shipped_parameters() -> dict[str, Parameter]:
    # asked for at every overlay_for and invalid_reason call of a tuner: computed once for the shipped data
    return all_parameters(_shipped())


# ---------------------------------------------------------------- values -> overlay

def _checked_values(values: Mapping[str, int], known: Mapping[str, Parameter]) -> None:
    for name, value in values.items():
        if name not in known:
            raise ValueError(f"{name}: not a tunable parameter (e.g. levels.5.helium_tokens.0, "
                             "cards.I-6.majority.left)")
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name}: must be an integer, got {value!r}")


def overlay_for(values: Mapping[str, int], raw_luna: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The overlay mapping that sets ``values`` (parameter name -> value) over ``raw_luna``.

    A token list or a card's action list is written whole (``merge_overlay`` replaces lists that are
    not matched by ``id``); majority and reveal tables only with the changed fields.

    Parameters
    ----------
    values : mapping of str to int
        Parameter names (see the module docstring) and their new values; a switch takes 0 or 1.
    raw_luna : mapping, optional
        The raw data the values change (default: the shipped ``luna.toml``).

    Returns
    -------
    dict
        ``{"luna": {"levels": ..., "cards": [...]}}`` with only what changes; not validated (see
        :func:`invalid_reason`).

    Raises
    ------
    ValueError
        An unknown parameter name or a value that is not an integer.
    """
    raw = _raw(raw_luna)
    known = all_parameters(raw_luna)
    _checked_values(values, known)
    levels: dict[str, dict[str, Any]] = {}
    cards: dict[str, dict[str, Any]] = {}
    for name, given in values.items():
        value = int(given)  # a numpy integer would not survive the TOML writer
        parts = name.split(".")
        if parts[0] == "levels":
            key, field = parts[1], parts[2]
            table = levels.setdefault(key, {})
            if known[name].kind == "token":
                table.setdefault(field, list(raw["levels"][key][field]))[int(parts[3])] = value
            else:
                table[field] = bool(value) if known[name].kind == "switch" else value
            continue
        card_id, section = parts[1], parts[2]
        entry = cards.setdefault(card_id, {"id": card_id})
        if section == "actions":
            actions = entry.setdefault("actions", copy.deepcopy(_card(raw, card_id)["actions"]))
            actions[int(parts[3])][parts[4]] = value
        else:
            entry.setdefault(section, {})[parts[3]] = value
    luna: dict[str, Any] = {}
    if levels:
        luna["levels"] = levels
    if cards:
        luna["cards"] = list(cards.values())
    return {"luna": luna}


def invalid_reason(values: Mapping[str, int], raw_luna: Mapping[str, Any] | None = None) -> str | None:
    """Why ``values`` cannot be played over ``raw_luna``, in one line, or None when they can.

    Checks the loader's validation of the changed data (``sim.gamedata.LunaData``) and the rules of the
    module docstring: tokens in increasing order after the start position, card numbers within their
    range.
    """
    raw = _raw(raw_luna)
    try:
        overlay = overlay_for(values, raw_luna)
    except ValueError as error:
        return str(error)
    # A switch's and a card number's range does not depend on other values (a token's does: checked below).
    known = all_parameters(raw_luna)
    for name, value in values.items():
        parameter = known[name]
        if parameter.kind in ("switch", "card") and not parameter.low <= int(value) <= parameter.high:
            return f"{name}: {value} is outside {parameter.low}-{parameter.high}"
    merged = merge_overlay(dict(raw), overlay["luna"])
    try:
        validate_data(LunaData, merged, _VALUES, "luna.")
    except DataError as error:
        # named as the parameters are (levels.5..., cards.I-6...), as the order check below names them
        return "; ".join(line.removeprefix(f"{_VALUES}: ").removeprefix("luna.") for line in error.problems)
    for key, level in merged["levels"].items():
        for track, (start_field, _) in TOKEN_TRACKS.items():
            positions = [level[start_field], *level[track]]
            if any(later <= earlier for earlier, later in itertools.pairwise(positions)):
                return (f"levels.{key}.{track}: tokens {level[track]} must lie in increasing order after the "
                        f"start position {level[start_field]}")
    return None


def variant_data(values: Mapping[str, int], data: GameData, raw_luna: Mapping[str, Any] | None = None,
                 label: str = "<values>") -> GameData:
    """``data`` with ``values`` set, validated as ``load_game_data(overlay_for(values))`` would, without reading files.

    Only Luna's data change, so only they are merged and validated again: a tuner plays many variants
    of one base at the cost of one validation each. ``raw_luna`` must be the raw form of ``data.luna``
    (default: the shipped ``luna.toml``, for ``data`` loaded without a Luna overlay).

    Raises
    ------
    ValueError
        An unknown parameter or a value that is not an integer.
    sim.gamedata.DataError
        The changed data do not validate (problems name ``label``).
    """
    raw = _raw(raw_luna)
    overlay = overlay_for(values, raw_luna)
    luna = validate_data(LunaData, merge_overlay(dict(raw), overlay["luna"]), label, "luna.")
    return dataclasses.replace(data, luna=luna, sources=(*data.sources, label))


def write_overlay(path: str | Path, overlay: Mapping[str, Any], name: str, description: str,
                  comment: Sequence[str] = ()) -> None:
    """Write ``overlay`` as a TOML overlay file (atomically) that ``--overlay`` and ``study --variant`` accept.

    Parameters
    ----------
    path : str or Path
        The file to write; replaced whole, never left half-written.
    overlay : mapping
        An overlay mapping (e.g. from :func:`overlay_for`).
    name, description : str
        The overlay's ``name`` (a study shows it as the variant's title) and ``description``.
    comment : sequence of str
        Lines written as TOML comments at the top (a line break inside one becomes a space).
    """
    import tomli_w

    # here, not at the top: pandas and matplotlib come with it, and this module is read without them
    from analysis.render import atomic_write

    header = "".join(f"# {' '.join(line.splitlines())}\n" for line in comment)
    text = header + ("\n" if header else "") + tomli_w.dumps({"name": name, "description": description, **overlay})
    # UTF-8 whatever the locale (its comments carry a "±"), and readable as any file written with open()
    atomic_write(path, text)
