"""Has the board camera moved since calibration?

At calibration we keep, for each side of the field, the profile of the brightness gradient
across that side (median over points along it, so checkers or a hand on part of a side do not
matter). On a new frame the same profiles are taken at the calibrated corners and matched to
the reference: if a side's edge now lies a few pixels off, or most sides have lost their edge,
the camera (or the board) moved and the calibration no longer holds. A moved camera is
reported as such, never read as a changed position. With markers, their centres are compared
too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.board import BoardCalibration, FloatArray, field_sides
from vision.board.warp import Image

REACH = 24  # pixels either side of the calibrated edge
SAMPLES = 32  # points along each side
SHIFT_PX = 2.0  # a side whose edge lies this far off has moved
GOOD_MATCH = 0.6  # correlation for a side to count as seen
MARKER_PX = 3.0


def border_profiles(image: Image, corners: FloatArray, reach: int = REACH) -> FloatArray:
    """(4, 2*reach+1) gradient profiles across the sides top, right, bottom, left; offsets run
    from outside (-reach) to inside (+reach) the field, one pixel apart."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    grey = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    offsets = np.arange(-reach - 1, reach + 2, dtype=np.float64)
    t = (np.arange(SAMPLES) + 0.5) / SAMPLES * 0.8 + 0.1
    out = []
    for a, b, normal in field_sides(corners):
        base = a[None] + t[:, None] * (b - a)[None]  # (S, 2)
        pts = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        mx = pts[..., 0].astype(np.float32)
        my = pts[..., 1].astype(np.float32)
        values = cv2.remap(grey, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        grad = np.abs(values[:, 2:] - values[:, :-2]) / 2  # (S, 2*reach+1)
        out.append(np.median(grad, axis=0))
    return np.asarray(out, np.float64)


@dataclass(frozen=True)
class MoveCheck:
    """The verdict: `moved`, the edge shift per side in pixels (None where the side was not
    seen), the best match per side, and markers that moved or went missing."""

    moved: bool
    shifts: list[float | None]
    matches: list[float]
    reason: str
    markers_moved: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"moved": self.moved, "reason": self.reason,
                "shift_px": [None if s is None else round(s, 1) for s in self.shifts],
                "match": [round(m, 3) for m in self.matches],
                "markers_moved": self.markers_moved}


def _match(ref: FloatArray, cur: FloatArray, reach: int) -> tuple[float, float]:
    """(best shift in pixels, its normalised correlation) of a profile against the reference."""
    best, best_corr = 0.0, -1.0
    max_lag = 2 * reach // 3
    for lag in range(-max_lag, max_lag + 1):
        r = ref[max_lag:len(ref) - max_lag]
        c = cur[max_lag + lag:len(cur) - max_lag + lag]
        rz, cz = r - r.mean(), c - c.mean()
        den = float(np.linalg.norm(rz) * np.linalg.norm(cz))
        corr = float(rz @ cz) / den if den > 1e-9 else 0.0
        if corr > best_corr + 1e-9 or (abs(corr - best_corr) <= 1e-9 and abs(lag) < abs(best)):
            best, best_corr = float(lag), corr
    return best, best_corr


def check_camera(calibration: BoardCalibration, image: Image) -> MoveCheck:
    """Whether the field is still where the calibration says it is."""
    markers_moved: list[int] = []
    if calibration.markers is not None:
        from calibration.aruco import detect

        found = detect(image)
        seen = dict(zip(found.ids, found.quads, strict=True))
        for marker_id, centre in zip(calibration.markers.ids, calibration.markers.centres,
                                     strict=True):
            quad = seen.get(marker_id)
            if quad is not None and float(np.linalg.norm(quad.mean(0) - centre)) > MARKER_PX:
                markers_moved.append(marker_id)
    h, w = image.shape[:2]
    if (w, h) != tuple(calibration.image_size) and calibration.image_size != (0, 0):
        return MoveCheck(True, [None] * 4, [0.0] * 4,
                         f"frame size {w}x{h} differs from the calibration's "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]}")
    reference = calibration.border
    cur = border_profiles(image, calibration.corners)
    if reference is None:  # no reference kept: expect the strongest edge on the line itself
        reference = np.zeros_like(cur)
        reference[:, REACH] = 1.0
    reach = (reference.shape[1] - 1) // 2
    shifts: list[float | None] = []
    matches: list[float] = []
    for ref, now in zip(reference, cur, strict=True):
        lag, corr = _match(ref, now, reach)
        matches.append(corr)
        shifts.append(lag if corr >= GOOD_MATCH else None)
    seen_sides = [s for s in shifts if s is not None]
    off = [s for s in seen_sides if abs(s) >= SHIFT_PX]
    if markers_moved:
        return MoveCheck(True, shifts, matches, f"markers {markers_moved} moved", markers_moved)
    if off:
        return MoveCheck(True, shifts, matches,
                         f"the field's edge moved by up to {max(abs(s) for s in off):.0f} px")
    if len(seen_sides) <= 2:
        return MoveCheck(True, shifts, matches, "the field's edges are no longer where they were")
    return MoveCheck(False, shifts, matches, "the field is where it was calibrated")
