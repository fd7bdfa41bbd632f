"""Has a camera moved since calibration?

At calibration we keep, for each side of the field, the profile of the brightness gradient
across that side (median over points along it, so checkers or a hand on part of a side do not
matter). On a new frame the same profiles are taken at the calibrated corners and matched to
the reference: if two sides' edges now lie a few pixels off (each matched surely, or two
opposite ones as one translation moves them; one side alone off is checkers stacked against
it), or most sides have lost their edge, the camera (or the board) moved and the calibration
no longer holds. A moved camera is reported as such, never read as a changed position. With
markers, their centres are compared too. Over a stream, `CameraWatch` keeps asking, on the
frames where the board is about to be read; `ViewWatch` asks it of a camera with no field in
view (the dice tray's own), from how far its still, empty view has shifted since the first one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.board import BoardCalibration, FloatArray, field_sides
from vision.board.warp import Image

REACH = 24  # pixels either side of the calibrated edge
SAMPLES = 32  # points along each side
SHIFT_PX = 2.0  # a side whose edge lies this far off has moved
GOOD_MATCH = 0.6  # correlation for a side to count as seen
# Correlation for a side's shift to be taken as measured: on the 20 review-bench games' frames
# moved by 4-12 px (bench/camera_watch.py), 2,200 of the 2,201 sides matched this well lay
# within 1.5 px of their true shift; 3.5 % of those matched from GOOD_MATCH did not (checkers
# along the side).
SURE_MATCH = 0.9
PAIR_PX = 2.0  # opposite sides moved as one translation moves them: their shifts cancel to this
MARKER_PX = 3.0
# A verdict of moved holding this long over a stream's still frames is a moved camera: an arm
# resting over a side for a moment hides its edge, it does not move it.
CONFIRM_SECONDS = 0.5
# Over a stream the camera has moved once the board would be read otherwise: the board reader
# reads every point of a generated game alike with its frames moved by up to 0.65 % of the
# field's width (4 px of 611) and misreads some from 1 % (6 px).
READ_TOLERANCE = 0.006
# A still view is compared with the first at most this often (a phase correlation of the
# dice tray's view takes about 3 ms), and has moved when this many comparisons in a row say so.
VIEW_EVERY_SECONDS = 0.5
VIEW_CONFIRMATIONS = 2


def border_profiles(image: Image, corners: FloatArray, reach: int = REACH) -> FloatArray:
    """(4, 2*reach+1) gradient profiles across the sides top, right, bottom, left; offsets run
    from outside (-reach) to inside (+reach) the field, one pixel apart."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    grey = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    offsets = np.arange(-reach - 1, reach + 2, dtype=np.float64)
    t = (np.arange(SAMPLES) + 0.5) / SAMPLES * 0.8 + 0.1
    out = []
    for a, b, normal in field_sides(corners):
        base = a[None] + t[:, None] * (b - a)[None]  # (S, 2)
        pts = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        mx = pts[..., 0].astype(np.float32)
        my = pts[..., 1].astype(np.float32)
        values = cv2.remap(grey, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        grad = np.abs(values[:, 2:] - values[:, :-2]) / 2  # (S, 2*reach+1)
        out.append(np.median(grad, axis=0))
    return np.asarray(out, np.float64)


@dataclass(frozen=True)
class MoveCheck:
    """The verdict: `moved`, the edge shift per side in pixels (None where the side was not
    seen), the best match per side, and markers that moved or went missing."""

    moved: bool
    shifts: list[float | None]
    matches: list[float]
    reason: str
    markers_moved: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"moved": self.moved, "reason": self.reason,
                "shift_px": [None if s is None else round(s, 1) for s in self.shifts],
                "match": [round(m, 3) for m in self.matches],
                "markers_moved": self.markers_moved}


def _match(ref: FloatArray, cur: FloatArray, reach: int) -> tuple[float, float]:
    """(best shift in pixels, its normalised correlation) of a profile against the reference."""
    best, best_corr = 0.0, -1.0
    max_lag = 2 * reach // 3
    for lag in range(-max_lag, max_lag + 1):
        r = ref[max_lag:len(ref) - max_lag]
        c = cur[max_lag + lag:len(cur) - max_lag + lag]
        rz, cz = r - r.mean(), c - c.mean()
        den = float(np.linalg.norm(rz) * np.linalg.norm(cz))
        corr = float(rz @ cz) / den if den > 1e-9 else 0.0
        if corr > best_corr + 1e-9 or (abs(corr - best_corr) <= 1e-9 and abs(lag) < abs(best)):
            best, best_corr = float(lag), corr
    return best, best_corr


def check_camera(calibration: BoardCalibration, image: Image,
                 shift_px: float = SHIFT_PX) -> MoveCheck:
    """Whether the field is still where the calibration says it is: moved once two sides'
    edges surely lie `shift_px` off (or two opposite ones, as a translation moves them), or
    all but two have lost their edge."""
    markers_moved: list[int] = []
    if calibration.markers is not None:
        from calibration.aruco import detect

        found = detect(image)
        seen = dict(zip(found.ids, found.quads, strict=True))
        for marker_id, centre in zip(calibration.markers.ids, calibration.markers.centres,
                                     strict=True):
            quad = seen.get(marker_id)
            if quad is not None and float(np.linalg.norm(quad.mean(0) - centre)) > MARKER_PX:
                markers_moved.append(marker_id)
    h, w = image.shape[:2]
    if (w, h) != tuple(calibration.image_size) and calibration.image_size != (0, 0):
        return MoveCheck(True, [None] * 4, [0.0] * 4,
                         f"frame size {w}x{h} differs from the calibration's "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]}")
    reference = calibration.border
    cur = border_profiles(image, calibration.corners)
    if reference is None:  # no reference kept: expect the strongest edge on the line itself
        reference = np.zeros_like(cur)
        reference[:, REACH] = 1.0
    reach = (reference.shape[1] - 1) // 2
    shifts: list[float | None] = []
    matches: list[float] = []
    for ref, now in zip(reference, cur, strict=True):
        lag, corr = _match(ref, now, reach)
        matches.append(corr)
        shifts.append(lag if corr >= GOOD_MATCH else None)
    if markers_moved:
        return MoveCheck(True, shifts, matches, f"markers {markers_moved} moved", markers_moved)
    moved, reason = judge_sides(shifts, matches, shift_px)
    return MoveCheck(moved, shifts, matches, reason)


