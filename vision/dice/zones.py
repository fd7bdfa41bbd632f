"""Where a die lies on the tray camera: in the exit tray, or still inside the baffle box."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.tray_view import TrayView


@dataclass(frozen=True)
class DiceZones:
    """Polygons in tray-camera pixels: `tray`, the exit tray where a throw must end, and `box`,
    the visible inside of the baffle box (a die that stops there voids the throw, 5.4.32);
    `view`, how the camera views the tray's floor, when the calibration measured it (the
    reader's cocked call is then made in a straight-down view)."""

    tray: np.ndarray
    box: np.ndarray
    view: TrayView | None = None

    def __post_init__(self) -> None:
        for name in ("tray", "box"):
            # OpenCV's polygon tests take float32 only.
            polygon = np.asarray(getattr(self, name), np.float32)
            object.__setattr__(self, name, polygon)
            if polygon.ndim != 2 or polygon.shape[1] != 2 or len(polygon) < 3:
                raise ValueError(f"{name} must be a polygon of at least 3 [x, y] points")

    @classmethod
    def from_json(cls, zones: Any) -> DiceZones:
        """From a calibration's `dice_zones` ({"tray": [[x, y], ...], "box": [...]});
        ValueError when it is not that."""
        try:
            view = TrayView.from_json(zones["view"]) if zones.get("view") else None
            return cls(np.asarray(zones["tray"], np.float32), np.asarray(zones["box"], np.float32),
                       view)
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"dice_zones needs a tray and a box polygon: {error}") from None

    @classmethod
    def load(cls, path: Path) -> DiceZones:
        try:
            return cls.from_json(json.loads(path.read_text())["dice_zones"])
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"cannot read dice zones from {path}: {error}") from None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tray": self.tray.tolist(), "box": self.box.tolist()}
        if self.view is not None:
            out["view"] = self.view.to_json()
        return out

    def in_box(self, box: tuple[float, float, float, float]) -> bool:
        return cv2.pointPolygonTest(self.box, _foot(box), False) >= 0

    def holds(self, box: tuple[float, float, float, float]) -> bool:
        """Whether a die lies where dice are read: the point it stands on in the tray or
        inside the box, or within half a die of them (a die leaning on the tray's far wall
        stands above the floor's edge); not a thing beside the box or off the tray."""
        reach, foot = -0.5 * max(box[2], box[3]), _foot(box)
        return any(cv2.pointPolygonTest(zone, foot, True) >= reach
                   for zone in (self.tray, self.box))

    def describe(self, box: tuple[float, float, float, float]) -> dict[str, Any]:
        return {"in_box": self.in_box(box)}


FOOT = 0.75  # of a die's box height down from its top: where it stands on the floor


def _foot(box: tuple[float, float, float, float]) -> tuple[float, float]:
    """The point a die stands on, as the tray camera sees it from above the tray's front: a
    quarter of its box below the centre, which belongs to the die's top and, for a die just
    out of the box, still shows over the box's exit."""
    return box[0] + box[2] / 2, box[1] + FOOT * box[3]
