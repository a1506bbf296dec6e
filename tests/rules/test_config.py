"""Game configuration (SPEC 2, options): 1-4 seats, Luna last in seat order, levels 0-8, 6 or 7 rounds."""

from __future__ import annotations

import pytest

from sim.config import ConfigError, GameConfig, Seat, parse_levels, parse_seats


@pytest.mark.parametrize("text", [
    "",
    "   ",
    "luna",
    "luna:",
    "luna:9",
    "luna:-1",
    "luna:x",
    "luna:2.5",
    "luna:+5",
    "luna:\u0665",  # an Arabic-Indic five: a digit to str.isdigit, no level here
    "luna:09",
    "Luna:2",
    "scripted",
    "scripted:",
    "scripted:nosuchprofile",
    "scripted:passive@",
    "scripted:passive@abc",
    "scripted:passive@0",
    "scripted:passive@-1",
    "human:2",
    "luna:2,",
    "luna:2,,luna:3",
    "luna:2;luna:3",
])
def test_bad_seats_raise_config_error(text):
    with pytest.raises(ConfigError) as caught:
        GameConfig(seats=parse_seats(text))
    message = str(caught.value)
    assert message.startswith("seats: ") and "\n" not in message


@pytest.mark.parametrize(("text", "level"), [("luna:05", 5), ("luna:0", 0), ("luna:008", 8)])
def test_a_level_with_leading_zeros_reads_as_levels_does(text, level):
    """``--levels 05`` is level 5, and so is ``luna:05`` (regression: the seat refused it)."""
    assert parse_seats(text) == (Seat(kind="luna", level=level),)
    assert parse_levels(text.removeprefix("luna:")) == [level]


@pytest.mark.parametrize("text", ["luna:2,scripted:passive", "luna:0,scripted:passive,luna:3",
                                  "luna:1,luna:2,luna:3,luna:4,luna:5"])
def test_bad_seat_lists_raise_config_error(text):
    with pytest.raises(ConfigError, match=r"^seats: "):
        GameConfig(seats=parse_seats(text))


@pytest.mark.parametrize("rounds", [0, 5, 8])
def test_rounds_are_6_or_7(rounds):
    with pytest.raises(ConfigError, match=r"^rounds: "):
        GameConfig(seats=parse_seats("luna:2"), rounds=rounds)


def test_start_bonus_is_random_or_none():
    with pytest.raises(ConfigError, match=r"^start_bonus: "):
        GameConfig(seats=parse_seats("luna:2"), start_bonus="maybe")


def test_good_seats():
    assert parse_seats("luna:0") == (Seat(kind="luna", level=0),)
    config = GameConfig(seats=parse_seats("scripted:passive, scripted:passive@0.5,luna:8,luna:3"), rounds=6)
    assert [seat.label for seat in config.seats] == ["scripted:passive", "scripted:passive@0.5", "luna:8", "luna:3"]
    assert config.luna_seats == (2, 3) and config.rounds == 6
    assert all(GameConfig(seats=parse_seats(f"luna:{level}")).seats[0].level == level for level in range(9))