def judge_sides(shifts: list[float | None], matches: list[float],
                shift_px: float) -> tuple[bool, str]:
    """(moved, why) from the sides' shifts (top, right, bottom, left; None where unseen) and
    how well each matched."""
    # A moved camera (or board) shifts at least two sides: two matched surely, or two opposite
    # ones as a translation shifts them (by as much, the other way along their inward normals).
    # Checkers stacked against an edge put their rims in that side's profile, often matched
    # a few pixels off, and a side crowded with checkers may match its opposite's by chance.
    off = [s for s, corr in zip(shifts, matches, strict=True)
           if s is not None and corr >= SURE_MATCH and abs(s) >= shift_px]
    opposite = [(a, b) for a, b in (shifts[0::2], shifts[1::2])
                if a is not None and b is not None and min(abs(a), abs(b)) >= shift_px
                and abs(a + b) <= PAIR_PX]
    if len(off) >= 2 or opposite:
        # A knock past the profiles' reach matches some sides anywhere within it, so only
        # the least of the shifts counted is sure to be no more than the knock.
        least = min(abs(s) for s in off + [s for pair in opposite for s in pair])
        return True, f"the field's edge moved by at least {least:.0f} px"
    if sum(s is not None for s in shifts) <= 2:
        return True, "the field's edges are no longer where they were"
    return False, "the field is where it was calibrated"


@dataclass
class CameraWatch:
    """Whether a camera stays where its calibration was made, over a stream: `check` each
    still frame before the board is read; `moved` holds the verdict while the camera has
    moved (None while it has not).

    A calibration made here keeps the field's edges as calibration saw them; one without them
    (written by another tool) takes them from the first frame checked: the camera as it stood
    when refereeing began."""

    calibration: BoardCalibration
    confirm_seconds: float = CONFIRM_SECONDS
    moved: MoveCheck | None = field(default=None, init=False)
    _doubted_since: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        top_left, top_right, bottom_right, bottom_left = self.calibration.corners
        width = (np.linalg.norm(top_right - top_left)
                 + np.linalg.norm(bottom_right - bottom_left)) / 2
        self.shift_px = max(SHIFT_PX, READ_TOLERANCE * float(width))

    def check(self, image: Image, time: float) -> bool:
        """Whether the field is where it was calibrated, so that the board may be read: False
        from the first frame that says otherwise, `moved` set once that has held for
        `confirm_seconds`."""
        if self.calibration.border is None:
            self.calibration = replace(self.calibration,
                                       border=border_profiles(image, self.calibration.corners))
            return True
        verdict = check_camera(self.calibration, image, self.shift_px)
        if not verdict.moved:
            self.moved = self._doubted_since = None
            return True
        if self._doubted_since is None:
            self._doubted_since = time
        if time - self._doubted_since >= self.confirm_seconds:
            self.moved = verdict
        return False


@dataclass
class ViewWatch:
    """Whether a camera with no field in view (the dice tray's own) still sees what it saw
    when refereeing began: `check` its still view with no die in it (the same crop each
    time); `moved` says why while it has shifted by `shift_px` or more from the first one
    checked.

    The shift is the two views' phase correlation, a translation to a tenth of a pixel: on
    the physics clips a still, empty tray against the first is off by at most half a pixel,
    and a tray moved by 2, 5 or 20 px is measured to a few tenths. Dice spoil it: on a plain
    felt they are most of what the view shows, and two views with dice lying differently
    correlate best at the dice's offset (on the generated games, 80 to 225 px). How well the
    views correlate is no guide (0.1 to 1.1 on the clips, moved or not)."""

    shift_px: float
    moved: str | None = field(default=None, init=False)
    _first: np.ndarray | None = field(default=None, init=False)
    _window: np.ndarray | None = field(default=None, init=False)
    _checked: float | None = field(default=None, init=False)
    _doubts: int = field(default=0, init=False)

    def due(self, time: float) -> bool:
        """Whether a view checked now would be compared (at most every VIEW_EVERY_SECONDS)."""
        return self._checked is None or time - self._checked >= VIEW_EVERY_SECONDS

    def check(self, view: np.ndarray, time: float) -> None:
        """Compare the view with the first, when due; the first one checked is kept."""
        if not self.due(time):
            return
        self._checked = time
        now = view.astype(np.float32)
        if self._first is None or self._first.shape != now.shape:
            self._first = now
            self._window = cv2.createHanningWindow(now.shape[::-1], cv2.CV_32F)
            return
        (dx, dy), _ = cv2.phaseCorrelate(self._first, now, self._window)
        if float(np.hypot(dx, dy)) < self.shift_px:
            self.moved, self._doubts = None, 0
            return
        self._doubts += 1
        if self._doubts >= VIEW_CONFIRMATIONS:
            self.moved = f"the dice tray's view moved by {round(dx):+d}, {round(dy):+d} px"
