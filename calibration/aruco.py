"""ArUco markers at the field's corners (OpenCV `cv2.aruco`, dictionary DICT_4X4_50).

Convention: marker 0 sits outside the field's top-left corner, 1 top-right, 2 bottom-right,
3 bottom-left, each with the corner of its black square that points at the field's centre
touching the field's corner. `field_corners` finds the four markers and returns those inner
corners (the marker corner nearest the middle of the four markers), whatever way each marker
is turned. `marker_sheet` draws a printable sheet of the four.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.board import FloatArray, Markers
from calibration.layout import BoardGeometry
from vision.board.warp import Image, field_homography, project

DICTIONARY = "DICT_4X4_50"
IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left


def _dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY))


@dataclass(frozen=True)
class Detection:
    """Markers found: `ids` (n,) and their corners `quads` (n, 4, 2) in pixels."""

    ids: list[int]
    quads: FloatArray


def detect(image: Image) -> Detection:
    """All DICT_4X4_50 markers in a BGR or grey image."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(_dictionary(), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return Detection([], np.zeros((0, 4, 2)))
    return Detection([int(i) for i in ids.ravel()],
                     np.asarray(corners, np.float64).reshape(-1, 4, 2))


def field_corners(image: Image) -> tuple[FloatArray, Markers]:
    """The field's corners from the four markers; ValueError naming any that are missing."""
    found = detect(image)
    quads = {i: q for i, q in zip(found.ids, found.quads, strict=True) if i in IDS}
    missing = [i for i in IDS if i not in quads]
    if missing:
        raise ValueError(f"ArUco markers {missing} ({DICTIONARY}) not found; found "
                         f"{sorted(set(found.ids))}")
    centres = np.array([quads[i].mean(0) for i in IDS])
    middle = centres.mean(0)
    corners = np.array([quads[i][np.argmin(np.linalg.norm(quads[i] - middle, axis=1))]
                        for i in IDS])
    return corners, Markers(DICTIONARY, IDS, centres)


def marker_image(marker_id: int, pixels: int) -> Image:
    """One marker (black square, 4x4 bits) with a white quiet zone of one cell around it."""
    cell = pixels // 6
    inner = cv2.aruco.generateImageMarker(_dictionary(), marker_id, cell * 6)
    return np.asarray(cv2.copyMakeBorder(inner, cell, cell, cell, cell, cv2.BORDER_CONSTANT,
                                         value=255), np.uint8)


def marker_sheet(pixels: int = 480) -> Image:
    """A printable sheet (grey, white paper) of markers 0-3 with where each one goes."""
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    tile = marker_image(0, pixels)
    side = tile.shape[0]
    pad = 60
    sheet = np.full((2 * side + 3 * pad + 40, 2 * side + 3 * pad), 255, np.uint8)
    for k, (marker_id, name) in enumerate(zip(IDS, names, strict=True)):
        r, c = divmod(k, 2)
        y, x = pad + r * (side + pad + 20), pad + c * (side + pad)
        sheet[y:y + side, x:x + side] = marker_image(marker_id, pixels)
        cv2.putText(sheet, f"{marker_id}: outside the field's {name} corner", (x, y + side + 30),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 2, cv2.LINE_AA)
    cv2.putText(sheet, f"ArUco {DICTIONARY}: the black square's inner corner touches the "
                "field's corner", (pad, sheet.shape[0] - 20), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0,
                2, cv2.LINE_AA)
    return sheet


def draw_markers(image: Image, corners: FloatArray, size: float = 40.0,
                 geometry: BoardGeometry | None = None) -> Image:
    """Stick the four markers onto an image of a board (for tests and demos): each marker's
    black square, `size` field units wide, lies outside its field corner in the board plane,
    its inner corner on the corner."""
    g = geometry or BoardGeometry()
    h = field_homography(corners, g)
    out = image.copy()
    w, hh = g.width, g.height
    outward = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    for marker_id, corner, (sx, sy) in zip(IDS, g.field_corners(), outward, strict=True):
        tile = marker_image(marker_id, 240)
        cell = tile.shape[0] / 8
        # The black square spans tile pixels [cell, 7 cell]; its corner towards the field
        # must land on the field corner.
        x0 = corner[0] if sx > 0 else corner[0] - size
        y0 = corner[1] if sy > 0 else corner[1] - size
        black = np.array([[x0, y0], [x0 + size, y0], [x0 + size, y0 + size], [x0, y0 + size]])
        black = np.clip(black, [-w, -hh], [2 * w, 2 * hh])
        src = np.array([[cell, cell], [7 * cell, cell], [7 * cell, 7 * cell], [cell, 7 * cell]],
                       np.float32)
        m = cv2.getPerspectiveTransform(src, project(h, black).astype(np.float32))
        warped = cv2.warpPerspective(cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR), m,
                                     (out.shape[1], out.shape[0]), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.full(tile.shape, 255, np.uint8), m,
                                   (out.shape[1], out.shape[0]), flags=cv2.INTER_NEAREST)
        out[mask > 0] = warped[mask > 0]
    return out
