"""How the tray camera looks at the tray's floor, and the straight-down view made from it.

A die lying flat and a die standing on an edge can look alike in a crop: a flat die seen
obliquely shows its sides as a tilted die seen from above does. What tells them apart is the
floor: a flat die's top face is parallel to it. Turning the camera in thought until it looks
straight down (a homography that needs only the camera's intrinsics and which way is up)
shows every plane parallel to the floor undistorted, so a flat die's top face becomes a
square wherever it lies, and a tilted face does not (models/dice/train_cocked.py).

The camera comes from the calibration: from the exit tray's four floor corners and its inner
size in millimetres (`TrayView.from_tray`, the focal length found from the homography as
in Zhang's method, the principal point at the image centre), or given whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
# A camera looking within this angle of straight down sees the floor nearly square, and its
# focal length cannot be recovered from one plane: the view hardly needs it then.
NEAR_STRAIGHT_DOWN = 0.02  # radians, about a degree
DEFAULT_FIELD_OF_VIEW_DEG = 60.0
# A tray camera lower than this over the tray sees a die's tilt mostly along its line of
# sight, where it shows least: on the rendered scenes cameras 20-40 degrees up caught 64-75%
# of the cocked dice, cameras 40 degrees and more 92.6% (models/dice/cocked.md).
LOWEST_GOOD_ELEVATION_DEG = 40.0


@dataclass(frozen=True)
class TrayView:
    """`intrinsics`: the 3x3 camera matrix (pixels); `up`: the floor's upward normal in the
    camera's axes (OpenCV: x right, y down, z forward), a unit vector."""

    intrinsics: FloatArray
    up: FloatArray

    def __post_init__(self) -> None:
        intrinsics = np.asarray(self.intrinsics, np.float64)
        up = np.asarray(self.up, np.float64)
        if intrinsics.shape != (3, 3) or not np.all(np.isfinite(intrinsics)):
            raise ValueError("intrinsics must be a finite 3x3 matrix")
        if up.shape != (3,) or not np.isfinite(up).all() or np.abs(up).max() < 1e-9:
            raise ValueError("up must be a non-zero 3-vector")
        # Scaled by its largest component first: the norm of a huge vector overflows.
        up = up / np.abs(up).max()
        object.__setattr__(self, "intrinsics", intrinsics)
        object.__setattr__(self, "up", up / np.linalg.norm(up))

    @property
    def nadir(self) -> tuple[float, float]:
        """Where the point straight below the camera lies in the straight-down view."""
        return float(self.intrinsics[0, 2]), float(self.intrinsics[1, 2])

    @cached_property
    def straight_down(self) -> FloatArray:
        """The homography from image pixels to the view of a camera at the same place turned
        to look straight down (same intrinsics): the smallest turn taking the view axis onto
        the downward normal. Worked out once: the reader asks for it at every reading."""
        down = -self.up
        forward = np.array([0.0, 0.0, 1.0])
        axis = np.cross(down, forward)
        sine, cosine = float(np.linalg.norm(axis)), float(down @ forward)
        turn = np.eye(3)
        if sine > 1e-12:
            x, y, z = axis / sine
            cross = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
            turn = np.eye(3) + sine * cross + (1.0 - cosine) * cross @ cross
        homography: FloatArray = self.intrinsics @ turn @ np.linalg.inv(self.intrinsics)
        return homography

    def elevation_deg(self, pixel: tuple[float, float]) -> float:
        """How high the camera sees the floor point at `pixel` from: the angle between its
        line of sight and the floor, in degrees (90: straight down)."""
        ray = np.linalg.inv(self.intrinsics) @ np.array([pixel[0], pixel[1], 1.0])
        return float(np.degrees(np.arcsin(abs(ray @ self.up) / np.linalg.norm(ray))))

    def shifted(self, dx: float, dy: float) -> TrayView:
        """The same camera for a crop of its frame whose top-left corner is (dx, dy)."""
        intrinsics = self.intrinsics.copy()
        intrinsics[0, 2] -= dx
        intrinsics[1, 2] -= dy
        return TrayView(intrinsics, self.up)

    @classmethod
    def from_tray(cls, corners: Any, size_mm: tuple[float, float],
                  image_size: tuple[int, int]) -> TrayView:
        """From the exit tray's floor corners in pixels (4 points, in order around the tray,
        the first two along its side of `size_mm[0]`), its inner size, and the image's
        (width, height). ValueError when the corners cannot be a rectangle's view."""
        points = np.asarray(corners, np.float64)
        width, height = float(size_mm[0]), float(size_mm[1])
        if points.shape != (4, 2) or min(width, height) <= 0:
            raise ValueError("the tray needs 4 corners [x, y] and a positive size in mm")
        outline = points.astype(np.float32)
        if not cv2.isContourConvex(outline) or abs(cv2.contourArea(outline)) < 100:
            raise ValueError("the tray's corners must go round a convex quadrilateral")
        floor = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
        homography, _ = cv2.findHomography(floor, points)
        if homography is None:
            raise ValueError("the tray's corners do not make a quadrilateral")
        centre = np.array([[1.0, 0.0, image_size[0] / 2], [0.0, 1.0, image_size[1] / 2],
                           [0.0, 0.0, 1.0]])
        h: FloatArray = np.linalg.inv(centre) @ homography
        guess = image_size[0] / 2 / np.tan(np.radians(DEFAULT_FIELD_OF_VIEW_DEG / 2))
        focal = _focal_length(h, guess) or guess
        intrinsics = centre @ np.diag([focal, focal, 1.0])
        rays = np.linalg.inv(np.diag([focal, focal, 1.0])) @ h
        r1, r2 = rays[:, 0] / np.linalg.norm(rays[:, 0]), rays[:, 1] / np.linalg.norm(rays[:, 1])
        normal = np.cross(r1, r2)
        # The camera sits above the floor: from the floor's origin (rays[:, 2], up to scale
        # and sign, and in front of the camera) the camera lies on the upward side.
        origin = rays[:, 2] * np.sign(rays[2, 2] or 1.0)
        up = normal if normal @ -origin > 0 else -normal
        return cls(intrinsics, up)

    def to_json(self) -> dict[str, Any]:
        return {"intrinsics": np.round(self.intrinsics, 3).tolist(),
                "up": np.round(self.up, 6).tolist()}

    @classmethod
    def from_json(cls, data: Any) -> TrayView:
        try:
            return cls(np.asarray(data["intrinsics"], np.float64),
                       np.asarray(data["up"], np.float64))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"a tray camera needs intrinsics (3x3) and up (3): {error}") from None


