"""Boxes (x, y, w, h) in pixels, as the dice reader and the tray camera frame dice."""

from __future__ import annotations

import numpy as np

Box = tuple[float, float, float, float]  # x, y, w, h


def intersection(a: Box, b: Box) -> float:
    """The area two boxes (x, y, w, h) share."""
    across = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    down = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return across * down


def overlap(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (x, y, w, h)."""
    both = intersection(a, b)
    return both / max(a[2] * a[3] + b[2] * b[3] - both, 1e-9)


def within(a: Box, b: Box, share: float) -> bool:
    """Whether at least `share` of the smaller of two boxes (x, y, w, h) lies inside the
    other."""
    return intersection(a, b) >= share * min(a[2] * a[3], b[2] * b[3])


def box_area(box: Box) -> float:
    """The area of a box (x, y, w, h)."""
    return box[2] * box[3]


def centre_in(box: Box, outer: Box) -> bool:
    """Whether `box`'s centre lies inside `outer`."""
    x, y = box[0] + box[2] / 2, box[1] + box[3] / 2
    return outer[0] <= x <= outer[0] + outer[2] and outer[1] <= y <= outer[1] + outer[3]


def as_box(values: np.ndarray) -> Box:
    """An array (x, y, w, h) as a box of floats."""
    x, y, w, h = (float(v) for v in values)
    return x, y, w, h
