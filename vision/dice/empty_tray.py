"""The tray seen empty between throws: what lies in it that no die reading explains.

A die that never comes out of the baffle box is out of the camera's sight; a die the reader
missed (dark dice on a dark tray, two touching dice framed as one) lies in plain view.
Compared with the tray seen empty, the second shows as a die-sized change that no reading
explains, the first does not: only then may the referee count a die as not out of the box.
Seen in colour, it also tells a die's shadow, the tray darkened, from a die.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.boxes import Box
from vision.dice.rest import BLUR_SIGMA, BLUR_SIZE, CHANGED_LEVEL

AROUND = 0.5  # of a die's size around each reading: its shadow and edges are explained too
DIE_SHARE = 0.4  # of a read die's box: an unexplained change this large is taken for a die
SMALLEST_DIE = 144  # pixels changed, with no die read to size one by: a readable die's least
# A shadow is the tray darkened, its hue kept and its inside flat; a die, even a clear one or
# a white one on a grey tray, changes the hue, shows something brighter (a lit face, white
# pips) or has edges and pips inside. Set between a translucent die's shadow read as a cocked
# die (144001: 73% darker, 1% brighter, hue moved 0.03, inside's deviation 13) and the dice of
# 144001 and 142207 (39% darker, 7% brighter, 0.27; a white die on a grey tray: deviation 34).
SHADOW_LEVEL = 15  # grey levels darker or brighter than the empty tray that count
SHADOW_DARKER = 0.5  # of the box's pixels, at least
SHADOW_BRIGHTER = 0.03  # of the box's pixels, at most
SHADOW_HUE = 0.10  # the median change of the channels' shares of a pixel's light, at most
SHADOW_FLAT = 20.0  # the grey levels' standard deviation inside the box, at most
INSIDE = 0.2  # of the box's side cut from each side to look at its inside
# A die's hard shadow beside it is framed with the lit tray round it or a sliver of the die
# casting it, and on a grained tray (wood) its inside is no flatter than the tray: such a
# box, less the other dice's pixels (at least SHADE_OWN of it left), is a shadow when at
# least SHADE_DARKER of it is darker than the empty tray, its hue kept, at most
# SHADE_BRIGHTER brighter, and the darker pixels darkened alike (their ratios to the empty
# tray spread under SHADE_SPREAD). Over the cocked readings out of the box on 320 clips
# (481000-488309): none of 966 on a true die, and 481203's shadow beside a flat 2 on wood.
SHADE_OWN = 0.5
SHADE_DARKER = 0.35
SHADE_BRIGHTER = 0.01
SHADE_SPREAD = 0.08
# A box this little changed from the empty tray holds nothing new: over the clips of seeds
# 131000-174309, every cocked reading in the tray on no die (a ledge's corner, a highlight on
# the tray; one voided a good throw, 161005) had at most 0.6% changed, every one on a die 6.4%
# or more (in colour: in grey alone, a die as bright as the felt showed none, 172304).
UNCHANGED = 0.02


@dataclass
class EmptyTray:
    """`mask`: where the tray and the box are, in the pixels of the images it is given
    (vision/dice/rest.py `smoothed` crops of the zones)."""

    mask: np.ndarray
    _empty: np.ndarray | None = field(default=None, init=False)
    _colour: np.ndarray | None = field(default=None, init=False)

    def remember(self, image: np.ndarray, colour: np.ndarray | None = None) -> None:
        """The tray now, still and with no die read in it (`colour`: the same in BGR)."""
        self._empty, self._colour = image, colour

    def shadow(self, colour: np.ndarray, box: Box) -> bool:
        """Whether `box` of the BGR image `colour` shows only the empty tray darkened: a
        die's shadow, not a die. False while the tray has not been seen empty in colour."""
        seen = self._box_against_empty(colour, box)
        if seen is None:
            return False
        now, empty = seen[:2]
        grey, grey_empty = now.mean(axis=2), empty.mean(axis=2)
        change = grey - grey_empty
        rows, columns = grey.shape
        inside = grey[int(INSIDE * rows):rows - int(INSIDE * rows),
                      int(INSIDE * columns):columns - int(INSIDE * columns)]
        return bool((change < -SHADOW_LEVEL).mean() >= SHADOW_DARKER
                    and (change > SHADOW_LEVEL).mean() <= SHADOW_BRIGHTER
                    and np.median(_hue_change(now, empty)) <= SHADOW_HUE
                    and inside.size > 0 and float(inside.std()) <= SHADOW_FLAT)

    def shade_beside(self, colour: np.ndarray, box: Box, beside: Sequence[Box]) -> bool:
        """Whether `box` of the BGR image `colour`, less the pixels of the `beside` boxes
        (the other dice read), shows the empty tray and a shadow on it (SHADE_*): a die's
        hard shadow framed with what lies round it. False while the tray has not been seen
        empty in colour."""
        seen = self._box_against_empty(colour, box)
        if seen is None:
            return False
        now, empty, (left, top) = seen
        own = np.ones(now.shape[:2], bool)
        for bx, by, bw, bh in beside:
            own[max(round(by) - top, 0):max(round(by + bh) - top, 0),
                max(round(bx) - left, 0):max(round(bx + bw) - left, 0)] = False
        pixels = int(own.sum())
        if pixels < SHADE_OWN * own.size:
            return False
        grey, grey_empty = now.mean(axis=2), empty.mean(axis=2)
        change = grey - grey_empty
        darker = (change < -SHADOW_LEVEL) & own
        ratio = grey[darker] / np.maximum(grey_empty[darker], 1.0)
        return bool(darker.sum() >= SHADE_DARKER * pixels
                    and ((change > SHADOW_LEVEL) & own).sum() <= SHADE_BRIGHTER * pixels
                    and np.median(_hue_change(now, empty)[own]) <= SHADOW_HUE
                    and float(ratio.std()) < SHADE_SPREAD)

    def _box_against_empty(self, colour: np.ndarray,
                      box: Box) -> tuple[np.ndarray, np.ndarray, tuple[int, int]] | None:
        """`box` of the BGR image `colour` and of the empty tray, as floats, and where they
        begin in the image; None while the tray has not been seen empty in colour, or with
        nothing of the box in the image."""
        if self._colour is None or self._colour.shape != colour.shape:
            return None
        x, y, w, h = (round(v) for v in box)
        left, top = max(x, 0), max(y, 0)
        now = colour[top:y + h, left:x + w].astype(np.float32)
        if now.size == 0:
            return None
        return now, self._colour[top:y + h, left:x + w].astype(np.float32), (left, top)

    def unchanged(self, colour: np.ndarray, box: Box) -> bool:
        """Whether `box` of the BGR image `colour` shows the empty tray as it was: under
        UNCHANGED of its pixels changed visibly (`_changed_share`). False while the tray has
        not been seen empty in colour."""
        share = self._changed_share(colour, box)
        return share is not None and share < UNCHANGED

    def changed(self, colour: np.ndarray, box: Box) -> bool:
        """Whether `box` of the BGR image `colour` shows something new on the tray seen empty:
        UNCHANGED of its pixels or more changed visibly. False while the tray has not been
        seen empty in colour."""
        share = self._changed_share(colour, box)
        return share is not None and share >= UNCHANGED

    def _changed_share(self, colour: np.ndarray, box: Box) -> float | None:
        """The share of `box`'s pixels changed visibly from the empty tray in any channel,
        both smoothed as the grey comparisons are (a die as bright as the tray differs from it
        in colour only); None where it cannot be told: the tray not seen empty in colour, or
        too little of the box in the image."""
        if self._colour is None or self._colour.shape != colour.shape:
            return None
        x, y, w, h = (round(v) for v in box)
        height, width = colour.shape[:2]
        # the box and a blur's reach around it, so that its edge is blurred as inside
        left, top = max(x - BLUR_SIZE, 0), max(y - BLUR_SIZE, 0)
        right, bottom = min(x + w + BLUR_SIZE, width), min(y + h + BLUR_SIZE, height)
        if right - left <= 2 * BLUR_SIZE or bottom - top <= 2 * BLUR_SIZE:
            return None
        now, was = (cv2.GaussianBlur(image[top:bottom, left:right], (BLUR_SIZE, BLUR_SIZE),
                                     BLUR_SIGMA) for image in (colour, self._colour))
        changed = np.any(cv2.absdiff(now, was) > CHANGED_LEVEL, axis=2)
        inside = changed[max(y, 0) - top:y + h - top, max(x, 0) - left:x + w - left]
        return float(inside.mean()) if inside.size else None

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


def _hue_change(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Per pixel, how far the shares of its light in each channel moved (0: the same hue)."""
    shares = [image / np.maximum(image.sum(axis=2, keepdims=True), 1.0) for image in (now, before)]
    change: np.ndarray = np.abs(shares[0] - shares[1]).sum(axis=2)
    return change
