"""Choose every strip's class at once so that the checkers add up: 15 of each colour.

The strip classifier reads each point alone, and a tall stack seen at 30 pixels a checker is
ambiguous (11 light or 14?). A judge counting a stack knows there are only 15 of each colour:
the counts on the points and the bar add up to 15 less those borne off. `decode_counts`
picks the classes of highest joint probability (the sum of log-probabilities) under that
constraint: totals at most the given ones, or exactly them when nothing is hidden and the
borne-off checkers were counted. Most readings already satisfy it and cost nothing more.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from vision.board.classes import MAX_COUNT, N_CLASSES, OCCLUDED

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

CHECKERS = MAX_COUNT  # of each colour in both nardy variants
# checkers each class adds, per colour
_LIGHT = np.array([c if 1 <= c <= MAX_COUNT else 0 for c in range(N_CLASSES)])
_DARK = np.array([c - MAX_COUNT if MAX_COUNT < c < OCCLUDED else 0 for c in range(N_CLASSES)])
# Classes less probable than this are left out of the search (it then takes about a
# millisecond); a reading that needs one is not worth trusting over the classifier's own.
_UNLIKELY = 1e-5


def decode_counts(probs: FloatArray, totals: tuple[int, int] = (CHECKERS, CHECKERS),
                  exact: bool = False) -> IntArray:
    """The class per strip (rows of `probs`) of highest joint probability whose light and dark
    checkers add up to at most `totals` (light, dark), or exactly to them with `exact`.

    When the exact totals cannot be met by classes the classifier finds at all likely, the
    bound falls back to "at most"; when even that fails, the plain most probable classes.
    """
    plain = np.asarray(probs.argmax(1), np.int64)
    light, dark = int(_LIGHT[plain].sum()), int(_DARK[plain].sum())
    if (light, dark) == totals or (not exact and light <= totals[0] and dark <= totals[1]):
        return plain
    score, back = _search(probs, totals)
    if exact and np.isfinite(score[totals]):
        return _trace(back, totals)
    if not np.isfinite(score).any():
        return plain
    best = np.unravel_index(int(np.argmax(score)), score.shape)
    return _trace(back, (int(best[0]), int(best[1])))


def _search(probs: FloatArray, totals: tuple[int, int]) -> tuple[FloatArray, IntArray]:
    """Dynamic programme over (light so far, dark so far): the best log-probability of each
    total after all strips, and per strip and total the class that reached it."""
    shape = (totals[0] + 1, totals[1] + 1)
    score = np.full(shape, -np.inf)
    score[0, 0] = 0.0
    back = np.zeros((len(probs), *shape), np.int64)
    for i, row in enumerate(probs):
        new = np.full(shape, -np.inf)
        for cls in _candidates(row):
            dl, dd = int(_LIGHT[cls]), int(_DARK[cls])
            if dl >= shape[0] or dd >= shape[1]:
                continue
            moved = np.full(shape, -np.inf)
            moved[dl:, dd:] = score[:shape[0] - dl, :shape[1] - dd] + np.log(row[cls])
            better = moved > new
            new[better] = moved[better]
            back[i][better] = cls
        score = new
    return score, back


def _candidates(row: FloatArray) -> IntArray:
    """Classes a strip may take: the likely ones. Whether a strip is hidden is not for the
    totals to decide (calling a point occluded would be a cheap way to drop its checkers):
    an occluded strip stays occluded, a visible one visible."""
    best = int(row.argmax())
    if best == OCCLUDED:
        return np.array([OCCLUDED])
    likely = np.flatnonzero(row >= min(_UNLIKELY, float(row[best])))
    return np.asarray(likely[likely != OCCLUDED], np.int64)


def _trace(back: IntArray, total: tuple[int, int]) -> IntArray:
    """The classes, strip by strip, of the best assignment reaching `total`."""
    light, dark = total
    out = np.zeros(len(back), np.int64)
    for i in range(len(back) - 1, -1, -1):
        cls = int(back[i, light, dark])
        out[i] = cls
        light, dark = light - int(_LIGHT[cls]), dark - int(_DARK[cls])
    return out
