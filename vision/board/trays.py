"""Borne-off checkers in the side trays: one patch per tray half, read by a small network.

The trays lie outside the field, beside its short sides; their distance from the field and
their width vary between boards (synth/board/style.py: a gap of 3-8 % of the field's width,
1.2-1.6 checkers wide), so each patch spans `REACH` of the canonical frame beside the field,
enough to hold the tray wherever a design puts it. A player's borne-off checkers stack from
the tray's end in the half beside his home, so each tray is cut into a top and a bottom half,
each reaching a little past the middle (a stack of 15 is over half a tray long on a short
board). Patches are cut through the one warp (vision/board/warp.py) and turned so that the
tray's end is the patch's top row and the side nearer the field its left column.

Classes as vision/board/classes.py: 0 empty, 1-15 light, 16-30 dark, 31 not visible (a hand
hides it). A patch not wholly inside the image is not visible without asking the network:
what lies outside the picture is never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from calibration.layout import BoardGeometry, FloatArray
from vision.board.classes import N_CLASSES, OCCLUDED, count_checkers
from vision.board.strips import canonical_geometry
from vision.board.warp import Image, field_homography, project, warp_patch
from vision.onnx import load_model

MODEL = Path(__file__).resolve().parents[2] / "models" / "board" / "trays.onnx"
TRAY_NAMES: tuple[str, ...] = ("left-top", "left-bottom", "right-top", "right-bottom")
TRAY_SIZE = (64, 192)  # (width, height) in pixels: 6-10 px between stacked checkers
REACH = (25.0, 215.0)  # canonical units beside the field (the designs: trays within 30-210)
LENGTH = 0.6  # share of the field's height a patch spans from the tray's end


def tray_quads(geometry: BoardGeometry) -> FloatArray:
    """Canonical quadrilaterals of the four tray halves, shape (4, 4, 2), `TRAY_NAMES` order:
    the patch's top-left corner is at the tray's end, on the side nearer the field."""
    g = geometry
    near, far = REACH
    quads = []
    for inner, outer in ((-near, -far), (g.width + near, g.width + far)):
        for end, stop in ((0.0, LENGTH * g.height), (g.height, (1 - LENGTH) * g.height)):
            quads.append([[inner, end], [outer, end], [outer, stop], [inner, stop]])
    return np.asarray(quads, np.float64)


def extract_trays(image: Image, corners: FloatArray, geometry: BoardGeometry,
                  ) -> tuple[Image, npt.NDArray[np.bool_]]:
    """The four patches, shape (4, height, width, 3) BGR uint8, and whether each lies wholly
    inside the image (a patch that does not is cut all the same, from repeated borders)."""
    h = field_homography(corners, geometry)
    quads = tray_quads(geometry)
    height, width = image.shape[:2]
    inside = []
    for quad in quads:
        px = project(h, quad)
        inside.append(bool(np.all((px >= 0) & (px <= [width - 1, height - 1]))))
    patches = np.stack([warp_patch(image, h, q, TRAY_SIZE) for q in quads])
    return patches, np.array(inside)


@dataclass(frozen=True)
class TrayReading:
    """`probs`: (4, 32), row i the tray half `TRAY_NAMES[i]`, classes as the strips' (31:
    not visible); a half outside the picture has all its probability on 31."""

    probs: FloatArray

    def __post_init__(self) -> None:
        if self.probs.shape != (len(TRAY_NAMES), N_CLASSES):
            raise ValueError(f"tray probs must have shape (4, 32), got {self.probs.shape}")

    @property
    def classes(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.probs.argmax(1), np.int64)

    @property
    def hidden(self) -> list[str]:
        """Tray halves that could not be read (outside the picture or under a hand)."""
        return [n for n, c in zip(TRAY_NAMES, self.classes, strict=True) if c == OCCLUDED]

    def off(self) -> dict[str, int] | None:
        """Borne-off checkers of each colour; None unless every tray half was seen (a colour
        that shows nowhere may lie in a half that was not)."""
        return None if self.hidden else count_checkers(self.classes)

    def confidence(self) -> dict[str, float]:
        """Per tray half, the probability of what was reported (a count, or not visible)."""
        return {n: round(float(p.max()), 4) for n, p in zip(TRAY_NAMES, self.probs, strict=True)}


class TrayReader:
    """The tray classifier behind one ONNX Runtime session."""

    def __init__(self, model: Path = MODEL, threads: int = 1) -> None:
        self.session = load_model(model, threads)

    def read(self, image: Image, corners: FloatArray) -> TrayReading:
        """Read the four tray halves beside the field inside `corners` (checked by the caller)."""
        patches, inside = extract_trays(image, corners, canonical_geometry())
        probs = np.zeros((len(TRAY_NAMES), N_CLASSES))
        probs[:, OCCLUDED] = 1.0
        if inside.any():
            x = np.ascontiguousarray(patches[inside].transpose(0, 3, 1, 2)).astype(np.float32)
            logits = self.session.run(None, {"trays": x})[0]
            z = np.exp(logits - logits.max(1, keepdims=True))
            probs[inside] = z / z.sum(1, keepdims=True)
        return TrayReading(probs)
