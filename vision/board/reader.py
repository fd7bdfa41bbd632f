"""Read a board: the 24 points, the bar and what a hand hides, with a confidence per point.

`BoardReader.read(image, corners)` cuts the 26 strips (vision/board/strips.py, through the
one warp of vision/board/warp.py), runs the ONNX strip classifier (models/board) and returns
a `BoardReading`: for every strip a probability distribution over 32 classes (empty, 1-15
light, 1-15 dark, occluded), i.e. P(count, colour) per point; and, from the side trays beside
the field (vision/board/trays.py, a second network), the borne-off checkers. What it reports
(`classes`) is the most probable reading whose checkers add up to 15 of each colour
(vision/board/totals.py). Images are BGR uint8.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.board.classes import N_CLASSES, OCCLUDED, count_checkers, decode_class
from vision.board.strips import (
    STRIP_NAMES,
    canonical_geometry,
    estimate_bar_width,
    extract_strips,
)
from vision.board.totals import decode_counts
from vision.board.trays import MODEL as TRAY_MODEL
from vision.board.trays import TRAY_NAMES, TrayReader, TrayReading
from vision.board.warp import Image, as_corners, check_corners, rectify
from vision.onnx import load_model

MODEL = Path(__file__).resolve().parents[2] / "models" / "board" / "strips.onnx"
FloatArray = npt.NDArray[np.float64]


class NoBoardError(ValueError):
    """The corners enclose nothing that looks like a board."""


@dataclass(frozen=True)
class BoardReading:
    """What the reader saw.

    - `probs`: (26, 32) float array; row i is strip `STRIP_NAMES[i]` (points 1-24 image-
      relative, then bar-top, bar-bottom), columns the classes 0 empty, 1-15 light count,
      16-30 dark count, 31 occluded; each row sums to 1.
    - `corners`: (4, 2) the field corners used; `bar_width`: the bar in canonical units.
    - `trays`: the four tray halves beside the field (borne-off checkers), or None when the
      reader was built without its tray model.
    """

    probs: FloatArray
    corners: FloatArray
    bar_width: float
    trays: TrayReading | None = None

    def __post_init__(self) -> None:
        if self.probs.ndim != 2 or self.probs.shape != (len(STRIP_NAMES), N_CLASSES):
            raise ValueError(f"probs must be a 2D np.ndarray with shape (26, 32), but got "
                             f"{self.probs.shape}")
        if self.corners.shape != (4, 2):
            raise ValueError(f"corners must have shape (4, 2), but got {self.corners.shape}")

    @cached_property
    def _decoded(self) -> npt.NDArray[np.int64]:
        """The class of each strip, then of each tray half when all four were seen, chosen
        together so that each colour adds up to 15 (vision/board/totals.py): exactly when
        nothing is hidden, at most while a hand hides a point or the trays are not all seen.
        Read alone, a tall stack or a tray's stack is often a checker off; the total is not."""
        if self.trays is None or self.trays.hidden:
            return decode_counts(self.probs)
        hidden = bool(np.any(self.probs.argmax(1) == OCCLUDED))
        return decode_counts(np.vstack([self.probs, self.trays.probs]), exact=not hidden)

    @property
    def classes(self) -> npt.NDArray[np.int64]:
        """The class read on each strip (`_decoded`)."""
        return self._decoded[:len(STRIP_NAMES)]

    def point(self, point: int) -> tuple[str | None, int]:
        """(colour, count) read on an image-relative point; (None, 0) if empty or occluded."""
        return decode_class(int(self.classes[point - 1]))

    @property
    def occluded(self) -> list[int]:
        return [p for p in range(1, 25) if self.classes[p - 1] == OCCLUDED]

    @property
    def bar_occluded(self) -> bool:
        return bool(np.any(self.classes[24:] == OCCLUDED))

    def bar(self) -> dict[str, int]:
        return count_checkers(self.classes[24:])

    def confidence(self, point: int) -> float:
        """Probability of what was reported for the point (its count and colour, or occluded)."""
        return float(self.probs[point - 1, self.classes[point - 1]])

    def off(self) -> dict[str, int] | None:
        """Borne-off checkers per colour; None unless all four tray halves were seen."""
        if self.trays is None or self.trays.hidden:
            return None
        return count_checkers(self._decoded[len(STRIP_NAMES):])

    def to_json(self, image: str) -> dict[str, Any]:
        """The `read-board` answer of FORMATS.md (plus `bar_occluded` and the borne-off
        checkers: `off`, `off_confidence` per tray half, `off_hidden` the halves not seen)."""
        points: dict[str, dict[str, Any]] = {}
        for p in range(1, 25):
            colour, n = self.point(p)
            if colour is not None:
                points[str(p)] = {"colour": colour, "count": n}
        return {
            "image": image, "points": points, "bar": self.bar(), "occluded": self.occluded,
            "confidence": {str(p): round(self.confidence(p), 4) for p in range(1, 25)},
            "bar_occluded": self.bar_occluded,
            "off": self.off(),
            "off_confidence": None if self.trays is None else self.trays.confidence(),
            "off_hidden": list(TRAY_NAMES) if self.trays is None else self.trays.hidden,
        }


class BoardReader:
    """The strip classifier behind one ONNX Runtime session (one thread by default).

    `mirror`: also classify each strip mirrored left-right and average the two
    distributions (twice the classifier's time, fewer errors). `trays`: the tray classifier
    for the borne-off checkers (None: not read).
    """

    def __init__(self, model: Path = MODEL, threads: int = 1, mirror: bool = True,
                 trays: Path | None = TRAY_MODEL) -> None:
        self.session = load_model(model, threads)
        self.mirror = mirror
        self.trays = None if trays is None else TrayReader(trays, threads)

    def read(self, image: Image, corners: Any, bar_width: float | None = None) -> BoardReading:
        """Read the board inside `corners` (top-left, top-right, bottom-right, bottom-left).

        `bar_width` (canonical units) comes from a calibration; without it it is estimated.
        ValueError for corners outside the image, NoBoardError when no board is there.
        """
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("image must be BGR with 3 channels")
        c = as_corners(corners)
        check_corners(c, image.shape[1], image.shape[0])
        if bar_width is None:
            bar_width = estimate_bar_width(image, c)
        geometry = canonical_geometry(bar_width)
        check_board(image, c)
        strips = extract_strips(image, c, geometry)
        # channels first, made contiguous while still bytes: converting the strided view to
        # float took four times as long
        x = np.ascontiguousarray(strips.transpose(0, 3, 1, 2))
        if self.mirror:
            x = np.concatenate([x, x[..., ::-1]])
        logits = self.session.run(None, {"strips": x.astype(np.float32)})[0]
        z = logits - logits.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        if self.mirror:
            p = (p[:len(strips)] + p[len(strips):]) / 2
        trays = None if self.trays is None else self.trays.read(image, c)
        return BoardReading(np.asarray(p, np.float64), c, float(bar_width), trays)


def check_board(image: Image, corners: FloatArray) -> None:
    """NoBoardError when the field inside the corners is blank (no texture, no triangles)."""
    field = rectify(image, corners, canonical_geometry(), 0.1)
    grey = field.mean(axis=2)
    if float(grey.std()) < 6.0:
        raise NoBoardError("no board inside the corners (the area is blank)")
