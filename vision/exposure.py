"""A camera's exposure followed against its first frame, so that light changing over time is
not taken for things moving.

Mains lighting flickers at 100 or 120 Hz; a camera at 30 fps sees it beat (100 Hz against 30
frames a second is a 10 Hz beat), and a camera's automatic exposure steps when bright dice
or a hand come into view. Every comparison of frames over time (a die at rest, the tray
still, the tray seen empty) takes such a change of a few percent for motion: on clips with a
10 Hz flicker of 4% the tray's counts were cancelled and started again frame after frame.
The light changes the whole view alike, by a factor, where a die moving changes a die's
place: the factor is the median over the view of how much brighter each patch is than in the
first frame, and the frame divided by it looks as the first did. One factor a frame: a
rolling shutter, reading its rows one after another, sees the flicker in bands, which this
does not take out (models/dice/experiments.md: the camera's anti-flicker setting does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

CELL = 8  # pixels: each patch's mean averages out the sensor's noise
DARKEST = 16  # grey levels: a patch darker than this in the first frame tells no factor
# Factors this close to 1 are noise (a patch's mean flickers by a few tenths of a level),
# left alone so that a steady light leaves the frames untouched.
STEADY = 0.005
# A factor this far from 1 either way, held this many frames (a second at 30 fps), is no
# flicker and no exposure step (those stay within a fifth) but another light: the camera's
# first frames taken before its exposure settled, the hall's lights switched. The view then
# is the one to follow from: divided by such a factor, a dark first frame's view would make
# every change a third of itself, and a bright one's the sensor's noise three times over.
FAR = 1.3
FAR_FRAMES = 30


@dataclass
class Exposure:
    """Ask it of each frame's grey view in turn (`factor`); `mask`: the view's pixels that
    show the scene followed (not, say, the board beside the tray, where hands come and go)."""

    mask: np.ndarray
    _first: np.ndarray | None = field(default=None, init=False)  # its patches' means
    _cells: np.ndarray = field(init=False)  # the patches wholly in the mask
    _far: int = field(default=0, init=False)  # frames in a row whose factor lay past FAR

    def __post_init__(self) -> None:
        self._cells = _patches(self.mask.astype(np.float32)) > 0.999

    def factor(self, grey: np.ndarray) -> float:
        """How much brighter the view `grey` is than the first one given (or the one
        followed from since another light held FAR_FRAMES): 1 for that one, and for a view
        of another size than the mask's (no view of this scene)."""
        patches = _patches(grey)
        if patches.shape != self._cells.shape:
            return 1.0
        if self._first is None:
            self._first = patches
            return 1.0
        usable = self._cells & (self._first >= DARKEST)
        if not usable.any():
            return 1.0
        factor = float(np.median(patches[usable] / self._first[usable]))
        self._far = self._far + 1 if not 1 / FAR < factor < FAR else 0
        if self._far >= FAR_FRAMES:
            self._first, self._far = patches, 0
            return 1.0
        return 1.0 if abs(factor - 1.0) < STEADY else factor


def _patches(image: np.ndarray) -> np.ndarray:
    """The means of CELL x CELL patches of a one-channel image (the rows and columns past the
    last whole patch left out)."""
    rows, columns = image.shape[0] // CELL, image.shape[1] // CELL
    whole = np.asarray(image[:rows * CELL, :columns * CELL], np.float32)
    return np.asarray(cv2.resize(whole, (columns, rows), interpolation=cv2.INTER_AREA))


def levelled(image: np.ndarray, factor: float) -> np.ndarray:
    """`image` (uint8, any channels) as it would look with the light `factor` times dimmer."""
    if factor == 1.0:
        return image
    return np.asarray(cv2.convertScaleAbs(image, alpha=1.0 / factor))
