"""The dice tray as one camera sees it: the board camera's corner of it, or a camera of its own.

`TrayCamera` reads the dice in the tray zones of each frame it is given (only when the tray
changed: dice in flight every few frames, dice at rest whenever they look different from
the last reading, and every few frames for a while when a die of the throw is missing from a
still tray) and turns the readings into dice events with the dice watcher, told when
each die came to rest (vision/dice/rest.py) and whether something lies in the tray that no
reading explains (vision/dice/empty_tray.py), each comparison made on the frames levelled to
the first one's light (vision/exposure.py). With a camera of its own over the tray
(`TrayVideo`), `DiceFeed` hands its events to the board camera's observer by time stamp, so
the referee sees one table.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.moved import SHIFT_PX, ViewWatch
from vision.dice.boxes import Box
from vision.dice.closer import (
    DiceReading,
    detecting_in,
    find_missing,
    look_closer,
    searching_harder,
)
from vision.dice.empty_tray import EmptyTray
from vision.dice.reader import SURELY_PROPOSED, DieReading
from vision.dice.rest import (
    CHANGED_PIXELS,
    RestClock,
    Stamp,
    SurestAtRest,
    changed_pixels,
    smoothed,
)
from vision.dice.stream import DiceEvent, DiceWatcher, Kind
from vision.dice.zones import DiceZones, TrayCalibration
from vision.exposure import Exposure, bands_notice, levelled
from vision.sources import Frame, SourceEvent, VideoSource

MOVING_READ_EVERY = 3  # frames between dice readings while the tray moves
# Frames between readings of a still tray while a die of the throw is missing from it, for
# the seconds after it stopped that decide the throw: a die found weakly, near the detector's
# threshold, is found on one frame and missed on the next.
MISSING_READ_EVERY = 5
MISSING_READ_SECONDS = 4.0
# The tray's view has moved (the camera knocked, the baffle box pushed) once its still view
# shifts by this share of its width from the first: 2.6 px of the clips' 440 px view,
# a tenth of a die, which puts a die's foot a millimetre or so across the box's edge.
VIEW_MOVED_SHARE = 0.006
# The dice are read in the zones' bounding box grown on every side by about a die's edge, this
# share of the tray floor's longer side in the image (dice 13-20 mm, trays 220-300 mm): a die
# leaning on the tray's near wall stands over the floor's edge, and cut by the crop it lost
# the side face that shows it cocked (272201, 284108: read flat from start to void). The
# detector still looks at the zones' box alone (`detecting_in`).
DIE_IN_TRAY = 1 / 12


@dataclass
class TrayCamera:
    """`zones` in the frame's pixels; `exclude`: a polygon in them of something else in view
    (the board), whose motion is not the tray's."""

    zones: DiceZones
    dice_reader: DiceReading  # vision/dice/reader.py's DiceReader
    frame_size: tuple[int, int]  # width, height
    exclude: np.ndarray | None = None
    watcher: DiceWatcher = field(init=False)
    _tray_read: np.ndarray | None = field(default=None, init=False)
    _read_at: tuple[int, float] = field(default=(-1, 0.0), init=False)  # the dice's reading
    _looked_closer: bool = field(default=False, init=False)  # since that reading
    _previous: np.ndarray | None = field(default=None, init=False)
    _dice: list[DieReading] = field(default_factory=list, init=False)
    _too_wide: list[Box] = field(default_factory=list, init=False)  # boxes of the last reading
    _moving_frames: int = field(default=0, init=False)
    _missing_read: int = field(default=-MISSING_READ_EVERY, init=False)  # its last frame
    _in_throw: bool = field(default=False, init=False)
    _throw_began: Stamp | None = field(default=None, init=False)  # its first motion
    # The first motion since the dice were last cleared away (or the camera started): no die
    # lying now came to rest before it.
    _first_motion: Stamp | None = field(default=None, init=False)
    _still_from: float | None = field(default=None, init=False)  # the tray's, in seconds
    # The first frame showing the still tray as it is now (the one before the first still one).
    _still_since: Stamp | None = field(default=None, init=False)
    _last: Stamp | None = field(default=None, init=False)  # the previous frame
    _rest_clock: RestClock = field(default_factory=RestClock, init=False)
    _surest: SurestAtRest = field(default_factory=SurestAtRest, init=False)

    def __post_init__(self) -> None:
        width, height = self.frame_size
        points = np.concatenate([self.zones.tray, self.zones.box])
        x0, y0 = np.floor(points.min(0)).astype(int)
        x1, y1 = np.ceil(points.max(0)).astype(int)
        inner = (max(x0, 0), max(y0, 0), min(x1, width), min(y1, height))
        margin = int(np.ceil(DIE_IN_TRAY * np.ptp(self.zones.tray, axis=0).max()))
        x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
        self.box = (max(x0, 0), max(y0, 0), min(x1, width), min(y1, height))
        origin = np.array(self.box[:2], np.float32)
        mask = np.zeros((self.box[3] - self.box[1], self.box[2] - self.box[0]), np.uint8)
        # Each zone filled on its own: filled as one polygon, the box could become a hole.
        for zone in (self.zones.tray, self.zones.box):
            cv2.fillPoly(mask, [np.round(zone - origin).astype(np.int32)], 1)
        if self.exclude is not None:
            cv2.fillPoly(mask, [np.round(self.exclude - origin).astype(np.int32)], 0)
        self.mask = mask.astype(bool)
        self.view_watch = ViewWatch(max(SHIFT_PX, VIEW_MOVED_SHARE * (inner[2] - inner[0])))
        self._empty_tray = EmptyTray(self.mask)
        self._exposure = Exposure(self.mask)
        self._zone_pixels = max(int(self.mask.sum()), 1)
        # The tray is still while fewer pixels than make a die's move change in it.
        self.still_share = CHANGED_PIXELS / self._zone_pixels
        # The dice are read in the crop of the zones: the zones and the view move with it.
        self._zones = self.zones.shifted(*self.box[:2])
        self.view = self._zones.view
        self.watcher = DiceWatcher(self._zones, still_below=self.still_share)
        # Read whole, the detector looks at the zones' box alone, as it was trained to see
        # the tray; each die it finds is read in the crop, margin and all.
        self._whole_reader = detecting_in(self.dice_reader, (
            inner[0] - self.box[0], inner[1] - self.box[1],
            inner[2] - self.box[0], inner[3] - self.box[1]))
        self._search = searching_harder(self.dice_reader)
        self._whole_search = searching_harder(self._whole_reader)

    @property
    def dice(self) -> list[DieReading]:
        return list(self._dice)

    @property
    def band_rows(self) -> float | None:
        """How many rows apart the bands of a flickering light lie on this camera's frames,
        once its rolling shutter has shown them (vision/exposure.py)."""
        return self._exposure.band_rows

    @property
    def moved(self) -> str | None:
        """Why the tray's view is taken to have moved since refereeing began, while it is:
        its dice are not read meanwhile."""
        return self.view_watch.moved

    def observe(self, frame: int, time: float, image: np.ndarray) -> list[DiceEvent]:
        """The dice events this frame completes."""
        x0, y0, x1, y1 = self.box
        crop = image[y0:y1, x0:x1]
        grey = smoothed(crop)
        # The reader reads the camera's own picture; the comparisons of frames over time
        # see it levelled to the first frame's light: a flicker of the light is no motion.
        factor = self._exposure.factor(grey)
        lit, grey = levelled(crop, factor), levelled(grey, factor)
        previous, self._previous = self._previous, grey
        motion = self._changed_share(previous, grey)
        if motion >= self.still_share:
            self._still_from = self._still_since = None
        elif self._still_from is None:
            self._still_from, self._still_since = time, self._last or (frame, time)
        self._last = (frame, time)
        if self.moved is not None:
            # Zones that no longer fit read no die; the view is watched until it is back, on
            # still views where no die lies.
            if (self._still_long(time) and self.view_watch.due(time)
                    and not self._whole_reader.read(crop, self.view, self._zones)):
                self.view_watch.check(grey, time)
            return []
        self._moving_frames = self._moving_frames + 1 if motion >= self.still_share else 0
        if (self._changed_share(self._tray_read, grey) >= self.still_share
                and self._moving_frames % MOVING_READ_EVERY == 0):
            self._dice = self._in_zones(self._whole_reader.read(crop, self.view, self._zones),
                                        lit)
            self._tray_read, self._read_at = grey, (frame, time)
            self._looked_closer = False
        elif ((self._in_throw or self._throw_seen()) and self._moving_frames == 0
              and len(self._dice) < self.watcher.dice_per_throw
              and frame - self._missing_read >= MISSING_READ_EVERY
              and time - self._read_at[1] <= MISSING_READ_SECONDS):
            self._read_missing(frame, time, crop, lit, grey)
        if (self._moving_frames == 0 and not self._looked_closer
                and len(self._dice) < self.watcher.dice_per_throw):
            # A die missing at rest (read on this frame, or on the tray's last moving one):
            # look closer where one may lie unread.
            places = [d.box for d in self._dice]
            places += self._empty_tray.unexplained(grey, places) or []
            self._dice = self._in_zones(look_closer(self.dice_reader, crop, self._dice, places,
                                                    self._zones, self._too_wide), lit)
            self._looked_closer = True
        # Each die's own moment of rest: a hand reaching past for the checkers or the clock
        # does not move the dice, nor does the other die still rolling. A die at rest that a
        # re-reading misses (the other die rolling past it) lies there still while it looks
        # as it did since it came to rest.
        read = len(self._dice)
        held = self._surest.missing(self._dice) if read < self.watcher.dice_per_throw else []
        watched = self._dice + [die for die, _ in held]
        rests = self._rest_clock.update(
            (frame, time), grey, [d.box for d in watched],
            [self._zones.lies_in_box(d) for d in watched])
        still = [i for i, ((_, since), rest) in enumerate(zip(held, rests[read:], strict=True))
                 if rest == since]
        self._dice += [held[i][0] for i in still]
        rests = rests[:read] + [rests[read + i] for i in still]
        boxes = [d.box for d in self._dice]
        if motion >= self.still_share:
            self._throw_began = self._throw_began or (frame, time)
            if previous is not None:  # the camera's first frame is no motion seen
                self._first_motion = self._first_motion or (frame, time)
        # The empty tray is the still one between throws (a die lying unread must not be
        # taken into it, nor one that stops in the box before the other is read): from the
        # dice cleared away to the next die read since something moved, once still as long
        # as a die lies at rest. What is read before anything moved is the tray's own (a
        # highlight read as a cocked die from the camera's first frame, 481008).
        self._in_throw = self._in_throw or (bool(boxes) and self._first_motion is not None)
        if not self._in_throw and self._still_long(time):
            self._empty_tray.remember(grey, lit.copy())  # the frame's buffer may be reused
            self._throw_began = None
            # The view is watched on the empty tray: dice are the most of what a felt floor
            # shows, and two views with dice lying differently correlate at their offset.
            self.view_watch.check(grey, time)
        # A die missing from the readings may be in the box, or lie unread in plain view
        # (with no die read at all the watcher has nothing to count: not worth the search).
        unread: int | None = 0
        in_box_since: Stamp | None = None
        if 0 < len(boxes) < self.watcher.dice_per_throw:
            lying = self._lying_unread(grey, lit, boxes)
            # One lying unread inside the box is still in the box: dated from its own rest,
            # as a die read there is, when it came to rest in this throw.
            in_box = [p for p in lying or [] if self._zones.in_box(p)]
            unread = None if lying is None else len(lying) - len(in_box)
            began = self._throw_began
            if began is not None:
                rests_in_box = (self._rest_clock.still_since(p, boxes) for p in in_box)
                in_box_since = min((s for s in rests_in_box if s >= began), default=None)
        began = self._first_motion
        if began is not None:
            # A die dated before anything moved since the last dice were cleared away was not
            # seen arriving: its place looks as it did on the empty tray (a die's lower half
            # in the box's shadow, 93302, dated 44 frames before the throw). It lay still by
            # the time the tray did.
            settled = max(began, self._still_since or (frame, time))
            rests = [rest if rest >= began else settled for rest in rests]
        self._dice = self._surest.update(self._dice, rests, self._read_at)
        # A die called cocked in the open, with nothing to lean on, lies flat.
        dice = self._zones.flat_where_unpropped(self._dice, self.watcher.dice_per_throw)
        if self._first_motion is None:
            # Nothing has moved since the camera started or the dice were cleared away: no
            # throw was seen, and what lies read came to rest unseen, so no count can be
            # timed from its rest (5.4.32, 5.4.33).
            dice, rests = [], []
        events = self.watcher.update(frame, time, dice, motion, rests, unread, in_box_since)
        if any(event.kind is Kind.CLEARED for event in events):
            self._in_throw, self._first_motion = False, None
        return [self._in_frame(event) for event in events]

    def _throw_seen(self) -> bool:
        """Whether something moved in the tray since it was last seen empty (the camera's
        first frame, compared with nothing, is no motion)."""
        return self._throw_began is not None and self._first_motion is not None

    def _still_long(self, time: float) -> bool:
        """Whether the tray has been still as long as a die must lie to be at rest."""
        return (self._still_from is not None
                and time - self._still_from >= self.watcher.rest_seconds)

    def _in_frame(self, event: DiceEvent) -> DiceEvent:
        """The event with its die's box in the frame's pixels, not the crop's."""
        if event.box is None:
            return event
        x, y, w, h = event.box
        return replace(event, box=(x + self.box[0], y + self.box[1], w, h))

    def _lying_unread(self, grey: np.ndarray, lit: np.ndarray,
                      boxes: Sequence[Box]) -> list[Box] | None:
        """The die-sized changes from the empty tray that no reading (`boxes`) explains, in
        `grey` and `lit`, the crop levelled as the empty tray was remembered; None when the
        tray has not been seen empty. A die's shadow reaching past its reading
        is no die lying unread: taken for one, it kept the other die, unseen in the box, from
        being counted (164307)."""
        lying = self._empty_tray.unexplained(grey, boxes)
        if lying is None:
            return None
        return [place for place in lying if not self._empty_tray.shadow(lit, place)]

    def _read_missing(self, frame: int, time: float, crop: np.ndarray, lit: np.ndarray,
                      grey: np.ndarray) -> None:
        """Read the still tray again for a die missing from it (`find_missing`), or for the
        throw's dice when none was read: only a die found apart from those held is taken, the
        readings of the dice held stand."""
        self._missing_read = frame
        # The last full reading's too-wide boxes stay the ones to look closer into.
        found = find_missing(self._search, self.dice_reader, crop, self._zones, self._dice,
                             self.watcher.dice_per_throw - len(self._dice),
                             self.watcher.min_presence,
                             lambda read: self._not_the_tray(read, lit, self._dice),
                             self._whole_search)
        if not found:
            found = self._read_changes(crop, lit, grey)
        if not self._dice:
            # Nothing read since the throw (both dice in the box, a red die in a red box):
            # only a die that changed the tray seen empty before it is one of the throw's.
            found = [die for die in found if self._empty_tray.changed(lit, die.box)]
        if found:
            self._dice += found
            self._read_at = (frame, time)

    def _read_changes(self, crop: np.ndarray, lit: np.ndarray,
                      grey: np.ndarray) -> list[DieReading]:
        """The dice the detector does not propose at all, read in the boxes of the die-sized
        changes from the empty tray that no reading explains, out of the box and no shadow:
        a translucent green die against a dark wall in its shadow (193105), a yellow one
        leaning on the tray's yellow wall (131205). Each is read as the detector's candidate
        would be, and taken only as surely a die as a die found searching."""
        unread = self._lying_unread(grey, lit, [die.box for die in self._dice]) or []
        lying = [place for place in unread if not self._zones.in_box(place)]
        if not lying:
            return []
        read = self.dice_reader.read_boxes(crop, np.array(lying, np.float32),
                                           np.full(len(lying), SURELY_PROPOSED), self.view,
                                           self._zones)
        read, _ = self._zones.sort(self._not_the_tray(read, lit, self._dice))
        wanted = self.watcher.dice_per_throw - len(self._dice)
        return [die for die in read if die.presence >= self.watcher.min_presence][:wanted]

    def _in_zones(self, dice: list[DieReading], lit: np.ndarray) -> list[DieReading]:
        """The dice where dice are read, less cocked calls on the tray itself; a box wider
        than one die can look where it stands is no die's reading: it is kept to look closer
        into (`_too_wide`)."""
        kept, self._too_wide = self._zones.sort(self._not_the_tray(dice, lit))
        return kept

    def _not_the_tray(self, dice: list[DieReading], lit: np.ndarray,
                      beside: Sequence[DieReading] = ()) -> list[DieReading]:
        """The readings less those called cocked on the tray itself, each of which would
        void a good throw: on a die's shadow, the empty tray darkened (144001); or, out of
        the box, on the empty tray unchanged (161005: a highlight on the tray) or on a die's
        hard shadow beside it, framed with what lies round it, the other dice read and those
        held `beside` left out (481203). Not in the box: a die lying there unread while the
        tray was still between throws is part of the empty tray (a die in the tray so long
        unread would be too; none in 800 clips). `lit`: the crop levelled, as the empty tray
        was remembered."""
        def on_the_tray(die: DieReading) -> bool:
            if self._empty_tray.shadow(lit, die.box):
                return True
            if self._zones.lies_in_box(die):
                return False
            others = [other.box for other in (*dice, *beside) if other is not die]
            return (self._empty_tray.unchanged(lit, die.box)
                    or self._empty_tray.shade_beside(lit, die.box, others))

        return [die for die in dice if not (die.cocked and on_the_tray(die))]

    def _changed_share(self, before: np.ndarray | None, after: np.ndarray) -> float:
        """Share of the zones' pixels that changed visibly (1.0 with nothing to compare)."""
        if before is None:
            return 1.0
        return changed_pixels(before, after, self.mask) / self._zone_pixels


