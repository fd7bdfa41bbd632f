"""Which side of the game clock is running, from its two displays.

A two-button game clock lights the running player's display (and usually a lamp beside
it); pressing the button hands the time to the opponent (5.4.17, 5.4.20). The calibration
gives each display as a pixel polygon; the brighter one runs. When the two are about as
bright (a hand over the clock, glare), the answer is None: unknown, not a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from referee.position import Side


@dataclass(frozen=True)
class ClockReader:
    """`displays`: per side, the display's polygon [[x, y], ...] in frame pixels; `body`:
    the whole clock (buttons included), where a hand means the displays cannot be trusted."""

    displays: Mapping[Side, np.ndarray]
    body: np.ndarray
    min_contrast: float = 25.0  # grey levels between the lit and the dark display

    @classmethod
    def from_calibration(cls, clock: Mapping[str, object]) -> ClockReader:
        displays = clock.get("displays")
        if not isinstance(displays, Mapping) or {"white", "black"} - set(displays):
            raise ValueError("the clock calibration needs a display polygon for white and black")
        polygons = {Side(name): np.asarray(displays[name], np.float32)
                    for name in ("white", "black")}
        body = clock.get("body")
        if body is None:  # the displays' hull stands in for the clock
            body = cv2.convexHull(np.concatenate(list(polygons.values()))).reshape(-1, 2)
        return cls(polygons, np.asarray(body, np.float32))

    def running(self, image: np.ndarray, scale: float = 1.0) -> Side | None:
        """The running side in a BGR or grey frame (`scale`: the frame's size over the
        calibration's, for reading a downscaled copy)."""
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        levels = {side: self._brightness(grey, polygon * scale)
                  for side, polygon in self.displays.items()}
        white, black = levels[Side.WHITE], levels[Side.BLACK]
        if abs(white - black) < self.min_contrast:
            return None
        return Side.WHITE if white > black else Side.BLACK

    @staticmethod
    def _brightness(grey: np.ndarray, polygon: np.ndarray) -> float:
        x, y, w, h = cv2.boundingRect(polygon.astype(np.float32))
        x0, y0 = max(x, 0), max(y, 0)
        patch = grey[y0:y + h, x0:x + w]
        if patch.size == 0:
            return 0.0
        mask = np.zeros(patch.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(polygon - (x0, y0)).astype(np.int32)], 255)
        return float(cv2.mean(patch, mask)[0])

