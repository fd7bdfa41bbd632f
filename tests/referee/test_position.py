from __future__ import annotations

import json

import pytest

from referee.position import (
    ImpossiblePositionError,
    Position,
    PositionError,
    Side,
    Variant,
    opposite_point,
)
from tests.builders import position


@pytest.mark.parametrize("variant", list(Variant))
def test_opposite_point_is_an_involution(variant: Variant) -> None:
    for point in range(1, 25):
        assert opposite_point(variant, opposite_point(variant, point)) == point


@pytest.mark.parametrize(
    ("variant", "black_point", "white_point"),
    [
        ("long", 24, 12),  # heads diagonally opposite, 5.4.10
        ("long", 12, 24),
        ("long", 13, 1),
        ("long", 1, 13),
        ("short", 24, 1),  # black's 24 is white's 1, 21.2
        ("short", 6, 19),
    ],
)
def test_numbering_between_sides(variant: str, black_point: int, white_point: int) -> None:
    assert opposite_point(Variant(variant), black_point) == white_point


@pytest.mark.parametrize("variant", list(Variant))
def test_start_positions_round_trip_through_json(variant: Variant) -> None:
    start = Position.start(variant)
    assert start.validate() is start
    text = json.dumps(start.to_json())
    assert Position.from_json(text) == start
    assert start.pip_count(Side.WHITE) == (360 if variant is Variant.LONG else 167)


def test_json_with_bar_and_off() -> None:
    data = {
        "variant": "short",
        "turn": "black",
        "white": {"6": 10},
        "black": {"1": 2, "18": 10},
        "bar": {"white": 1, "black": 0},
        "off": {"white": 4, "black": 3},
    }
    parsed = Position.from_json(data)
    assert parsed.white[25] == 1 and parsed.white[0] == 4 and parsed.black[0] == 3
    assert parsed.to_json() == data
    assert parsed.validate() is parsed


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"variant": "medium", "turn": "white"}, "variant must be one of"),
        ({"variant": "long", "turn": "red"}, "turn must be one of"),
        ({"variant": "long", "turn": "white", "white": {"25": 1}}, "between 1 and 24"),
        ({"variant": "long", "turn": "white", "white": {"x": 1}}, "not a number"),
        ({"variant": "long", "turn": "white", "white": {"3": -1}}, "whole number"),
        ({"variant": "long", "turn": "white", "white": {"3": 1.5}}, "whole number"),
        ({"variant": "long", "turn": "white", "white": []}, "must be a JSON object"),
        ({"variant": "long", "turn": "white", "off": {"green": 1}}, "unknown key"),
    ],
)
def test_malformed_positions_are_parse_errors(data: object, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        Position.from_json(data)


@pytest.mark.parametrize(
    ("built", "message"),
    [
        (position("long", white={24: 16}, black={24: 15}), "white has 16 checkers"),
        (position("long", white={24: 14}, black={24: 15}), "white has 14 checkers"),
        (position("long", white={24: 14, 12: 1}, black={24: 15}), "both colours"),
        (position("short", white={24: 15}, black={24: 14, 1: 1}), "both colours"),
        (position("long", white={24: 14}, black={24: 15}, bar=(1, 0)), "on the bar"),
    ],
)
def test_impossible_positions_are_named(built: Position, message: str) -> None:
    assert any(message in problem for problem in built.problems())
    with pytest.raises(ImpossiblePositionError, match=message):
        built.validate()


def test_helpers_for_the_tracker() -> None:
    p = position("long", white={3: 5, 1: 2}, black={24: 15}, fill_off=True)
    assert p.all_home(Side.WHITE) and not p.all_home(Side.BLACK)
    assert p.checkers_home(Side.WHITE) == 7
    assert p.pip_count(Side.WHITE) == 17
    assert p.winner() is None
    assert position("long", black={24: 15}, fill_off=True).winner() is Side.WHITE


@pytest.mark.parametrize(
    ("built", "kind", "points"),
    [
        (position("long", black={1: 3}, off=(15, 12)), "single", 1),
        (position("long", black={1: 15}, off=(15, 0)), "mars", 2),
        (position("short", black={1: 15}, off=(15, 0)), "mars", 2),
        (position("short", black={1: 14, 20: 1}, off=(15, 0)), "koks", 3),
        (position("short", black={1: 14}, bar=(0, 1), off=(15, 0)), "koks", 3),
    ],
)
def test_game_result(built: Position, kind: str, points: int) -> None:
    result = built.result()
    assert result is not None
    assert result.winner is Side.WHITE
    assert (result.kind.value, result.points) == (kind, points)


def test_no_result_while_the_game_goes_on() -> None:
    assert Position.start(Variant.LONG).result() is None
