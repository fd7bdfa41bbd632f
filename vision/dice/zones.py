"""Where a die lies on the tray camera: in the exit tray, or still inside the baffle box."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.tray_view import TrayView
from vision.dice.boxes import Box
from vision.dice.reader import DieReading

# The largest pixel coordinate a zone's corner may have: no camera's frame is near a
# million pixels wide.
MAX_PIXEL = 1e6
# The widest box one die can have, in millimetres of tray floor where it stands: the largest
# dice in play have 20 mm edges, and a die's box at its foot spans at most about 2.3 edges (a
# cocked die seen obliquely, a die in flight; MuJoCo clips). A wider box frames more than one
# die: the detector can frame two dice, or a die with its shadow, as one.
MAX_DIE_WIDTH_MM = 60.0
# The narrowest box one die can have in the tray: a die's box at its foot spans at least its
# edge, 13 mm on the smallest dice the scenes draw (13-19 mm, synth/dice/generate.py). A
# narrower reading is part of a die (a pip, its front face framed apart) that a closer look
# proposed beside the die's own reading: over the MuJoCo clips 117 of the 118 readings in
# the tray under 10 mm wide had another reading of their die. Inside the box the tray
# floor's scale does not hold, and a die there may show only a sliver: not judged there.
MIN_DIE_WIDTH_MM = 10.0
# How far outside the zones a die's foot may be read, in dice: a die leaning on the tray's
# far wall stands a little above the floor's edge. The readings of dice in the MuJoCo clips
# lie within 0.15 of a die of the zones (33,014 readings, every sixth frame of 1,040 clips);
# the only things read beyond them, the corner of the box's base past the tray's far corner
# and a ledge, lie 0.4 of a die off.
REACH = 0.3
# A die stands on an edge almost only where something holds it there: a tray wall, the box's
# exit, another die. On the MuJoCo clips every die at rest cocked in the tray (67) stands with
# its foot within 11 mm of a wall, where half the flat dice (168 of 315) lie further than
# 20 mm from any wall or die; on the rendered scenes of seeds 777000-1111000, 3 of 453 cocked
# dice lie in the open (balanced on an edge) against 975 of 2,711 flat ones. A die further
# than this from a wall...
PROP_MM = 25.0
# ...and than this from every other die's foot (a die leaning on another stands within about
# one and a half of its edges of it; 19 mm dice at most)...
PROP_BY_DIE_MM = 45.0
# ...is read cocked only on a call this sure: a flat die in the open called cocked at
# 0.5-0.85 voided good throws (101003), a die balanced on an edge is called 0.98 and more.
OPEN_SURE = 0.9
# Within this much tray floor of the box's inside lie both the dice cocked on the exit's lip
# and the flat dice at the ramp's toe, which a camera above the tray tells apart by a few
# pixels (models/dice/cocked-experiments.md).
EXIT_MM = 10.0


@dataclass(frozen=True)
class DiceZones:
    """Polygons in tray-camera pixels: `tray`, the exit tray where a throw must end, and `box`,
    the visible inside of the baffle box (a die that stops there voids the throw, 5.4.32);
    `view`, how the camera views the tray's floor, when the calibration measured it (the
    reader's cocked call is then made in a straight-down view); `tray_mm`, the tray floor's
    inner length and width when it was measured (`tray` is then its 4 corners, the first two
    along its length): how big a die can look where it lies."""

    tray: np.ndarray
    box: np.ndarray
    view: TrayView | None = None
    tray_mm: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        for name in ("tray", "box"):
            # Checked in float64: a number past float32's range must be refused, not made
            # infinite.
            polygon = np.asarray(getattr(self, name), np.float64)
            if polygon.ndim != 2 or polygon.shape[1] != 2 or len(polygon) < 3:
                raise ValueError(f"{name} must be a polygon of at least 3 [x, y] points")
            if not (np.isfinite(polygon).all() and np.abs(polygon).max() < MAX_PIXEL):
                raise ValueError(f"{name}'s points must be pixel coordinates, finite and "
                                 f"under {MAX_PIXEL:.0f}")
            # OpenCV's polygon tests take float32 only.
            object.__setattr__(self, name, polygon.astype(np.float32))
        if self.tray_mm is not None:
            length, width = (float(v) for v in self.tray_mm)
            if len(self.tray) != 4 or not (0 < length < math.inf and 0 < width < math.inf):
                raise ValueError("tray_mm needs the tray's 4 floor corners and a positive "
                                 "length and width")
            object.__setattr__(self, "tray_mm", (length, width))

    @classmethod
    def from_json(cls, zones: Any) -> DiceZones:
        """From a calibration's `dice_zones` ({"tray": [[x, y], ...], "box": [...]});
        ValueError when it is not that."""
        try:
            view = TrayView.from_json(zones["view"]) if zones.get("view") else None
            size = zones.get("tray_mm")
            return cls(np.asarray(zones["tray"]), np.asarray(zones["box"]),
                       view, None if size is None else (size[0], size[1]))
        except (KeyError, TypeError, AttributeError, IndexError) as error:
            raise ValueError(f"dice_zones needs a tray and a box polygon: {error}") from None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tray": self.tray.tolist(), "box": self.box.tolist()}
        if self.view is not None:
            out["view"] = self.view.to_json()
        if self.tray_mm is not None:
            out["tray_mm"] = list(self.tray_mm)
        return out

    def shifted(self, dx: float, dy: float) -> DiceZones:
        """The zones in a crop of the frame whose top-left corner is (dx, dy)."""
        offset = np.array([dx, dy], np.float32)
        view = None if self.view is None else self.view.shifted(dx, dy)
        return DiceZones(self.tray - offset, self.box - offset, view, self.tray_mm)

    @cached_property
    def _floor_mm(self) -> np.ndarray | None:
        """The homography from pixels to millimetres on the tray's floor."""
        if self.tray_mm is None:
            return None
        length, width = self.tray_mm
        floor = np.array([[0, 0], [length, 0], [length, width], [0, width]], np.float32)
        homography: np.ndarray = cv2.getPerspectiveTransform(self.tray, floor)
        return homography

    @cached_property
    def _box_on_floor(self) -> np.ndarray | None:
        """The box zone in millimetres of tray floor. Its corners at the exit lie on the
        floor; those further in lie up the ramp and land further off, which moves only the
        box's far side, where no die's distance is measured."""
        if self._floor_mm is None:
            return None
        outline: np.ndarray = cv2.perspectiveTransform(self.box[None], self._floor_mm)[0]
        return outline

    def mm_from_box(self, box: Box) -> float | None:
        """How far the foot of a die framed by `box` lies from the box's inside, in
        millimetres of tray floor: 0 inside it (None when the tray's size is not known).
        A die on the box's exit lip, propped on the ramp's end, lies within a few."""
        if self._box_on_floor is None or self._floor_mm is None:
            return None
        foot = cv2.perspectiveTransform(np.array([[_foot(box)]], np.float32), self._floor_mm)
        inside = cv2.pointPolygonTest(self._box_on_floor, tuple(map(float, foot[0, 0])), True)
        return max(0.0, -float(inside))

    def at_exit(self, box: Box) -> bool | None:
        """Whether a die framed by `box` lies at the box's exit, its foot within EXIT_MM of
        the box's inside (None when the tray's size is not known)."""
        mm = self.mm_from_box(box)
        return None if mm is None else mm <= EXIT_MM

    def too_wide(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a reading's box is wider than one die can look where it stands (False
        when the tray's size is not known)."""
        width = self.width_mm(box)
        return width is not None and width > MAX_DIE_WIDTH_MM

    def too_narrow(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a reading's box in the tray is narrower than one die can look there (False
        when the tray's size is not known, and inside the box)."""
        width = self.width_mm(box)
        return width is not None and width < MIN_DIE_WIDTH_MM and not self.in_box(box)

    def width_mm(self, box: tuple[float, float, float, float]) -> float | None:
        """A box's width at its foot in millimetres of tray floor (None when the tray's size
        is not known)."""
        if self._floor_mm is None:
            return None
        x, y = _foot(box)
        ends = np.array([[[x - box[2] / 2, y], [x + box[2] / 2, y]]], np.float32)
        left, right = cv2.perspectiveTransform(ends, self._floor_mm)[0]
        return float(np.linalg.norm(right - left))

    def in_box(self, box: tuple[float, float, float, float]) -> bool:
        return cv2.pointPolygonTest(self.box, _foot(box), False) >= 0

    def holds(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a die lies where dice are read: the point it stands on in the tray or
        inside the box, or within REACH of them (a die leaning on the tray's far wall
        stands above the floor's edge); not a thing beside the box or off the tray."""
        reach, foot = -REACH * max(box[2], box[3]), _foot(box)
        return any(cv2.pointPolygonTest(zone, foot, True) >= reach
                   for zone in (self.tray, self.box))

    def lies_in_box(self, die: DieReading) -> bool:
        """Whether a die read lies inside the box, judged on the framer's box when there is
        one (on the die; the detector's sits a few pixels off, which decides at the box's
        exit)."""
        return self.in_box(die.where)

    def describe(self, die: DieReading) -> dict[str, Any]:
        """Where a die read lies (`lies_in_box`)."""
        return {"in_box": self.lies_in_box(die)}

    def propped(self, box: Box, others: Sequence[Box]) -> bool:
        """Whether something could hold a die standing at `box` on an edge: a tray wall or
        the box's exit within PROP_MM of its foot, another die (`others`, their boxes) within
        PROP_BY_DIE_MM; True inside the box, and when the tray's size is not known."""
        if self._floor_mm is None or self.in_box(box):
            return True
        feet = np.array([[_foot(b) for b in (box, *others)]], np.float32)
        foot, *theirs = cv2.perspectiveTransform(feet, self._floor_mm)[0]
        length, width = self.tray_mm or (0.0, 0.0)
        to_wall = min(foot[0], length - foot[0], foot[1], width - foot[1])
        return bool(to_wall <= PROP_MM or any(
            np.linalg.norm(foot - their) <= PROP_BY_DIE_MM for their in theirs))

    def sort(self, dice: Sequence[DieReading]) -> tuple[list[DieReading], list[Box]]:
        """The dice read where dice are read (the crop holds things beside the zones too:
        the box's ledges, the table round the tray) and wide enough for one, and the boxes of
        the readings there too wide for one die where they stand, to read again closer."""
        kept: list[DieReading] = []
        too_wide: list[Box] = []
        for die in dice:
            if self.holds(die.box):
                if self.too_wide(die.box):
                    too_wide.append(die.box)
                elif not self.too_narrow(die.box):
                    kept.append(die)
        return kept, too_wide

    def flat_where_unpropped(self, dice: Sequence[DieReading],
                             per_throw: int) -> list[DieReading]:
        """`dice` (a throw's, as read in one frame) with a die called cocked less than
        OPEN_SURE where nothing could hold it on an edge (`propped`) read flat; only once the
        throw's `per_throw` dice are all read: one unread may be what it leans on."""
        if len(dice) < per_throw:
            return list(dice)
        boxes = [die.where for die in dice]
        out = []
        for index, die in enumerate(dice):
            if (die.cocked and die.if_flat is not None and die.confidence < OPEN_SURE
                    and not self.propped(boxes[index], boxes[:index] + boxes[index + 1:])):
                value, confidence = die.if_flat
                die = replace(die, value=value, cocked=False, confidence=confidence,
                              if_flat=None)
            out.append(die)
        return out


FOOT = 0.75  # of a die's box height down from its top: where it stands on the floor


def _foot(box: tuple[float, float, float, float]) -> tuple[float, float]:
    """The point a die stands on, as the tray camera sees it from above the tray's front: a
    quarter of its box below the centre, which belongs to the die's top and, for a die just
    out of the box, still shows over the box's exit."""
    return box[0] + box[2] / 2, box[1] + FOOT * box[3]


@dataclass(frozen=True)
class TrayCalibration:
    """What a tray camera's calibration file says about the dice: their `zones`, and the
    `image_size` (width, height) of the frames the zones are in pixels of, when it gives one."""

    zones: DiceZones
    image_size: tuple[int, int] | None = None

    @classmethod
    def from_json(cls, calibration: Any) -> TrayCalibration:
        """ValueError, saying what is wrong, when `calibration` is not one."""
        if not isinstance(calibration, dict) or not calibration.get("dice_zones"):
            raise ValueError("the tray calibration has no dice_zones (tray and box)")
        try:
            zones = DiceZones.from_json(calibration["dice_zones"])
        except ValueError as error:
            raise ValueError(f"the tray calibration's dice_zones: {error}") from None
        size = calibration.get("image_size")
        if size is None:
            return cls(zones)
        if (not isinstance(size, list | tuple) or len(size) != 2
                or not all(isinstance(v, int | float) and v > 0 for v in size)):
            raise ValueError(f"the tray calibration's image_size is not [width, height]: {size}")
        return cls(zones, (int(size[0]), int(size[1])))

    @classmethod
    def load(cls, path: Path) -> TrayCalibration:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"cannot read tray calibration {path}: {error}") from None
        return cls.from_json(data)

    def frame_size(self) -> tuple[int, int]:
        """The frames' (width, height), for a camera whose every frame is read against it;
        ValueError when the calibration does not give it."""
        if self.image_size is None:
            raise ValueError("the tray camera's calibration needs its image_size")
        return self.image_size

    def check_size(self, image: np.ndarray, what: str) -> None:
        """ValueError when `image` (`what` it is, for the message) is not the size of the
        frames the calibration was made on: its zones would fall elsewhere."""
        if self.image_size is not None and image.shape[1::-1] != self.image_size:
            width, height = self.image_size
            raise ValueError(f"{what} is {image.shape[1]}x{image.shape[0]}, its calibration "
                             f"is for {width}x{height}")
