"""A camera's exposure followed against its first frame, so that light changing over time is
not taken for things moving.

Mains lighting flickers at 100 or 120 Hz; a camera at 30 fps sees it beat (100 Hz against 30
frames a second is a 10 Hz beat), and a camera's automatic exposure steps when bright dice
or a hand come into view. Every comparison of frames over time (a die at rest, the tray
still, the tray seen empty) takes such a change of a few percent for motion: on clips with a
10 Hz flicker of 4% the tray's counts were cancelled and started again frame after frame.
The light changes the whole view alike, by a factor, where a die moving changes a die's
place: the factor is the median over the view of how much brighter each patch is than in the
first frame, and the frame divided by it looks as the first did.

A rolling shutter reads its rows one after another, so it sees the flicker in bands that
move down the frame: the light is then a wave over the rows, of one period (the mains' over
the time a row takes to read) for as long as the camera runs. Each frame's rows are measured
(the median of each patch row's ratios), the period is found once from the frames that show
bands, and each frame is levelled by the wave of that period fitted to its rows: a fit over
the whole height carries the light across rows too dark to measure, a dark tray's or the
box's inside (models/dice/experiments.md). The camera's anti-flicker setting, where it has
one, takes the bands out before they are made.
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
# Bands: a patch row tells its light from this many patches; the periods looked for, in
# patch rows (a 30 ms readout of 480 rows puts a 100 Hz flicker's period at 20). Frames
# whose rows differ from their factor by SPREAD (root mean square) and follow a wave of one
# period (a sine explaining EXPLAINED of that) show the camera's bands; BAND_FRAMES of them
# tell their period. Bands of a 4% flicker spread the rows by about 0.05. A flicker of the
# whole view can spread them too, by up to 0.025 where the box's dark inside brightens by
# another share than the floor, and such a step looks like a long wave; but bands move down
# the frame, where a difference that hangs on how bright a patch is only grows and shrinks:
# a frame counts towards a period only where its wave's phase moved by MOVED (the sine of
# the change) since the frame looked at before it. A frame's wave within BANDS of its
# factor is left to the factor.
ROW_PATCHES = 3
PERIODS = np.geomspace(3.0, 120.0, 72)
SPREAD = 0.015
EXPLAINED = 0.8
MOVED = 0.35
BAND_FRAMES = 8
BANDS = 0.006
HARMONICS = 2  # a lamp's light is no pure sine: the period's half is fitted too


@dataclass
class Exposure:
    """Ask it of each frame's grey view in turn (`factor`); `mask`: the view's pixels that
    show the scene followed (not, say, the board beside the tray, where hands come and go)."""

    mask: np.ndarray
    _first: np.ndarray | None = field(default=None, init=False)  # its patches' means
    _cells: np.ndarray = field(init=False)  # the patches wholly in the mask
    _far: int = field(default=0, init=False)  # frames in a row whose factor lay past FAR
    _period: float | None = field(default=None, init=False)  # the bands', in patch rows
    _votes: np.ndarray = field(default_factory=lambda: np.zeros(len(PERIODS)), init=False)
    _banded: int = field(default=0, init=False)  # frames that showed bands
    _waves: np.ndarray | None = field(default=None, init=False)  # the last look's, a period each
    # The wave's terms at the patch rows' and the view's rows, once the period is found.
    _row_terms: np.ndarray | None = field(default=None, init=False)
    _view_terms: np.ndarray | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._cells = _patches(self.mask.astype(np.float32)) > 0.999

    @property
    def band_rows(self) -> float | None:
        """How many of the view's rows apart the bands of a flickering light lie, once a
        rolling shutter has shown them; None until then."""
        return None if self._period is None else self._period * CELL

    def factor(self, grey: np.ndarray) -> float | np.ndarray:
        """How much brighter the view `grey` is than the first one given (or the one
        followed from since another light held FAR_FRAMES): 1 for that one, and for a view
        of another size than the mask's (no view of this scene); one factor for each of its
        rows (an array) when the camera's rolling shutter shows the light in bands."""
        patches = _patches(grey)
        if patches.shape != self._cells.shape:
            return 1.0
        if self._first is None:
            self._first = patches
            return 1.0
        usable = self._cells & (self._first >= DARKEST)
        if not usable.any():
            return 1.0
        ratios = np.where(usable, patches / np.maximum(self._first, 1.0), np.inf)
        factor = float(np.median(ratios[usable]))
        self._far = self._far + 1 if not 1 / FAR < factor < FAR else 0
        if self._far >= FAR_FRAMES:
            self._first, self._far = patches, 0
            return 1.0
        rows = self._banded_rows(ratios, usable, factor, grey.shape[0])
        if rows is not None:
            return rows
        return 1.0 if abs(factor - 1.0) < STEADY else factor

    def _banded_rows(self, ratios: np.ndarray, usable: np.ndarray, factor: float,
                     height: int) -> np.ndarray | None:
        """The light of each of the view's `height` rows when it lies in bands, else None."""
        counts = usable.sum(axis=1)
        measured = counts >= ROW_PATCHES
        if measured.sum() < 2 * HARMONICS + 3:
            return None
        # Each row's median: its usable ratios sort before the others (inf).
        ordered = np.sort(ratios[measured], axis=1)
        count, index = counts[measured], np.arange(int(measured.sum()))
        row_light = (ordered[index, (count - 1) // 2] + ordered[index, count // 2]) / 2
        place = (np.flatnonzero(measured) + 0.5).astype(np.float64)
        weight = counts[measured].astype(np.float64)
        if self._period is None:
            self._look_for_bands(place, row_light, weight, factor)
            return None
        if self._row_terms is None or self._view_terms is None \
                or len(self._view_terms) != height:
            self._row_terms = _terms(np.arange(len(counts)) + 0.5, self._period, HARMONICS)
            self._view_terms = _terms((np.arange(height) + 0.5) / CELL, self._period, HARMONICS)
        wave = _fit_wave(self._row_terms[measured], row_light, weight)
        light = self._view_terms @ wave
        if np.abs(light - factor).max() < BANDS:
            return None
        return light if np.abs(light - 1.0).max() >= STEADY else None

    def _look_for_bands(self, place: np.ndarray, row_light: np.ndarray, weight: np.ndarray,
                        factor: float) -> None:
        """Count a frame whose rows differ by a wave (SPREAD, EXPLAINED) towards the periods
        that fit it; the period is the camera's once BAND_FRAMES frames have shown it."""
        spread = float(np.sqrt(np.average((row_light - factor) ** 2, weights=weight)))
        if spread < SPREAD:
            return
        explained, waves = _explained(place, row_light, weight)
        if explained.max() < EXPLAINED:
            return
        previous, self._waves = self._waves, waves
        if previous is None:
            return
        cross = previous[:, 0] * waves[:, 1] - previous[:, 1] * waves[:, 0]
        turned = np.abs(cross) / np.maximum(
            np.linalg.norm(previous, axis=1) * np.linalg.norm(waves, axis=1), 1e-12)
        moving = np.where(turned >= MOVED, explained, 0.0)
        if moving.max() < EXPLAINED:
            return
        self._votes += moving
        self._banded += 1
        if self._banded >= BAND_FRAMES:
            self._period = _peak(self._votes)


def bands_notice(camera: str, rows: float) -> str:
    """What the operator is told once `camera` has shown bands `rows` rows apart."""
    return (f"the {camera} sees the hall's light flicker in bands {rows:.0f} rows apart (a "
            "rolling shutter): its frames are levelled, but set its power-line "
            "(anti-flicker) frequency to the mains")


def _terms(place: np.ndarray, period: float | np.ndarray, harmonics: int) -> np.ndarray:
    """A wave's terms at rows `place` (in patch rows): 1, then the sines and cosines of the
    period and its `harmonics` - 1 fractions; (rows, terms), or (periods, rows, terms) for
    an array of periods."""
    angle = (2 * np.pi * place[:, None] / np.asarray(period)[..., None, None]
             * np.arange(1, harmonics + 1))
    return np.concatenate([np.ones((*angle.shape[:-1], 1)), np.sin(angle), np.cos(angle)],
                          axis=-1)


def _fit_wave(terms: np.ndarray, light: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The wave (its weights on `terms`) through the rows' light, by weighted least squares
    reweighted twice so that rows a hand or a die covers count less."""
    ridge = 1e-9 * np.eye(terms.shape[1])
    wave = np.linalg.solve((terms * weight[:, None]).T @ terms + ridge,
                           (terms * weight[:, None]).T @ light)
    for _ in range(2):
        residual = np.abs(light - terms @ wave)
        scale = max(float(np.median(residual)) * 1.5, 1e-3)
        weighted = terms * (weight / np.maximum(1.0, residual / (2 * scale)))[:, None]
        wave = np.linalg.solve(weighted.T @ terms + ridge, weighted.T @ light)
    return np.asarray(wave)


def _explained(place: np.ndarray, light: np.ndarray,
               weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The share of the rows' weighted variance one sine of each of PERIODS explains, and
    that sine (its sine and cosine parts, one row a period)."""
    basis = _terms(place, PERIODS, 1)
    weighted = basis * weight[None, :, None]
    normal = np.einsum("krp,krq->kpq", weighted, basis)
    wave = np.linalg.solve(normal + 1e-9 * np.eye(3),
                           np.einsum("krp,r->kp", weighted, light)[:, :, None])[:, :, 0]
    mean = np.average(light, weights=weight)
    total = float(np.sum(weight * (light - mean) ** 2))
    left = np.sum(weight * (light - np.einsum("krp,kp->kr", basis, wave)) ** 2, axis=1)
    share = 1.0 - left / total if total > 0 else np.zeros(len(PERIODS))
    return np.asarray(share), np.asarray(wave[:, 1:])


def _peak(votes: np.ndarray) -> float:
    """The period where the votes peak, between PERIODS' steps (a parabola through the best
    and its neighbours, over the periods' logarithms)."""
    best = int(np.argmax(votes))
    if best in (0, len(votes) - 1):
        return float(PERIODS[best])
    low, middle, high = votes[best - 1:best + 2]
    bend = low - 2 * middle + high
    shift = 0.5 * (low - high) / bend if bend < 0 else 0.0
    step = np.log(PERIODS[1] / PERIODS[0])
    return float(PERIODS[best] * np.exp(np.clip(shift, -0.5, 0.5) * step))


def _patches(image: np.ndarray) -> np.ndarray:
    """The means of CELL x CELL patches of a one-channel image (the rows and columns past the
    last whole patch left out)."""
    rows, columns = image.shape[0] // CELL, image.shape[1] // CELL
    whole = np.asarray(image[:rows * CELL, :columns * CELL], np.float32)
    return np.asarray(cv2.resize(whole, (columns, rows), interpolation=cv2.INTER_AREA))


def levelled(image: np.ndarray, factor: float | np.ndarray) -> np.ndarray:
    """`image` (uint8, any channels) as it would look with the light `factor` times dimmer
    (one factor, or one for each of its rows)."""
    if isinstance(factor, np.ndarray):
        # A row's pixels, all channels, as one row of a 2-D image: OpenCV scales and rounds
        # it several times faster than numpy's float arrays would.
        flat = np.ascontiguousarray(image).reshape(image.shape[0], -1)
        scale = np.broadcast_to((1.0 / factor).astype(np.float32)[:, None], flat.shape)
        scaled = cv2.multiply(flat, np.ascontiguousarray(scale), dtype=cv2.CV_8U)
        return np.asarray(scaled).reshape(image.shape)
    if factor == 1.0:
        return image
    return np.asarray(cv2.convertScaleAbs(image, alpha=1.0 / factor))
