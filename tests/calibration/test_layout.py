"""Board geometry and the player <-> image numbering maps (calibration/layout.py, numbering.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from calibration.layout import BoardGeometry
from calibration.numbering import CORNERS, Layout
from referee.position import Side, Variant, opposite_point


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("corner", CORNERS)
def test_numbering_round_trips(variant: Variant, corner: str) -> None:
    layout = Layout(variant, corner)  # type: ignore[arg-type]
    for side in Side:
        images = [layout.to_image(side, p) for p in range(1, 25)]
        assert sorted(images) == list(range(1, 25))
        for p, image_point in zip(range(1, 25), images, strict=True):
            assert layout.from_image(side, image_point) == p
    for p in range(1, 25):  # both sides name the same triangle as the rules engine does
        assert layout.to_image(Side.BLACK, opposite_point(variant, p)) == layout.to_image(
            Side.WHITE, p)


@pytest.mark.parametrize(
    ("variant", "corner", "white_1_12_13_24", "black_corner", "direction"),
    [
        (Variant.LONG, "bottom-right", (1, 12, 13, 24), "top-left", "clockwise"),
        (Variant.LONG, "bottom-left", (12, 1, 24, 13), "top-right", "counterclockwise"),
        (Variant.LONG, "top-left", (13, 24, 1, 12), "bottom-right", "clockwise"),
        (Variant.LONG, "top-right", (24, 13, 12, 1), "bottom-left", "counterclockwise"),
        (Variant.SHORT, "bottom-right", (1, 12, 13, 24), "top-right", "clockwise"),
        (Variant.SHORT, "bottom-left", (12, 1, 24, 13), "top-left", "counterclockwise"),
        (Variant.SHORT, "top-left", (13, 24, 1, 12), "bottom-left", "clockwise"),
        (Variant.SHORT, "top-right", (24, 13, 12, 1), "bottom-right", "counterclockwise"),
    ],
)
def test_white_corner_and_direction(variant: Variant, corner: str,
                                    white_1_12_13_24: tuple[int, ...], black_corner: str,
                                    direction: str) -> None:
    layout = Layout(variant, corner)  # type: ignore[arg-type]
    assert tuple(layout.to_image(Side.WHITE, p) for p in (1, 12, 13, 24)) == white_1_12_13_24
    assert layout.black_corner == black_corner
    assert layout.direction == direction
    assert layout.tray_side(Side.WHITE) == corner.split("-")[1]


def test_bad_corner_is_refused() -> None:
    with pytest.raises(ValueError, match="white_corner"):
        Layout(Variant.LONG, "middle")  # type: ignore[arg-type]


def test_points_tile_the_field() -> None:
    g = BoardGeometry()
    xs = [g.point_x(p) for p in range(12, 0, -1)]  # bottom row, left to right
    assert xs == sorted(xs) and xs == [g.point_x(p) for p in range(13, 25)]
    assert g.point_x(12) == pytest.approx(g.point_width / 2)
    assert g.point_x(1) == pytest.approx(g.width - g.point_width / 2)
    assert g.point_x(7) < g.half_width < g.half_width + g.bar_width < g.point_x(6)
    bottom, top = g.triangle(1), g.triangle(24)
    assert bottom[0, 1] == g.height and bottom[2, 1] == g.height - g.point_length
    assert top[0, 1] == 0 and top[2, 1] == g.point_length
    assert np.array_equal(g.field_corners()[2], [g.width, g.height])


def test_checkers_stack_in_rows_then_layers() -> None:
    g = BoardGeometry(row_max=5)
    d = g.checker_diameter
    assert g.per_row == 5
    first = [g.checker_centre(1, k) for k in range(5)]
    assert first[0] == pytest.approx((g.point_x(1), g.height - d / 2))
    assert all(b[1] - a[1] == pytest.approx(-d) for a, b in itertools.pairwise(first))
    layer, along = g.checker_slot(5)
    assert layer == 1 and along == pytest.approx(d)  # on top, half a checker further in
    top = g.checker_centres(24, 15)
    assert top.shape == (15, 2)
    assert np.all(top[:, 1] > 0) and np.all(top[:, 1] < g.height / 2)
    assert g.checker_slot(14)[0] >= 2


def test_row_shrinks_when_checkers_do_not_fit() -> None:
    g = BoardGeometry(height=500.0, point_length=200.0, row_max=6)
    assert g.per_row < 6
    assert (g.per_row - 1) * g.step + g.checker_diameter <= g.height / 2


def test_bar_and_trays() -> None:
    g = BoardGeometry()
    bx0, _, bx1, _ = g.bar_rect()
    x, y = g.bar_centre("top", 0)
    assert bx0 < x < bx1 and y < g.height / 2
    assert g.bar_centre("bottom", 1)[1] > g.bar_centre("bottom", 0)[1] > g.height / 2
    for side in ("left", "right"):
        tx0, _, tx1, ty1 = g.tray_rect(side)
        assert tx1 <= 0 or tx0 >= g.width
        for k in range(15):
            cx, cy = g.off_centre(side, "bottom", k)
            assert tx0 < cx < tx1 and g.height / 2 < cy < ty1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"bar_width": -1.0}, "bar_width"), ({"point_length": 600.0}, "point_length"),
     ({"checker_diameter": 200.0}, "checker_diameter"), ({"row_max": 0}, "row_max")],
)
def test_geometry_validates(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BoardGeometry(**kwargs)  # type: ignore[arg-type]