def too_low(view: TrayView, tray: Any) -> str | None:
    """What to tell the installer when the camera sees the tray's centre (the mean of its
    floor corners `tray`, in pixels) from under LOWEST_GOOD_ELEVATION_DEG; None otherwise."""
    centre = np.mean(np.asarray(tray, np.float64), axis=0)
    elevation = view.elevation_deg((float(centre[0]), float(centre[1])))
    if elevation >= LOWEST_GOOD_ELEVATION_DEG:
        return None
    return (f"the camera sees the tray from {elevation:.0f} degrees above it: cocked dice are "
            f"read best from {LOWEST_GOOD_ELEVATION_DEG:.0f} degrees or more (mount it higher "
            "or nearer above the tray)")


def _focal_length(h: FloatArray, guess: float) -> float | None:
    """The focal length that makes the homography's first two columns (the floor's axes seen
    through a camera with square pixels, principal point at 0) orthogonal and of equal
    length; None when the view is too nearly straight down to tell (`guess`: a focal length
    of the right size, to judge that)."""
    (a1, b1, c1), (a2, b2, c2) = h[:, 0], h[:, 1]
    slant = max(abs(c1) / np.hypot(a1, b1), abs(c2) / np.hypot(a2, b2)) * guess
    if slant < NEAR_STRAIGHT_DOWN:
        return None
    estimates = []
    if abs(c1 * c2) > 1e-15:
        estimates.append(-(a1 * a2 + b1 * b2) / (c1 * c2))
    if abs(c1 * c1 - c2 * c2) > 1e-15:
        estimates.append((a2 * a2 + b2 * b2 - a1 * a1 - b1 * b1) / (c1 * c1 - c2 * c2))
    positive = [e for e in estimates if e > 0]
    return float(np.sqrt(np.mean(positive))) if positive else None
