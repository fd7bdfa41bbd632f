"""`BoardCalibration`: where the board camera sees the field, saved as JSON.

Holds the field's four corners in image pixels (read-board order: top-left, top-right,
bottom-right, bottom-left), the layout (the image corner holding white's point 1 and the
direction of white's numbering; variant-independent, the variant only fixes black's
numbering), the checker colours seen at calibration (BGR), the bar width in canonical units,
optional dice-tray zones (`dice_zones`, read by vision/dice/zones.py), optional ArUco
markers, and a reference of the field's border for noticing a moved camera.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from calibration.numbering import CORNERS, Corner, Layout
from referee.position import Variant

FloatArray = npt.NDArray[np.float64]
BGR = tuple[int, int, int]
Direction = Literal["clockwise", "counterclockwise"]
VERSION = 1


def direction_of(corner: Corner) -> Direction:
    """Direction of white's numbering 1 -> 24 on screen for white's point 1 in `corner`."""
    return Layout(Variant.LONG, corner).direction


@dataclass(frozen=True)
class Markers:
    """ArUco markers stuck at the field's corners.

    - `dictionary`: OpenCV's name, e.g. "DICT_4X4_50".
    - `ids`: marker ids at the field's top-left, top-right, bottom-right, bottom-left corners.
    - `centres`: (4, 2) marker centres in pixels at calibration (same order).
    """

    dictionary: str
    ids: tuple[int, int, int, int]
    centres: FloatArray

    def __post_init__(self) -> None:
        if self.centres.shape != (4, 2):
            raise ValueError(f"centres must have shape (4, 2), but got {self.centres.shape}")

    def to_json(self) -> dict[str, Any]:
        return {"dictionary": self.dictionary, "ids": list(self.ids),
                "centres": _round(self.centres)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Markers:
        ids = tuple(int(i) for i in data["ids"])
        if len(ids) != 4:
            raise ValueError("markers need four ids")
        return cls(str(data["dictionary"]), (ids[0], ids[1], ids[2], ids[3]),
                   np.asarray(data["centres"], np.float64).reshape(-1, 2))


@dataclass(frozen=True)
class BoardCalibration:
    """One board camera's calibration.

    - `corners`: (4, 2) float, field corners in pixels: top-left, top-right, bottom-right,
      bottom-left as the image shows them.
    - `image_size`: (width, height) of the calibration frame.
    - `white_corner`: the image corner holding white's point 1 (the direction follows).
    - `bar_width`: the bar in canonical field units (field width 1000), or None (estimate).
    - `colours`: {"light": BGR, "dark": BGR} as seen at calibration, or empty.
    - `dice_zones`: {"tray": [[x, y], ...], "box": [[x, y], ...]} or None, with "view" (the
      camera's view of the tray floor, calibration/tray_view.py) when it was measured.
    - `markers`: the ArUco markers, or None.
    - `border`: (4, k) reference edge profiles across the field's sides (calibration/moved.py),
      or None.
    """

    corners: FloatArray
    image_size: tuple[int, int]
    white_corner: Corner = "bottom-right"
    bar_width: float | None = None
    colours: dict[str, BGR] = field(default_factory=dict)
    dice_zones: dict[str, Any] | None = None
    markers: Markers | None = None
    border: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.corners.ndim != 2 or self.corners.shape != (4, 2):
            raise ValueError(f"corners must be a 2D np.ndarray with shape (4, 2), but got "
                             f"{self.corners.shape}")
        if not np.all(np.isfinite(self.corners)):
            raise ValueError("corners must be finite")
        if self.white_corner not in CORNERS:
            raise ValueError(f"white corner must be one of {CORNERS}, got {self.white_corner!r}")
        if set(self.colours) - {"light", "dark"}:
            raise ValueError("colours must be keyed light and dark")
        if self.dice_zones is not None:
            for name in ("tray", "box"):
                zone = self.dice_zones.get(name)
                if zone is not None and (np.asarray(zone).ndim != 2
                                         or np.asarray(zone).shape[1] != 2):
                    raise ValueError(f"dice_zones.{name} must be a list of [x, y] points")
        if self.border is not None and self.border.ndim != 2:
            raise ValueError("border must be a 2D array of profiles")

    @property
    def direction(self) -> Direction:
        return direction_of(self.white_corner)

    def layout(self, variant: Variant) -> Layout:
        """The numbering map for a variant (image-relative <-> each player's own points)."""
        return Layout(variant, self.white_corner)

    def with_(self, **changes: Any) -> BoardCalibration:
        return replace(self, **changes)

    # -- JSON ------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": VERSION,
            "image_size": list(self.image_size),
            "corners": _round(self.corners),
            "layout": {"white_point1": self.white_corner, "direction": self.direction},
            "bar_width": None if self.bar_width is None else round(self.bar_width, 2),
            "checker_colours": {k: list(v) for k, v in self.colours.items()},
        }
        if self.dice_zones is not None:
            out["dice_zones"] = self.dice_zones
        if self.markers is not None:
            out["markers"] = self.markers.to_json()
        if self.border is not None:
            out["border"] = [[round(float(v), 2) for v in row] for row in self.border]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardCalibration:
        try:
            layout = data.get("layout", {})
            corner = layout.get("white_point1", "bottom-right")
            if "direction" in layout and layout["direction"] != direction_of(corner):
                raise ValueError(f"layout direction {layout['direction']!r} does not fit white's "
                                 f"point 1 in the {corner} corner")
            colours = {k: _bgr(v) for k, v in data.get("checker_colours", {}).items()}
            markers = data.get("markers")
            border = data.get("border")
            size = data.get("image_size", [0, 0])
            return cls(
                corners=np.asarray(data["corners"], np.float64).reshape(-1, 2),
                image_size=(int(size[0]), int(size[1])),
                white_corner=corner,
                bar_width=None if data.get("bar_width") is None else float(data["bar_width"]),
                colours=colours,
                dice_zones=data.get("dice_zones"),
                markers=None if markers is None else Markers.from_json(markers),
                border=None if border is None else np.asarray(border, np.float64),
            )
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"not a board calibration: {error!r}") from None

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> BoardCalibration:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise ValueError(f"cannot read calibration {path}: {error.strerror}") from None
        except json.JSONDecodeError as error:
            raise ValueError(f"calibration {path} is not valid JSON: {error.msg}") from None
        if not isinstance(data, dict):
            raise ValueError(f"calibration {path} must hold a JSON object")
        return cls.from_json(data)


def _round(arr: FloatArray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in arr]


def _bgr(value: Any) -> BGR:
    b, g, r = (int(v) for v in value)
    return (b, g, r)


def field_sides(corners: FloatArray) -> list[tuple[FloatArray, FloatArray, FloatArray]]:
    """Each side as (start, end, inward unit normal): top, right, bottom, left."""
    centre = corners.mean(0)
    out = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        along = b - a
        n = np.array([-along[1], along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
        if np.dot(centre - (a + b) / 2, n) < 0:
            n = -n
        out.append((a, b, n))
    return out
