"""What a calibration of the tray camera would find in a rendered scene, from the camera's
JSON (labels.py `camera_json`): the exit tray's floor and the inside of the baffle box in
pixels, and how the camera views the tray's floor (`TrayView`, found from the floor's
corners as the calibration tool finds it, not taken from the camera's true pose).

No MuJoCo import: the model code reads the labels' cameras with this too.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.tray_view import TrayView
from synth.dice.scene import BoxGeometry

FloatArray = NDArray[np.float64]


def project(camera: dict[str, Any], points: ArrayLike) -> FloatArray:
    """World points (n, 3), in front of the camera, in image pixels (n, 2). MuJoCo's camera
    looks down its -z with y up (`xmat` holds its axes in world axes by column); OpenCV's
    looks down +z with y down."""
    turn = np.diag([1.0, -1.0, -1.0]) @ np.asarray(camera["xmat"], np.float64).reshape(3, 3).T
    world = np.asarray(points, np.float64).reshape(-1, 3)
    seen = (np.asarray(camera["intrinsics"], np.float64)
            @ (turn @ (world - np.asarray(camera["position"], np.float64)).T)).T
    pixels: FloatArray = seen[:, :2] / seen[:, 2:]
    return pixels


def tray_corners(camera: dict[str, Any], box: BoxGeometry | None = None) -> FloatArray:
    """The tray floor's four corners in pixels, in order around it, the first two along its
    length (x), as `TrayView.from_tray` takes them."""
    box = box or BoxGeometry()
    half = box.tray_width / 2
    return project(camera, [[0.0, -half, 0.0], [box.tray_length, -half, 0.0],
                            [box.tray_length, half, 0.0], [0.0, half, 0.0]])


def rendering_view(camera: dict[str, Any], box: BoxGeometry | None = None) -> TrayView:
    """How a rendered scene's camera views the tray, found as a calibration finds it: from
    the tray floor's four corners where that camera sees them, and the tray's size (the same
    in every scene: only the box's ramp varies)."""
    box = box or BoxGeometry()
    size_mm = (box.tray_length * 1000, box.tray_width * 1000)
    return TrayView.from_tray(tray_corners(camera, box), size_mm,
                              (int(camera["size"][0]), int(camera["size"][1])))


def box_zone(camera: dict[str, Any], box: BoxGeometry) -> FloatArray:
    """The box's ramp (x from the box's back to the exit, over the box's width) in pixels,
    clipped to the image: where a die that stops inside the box lies. The camera sees it
    through the exit; the part hidden by the box's front shows no die.

    It starts at the exit corner beside the tray zone's last one and runs round the same
    way, so that the two zones written one after the other trace their union's outline:
    vision/tray.py fills them as one polygon for its motion mask."""
    half = box.tower_width / 2
    ramp = project(camera, [[0.0, half, 0.0], [-box.tower_depth, half, box.ramp_top],
                            [-box.tower_depth, -half, box.ramp_top], [0.0, -half, 0.0]])
    width, height = (float(v) for v in camera["size"])
    image = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    # A rectangle's view is convex, so OpenCV's convex intersection clips it, in an order
    # of its own.
    area, clipped = cv2.intersectConvexConvex(ramp.astype(np.float32), image)
    if clipped is None or area <= 0:
        raise ValueError("the camera does not see the box's exit")
    zone = clipped.reshape(-1, 2).astype(np.float64)
    if _signed_area(zone) * _signed_area(ramp) < 0:
        zone = zone[::-1]
    start = int(np.argmin(np.linalg.norm(zone - ramp[0], axis=1)))
    rolled: FloatArray = np.roll(zone, -start, axis=0)
    return rolled


def _signed_area(polygon: FloatArray) -> float:
    x, y = polygon[:, 0], polygon[:, 1]
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def tray_calibration(camera: dict[str, Any], box: BoxGeometry) -> dict[str, Any]:
    """The calibration a table's tray camera would have (`image_size`, `dice_zones` with the
    tray, the box, the view and the tray's size), as vision/tray.py reads it."""
    def points(polygon: FloatArray) -> list[list[float]]:
        return [[round(float(x), 2), round(float(y), 2)] for x, y in polygon]

    return {"image_size": [int(camera["size"][0]), int(camera["size"][1])],
            "dice_zones": {"tray": points(tray_corners(camera, box)),
                           "box": points(box_zone(camera, box)),
                           "view": rendering_view(camera, box).to_json(),
                           "tray_mm": [round(box.tray_length * 1000, 1),
                                       round(box.tray_width * 1000, 1)]}}
