"""Board geometry in a canonical rectified frame, shared by the renderer and the board reader.

The frame is the playing field seen from straight above: x to the right, y down, in "field
units", with the field's top-left outer corner at (0, 0) and its bottom-right at
(width, height). The field holds both halves and the bar between them; side trays (borne-off
checkers) lie outside it. Points use IMAGE-RELATIVE numbering (FORMATS.md, `read-board`):
1 is the bottom-right triangle, rising leftward to 12 (bottom-left), 13 top-left rising
rightward to 24 (top-right).

Pure numpy, no drawing and no randomness, so that `calibration/` can take it over unchanged.
Every array of points has shape (n, 2), columns (x, y), dtype float64.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Half = Literal["top", "bottom"]
TraySide = Literal["left", "right"]

POINTS = range(1, 25)
COLUMNS = 12


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """Sizes of one board design, in field units.

    The defaults follow a tournament board (the 630 x 565 px field of the stream frames in
    shared/data/board-photos): checkers nearly as wide as a point, points reaching 40 % of
    the field's height, a bar no wider than its hinges.

    - `width`, `height`: the playing field (both halves and the bar).
    - `bar_width`: the strip between the halves.
    - `point_length`: how far a triangle reaches from its edge towards the middle.
    - `checker_diameter`: one checker; `gap` between neighbouring checkers in a row.
    - `row_max`: most checkers in the first row of a point (fewer when they do not fit).
    - `tray_width`, `tray_gap`: the borne-off tray beside the field and its distance from it.
    """

    width: float = 1000.0
    height: float = 897.0
    bar_width: float = 40.0
    point_length: float = 360.0
    checker_diameter: float = 76.0
    gap: float = 0.0
    row_max: int = 5
    tray_width: float = 110.0
    tray_gap: float = 60.0

    def __post_init__(self) -> None:
        if not 0 <= self.bar_width < self.width:
            raise ValueError(f"bar_width must lie in [0, width), got {self.bar_width}")
        if not 0 < self.point_length <= self.height / 2:
            raise ValueError(f"point_length must lie in (0, height/2], got {self.point_length}")
        if not 0 < self.checker_diameter <= self.point_width * 1.25:
            raise ValueError(
                f"checker_diameter must lie in (0, 1.25 point widths], got {self.checker_diameter}"
            )
        if self.row_max < 1:
            raise ValueError(f"row_max must be at least 1, got {self.row_max}")

    # -- sizes -----------------------------------------------------------------------------

    @property
    def half_width(self) -> float:
        """Width of one half (six points)."""
        return (self.width - self.bar_width) / 2

    @property
    def point_width(self) -> float:
        return self.half_width / 6

    @property
    def step(self) -> float:
        """Distance between the centres of neighbouring checkers in a row."""
        return self.checker_diameter + self.gap

    @property
    def per_row(self) -> int:
        """Checkers in the first row of a point: `row_max`, or fewer if half the field is short."""
        room = self.height / 2 - self.checker_diameter  # the row ends by the middle line
        fits = int(room // self.step) + 1
        return max(1, min(self.row_max, fits))

    # -- the field -------------------------------------------------------------------------

    def field_corners(self) -> FloatArray:
        """The field's outer corners: top-left, top-right, bottom-right, bottom-left."""
        w, h = self.width, self.height
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])

    def bar_rect(self) -> tuple[float, float, float, float]:
        """The bar as (x0, y0, x1, y1)."""
        return (self.half_width, 0.0, self.half_width + self.bar_width, self.height)

    def half_rects(self) -> list[tuple[float, float, float, float]]:
        """The left and right halves as (x0, y0, x1, y1)."""
        hw = self.half_width
        return [(0.0, 0.0, hw, self.height), (hw + self.bar_width, 0.0, self.width, self.height)]

    # -- points ----------------------------------------------------------------------------

    def column(self, point: int) -> int:
        """Column 0..11, counted from the left, of an image-relative point."""
        _check_point(point)
        return 12 - point if point <= 12 else point - 13

    def half_of(self, point: int) -> Half:
        """Which row (edge) an image-relative point stands on."""
        _check_point(point)
        return "bottom" if point <= 12 else "top"

    def point_x(self, point: int) -> float:
        """x of the centre line of a point."""
        col = self.column(point)
        x = (col + 0.5) * self.point_width
        return x + self.bar_width if col >= 6 else x

    def triangle(self, point: int) -> FloatArray:
        """A point's triangle: base left, base right, apex; shape (3, 2)."""
        x, half_w = self.point_x(point), self.point_width / 2
        if self.half_of(point) == "bottom":
            base, apex = self.height, self.height - self.point_length
        else:
            base, apex = 0.0, self.point_length
        return np.array([[x - half_w, base], [x + half_w, base], [x, apex]])

    def point_area(self, point: int, checkers: int | None = None) -> FloatArray:
        """Quadrilateral where a point's checkers stand (the first row, or `checkers` of it).

        Used to judge occlusion: a point whose area is mostly hidden cannot be read.
        """
        n = self.per_row if checkers is None else max(1, min(checkers, self.per_row))
        x, half_w = self.point_x(point), self.point_width / 2
        depth = (n - 1) * self.step + self.checker_diameter
        if self.half_of(point) == "bottom":
            y0, y1 = self.height - depth, self.height
        else:
            y0, y1 = 0.0, depth
        return np.array([[x - half_w, y0], [x + half_w, y0], [x + half_w, y1], [x - half_w, y1]])

    def checker_slot(self, k: int) -> tuple[int, float]:
        """Layer (0 = first row) and distance from the edge to the centre of the k-th checker.

        The first row holds `per_row` checkers from the edge; the second lies on top of it,
        offset by half a checker, one fewer; further layers (one fewer each) sit a quarter
        checker off the layers below so that every layer keeps a visible rim.
        """
        if k < 0:
            raise ValueError(f"checker index must not be negative, got {k}")
        n, layer = self.per_row, 0
        while True:
            slots = n if layer == 0 else max(1, n - 1)
            if k < slots:
                offset = 0.0 if n == 1 else (layer % 2) / 2 + (layer // 2) / 4
                return layer, self.checker_diameter / 2 + (offset + k) * self.step
            k -= slots
            layer += 1

    def checker_centre(self, point: int, k: int) -> tuple[float, float]:
        """Centre of the k-th checker (0-based) placed on an image-relative point."""
        _, along = self.checker_slot(k)
        y = self.height - along if self.half_of(point) == "bottom" else along
        return (self.point_x(point), y)

    def checker_centres(self, point: int, count: int) -> FloatArray:
        return np.array([self.checker_centre(point, k) for k in range(count)]).reshape(-1, 2)

    # -- bar and trays ---------------------------------------------------------------------

    def bar_centre(self, half: Half, k: int) -> tuple[float, float]:
        """Centre of the k-th checker on the bar (short nardy), from the middle outwards."""
        x = self.half_width + self.bar_width / 2
        along = self.checker_diameter / 2 + k * self.step
        mid = self.height / 2
        return (x, mid - along if half == "top" else mid + along)

    def tray_rect(self, side: TraySide) -> tuple[float, float, float, float]:
        """A borne-off tray beside the field as (x0, y0, x1, y1)."""
        if side == "left":
            x1 = -self.tray_gap
            return (x1 - self.tray_width, 0.0, x1, self.height)
        x0 = self.width + self.tray_gap
        return (x0, 0.0, x0 + self.tray_width, self.height)

    def off_centre(self, side: TraySide, half: Half, k: int) -> tuple[float, float]:
        """Centre of the k-th borne-off checker in a tray, from the tray's end inwards.

        Borne-off checkers overlap like a stack seen from above: a third of a checker apart.
        """
        x0, _, x1, _ = self.tray_rect(side)
        along = self.checker_diameter / 2 + k * self.checker_diameter / 3
        y = along if half == "top" else self.height - along
        return ((x0 + x1) / 2, y)


def _check_point(point: int) -> None:
    if point not in POINTS:
        raise ValueError(f"points are numbered 1-24, got {point}")
