"""Strips: one patch per point (from its edge to the middle line) and per bar half.

Every strip is cut by `warp.warp_patch` and turned so that the place where the first checker
stands (a point's edge, the bar's middle) is the patch's top row: a bottom-row point is
rotated half a turn. Sizes are fixed (`STRIP_SIZE`), so the classifier sees the same frame
whatever the board's proportions.

Strip order (`STRIP_NAMES`): points 1-24 (image-relative), then "bar-top", "bar-bottom".
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import BoardGeometry, FloatArray
from vision.board.warp import Image, field_homography, warp_patch

STRIP_SIZE = (24, 128)  # (width, height) in pixels
STRIP_WIDTH = 1.25  # strip width in point widths
STRIP_NAMES: tuple[str, ...] = (*(str(p) for p in range(1, 25)), "bar-top", "bar-bottom")
BAR_RANGE = (10.0, 130.0)  # plausible bar widths, field units (field width 1000)
# The strongest edges lie just outside the bar (the line around each half): measured on
# synthetic boards the raw estimate is about this much too wide.
BAR_BIAS = 5.0


def canonical_geometry(bar_width: float = 40.0) -> BoardGeometry:
    """The reader's canonical field: 1000 units wide, the default aspect, a given bar."""
    return BoardGeometry(bar_width=float(np.clip(bar_width, 0.0, 300.0)))


def strip_quads(geometry: BoardGeometry) -> FloatArray:
    """Canonical quadrilaterals of all strips, shape (26, 4, 2), in `STRIP_NAMES` order."""
    g = geometry
    half = STRIP_WIDTH * g.point_width / 2
    mid = g.height / 2
    quads = []
    for p in range(1, 25):
        x = g.point_x(p)
        if p <= 12:  # bottom row: edge at y = H, turned half a turn
            quads.append([[x + half, g.height], [x - half, g.height], [x - half, mid],
                          [x + half, mid]])
        else:
            quads.append([[x - half, 0.0], [x + half, 0.0], [x + half, mid], [x - half, mid]])
    x = g.half_width + g.bar_width / 2
    quads.append([[x + half, mid], [x - half, mid], [x - half, 0.0], [x + half, 0.0]])
    quads.append([[x - half, mid], [x + half, mid], [x + half, g.height], [x - half, g.height]])
    return np.asarray(quads, np.float64)


def extract_strips(image: Image, corners: FloatArray, geometry: BoardGeometry) -> Image:
    """All strips of an image, shape (26, height, width, 3), BGR uint8."""
    h = field_homography(corners, geometry)
    return np.stack([warp_patch(image, h, q, STRIP_SIZE) for q in strip_quads(geometry)])


def estimate_bar_width(image: Image, corners: FloatArray) -> float:
    """The bar's width in canonical units, from the two straight edges that run the field's
    full height either side of its middle (per column, the median over the rows of the
    horizontal gradient; triangles and checkers rarely line up over the whole height)."""
    g = canonical_geometry()
    scale = 0.5
    reach = BAR_RANGE[1] / 2 + 10  # canonical units either side of the middle
    mid = g.width / 2
    band = np.array([[mid - reach, 0.0], [mid + reach, 0.0], [mid + reach, g.height],
                     [mid - reach, g.height]])
    size = (round(2 * reach * scale), round(g.height * scale / 2))  # half the rows suffice
    field = warp_patch(image, field_homography(corners, g), band, size)
    grey = cv2.cvtColor(field, cv2.COLOR_BGR2GRAY) if field.ndim == 3 else field
    gx = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3))
    rows = gx[int(0.04 * len(gx)):int(0.96 * len(gx))]
    profile = np.median(rows, axis=0)
    profile = np.convolve(profile, np.array([0.25, 0.5, 0.25], np.float32), mode="same")
    centre = size[0] / 2 - 0.5  # pixel index of the middle (pixel centres at i + 0.5)
    best, best_score = 40.0, -1.0
    for b in np.arange(BAR_RANGE[0], BAR_RANGE[1] + 0.1, 1.0):
        left, right = centre - b / 2 * scale, centre + b / 2 * scale
        score = _at(profile, left) + _at(profile, right)
        if score > best_score:
            best, best_score = float(b), score
    return max(BAR_RANGE[0], best - BAR_BIAS)


def _at(profile: FloatArray, x: float) -> float:
    i = int(np.floor(x))
    if i < 0 or i + 1 >= len(profile):
        return 0.0
    f = x - i
    return float(profile[i] * (1 - f) + profile[i + 1] * f)
