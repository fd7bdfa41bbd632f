"""The tray camera's view of the floor, measured from the tray's corners, and the straight-down
crop made with it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from vision.dice.preprocess import straight_down_crop

TRAY_MM = (260.0, 220.0)
SIZE = (640, 480)


def camera(elevation_deg: float, azimuth_deg: float, focal: float = 700.0,
           distance: float = 450.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K, the world-to-camera turn and translation (OpenCV axes) of a camera looking at the
    tray's centre from `elevation_deg` above the floor; world z is up, in millimetres."""
    target = np.array([TRAY_MM[0] / 2, TRAY_MM[1] / 2, 0.0])
    elevation, azimuth = np.radians(elevation_deg), np.radians(azimuth_deg)
    back = np.array([np.cos(elevation) * np.cos(azimuth), np.cos(elevation) * np.sin(azimuth),
                     np.sin(elevation)])
    position = target + distance * back
    forward = -back
    side = np.cross(forward, [0.0, 0.0, 1.0]) if elevation_deg < 89.9 else np.array([0, 1.0, 0])
    side /= np.linalg.norm(side)
    down = np.cross(forward, side)
    turn = np.stack([side, down, forward])
    intrinsics = np.array([[focal, 0, SIZE[0] / 2], [0, focal, SIZE[1] / 2], [0, 0, 1.0]])
    return intrinsics, turn, -turn @ position


def project(points: np.ndarray, intrinsics: np.ndarray, turn: np.ndarray,
            shift: np.ndarray) -> np.ndarray:
    seen = (intrinsics @ (turn @ points.T + shift[:, None])).T
    return seen[:, :2] / seen[:, 2:]


def tray_corners() -> np.ndarray:
    w, h = TRAY_MM
    return np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], float)


@pytest.mark.parametrize(("elevation", "azimuth"), [(35, 0), (50, 30), (70, -100), (85, 10)])
def test_the_view_is_measured_from_the_tray_corners(elevation: float, azimuth: float) -> None:
    intrinsics, turn, shift = camera(elevation, azimuth)
    view = TrayView.from_tray(project(tray_corners(), intrinsics, turn, shift), TRAY_MM, SIZE)
    true_up = turn @ np.array([0.0, 0.0, 1.0])
    assert np.degrees(np.arccos(np.clip(view.up @ true_up, -1, 1))) < 0.5
    assert view.intrinsics[0, 0] == pytest.approx(700.0, rel=0.03)


@pytest.mark.parametrize("elevation", [25, 40, 60, 85])
def test_the_view_says_how_high_the_camera_sees_the_tray_from(elevation: float) -> None:
    intrinsics, turn, shift = camera(elevation, 20)
    corners = project(tray_corners(), intrinsics, turn, shift)
    view = TrayView.from_tray(corners, TRAY_MM, SIZE)
    centre = project(np.array([[TRAY_MM[0] / 2, TRAY_MM[1] / 2, 0.0]]), intrinsics, turn,
                     shift)[0]
    assert view.elevation_deg((centre[0], centre[1])) == pytest.approx(elevation, abs=0.5)


def test_a_camera_looking_straight_down_needs_no_focal_length() -> None:
    intrinsics, turn, shift = camera(90, 0)
    view = TrayView.from_tray(project(tray_corners(), intrinsics, turn, shift), TRAY_MM, SIZE)
    assert view.up == pytest.approx([0.0, 0.0, -1.0], abs=1e-3)
    straight = view.straight_down
    assert straight / straight[2, 2] == pytest.approx(np.eye(3), abs=1e-3)


@pytest.mark.parametrize("corners", [[[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [2, 2], [3, 3]]])
def test_corners_that_are_no_rectangle_are_refused(corners: list[list[float]]) -> None:
    with pytest.raises(ValueError):
        TrayView.from_tray(corners, TRAY_MM, SIZE)


def test_the_view_survives_json_and_moves_with_a_crop() -> None:
    intrinsics, turn, shift = camera(45, 20)
    view = TrayView.from_tray(project(tray_corners(), intrinsics, turn, shift), TRAY_MM, SIZE)
    again = TrayView.from_json(view.to_json())
    assert again.up == pytest.approx(view.up, abs=1e-5)
    moved = view.shifted(100, 50)
    assert moved.nadir == pytest.approx((view.nadir[0] - 100, view.nadir[1] - 50))
    with pytest.raises(ValueError, match="intrinsics"):
        TrayView.from_json({"up": [0, 0, 1]})


def test_the_up_direction_is_kept_however_long_the_vector_given() -> None:
    intrinsics = np.array([[600.0, 0, 320], [0, 600, 240], [0, 0, 1]])
    with np.errstate(all="raise"):
        huge = TrayView(intrinsics, np.array([0.0, 3e200, 4e200]))
    assert huge.up == pytest.approx([0.0, 0.6, 0.8])
    with pytest.raises(ValueError, match="non-zero"):
        TrayView(intrinsics, np.zeros(3))


def plane_image(height_mm: float, intrinsics: np.ndarray, turn: np.ndarray,
                shift: np.ndarray) -> np.ndarray:
    """A grey picture of a 16 mm white square lying on a plane `height_mm` above the floor (a
    flat die's top face), the rest dark."""
    texture = np.full((400, 400), 40, np.uint8)
    texture[192:208, 192:208] = 230  # the square, 1 px a millimetre, centred at (200, 200)
    # texture pixel (u, v) is the world point (u - 70, v - 90, height): the square lies over
    # the tray's middle
    to_world = np.array([[1, 0, -70.0], [0, 1, -90.0], [0, 0, 1]])
    plane = np.column_stack([turn[:, 0], turn[:, 1], height_mm * turn[:, 2] + shift])
    homography = intrinsics @ plane @ to_world
    return cv2.warpPerspective(texture, homography, SIZE, flags=cv2.INTER_LINEAR)


def square_aspect(crop: np.ndarray) -> float:
    mask = (crop > 135).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (_, _), (w, h), _ = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    return min(w, h) / max(w, h)


def test_a_flat_face_seen_obliquely_is_square_in_the_straight_down_crop() -> None:
    intrinsics, turn, shift = camera(40, 25)
    image = plane_image(16.0, intrinsics, turn, shift)
    view = TrayView.from_tray(project(tray_corners(), intrinsics, turn, shift), TRAY_MM, SIZE)
    ys, xs = np.nonzero(image > 135)
    box = np.array([xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1],
                   np.float32)
    # As the camera sees it the face is squashed to about sin(40 degrees)...
    assert square_aspect(image[ys.min() - 5:ys.max() + 6, xs.min() - 5:xs.max() + 6]) < 0.75
    # ...and looking straight down it is a square again, its sides level.
    crop = straight_down_crop(image, box, view.straight_down, view.nadir, 96, 1.6)
    assert square_aspect(crop) > 0.93


def test_dice_zones_carry_the_view_through_json() -> None:
    from vision.dice.zones import DiceZones

    intrinsics, turn, shift = camera(45, 20)
    view = TrayView.from_tray(project(tray_corners(), intrinsics, turn, shift), TRAY_MM, SIZE)
    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    zones = DiceZones.from_json({"tray": square, "box": square, "view": view.to_json()})
    assert zones.view is not None and zones.view.up == pytest.approx(view.up, abs=1e-5)
    assert DiceZones.from_json(zones.to_json()).to_json() == zones.to_json()
    assert DiceZones.from_json({"tray": square, "box": square}).view is None
    with pytest.raises(ValueError, match="up"):
        DiceZones.from_json({"tray": square, "box": square, "view": {"intrinsics": np.eye(3)}})
