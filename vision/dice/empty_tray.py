"""The tray seen empty between throws: what lies in it that no die reading explains.

A die that never comes out of the baffle box is out of the camera's sight; a die the reader
missed (dark dice on a dark tray, two touching dice framed as one) lies in plain view.
Compared with the tray seen empty, the second shows as a die-sized change that no reading
explains, the first does not: only then may the referee count a die as not out of the box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.reader import Box
from vision.dice.rest import CHANGED_LEVEL

AROUND = 0.5  # of a die's size around each reading: its shadow and edges are explained too
DIE_SHARE = 0.4  # of a read die's box: an unexplained change this large is taken for a die
SMALLEST_DIE = 144  # pixels changed, with no die read to size one by: a readable die's least


@dataclass
class EmptyTray:
    """`mask`: where the tray and the box are, in the pixels of the images it is given
    (vision/dice/rest.py `smoothed` crops of the zones)."""

    mask: np.ndarray
    _empty: np.ndarray | None = field(default=None, init=False)

    def remember(self, image: np.ndarray) -> None:
        """The tray now, still and with no die read in it."""
        self._empty = image

    def unexplained(self, image: np.ndarray, boxes: Sequence[Box]) -> list[Box] | None:
        """The die-sized changes from the empty tray that lie away from every read die (their
        boxes); None when the tray has not been seen empty."""
        if self._empty is None or self._empty.shape != image.shape:
            return None
        changed = (cv2.absdiff(self._empty, image) > CHANGED_LEVEL) & self.mask
        height, width = changed.shape
        for x, y, w, h in boxes:
            margin = AROUND * max(w, h)
            top, left = max(int(y - margin), 0), max(int(x - margin), 0)
            changed[top:min(int(y + h + margin) + 1, height),
                    left:min(int(x + w + margin) + 1, width)] = False
        die_area = DIE_SHARE * float(np.median([w * h for _, _, w, h in boxes])) if boxes \
            else SMALLEST_DIE
        _, _, stats, _ = cv2.connectedComponentsWithStats(changed.astype(np.uint8), connectivity=8)
        return [(float(x), float(y), float(w), float(h))
                for x, y, w, h, area in stats[1:] if area >= die_area]