@dataclass
class DiceFeed:
    """Dice events from the tray's own camera, released to the board camera's observer once
    its frames reach their time (the two cameras' clocks are taken as one), and dated by the
    board camera's frame of that time, as every event in the log is."""

    fps: float  # the board camera's
    pending: deque[DiceEvent] = field(default_factory=deque)

    def put(self, events: Sequence[DiceEvent]) -> None:
        self.pending.extend(events)

    def discard(self) -> None:
        """Drop the events not yet released (the board frames they belong to are skipped)."""
        self.pending.clear()

    def update(self, frame: int, time: float, dice: Sequence[DieReading],
               moved: float) -> list[DiceEvent]:
        released = []
        while self.pending and self.pending[0].time <= time:
            event = self.pending.popleft()
            board_frame = max(0, frame - round((time - event.time) * self.fps))
            released.append(replace(event, frame=board_frame))
        return released


class TrayVideo:
    """A camera of its own over the tray, whose dice events reach the board camera's observer
    through `feed` (the observer's watcher).

    A recording is read up to the board camera's time before each board frame
    (`catch_up`); a live camera is read in a thread of its own as its frames come (`start`),
    timed on the board camera's clock (both sources share one `epoch`). A tray camera that
    fails or ends stops the dice, not the board: `problem` says why, as it says when the
    tray's view moved (the dice are not read until it is back), and, once, when its light
    flickers in bands (its frames are levelled; its anti-flicker setting should be set).
    """

    def __init__(self, source: VideoSource, calibration: TrayCalibration, board_fps: float,
                 dice_reader: DiceReading) -> None:
        self.calibration = calibration
        self.camera = TrayCamera(calibration.zones, dice_reader, calibration.frame_size())
        self.source = source
        self.frames = source.frames()
        self.feed = DiceFeed(board_fps)
        # Each frame's time and image once read (in the camera's thread, when live): the
        # evidence a throw voided on this camera's reading is cut from.
        self.on_frame: Callable[[float, np.ndarray], None] | None = None
        self.problem: str | None = None
        self._reported: str | None = None
        self._moved: str | None = None
        self._bands_told = False
        self._ahead: Frame | None = None

    def new_problem(self) -> str | None:
        """What went wrong with the tray camera since the last call (for the event log)."""
        problem = self.problem
        if problem is None or problem is self._reported:
            return None
        self._reported = problem
        return problem

    def catch_up(self, time: float) -> None:
        """A recording: read the tray's frames up to the board camera's `time`."""
        while True:
            if self._ahead is None:
                item = next(self.frames, None)
                if item is None:
                    return
                if isinstance(item, SourceEvent):
                    self.problem = item.detail
                    continue
                self._ahead = item
            if self._ahead.time > time:
                return
            frame, self._ahead = self._ahead, None
            try:
                self._observe(frame)
            except ValueError as error:  # the tray stops here; the board goes on
                self.problem, self.frames = str(error), iter(())

    def start(self, halted: Callable[[], bool]) -> threading.Thread:
        """A live camera: read it in a thread until it ends or `halted()`."""
        def read() -> None:
            try:
                for item in self.frames:
                    if halted():
                        return
                    if isinstance(item, SourceEvent):
                        self.problem = item.detail
                    else:
                        self._observe(item)
            except ValueError as error:  # a frame the tray calibration does not fit
                self.problem = str(error)

        thread = threading.Thread(target=read, name="tray-camera", daemon=True)
        thread.start()
        return thread

    def _observe(self, frame: Frame) -> None:
        self.calibration.check_size(frame.image, f"tray frame {frame.index}")
        self.feed.put(self.camera.observe(frame.index, frame.time, frame.image))
        if self.on_frame is not None:
            self.on_frame(frame.time, frame.image)
        moved = self.camera.moved
        if (moved is None) != (self._moved is None):
            self._moved = moved
            self.problem = (f"{moved}: the dice are not read until it is back or calibrated "
                            "again" if moved else "the tray's view is back where it was")
        elif self.camera.band_rows is not None and not self._bands_told:
            self._bands_told = True
            self.problem = bands_notice("tray camera", self.camera.band_rows)
