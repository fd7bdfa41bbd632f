"""One camera over a nardy table: frames in, observations for the referee out.

Per frame the observer measures motion on the board and in the dice tray on a quarter-size
grey copy (cheap), and runs the expensive readers only when something there changed and
came to rest: the dice reader when the tray differs from what it last read, the board
reader once the board has been still for `settle_seconds` and differs from its last
reading. That keeps review faster than real time while every throw and every settled board
is read. The dice watcher (vision/dice/stream.py) turns the tray readings into dice events;
the board reading is handed over as a `BoardBelief` in white's numbering for the judge.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from calibration.board import BoardCalibration
from calibration.moved import CameraWatch
from calibration.numbering import Layout
from referee.judge import BoardBelief, Content
from referee.position import Side, Variant
from vision.board.classes import MAX_COUNT
from vision.board.reader import BoardReader, BoardReading
from vision.clock import ClockReader
from vision.dice.reader import DiceReader, DieReading
from vision.dice.stream import DiceEvent
from vision.dice.zones import DiceZones
from vision.exposure import Exposure, bands_notice, levelled
from vision.tray import TrayCamera

SCALE = 0.25  # the board's and the clock's motion is measured on a quarter-size copy
CHANGED_LEVEL = 25  # grey levels that count as a visible change

CLOCK_STILL_FRAMES = 3  # the clock is read once it has been still this long
CHECKER_SHARE = 0.076  # a checker's diameter over the field's width (calibration/layout.py)


class Watcher(Protocol):
    def update(self, frame: int, time: float, dice: Sequence[DieReading],
               moved: float) -> list[DiceEvent]: ...


@dataclass(frozen=True)
class TableSetup:
    """Everything the observer needs to know about one table's camera."""

    board: BoardCalibration
    zones: DiceZones | None  # None: the tray has a camera of its own
    clock: ClockReader | None = None

    @classmethod
    def load(cls, path: Path) -> TableSetup:
        """A calibration file with the board and, when this camera sees them, the tray
        (`dice_zones`) and the clock (`clock`)."""
        board = BoardCalibration.load(path)
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        clock = ClockReader.from_calibration(data["clock"]) if data.get("clock") else None
        return cls(board, dice_zones(board), clock)


def dice_zones(calibration: BoardCalibration) -> DiceZones | None:
    zones = calibration.dice_zones
    if not zones or "tray" not in zones or "box" not in zones:
        return None
    return DiceZones.from_json(zones)


@dataclass(frozen=True)
class Observation:
    """What one frame showed. `board` is set only on frames where the board was read (it had
    settled and changed); `board_moving`: hands or checkers in motion over the board;
    `board_stale`: the board looks different from its last reading (not yet settled);
    `camera_moved`: why the camera is taken to have moved since its calibration, while it
    is (nothing in its view is read meanwhile); `dice_unwatched`: the tray in this camera's
    view was not watched in this frame, its view being off (dice thrown meanwhile show
    only at rest once it is back); `flicker`: what the operator should know once the camera
    has shown the hall's light flickering in bands (its frames are levelled, but its
    anti-flicker setting takes the bands out before they are made)."""

    frame: int
    time: float
    dice_events: list[DiceEvent]
    dice: list[DieReading]
    board_moving: bool
    board_stale: bool
    clock: Side | None
    preview: np.ndarray | None = None  # the frame at half size, for evidence
    board: BoardBelief | None = None
    board_reading: BoardReading | None = None
    camera_moved: str | None = None
    dice_unwatched: bool = False
    flicker: str | None = None


