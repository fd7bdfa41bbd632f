"""The strip classes, shared by the classifier's training (models/board) and the reader.

0: empty; 1-15: that many light checkers; 16-30: 1-15 dark checkers; 31: occluded (a hand or
an object hides the strip).
"""

from __future__ import annotations

from collections.abc import Iterable

N_CLASSES = 32
MAX_COUNT = 15
OCCLUDED = 31


def encode_class(colour: str | None, count: int) -> int:
    """Class of `count` checkers of `colour` (counts over 15 are clipped to 15)."""
    if count == 0 or colour is None:
        return 0
    if colour not in ("light", "dark"):
        raise ValueError(f"colour must be light or dark, got {colour!r}")
    count = min(count, MAX_COUNT)
    return count if colour == "light" else MAX_COUNT + count


def decode_class(cls: int) -> tuple[str | None, int]:
    """(colour, count) of a class; (None, 0) for empty and for occluded."""
    if not 0 <= cls < N_CLASSES:
        raise ValueError(f"class must lie in 0-31, got {cls}")
    if cls == 0 or cls == OCCLUDED:
        return None, 0
    return ("light", cls) if cls <= MAX_COUNT else ("dark", cls - MAX_COUNT)


def count_checkers(classes: Iterable[int]) -> dict[str, int]:
    """Checkers of each colour on strips (or tray halves) of these classes."""
    out = {"light": 0, "dark": 0}
    for cls in classes:
        colour, n = decode_class(int(cls))
        if colour is not None:
            out[colour] += n
    return out
