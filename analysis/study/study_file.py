"""The checks of a ``study.json`` read back (``luna-balance report``), field by field.

The file is the study's own record, yet it is JSON a user can edit or copy between studies: read as it was, a
string for ``levels`` ended in a traceback deep in the report, and ``levels: [4, 5, 99]`` or ``profiles:
["nobody"]`` were printed in the report as what was played. So every field gets the check the ``study`` command
gave its option, and a problem is a :class:`StudyError` naming the field (the caller adds the file).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analysis.study.options import StudyError, check_options, check_profiles

#: The keys of a variant and of a part in ``study.json`` (``run`` is written for the reader, never read).
VARIANT_KEYS = ("name", "title", "source", "file", "digest")
PART_KEYS = ("name", "seats", "variant", "detail", "overlay", "overlay_digest", "run")
#: The options a study.json written before they existed lacks (it was played with their defaults).
LATER_OPTIONS = ("rounds", "parity_games", "backend", "scheduler", "board", "readings_games")
_KINDS = {"string": lambda value: isinstance(value, str), "object": lambda value: isinstance(value, dict),
          # a bool is an int to Python, never a strength
          "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)}


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _list_of(raw: Mapping[str, Any], field: str, kind: str, default: Any = None) -> list[Any]:
    """``raw[field]`` when it is a JSON list of ``kind`` (see :data:`_KINDS`), else a StudyError naming it."""
    value = raw.get(field, default)
    if not isinstance(value, list):
        raise StudyError(f"must be a list, got {_kind(value)} {value!r}", field)
    for item in value:
        if not _KINDS[kind](item):
            raise StudyError(f"{item!r} is a {_kind(item)}, not a {kind}", field)
    return value


def _string(record: Mapping[str, Any], key: str, field: str, optional: bool = False) -> None:
    value = record.get(key)
    if not (isinstance(value, str) or (optional and value is None)):
        raise StudyError(f"must be a string{' or null' if optional else ''}, got {_kind(value)} {value!r}", field)


def check_study_json(raw: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Check every field a :class:`~analysis.study.plan.StudyPlan` is built from (types and values), so that
    ``StudyPlan.from_json`` cannot fail and the plan describes parts that can exist.

    Options of :data:`LATER_OPTIONS` missing from the file are taken from ``defaults`` (the plan's). Whether
    the recorded parts are the ones these options lay out is the plan's question (``plan.read_plan``).

    Raises
    ------
    StudyError
        The first problem, naming its field (``games``, ``parts[3].seats``, ...).
    """
    for field in ("name", "games", "seed", "levels", "engine", "start_bonus", "variants", "parts"):
        if field not in raw:
            raise StudyError("missing", field)
    _string(raw, "name", "name")
    _string(raw, "engine", "engine")
    if "command" in raw:
        _string(raw, "command", "command")
    levels = raw["levels"]
    if not isinstance(levels, list):  # a string would be checked character by character
        raise StudyError(f"must be a list of levels, got {_kind(levels)} {levels!r}", "levels")
    options = {key: raw.get(key, defaults[key]) for key in LATER_OPTIONS}
    _string(options, "scheduler", "scheduler", optional=True)
    check_options(raw["games"], raw["seed"], levels, options["rounds"], raw["start_bonus"], options["parity_games"],
                  options["backend"], options["scheduler"], options["board"], options["readings_games"])
    if levels != sorted(set(levels)):  # a study writes them sorted, each once; anything else was edited
        raise StudyError(f"must be sorted, each level once, got {levels}", "levels")
    profiles = check_profiles(_list_of(raw, "profiles", "string", []))
    strengths = _list_of(raw, "strengths", "number", [1.0])
    bad = [value for value in strengths if not (math.isfinite(value) and value > 0)]
    if not strengths or bad:
        raise StudyError(f"need positive finite numbers, got {strengths}", "strengths")
    if not isinstance(raw.get("parity", False), bool):
        raise StudyError(f"must be true or false, got {raw['parity']!r}", "parity")
    strangers = [name for name in _list_of(raw, "parity_profiles", "string", []) if name not in profiles]
    if strangers:
        raise StudyError(f"{strangers[0]!r} is not one of the study's profiles {list(profiles)}", "parity_profiles")
    _check_variants(_list_of(raw, "variants", "object"))
    _check_parts(_list_of(raw, "parts", "object"))


def _check_variants(variants: list[dict[str, Any]]) -> None:
    names = []
    for index, variant in enumerate(variants):
        field = f"variants[{index}]"
        unknown = [key for key in variant if key not in VARIANT_KEYS]
        if unknown:
            raise StudyError(f"unknown key {unknown[0]!r} (a variant has {', '.join(VARIANT_KEYS)})", field)
        for key in VARIANT_KEYS:
            if key not in variant:
                raise StudyError("missing", f"{field}.{key}")
            _string(variant, key, f"{field}.{key}")
        names.append(variant["name"])
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise StudyError(f"{repeated[0]!r} is listed twice", "variants")


def _check_parts(parts: list[dict[str, Any]]) -> None:
    if not parts:  # every study plays its solo parts; without any, its report had no table to read
        raise StudyError("the list is empty", "parts")
    for index, part in enumerate(parts):
        field = f"parts[{index}]"
        unknown = [key for key in part if key not in PART_KEYS]
        if unknown:
            raise StudyError(f"unknown key {unknown[0]!r} (a part has {', '.join(PART_KEYS)})", field)
        for key in ("name", "seats"):
            if key not in part:
                raise StudyError("missing", f"{field}.{key}")
        for key in ("name", "seats", "variant", "overlay", "overlay_digest"):
            if key in part:  # a part's variant and overlay have defaults (the base, none)
                _string(part, key, f"{field}.{key}", optional=key.startswith("overlay"))
        if not isinstance(part.get("detail", False), bool):
            raise StudyError(f"must be true or false, got {part['detail']!r}", f"{field}.detail")