def belief_from_reading(reading: BoardReading, layout: Layout,
                        white_colour: str = "light") -> BoardBelief:
    """The reader's per-point distributions in white's numbering, with the hidden points."""
    colour_side = {white_colour: Side.WHITE,
                   ("dark" if white_colour == "light" else "light"): Side.BLACK}
    light_side, dark_side = colour_side["light"], colour_side["dark"]
    points: list[dict[Content, float]] = [{}] * 25
    for image_point in range(1, 25):
        row = reading.probs[image_point - 1]
        belief: dict[Content, float] = {(None, 0): float(row[0])}
        for count in range(1, MAX_COUNT + 1):
            belief[(light_side, count)] = float(row[count])
            belief[(dark_side, count)] = float(row[MAX_COUNT + count])
        points[layout.from_image(Side.WHITE, image_point)] = belief
    occluded = frozenset(layout.from_image(Side.WHITE, p) for p in reading.occluded)
    bar: dict[Side, dict[int, float]] = {}
    if layout.variant is Variant.SHORT:
        for colour, side in colour_side.items():
            bar[side] = _bar_counts(reading.probs[24:], colour)
    return BoardBelief(tuple(points), bar, occluded)


def _bar_counts(rows: np.ndarray, colour: str) -> dict[int, float]:
    """P(n checkers of `colour` on the bar), from the bar's two strips read independently."""
    total = np.array([1.0])
    offset = 0 if colour == "light" else MAX_COUNT
    for row in rows:
        strip = np.zeros(MAX_COUNT + 1)
        strip[1:] = row[offset + 1:offset + MAX_COUNT + 1]
        strip[0] = 1.0 - strip[1:].sum()
        total = np.convolve(total, strip)
    return {n: float(p) for n, p in enumerate(total[:MAX_COUNT + 1]) if p > 1e-9}


