"""A pinhole camera over the board, posed the way MuJoCo's cameras are, and its projection.

World frame: z up, the field's surface at z = 0, world +y towards the field's top edge (the
image's top when the camera is not rolled). A MuJoCo camera looks along its -z axis with +x to
the right of the picture and +y up; `fovy` is the full vertical angle of view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

Vec = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Camera:
    """Where the camera stands and how it looks; `size` is the picture in pixels."""

    position: Vec  # (3,)
    rotation: Vec  # (3, 3): columns are the camera's x (right), y (up), z (backwards) axes
    fovy: float  # degrees
    size: tuple[int, int]
    tilt: float  # degrees from looking straight down
    azimuth: float  # degrees: the direction, in the board plane, from the target to the camera
    yaw: float  # degrees: the picture's rotation against the board's long axis

    @property
    def focal(self) -> float:
        """Focal length in pixels."""
        return self.size[1] / 2 / math.tan(math.radians(self.fovy) / 2)

    def project(self, points: Vec) -> Vec:
        """World points (n, 3) to pixel coordinates (n, 2); pixel (i, j) spans [i, i+1)."""
        pc = (np.asarray(points, float).reshape(-1, 3) - self.position) @ self.rotation
        depth = -pc[:, 2]
        w, h = self.size
        x = w / 2 + self.focal * pc[:, 0] / depth
        y = h / 2 - self.focal * pc[:, 1] / depth
        return np.stack([x, y], 1)

    def shifted(self, dx_px: float, dy_px: float, depth: float) -> Camera:
        """The camera moved in its image plane so that things at `depth` move by (dx, dy) px."""
        move = (-dx_px * self.rotation[:, 0] + dy_px * self.rotation[:, 1]) * depth / self.focal
        return replace(self, position=self.position + move)


def look_at(target: Vec, distance: float, tilt: float, azimuth: float, yaw: float,
            fovy: float, size: tuple[int, int]) -> Camera:
    """A camera `distance` from `target`, tilted `tilt` degrees from straight down towards
    `azimuth`, its picture turned `yaw` degrees against the board's long axis."""
    t, a, r = math.radians(tilt), math.radians(azimuth), math.radians(yaw)
    back = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
    up = np.array([-math.sin(r), math.cos(r), 0.0])
    up = up - up.dot(back) * back
    up /= np.linalg.norm(up)
    right = np.cross(up, back)
    rotation = np.stack([right, up, back], 1)
    return Camera(np.asarray(target, float) + distance * back, rotation, fovy, size, tilt,
                  azimuth, yaw)


def fit(camera: Camera, outline: Vec, fill: float, placement: tuple[float, float],
        depth: float) -> Camera:
    """Move `camera` along its axis and across so that the bounding box of `outline` (world
    points, (n, 3)) takes `fill` of the picture's limiting side, placed at `placement` (0..1 in
    x and y) of the room left. `depth` is the camera's distance to the target at the start."""
    w, h = camera.size
    target = camera.position - depth * camera.rotation[:, 2]
    for _ in range(4):  # the fill is nearly inversely proportional to the distance
        px = camera.project(outline)
        size = px.max(0) - px.min(0)
        share = max(size[0] / w, size[1] / h)
        depth *= share / fill
        camera = replace(camera, position=target + depth * camera.rotation[:, 2])
    for _ in range(3):  # then slide across until the box sits where it should
        px = camera.project(outline)
        lo, hi = px.min(0), px.max(0)
        room = np.array([w, h]) - (hi - lo)
        want = np.maximum(room, 0) * np.array(placement) + (hi - lo) / 2
        dx, dy = want - (lo + hi) / 2
        camera = camera.shifted(float(dx), float(dy), depth)
    return camera


@dataclass(frozen=True, slots=True)
class CameraChoice:
    tilt: float
    azimuth: float
    yaw: float
    fovy: float
    fill: float
    placement: tuple[float, float]


def random_choice(rng: np.random.Generator, tilt_max: float = 35.0) -> CameraChoice:
    """Tilt 0..`tilt_max` (most pictures well tilted, some nearly straight down), the camera on
    any side, the picture within +-15 degrees of the board's long axis, the board filling 60-95 %
    of the limiting side."""
    tilt = tilt_max * float(np.sqrt(rng.random())) if rng.random() < 0.9 else float(
        rng.uniform(0, min(5.0, tilt_max)))
    return CameraChoice(
        tilt=tilt,
        azimuth=float(rng.uniform(0, 360)),
        yaw=float(np.clip(rng.normal(0, 6), -15, 15)),
        fovy=float(rng.uniform(35, 60)),
        fill=float(rng.uniform(0.6, 0.95)),
        placement=(float(rng.random()), float(rng.random())),
    )
