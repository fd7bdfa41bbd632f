"""Build a `BoardCalibration` from a frame and the field's corners."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.board import BGR, BoardCalibration, Markers
from calibration.moved import border_profiles
from calibration.numbering import Corner
from vision.board.strips import STRIP_SIZE, estimate_bar_width
from vision.board.warp import Image, as_corners, check_corners


def calibrate(image: Image, corners: Any, white_corner: Corner = "bottom-right",
              markers: Markers | None = None,
              dice_zones: dict[str, Any] | None = None,
              read_colours: bool = True) -> BoardCalibration:
    """Corners checked against the image; bar width, border reference and, when the board
    reader can see checkers, their colours measured on this frame."""
    c = as_corners(corners)
    h, w = image.shape[:2]
    check_corners(c, w, h)
    bar = estimate_bar_width(image, c)
    colours = checker_colours(image, c, bar) if read_colours else {}
    return BoardCalibration(corners=c, image_size=(w, h), white_corner=white_corner,
                            bar_width=bar, colours=colours, dice_zones=dice_zones,
                            markers=markers, border=border_profiles(image, c))


def checker_colours(image: Image, corners: Any, bar_width: float) -> dict[str, BGR]:
    """Mean BGR of the first checker on the points read as light and as dark."""
    from vision.board.reader import BoardReader
    from vision.board.strips import canonical_geometry, extract_strips

    reading = BoardReader().read(image, corners, bar_width)
    strips = extract_strips(image, as_corners(corners), canonical_geometry(bar_width))
    w = STRIP_SIZE[0]
    found: dict[str, list[Any]] = {"light": [], "dark": []}
    for p in range(1, 25):
        colour, _ = reading.point(p)
        if colour is not None:
            found[colour].append(strips[p - 1, 6:14, w // 3:w - w // 3].reshape(-1, 3))
    out: dict[str, BGR] = {}
    for colour, patches in found.items():
        if patches:
            m = np.median(np.concatenate(patches), axis=0)
            out[colour] = (int(m[0]), int(m[1]), int(m[2]))
    return out
