"""The board diagram: well-formed SVG with every checker, the bar, borne-off checkers and the
marks of a move where they belong."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from referee.diagram import board_svg, changed_points
from referee.position import Position, Side, Variant
from tests.builders import position

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element) -> list[str]:
    return [el.text or "" for el in root.iter(f"{SVG}text")]


def counts(root: ET.Element) -> list[str]:
    """The counts written on checkers: the texts after the 24 point labels and "off"."""
    return [text for text in texts(root)[24:] if text != "off"]


def test_the_start_draws_each_stack_with_its_count() -> None:
    root = parse(board_svg(Position.start(Variant.SHORT)))
    circles = root.findall(f"{SVG}circle")
    # 2 + 5 + 3 + 5 per side, at most five drawn per stack.
    assert len(circles) == 2 * (2 + 5 + 3 + 5)
    assert sorted(counts(root)) == sorted(["2", "5", "3", "5"] * 2)
    assert texts(root)[:24] == [str(n) for n in range(1, 25)] and "off" in texts(root)


def test_a_tall_stack_shows_five_checkers_and_its_count() -> None:
    root = parse(board_svg(Position.start(Variant.LONG)))
    assert len(root.findall(f"{SVG}circle")) == 10  # two heads of 15
    assert counts(root) == ["15", "15"]


def test_bar_and_borne_off_checkers_are_drawn_with_counts() -> None:
    pos = position("short", "white", white={6: 10}, black={1: 12}, bar=(2, 0), off=(3, 3))
    root = parse(board_svg(pos))
    assert sorted(counts(root)) == sorted(["10", "2", "3", "12", "3"])


def test_a_move_is_drawn_as_arrows_with_its_points_outlined() -> None:
    before = Position.start(Variant.SHORT)
    svg = board_svg(before, moves=[(24, 18), (13, 9)], mover=Side.WHITE)
    root = parse(svg)
    assert len(root.findall(f"{SVG}line")) == 2
    assert svg.count('stroke-dasharray="4 3"') == 2  # the two starts
    assert svg.count('stroke="#e07000" stroke-width="3"') >= 2  # the ends (and shafts)


def test_black_moves_are_numbered_for_black() -> None:
    svg = board_svg(Position.start(Variant.LONG), moves=[(24, 18)], mover=Side.BLACK)
    labels = texts(parse(svg))[:24]  # the point labels come first, for white's 1 to 24
    assert labels[0] == "13" and labels[11] == "24"  # white's 1 is black's 13, 12 his 24
    white = texts(parse(board_svg(Position.start(Variant.LONG))))[:24]
    assert white == [str(n) for n in range(1, 25)]
    with pytest.raises(ValueError, match="side"):
        board_svg(Position.start(Variant.LONG), moves=[(24, 18)])


def test_the_title_is_escaped_and_the_width_scales() -> None:
    svg = board_svg(Position.start(Variant.SHORT), width=200, title="<b>&")
    assert "<b>&" not in svg and "&lt;b&gt;&amp;" in svg
    assert parse(svg).get("width") == "200"


def test_changed_points_are_in_whites_numbering() -> None:
    start = Position.start(Variant.LONG)
    after = position("long", "white", white={24: 14, 13: 1}, black={24: 15})
    assert changed_points(start, after) == {24, 13}
    moved_black = position("long", "white", white={24: 15}, black={24: 14, 18: 1})
    # Black's 24 is white's 12, black's 18 white's 6.
    assert changed_points(start, moved_black) == {12, 6}
    assert changed_points(start, start) == frozenset()
