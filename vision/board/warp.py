"""The one warp of the board reader: canonical field quadrilaterals to image patches.

Training (models/board/data.py), inference (vision/board/reader.py) and calibration checks
all cut their patches through `warp_patch`, so that a patch means the same in all three
(chesscog's two drifted copies of its warp are the cautionary tale).

Canonical frame: calibration/layout.py (x right, y down, field units, field (0, 0)-(W, H)).
Images are BGR uint8 (or single-channel); points are (n, 2) float arrays of (x, y) pixels.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.layout import BoardGeometry, FloatArray

Image = npt.NDArray[np.uint8]


def as_corners(corners: Any) -> FloatArray:
    """Four (x, y) corners as a (4, 2) float64 array; ValueError if they are not that."""
    try:
        arr = np.asarray(corners, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("corners must be four [x, y] pairs") from None
    if arr.shape != (4, 2):
        raise ValueError(f"corners must be four [x, y] pairs, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("corners must be finite numbers")
    return arr


def check_corners(corners: FloatArray, width: int, height: int, margin: float = 0.02) -> None:
    """ValueError unless the corners lie in the image (a small margin allowed) and form a
    convex quadrilateral in the order top-left, top-right, bottom-right, bottom-left."""
    tol = margin * max(width, height)
    if np.any(corners[:, 0] < -tol) or np.any(corners[:, 0] > width - 1 + tol) or np.any(
        corners[:, 1] < -tol) or np.any(corners[:, 1] > height - 1 + tol):
        raise ValueError(f"corners lie outside the {width}x{height} image")
    edges = np.roll(corners, -1, 0) - corners
    nxt = np.roll(edges, -1, 0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    if not np.all(cross > 0):
        raise ValueError("corners must form a convex quadrilateral ordered top-left, top-right, "
                         "bottom-right, bottom-left")
    area = 0.5 * abs(float(np.sum(corners[:, 0] * np.roll(corners[:, 1], -1)
                                  - np.roll(corners[:, 0], -1) * corners[:, 1])))
    if area < 0.01 * width * height:
        raise ValueError("corners enclose too small an area to hold a board")


def field_homography(corners: FloatArray, geometry: BoardGeometry) -> FloatArray:
    """3x3 homography taking canonical field units to image pixels."""
    src = geometry.field_corners().astype(np.float32)
    h = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    return np.asarray(h, np.float64)


def project(h: FloatArray, pts: Any) -> FloatArray:
    """Apply a homography to (n, 2) points."""
    p = np.asarray(pts, float).reshape(-1, 2)
    q = np.concatenate([p, np.ones((len(p), 1))], 1) @ h.T
    return np.asarray(q[:, :2] / q[:, 2:3], float)


def warp_patch(image: Image, h: FloatArray, quad: FloatArray, size: tuple[int, int]) -> Image:
    """THE warp: resample the canonical quadrilateral `quad` of `image` into a patch.

    `h` takes canonical field units to image pixels; `quad` lists the canonical points that
    become the patch's top-left, top-right, bottom-right and bottom-left pixel corners (so a
    quad listed in another order rotates or mirrors the patch); `size` is (width, height).
    Bilinear, border pixels repeated.
    """
    w, hh = size
    dst = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, hh - 0.5], [-0.5, hh - 0.5]],
                   np.float32)
    src = project(h, quad).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(image, m, (w, hh), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)


def rectify(image: Image, corners: FloatArray, geometry: BoardGeometry,
            scale: float = 0.5) -> Image:
    """The whole field seen from above at `scale` pixels per field unit."""
    h = field_homography(corners, geometry)
    size = (round(geometry.width * scale), round(geometry.height * scale))
    return warp_patch(image, h, geometry.field_corners(), size)
