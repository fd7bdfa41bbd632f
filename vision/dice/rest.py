"""When each die came to rest: the first frame since which it has looked as it does now.

A die's 3-second count runs from the moment it comes to rest (5.4.32, 5.4.33), so that moment
is measured per die, at full resolution: a cocked die settling by a fraction of a millimetre
a frame, or one die still rolling while the other has stopped in the box, would otherwise
date the count frames late or early. Each die's surroundings in the current frame, less the
other dice's (one rolling up beside it moves nothing of this one), are compared with the last
few frames (not only the previous one: a slow creep adds up), after a blur that averages out
sensor noise but keeps a sub-pixel shift of the die's edges; only changes centred on the die
count (the other die rolling past unread changes its margin from outside). A die that has
lain still for a frame stays at rest while it looks as it did then, and as over the last
frames, up to a shift of half a pixel: a die leaning on another may quiver by less without
moving.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.dice.boxes import Box, box_area, centre_in, overlap, within
from vision.dice.reader import PART_OF_DIE, DieReading

Stamp = tuple[int, float]  # frame index, time in seconds

BLUR_SIGMA = 1.5  # pixels
BLUR_SIZE = 5  # the kernel's side: a third of the time of the full 11
CHANGED_LEVEL = 12  # grey levels of the blurred image: a static die's noise stays under 8
CHANGED_PIXELS = 8  # pixels over CHANGED_LEVEL: something moved
LOOK_BACK = 2  # frames compared with the current one to see a die move
# Frames kept to date a die read for the first time: as long as a still tray is read again for
# a die missing from it (vision/tray.py), so a die found only then is dated from its rest.
HISTORY = 120
# A die at rest has crept off once it lies half a pixel from where it lay this many frames
# ago (or when it came to rest, if later): slower than that it is still, as the eye sees it.
CREEP_FRAMES = 15
# In the box a die slides down the ramp by a pixel a second and more and is stopped there all
# the same (5.4.32): judged over fewer frames, its count does not start again every half
# second (72308, 93306). 5 frames counted dice still sliding into the box as stopped (68307).
IN_BOX_CREEP_FRAMES = 8
SAME_OVERLAP = 0.4  # intersection over union of two readings of one die at rest
ASIDE_KEPT = 8  # readings set aside (`SurestAtRest`), the newest
# In the box the camera sees a die through the exit, part of it hidden by the box's front: as
# it settles more or less of it shows, and a reading lying this much within the last one, or
# holding it, is of the same die (92302: a sliver read whole as it toppled restarted its
# count a second before the void). Not in the tray: there a box framing both touching dice
# holds each of them.
WITHIN = 0.8
NEIGHBOURS = np.ones((3, 3), np.uint8)  # a pixel and its eight neighbours
MARGIN = 0.25  # of a die's size around its box: a die's shadow and edges moving out of it
# Intersection over union under which two boxes are two dice touching, not one die read
# twice (two readings of one die overlap 0.4 or more, reader.FRAMED_ALIKE) nor a box framing both.
TOUCHING_OVERLAP = 0.1


def smoothed(image: np.ndarray) -> np.ndarray:
    """The grey image the comparisons are made on, from a BGR frame."""
    return cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (BLUR_SIZE, BLUR_SIZE),
                            BLUR_SIGMA)


def changed_pixels(before: np.ndarray, after: np.ndarray, mask: np.ndarray | None = None,
                   on: Box | None = None) -> int:
    """How many pixels (in `mask`, if given) of two `smoothed` images differ visibly; with
    `on` (a box in their pixels), only those of the changes centred on it."""
    changed = cv2.absdiff(before, after) > CHANGED_LEVEL
    if mask is not None:
        changed &= mask  # a quarter of the time of indexing by the mask
    return _count(changed, on)


def _count(changed: np.ndarray, on: Box | None) -> int:
    """The changed pixels, or with `on` those of the changes (8-connected) whose centre lies
    in that box: a die's own move changes its edges all round it; another thing moving past
    it changes pixels centred elsewhere."""
    total = int(np.count_nonzero(changed))
    if on is None or total == 0:
        return total
    _, _, stats, centres = cv2.connectedComponentsWithStats(changed.astype(np.uint8))
    x, y, w, h = on
    inside = ((centres[:, 0] >= x) & (centres[:, 0] <= x + w)
              & (centres[:, 1] >= y) & (centres[:, 1] <= y + h))
    inside[0] = False  # the unchanged background
    return int(stats[inside, cv2.CC_STAT_AREA].sum())


def moved_pixels(before: np.ndarray, after: np.ndarray, mask: np.ndarray | None = None,
                 on: Box | None = None) -> int:
    """How many pixels (in `mask`, if given) of two `smoothed` images differ by more than a
    shift of half a pixel explains: `after` outside the range of `before` moved half a pixel
    any way. Moved so, a pixel becomes the mean of itself and a neighbour, so the range runs
    from the mean with its darkest neighbour to the mean with its brightest. With `on`, only
    the moves centred on that box count."""
    high = cv2.addWeighted(before, 0.5, cv2.dilate(before, NEIGHBOURS), 0.5, 0.0)
    low = cv2.addWeighted(before, 0.5, cv2.erode(before, NEIGHBOURS), 0.5, 0.0)
    moved = (cv2.subtract(after, high) > CHANGED_LEVEL) | (cv2.subtract(low, after) > CHANGED_LEVEL)
    if mask is not None:
        moved &= mask
    return _count(moved, on)


@dataclass
class RestClock:
    """Feed it every frame in order (`update`); it answers, for each die seen, when the die
    came to rest (the current frame while it moves)."""

    look_back: int = LOOK_BACK
    history: int = HISTORY
    creep_frames: int = CREEP_FRAMES
    in_box_creep_frames: int = IN_BOX_CREEP_FRAMES
    _frames: deque[tuple[Stamp, np.ndarray]] = field(init=False)
    _rested: list[tuple[Box, Stamp]] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self._frames = deque(maxlen=max(self.history, self.look_back) + 1)

    def update(self, stamp: Stamp, image: np.ndarray, boxes: Sequence[Box],
               in_box: Sequence[bool] | None = None) -> list[Stamp]:
        """`image`: the frame's `smoothed` grey; `boxes`: the dice in its pixels; `in_box`:
        which of them lie inside the baffle box."""
        if self._frames and self._frames[-1][1].shape != image.shape:
            self._frames.clear()
        self._frames.append((stamp, image))
        earlier = list(self._frames)[-2::-1]  # the newest first
        inside = in_box or [False] * len(boxes)
        rests = [self._rest(box, image, [*boxes[:i], *boxes[i + 1:]], earlier,
                            [since for seen, since in self._rested if _same_place(seen, box)
                             or (inside[i] and _nested(box, seen))],
                            self.in_box_creep_frames if inside[i] else self.creep_frames)
                 for i, box in enumerate(boxes)]
        self._rested = list(zip(boxes, rests, strict=True))
        return rests

    def still_since(self, box: Box, others: Sequence[Box]) -> Stamp:
        """Since when `box` (in the last frame's pixels; `others`, the dice read) has looked
        as it does now, as a die read there for the first time would be dated; not
        remembered as a die's."""
        image = self._frames[-1][1]
        return self._rest(box, image, others, list(self._frames)[-2::-1], [],
                          self.creep_frames)

    def _rest(self, box: Box, image: np.ndarray, others: Sequence[Box],
              earlier: Sequence[tuple[Stamp, np.ndarray]], carried: Sequence[Stamp],
              creep_frames: int) -> Stamp:
        """`others`: the other dice's boxes. The die's surroundings are its own: the other die
        rolling up beside it, or its shadow, moves none of it. `earlier`: the frames kept
        before this one, the newest first; `carried`: when the readings of the last frame in
        the same place came to rest."""
        left, top, right, bottom = _around(box, image.shape)
        mine = np.ones((bottom - top, right - left), bool)
        for other in others:
            x0, y0, x1, y1 = _around(other, image.shape)
            mine[max(y0 - top, 0):max(y1 - top, 0), max(x0 - left, 0):max(x1 - left, 0)] = False
        x, y, w, h = box
        mine[max(int(y) - top, 0):int(np.ceil(y + h)) - top,
             max(int(x) - left, 0):int(np.ceil(x + w)) - left] = True
        for other in others:
            # A die touching this one is framed with a pixel or two of this one's box: its
            # arrival there is its own move, not this one's.
            if overlap(box, other) < TOUCHING_OVERLAP:
                x0, y0, x1, y1 = _around(other, image.shape, margin=0.0)
                mine[max(y0 - top, 0):max(y1 - top, 0), max(x0 - left, 0):max(x1 - left, 0)] = False
        mask = None if mine.all() else mine
        now = image[top:bottom, left:right]
        # Only changes centred on the die are its own: the other die rolling past unread, or
        # between its readings out of its box, changes the margin from outside.
        on = (x - left, y - top, w, h)
        # Moving is judged over the last few frames (a die creeping slower than that counts as
        # lying still); a die read here for the first time, or moving up to the last frame, is
        # dated as far back as its surroundings, less the other dice's as read now, look the
        # same (one just framed apart from its neighbour, say, or one the other die, unread
        # while it rolled up beside it, seemed to move).
        rest = self._frames[-1][0]
        if len(earlier) > 1 and carried and min(carried) < earlier[0][0]:
            # At rest for a frame or more: it stays so while it looks as it did then, up to
            # half a pixel's shift (a die leaning on another quivers by a fraction of a pixel).
            since = min(carried)
            # the last frames, and the oldest since it came to rest up to creep_frames back: a
            # creep adds up
            references = [before for _, before in earlier[:self.look_back]]
            # (the newest first: those since it came to rest lead)
            settled = sum(stamp >= since for stamp, _ in earlier[:creep_frames])
            if settled > self.look_back:
                references.append(earlier[settled - 1][1])
            if any(moved_pixels(before[top:bottom, left:right], now, mask, on) >= CHANGED_PIXELS
                   for before in references):
                return rest
            return since
        for stamp, before in earlier:
            if changed_pixels(before[top:bottom, left:right], now, mask, on) >= CHANGED_PIXELS:
                return rest
            rest = stamp
        return min([rest, *carried])


def _around(box: Box, shape: tuple[int, ...], margin: float = MARGIN) -> tuple[int, int, int, int]:
    """A die's surroundings in the image: its box and a margin (of its size) for its shadow
    and edges (left, top, right, bottom pixels, within the image)."""
    x, y, w, h = box
    margin *= max(w, h)
    height, width = shape[:2]
    return (max(int(x - margin), 0), max(int(y - margin), 0),
            min(int(np.ceil(x + w + margin)), width), min(int(np.ceil(y + h + margin)), height))


@dataclass
class SurestAtRest:
    """A die lying still is read again whenever the tray changes around it (the other die
    rolling, a creep of a fraction of a pixel a frame adding up). Every such reading is of the
    same die lying the same way, so the surest one since it came to rest stands: a die on the
    edge between cocked and flat does not flip on a re-read and cancel its count."""

    _kept: list[tuple[DieReading, Stamp]] = field(default_factory=list, init=False)
    # Readings set aside, each with a frame the die lay there on: made before the die's rest
    # as dated then, or kept until it was seen to move. A die dated back to that frame or
    # before lay as it lies all along, and the reading stands (361209: a flat 1 read at frame
    # 2, its rest dated from 4 while the other die landed beside it, then from 0 once that
    # one fell past it, read cocked 0.55 as it did: a count from frame 0 to a void).
    _aside: deque[tuple[DieReading, Stamp]] = field(
        default_factory=lambda: deque(maxlen=ASIDE_KEPT), init=False)

    def missing(self, dice: Sequence[DieReading]) -> list[tuple[DieReading, Stamp]]:
        """The dice kept at rest, with their moments of rest, that `dice` (a new reading) does
        not read where they lie: a re-reading made while the other die rolls past may miss
        one, or frame it together with its neighbour. A part of a die kept as a die of its own
        (a closer look framed a die's lower half and its top face apart, 302309) is not missing
        once the die it is part of is read whole."""
        return [(kept, since) for kept, since in self._kept
                if not any(_same_place(kept.box, die.box) for die in dice)
                and not self._part_of_one_read(kept.box, dice)]

    def _part_of_one_read(self, part: Box, dice: Sequence[DieReading]) -> bool:
        """Whether `part` lies within a die read now (`part_of`) where a kept die lies that
        `part` was read beside, not within, and is under PART_OF_DIE the size of. Not so the
        dice within a box framing two touching dice (kept or read now): each is a die of its
        own, and neither is so much smaller than the other."""
        return any(part_of(part, die.box) and any(
            _same_place(kept.box, die.box) and not part_of(part, kept.box)
            and box_area(part) < PART_OF_DIE * box_area(kept.box)
            for kept, _ in self._kept) for die in dice)

    def update(self, dice: Sequence[DieReading], rests: Sequence[Stamp],
               read_at: Stamp) -> list[DieReading]:
        """`rests`: each die's moment of rest (`RestClock.update`); `read_at`: the frame the
        readings were made on (the dice are not read on every frame)."""
        steady = []
        unused = list(self._kept)
        for die, since in zip(dice, rests, strict=True):
            # Only the die itself: a box framing two dice at once is centred elsewhere.
            same = next((entry for entry in unused
                         if entry[1] == since and centred_alike(entry[0].box, die.box)), None)
            if same is not None:
                unused.remove(same)
            else:  # read again framed wider (with the other's shadow), it still overlaps
                same = next((entry for entry in self._aside
                             if since <= entry[1] and _same_place(entry[0].box, die.box)), None)
            if same is not None:
                kept = same[0]
                if box_area(die.box) < PART_OF_DIE * box_area(kept.box):
                    die = kept  # a face of it framed alone, not the die read again
                elif kept.confidence > die.confidence:
                    die = replace(kept, box=die.box, framed_box=die.framed_box)
            steady.append(die)
        # A reading made before the die came to rest (still tumbling) is of another look.
        resting = [(die, since) for die, since in zip(steady, rests, strict=True)
                   if read_at >= since]
        aside = [*((die, read_at) for die, since in zip(steady, rests, strict=True)
                   if read_at < since), *(entry for entry in self._kept if entry not in resting)]
        self._aside.extend(entry for entry in aside if entry not in self._aside)
        self._kept = resting
        return steady


def centred_alike(a: Box, b: Box, share: float = 0.2) -> bool:
    """Centres within `share` of a die (the larger box's longer side; a fifth unless told) of
    each other."""
    distance = np.hypot(a[0] + a[2] / 2 - b[0] - b[2] / 2, a[1] + a[3] / 2 - b[1] - b[3] / 2)
    return bool(distance <= share * max(a[2], a[3], b[2], b[3]))


def part_of(a: Box, b: Box) -> bool:
    """Whether `a` frames a part of the die `b` frames (its top face alone, or its front
    face: 144309's, read 4 at 0.31, half out of the die's box): under PART_OF_DIE its size,
    and lying mostly (WITHIN) inside it or centred in it. A die leaning on another, its
    centre in the other's box, is no smaller than it (79202)."""
    return box_area(a) < PART_OF_DIE * box_area(b) and (_nested(a, b) or centre_in(a, b))


def _same_place(a: Box, b: Box) -> bool:
    """Whether two boxes frame one die that has not moved: centres within a fifth of a die,
    or mostly overlapping (a die read again framed with its neighbour, or apart from it)."""
    return centred_alike(a, b) or overlap(a, b) >= SAME_OVERLAP


def _nested(a: Box, b: Box) -> bool:
    """Whether one box lies mostly (WITHIN) inside the other."""
    return within(a, b, WITHIN)