@dataclass
class TableObserver:
    """Feed every frame in order to `observe`.

    The dice events come from this camera's tray (`setup.zones`) or, when the tray has a
    camera of its own, from `watcher` (a `DiceFeed` of that camera's events, or a test's
    ground truth); `watcher` also stands in for this camera's own dice watcher when given.
    """

    setup: TableSetup
    variant: Variant
    board_reader: BoardReader
    dice_reader: DiceReader
    white_colour: str = "light"
    still_share: float = 0.002  # share of changed pixels under which a region is still
    settle_seconds: float = 0.2
    watcher: Watcher | None = None
    tray: TrayCamera | None = field(default=None, init=False)
    _previous: np.ndarray | None = field(default=None, init=False)
    _board_still_since: float | None = field(default=None, init=False)
    _board_read: np.ndarray | None = field(default=None, init=False)
    _clock_still: int = field(default=0, init=False)
    camera: CameraWatch = field(init=False)

    def __post_init__(self) -> None:
        self.camera = CameraWatch(self.setup.board)
        width, height = self.setup.board.image_size
        self.size = (max(1, round(width * SCALE)), max(1, round(height * SCALE)))
        small = (self.size[1], self.size[0])
        self.board_mask = _mask(small, self.setup.board.corners * SCALE)
        self._exposure = Exposure(self.board_mask)
        # One checker moved must count as a change: a fifth of a checker's area, as a share
        # of the board (a checker is about 7.6 % of the field's width across).
        corners = self.setup.board.corners
        field_width = float(np.linalg.norm(corners[1] - corners[0]))
        checker_area = np.pi / 4 * (CHECKER_SHARE * field_width * SCALE) ** 2
        self.board_change = min(self.still_share, 0.2 * checker_area / self.board_mask.sum())
        if self.setup.zones is not None and self.watcher is None:
            self.tray = TrayCamera(self.setup.zones, self.dice_reader, (width, height),
                                   exclude=self.setup.board.corners)
        elif self.watcher is None:
            raise ValueError("the calibration has no dice_zones and no tray camera was given: "
                             "the dice cannot be watched")
        self.layout = self.setup.board.layout(self.variant)
        clock = self.setup.clock
        self.clock_mask = None if clock is None else _mask(small, clock.body * SCALE)

    def _read_clock(self, previous: np.ndarray | None, grey: np.ndarray) -> Side | None:
        """The running side, read only once the clock has been still for a few frames: a
        hand over it (pressing, or reaching past for the dice) can light either display."""
        if self.setup.clock is None or self.clock_mask is None:
            return None
        if changed_share(previous, grey, self.clock_mask) >= self.still_share:
            self._clock_still = 0
            return None
        self._clock_still += 1
        if self._clock_still < CLOCK_STILL_FRAMES:
            return None
        return self.setup.clock.running(grey, SCALE)

    def observe(self, frame: int, time: float, image: np.ndarray) -> Observation:
        width, height = self.setup.board.image_size
        if image.ndim != 3 or image.shape[:2] != (height, width):
            raise ValueError(f"frame {frame} is {image.shape[1]}x{image.shape[0]}, the "
                             f"calibration is for {width}x{height}")
        # Half size first (cheap and exact), quarter from it: a third of the cost of going
        # straight to a quarter with area averaging.
        preview = cv2.resize(image, (width // 2, height // 2), interpolation=cv2.INTER_LINEAR)
        grey = cv2.cvtColor(cv2.resize(preview, self.size, interpolation=cv2.INTER_AREA),
                            cv2.COLOR_BGR2GRAY)
        # The board's frames are compared over time: a flicker of the light is no move.
        grey = levelled(grey, self._exposure.factor(grey))
        previous, self._previous = self._previous, grey
        # A camera moved since its calibration sees the board, the clock and the tray where
        # their calibration does not put them: nothing in its view is read until it is back.
        # Dice events from a tray camera of its own still come.
        moved = self.camera.moved is not None
        dice_events: list[DiceEvent] = []
        dice: list[DieReading] = []
        if self.tray is not None:
            if not moved:
                dice_events = self.tray.observe(frame, time, image)
                dice = self.tray.dice
        else:
            assert self.watcher is not None
            dice_events = self.watcher.update(frame, time, dice, 0.0)

        board_moving = changed_share(previous, grey, self.board_mask) >= self.board_change
        if board_moving or self._board_still_since is None:
            self._board_still_since = None if board_moving else time
        clock = None if moved else self._read_clock(previous, grey)
        stale = changed_share(self._board_read, grey, self.board_mask) >= self.board_change
        settled = (not board_moving and self._board_still_since is not None
                   and time - self._board_still_since >= self.settle_seconds)
        # The camera is checked where the board would be read, and while it has moved until
        # it is back (the board as it was then is no change from its last reading).
        unwatched = self.tray is not None and (moved or self.tray.moved is not None)
        if not (settled and (stale or moved) and self.camera.check(image, time)):
            return Observation(frame, time, dice_events, dice, board_moving, stale, clock,
                               preview, camera_moved=self._moved(), dice_unwatched=unwatched,
                               flicker=self._flicker())
        self._board_read = grey
        reading = self.board_reader.read(image, self.setup.board.corners,
                                         self.setup.board.bar_width)
        belief = belief_from_reading(reading, self.layout, self.white_colour)
        # A reading with a hand in it is no view of the board: it stays stale.
        return Observation(frame, time, dice_events, dice, False, bool(reading.occluded),
                           clock, preview, belief, reading, self._moved(), unwatched,
                           self._flicker())

    def _moved(self) -> str | None:
        """Why the camera, or its view of the tray, is off its calibration, while it is."""
        if self.camera.moved is not None:
            return (f"{self.camera.moved.reason}: the board, the clock and the dice tray in "
                    "this camera's view are not read")
        if self.tray is not None and self.tray.moved is not None:
            return f"{self.tray.moved}: the dice are not read"
        return None

    def _flicker(self) -> str | None:
        """The notice for the operator once the board's or the tray's frames have shown the
        light flickering in bands."""
        rows = self._exposure.band_rows
        rows = rows / SCALE if rows is not None else None
        if rows is None and self.tray is not None:
            rows = self.tray.band_rows
        return None if rows is None else bands_notice("camera", rows)


def _mask(shape: tuple[int, int], polygon: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 1)
    return mask.astype(bool)


def changed_share(before: np.ndarray | None, after: np.ndarray, mask: np.ndarray) -> float:
    """Share of the masked pixels that changed visibly (1.0 with nothing to compare)."""
    if before is None:
        return 1.0
    if not mask.any():
        return 0.0
    return float((cv2.absdiff(before, after)[mask] > CHANGED_LEVEL).mean())
