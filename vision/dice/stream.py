"""Follow the dice over a stream of tray-camera frames and time the 3-second rules.

The watcher takes, per frame, its timestamp, the dice read in it and how much the tray moved
since the previous frame. It decides when the dice are at rest, reads them over several
frames, and emits events: the roll read; a die cocked (5.4.33) or stopped inside the baffle
box (5.4.32), which starts a 3-second count; the throw void when the count runs out; the count
cancelled when the die falls or moves on. Every time comes from the frame timestamps, so a
recording gives the same answers as the live camera. A die that moves after the roll was read
(a cocked die read as flat falls, 5.4.33: the throw stands as it fell) is read again where it
comes to rest, and a different roll is announced as changed; one that, lying as it lay when
the roll was read, is read surer cocked later (vision/dice/rest.py keeps the surest reading
of a die at rest) starts the count late, dated from when it came to rest. A cocked die that
shifts and lies cocked where it lay has not fallen: its count runs on (whether it fell is
seen once it lies still again, and a count that ends is dated by the frame it began to move).
"""

from __future__ import annotations

import enum
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from vision.dice.boxes import Box, box_area, intersection
from vision.dice.reader import PART_OF_DIE, DieReading
from vision.dice.rest import centred_alike
from vision.dice.zones import DiceZones

VOID_AFTER_SECONDS = 3.0  # 5.4.32, 5.4.33
DICE_PER_THROW = 2  # both dice together (5.4.16)
MIN_PRESENCE = 0.35  # less surely a die: a faint reading, no count nor roll of its own
# Frame times are floats: at 30 fps frame 123's time less frame 33's falls 4e-16 s short of 3 s,
# which left one count in seven voided a frame late.
TIME_SLACK = 1e-6
# Readings voted on at most: a die left unread for minutes would otherwise grow the vote, and
# the count over it, every frame.
VOTES_KEPT = 30
TOUCHING = 1.3  # dice whose centres lie within this many dice of each other touch
# A die balanced on an edge twitches: the camera sees it move by a pixel or two, and read
# again it may read flat, unsurely. One that falls reads flat surely: over the cocked clips of
# seeds 131000-154309, of 117 counted dice that fell none lay within TWITCH of a die of where
# it was counted and read flat under FELL_SURE; the one die that twitched (154108, 0.01 of a
# die) read 1 at 0.61, and its count was cancelled 51 frames before its void.
TWITCH = 0.1
FELL_SURE = 0.8
# A die read flat this surely in the tray measures the throw's dice there: a reading in the
# tray under PART_OF_DIE of its width at the foot (tray floor's millimetres, where the
# camera's perspective is undone) is a part of a die. Over the 295 clips of 481000-488309
# that read any, 2,209 whole dice against the widest such die read 0.62 of it or more;
# 487205's pip-framed black 1, called cocked 0.57, read 0.41 and voided a good throw.
MEASURES_SURE = 0.8


class Kind(enum.Enum):
    ROLLING = "dice_rolling"
    ROLL_READ = "roll_read"
    ROLL_CHANGED = "roll_changed"
    COCKED = "die_cocked"
    IN_BOX = "die_in_box"
    VOID = "throw_void"
    CANCELLED = "count_cancelled"
    CLEARED = "dice_cleared"


# What a count's event says started it.
WHY = {Kind.COCKED: "a die cocked", Kind.IN_BOX: "a die stopped in the box"}
# What a roll says of a die read flat at the box's exit: there a die leaning a few degrees on
# the lip looks flat from above, and the reader misses most such dice (models/dice/cocked.md).
AT_EXIT = "a die at the box's exit: look whether it leans on the lip"


class Count(NamedTuple):
    """A 3-second count as started: since when, its reason, what started it, where the die
    lay and how surely it lies so (both None: a die not out of the box, unseen)."""

    since: tuple[int, float]
    reason: Kind
    why: str
    box: Box | None
    sure: float | None


@dataclass(frozen=True, slots=True)
class DiceEvent:
    kind: Kind
    frame: int
    time: float
    values: tuple[int, ...] = ()
    # A roll's confidence; a count's and a void's, how surely the die counted lies so (cocked,
    # or a die at all in the box); None for every other event and a die counted unseen.
    confidence: float | None = None
    rule: str | None = None
    detail: str = ""
    # The die a count is for, the one whose count voids the throw, and on a roll a die at
    # the box's exit (x, y, w, h pixels): which die the judges are shown. None for every
    # other event, and for a die counted unseen in the box.
    box: Box | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": self.kind.value, "frame": self.frame,
                                "time": round(self.time, 3)}
        if self.values:
            data["values"] = list(self.values)
        if self.confidence is not None:
            data["confidence"] = round(self.confidence, 4)
        if self.rule:
            data["rule"] = self.rule
        if self.detail:
            data["detail"] = self.detail
        if self.box is not None:
            data["box"] = [round(float(value), 1) for value in self.box]
        return data


@dataclass(frozen=True, slots=True)
class _Resting:
    """A die seen in this frame, with the frame since which it has lain as it does now."""

    die: DieReading
    since: tuple[int, float]
    reason: Kind | None  # COCKED or IN_BOX when its lying there starts a 3-second count


@dataclass
class DiceWatcher:
    """The state machine; feed it every frame in order with `update`.

    Each die has its own moment of rest: a die stopped in the box starts the count while the
    other still rolls. A die that never comes out of the box (out of the camera's sight) is
    counted from the moment the throw is otherwise over: the other die at rest, the tray
    still. One count per throw: it ends when no die is cocked, in the box or missing any
    more, and the throw is void as soon as one has lain so for 3 seconds."""

    zones: DiceZones | None = None
    dice_per_throw: int = DICE_PER_THROW
    still_below: float = 0.002  # motion under this share of pixels is "still"
    rest_seconds: float = 0.2  # still this long: the die is at rest
    # A die out of sight may still be rolling in the box: the tray is still this long before
    # it is counted as not out of the box (dated all the same from when the tray stopped).
    unseen_seconds: float = 1.0
    vote_frames: int = 3  # frames read at rest before announcing the roll
    min_presence: float = MIN_PRESENCE
    _still_since: tuple[int, float] | None = None
    _last: tuple[int, float] | None = None  # the previous frame
    _rolling: bool = False
    _announced: bool = False
    # (values, the least sure die's confidence) per frame read at rest
    _votes: deque[tuple[tuple[int, ...], float]] = field(
        default_factory=lambda: deque(maxlen=VOTES_KEPT))
    _count: Count | None = None  # as started
    _count_moved: tuple[int, float] | None = None  # when the cocked die counted was seen to move
    _roll: tuple[tuple[int, ...], list[Box]] | None = None  # as announced: values, where read
    _roll_rest: tuple[int, float] | None = None  # the moment the dice of the roll lay so
    _empty_since: float | None = None
    _most_out: int = 0  # dice known at once out of the box since the last throw was cleared
    # Since when a die has been missing, out of sight in the box, with the throw otherwise
    # over: the other die moving later (a cocked die falling) does not bring it out.
    _missing_since: tuple[int, float] | None = None
    _unread_since: float | None = None  # a thing unread filling the throw while one is counted

    def update(
        self, frame: int, time: float, dice: Sequence[DieReading], moved: float,
        rests: Sequence[tuple[int, float]] | None = None, unread: int | None = 0,
        in_box_since: tuple[int, float] | None = None,
    ) -> list[DiceEvent]:
        """`moved`: the share of the tray's pixels that changed since the last frame;
        `rests`: for each die, the first frame (index, time) since which it has lain as it
        does now (vision/dice/rest.py), without them every die rests since the tray last
        moved; `unread`: things lying in view that no reading explains (vision/dice/
        empty_tray.py), None when unknown: a die is counted as not out of the box only when
        these and the dice read now, and the most dice read at once out of the box in this
        throw, are too few; `in_box_since`: since when an unread change inside the box, the
        missing die's sliver, has lain as it does (its count runs from then, as a die read in
        the box would)."""
        moving = moved >= self.still_below
        if moving:
            self._still_since = None
        elif self._still_since is None:
            # Still since the frame before, the first to show the tray as it is now (the
            # moment a die comes to rest is dated so too: vision/dice/rest.py).
            self._still_since = self._last or (frame, time)
        self._last = (frame, time)
        if rests is None:
            rests = [self._still_since or (frame, time)] * len(dice)
        whole = _whole_dice(dice, self.dice_per_throw, self.min_presence, self.zones)
        dice, rests = [dice[i] for i in whole], [rests[i] for i in whole]
        read = _one_leaning_per_pair(
            [_Resting(d, rest, self._reason(d)) for d, rest in zip(dice, rests, strict=True)])
        # Faint readings are a hand's knuckle or a shadow far more often than a die; a die read
        # with doubt about its face or tilt alone is seen (it may start a count).
        seen = [r for r in read if r.die.presence >= self.min_presence]
        if not seen:
            return [] if moving else self._maybe_cleared(frame, time)
        self._empty_since = None
        at_rest = [r for r in read if time - r.since[1] >= self.rest_seconds]
        seen_at_rest = [r for r in at_rest if r in seen]
        # Dice never go back into the box: once all were seen out of it, or the one unread
        # was leant on out of it, none is missing there.
        self._most_out = max(self._most_out, _apart_count(
            [r.die.box for r in read if r.reason is not Kind.IN_BOX])
            + self._leant_on(seen_at_rest, read))
        lying = None if unread is None else max(len(dice) + unread, self._most_out)
        if lying is not None:
            lying = self._unread_settled(time, max(len(dice), self._most_out), lying)
        events = self._counts(frame, time, seen, seen_at_rest, lying, in_box_since)
        if any(r.since[0] == frame for r in seen):  # a die moved in this frame
            if not self._rolling and not self._announced:
                self._rolling = True
                events.append(DiceEvent(Kind.ROLLING, frame, time))
        elif all(r in at_rest for r in seen):
            self._rolling = False
        if self._count is None and not self._announced:
            # Too few sure dice: the faint one is read too, its doubt in the roll's confidence
            # (the referee re-reads a doubtful roll from the board when the move disagrees).
            dice_of_roll = seen if len(seen) >= self.dice_per_throw else read
            events += self._read_roll(frame, time, dice_of_roll, at_rest)
        elif self._count is None and self._roll is not None:
            # Read again only from sure dice: a hand picking the dice up is no new roll.
            events += self._read_roll(frame, time, seen, at_rest)
        return events

    def _leant_on(self, resting: Sequence[_Resting], read: Sequence[_Resting]) -> int:
        """The unread dice that the `resting` dice read cocked lean on: one standing on an
        edge where nothing else could hold it (no wall, no die `read` near it) leans on the
        throw's die missing from the reading, which lies in view beside it, not in the box
        (342202: a white die on a cream tray, unseen under the one cocked on it, was counted
        as not out of the box and the throw voided)."""
        if self.zones is None:
            return 0
        zones = self.zones
        return sum(1 for r in resting if r.reason is Kind.COCKED and not zones.propped(
            r.die.where, [other.die.where for other in read if other is not r]))

    def _unread_settled(self, time: float, read: int, lying: int) -> int:
        """The dice lying in view (`read`, and those unread in `lying`), an unread thing that
        would end the count of a die not out of the box taken only once it has lain there
        rest_seconds: a flicker against the empty tray (a shadow's edge near the change
        threshold) would cancel and start that count again frame after frame."""
        if (self._count is None or self._count.box is not None
                or not read < self.dice_per_throw <= lying):
            self._unread_since = None
            return lying
        if self._unread_since is None:
            self._unread_since = time
        return lying if time - self._unread_since >= self.rest_seconds else read

    def _reason(self, die: DieReading) -> Kind | None:
        # A die stopped inside the box voids the throw however it lies (5.4.32): on the box's
        # slanted ramp a flat die looks tilted, so only a die in the tray is judged cocked.
        # Where it lies, on the box's exit, is judged on the framer's box where there is one.
        if self.zones is not None and self.zones.lies_in_box(die):
            return Kind.IN_BOX
        return Kind.COCKED if die.cocked else None

    def _counts(self, frame: int, time: float, seen: Sequence[_Resting],
                at_rest: Sequence[_Resting], lying: int | None,
                in_box_since: tuple[int, float] | None = None) -> list[DiceEvent]:
        """Start, run out or cancel the throw's 3-second count. `lying`: the dice in view,
        read with any confidence (a faint reading is a die too unsure to read, not a
        missing one) or lying unread; None when unknown."""
        # each die that would void the throw
        counts = [Count(r.since, r.reason, WHY[r.reason], r.die.box, _sureness(r))
                  for r in at_rest if r.reason is not None]
        still = self._still_since
        tray_at_rest = still is not None and time - still[1] >= self.unseen_seconds
        missing = lying is not None and lying < self.dice_per_throw
        if lying is not None and not missing:
            self._missing_since = None
        if missing and len(at_rest) == len(seen):
            if tray_at_rest:
                assert still is not None
                since = in_box_since or max([still, *(r.since for r in seen)])
                self._missing_since = min(since, self._missing_since or since)
            # Once counted, a die missing in the box stays counted while the tray stirs (a die
            # sliding a pixel down the ramp unread, 124307), until a second die lies in view.
            if self._missing_since is not None:
                counts.append(Count(self._missing_since, Kind.IN_BOX,
                                    "a die not out of the box", None, None))
        if self._count is None:
            if self._announced:
                # The roll was read, but a die lying as it lay then now reads surer cocked
                # (or in the box): the count runs from when it came to rest, as a judge
                # watching it would have counted.
                rest = self._roll_rest
                counts = [c for c in counts if rest is not None and c.since <= rest]
            if not counts:
                return []
            return [self._start(min(counts, key=lambda c: c.since))]
        counted, moved_at = self._count, self._count_moved
        if counted.box is None and any(r not in at_rest and r.reason is Kind.IN_BOX
                                      for r in seen):
            return []  # the die counted unseen in the box, read there while its rest is dated
        same = [c for c in counts if _continues(c, counted)]
        if same:  # the die the count runs for: from its first start, as surely as read since
            readings = [c.sure for c in (*same, counted) if c.sure is not None]
            counted = self._count = counted._replace(sure=max(readings) if readings else None)
            counts = [c for c in counts if c not in same] + [counted]
        if not counts and ((moved_at is None and _lies_as_counted(at_rest, counted))
                           or _twitched(at_rest, counted)):
            # A cocked die read flat now while lying as it lay when its count began, or
            # having only twitched there: a die on the edge between the two calls has not
            # fallen (5.4.33). Such re-readings had cancelled counts 2-10 frames before their
            # voids (77104, 94104, 104100), never a false one. (A die counted in the box and
            # now framed out of it may have been judged in the box wrongly: that count ends,
            # 104305.)
            counts = [counted]
            self._count_moved = moved_at = None
        if moved_at is not None and counts:
            self._count_moved = None
            if not same:  # the cocked die moved on: its count ended when it moved
                return [self._cancel(*moved_at, "the die moved"),
                        self._start(min(counts, key=lambda c: c.since))]
        if counts:
            since, reason, why, box, sure = min(counts, key=lambda c: c.since)
            if time - since[1] < VOID_AFTER_SECONDS - TIME_SLACK:
                return []
            if since == counted.since:
                # The die the count started for, read again (framed with its neighbour, say):
                # the void cites what was seen when the count started.
                _, reason, why, box, sure = counted
            self._count = self._roll = self._roll_rest = None
            self._announced = True
            # Dated, as the count is, by the frame that shows it: 3 s after the die came to
            # rest, though a surer reading showed the count only later.
            frame, time = _after(since, (frame, time), VOID_AFTER_SECONDS)
            return [DiceEvent(Kind.VOID, frame, time, confidence=sure, rule=_rule(reason),
                              detail=f"{why} for 3 seconds", box=box)]
        if any(r not in at_rest for r in seen):
            if counted.reason is not Kind.COCKED:
                return [self._cancel(frame, time, "the die moved")]
            # Whether a cocked die that moves has fallen is seen once it lies still again (one
            # settling by a pixel has not); if it has, the count ended when it moved.
            if self._count_moved is None:
                self._count_moved = (frame, time)
            return []
        if moved_at is not None:
            return [self._cancel(*moved_at, "the die moved")]
        if counted.box is None:  # the die counted unseen in the box
            return [self._cancel(frame, time, "the die lies out of the box now")]
        return [self._cancel(frame, time, "the die reads flat in the tray now")]

    def _start(self, count: Count) -> DiceEvent:
        self._count, self._count_moved = count, None
        since, reason, why, box, sure = count
        return DiceEvent(reason, since[0], since[1], confidence=sure, rule=_rule(reason),
                         detail=f"{why}: 3-second count started", box=box)

    def _read_roll(self, frame: int, time: float, seen: Sequence[_Resting],
                   at_rest: Sequence[_Resting]) -> list[DiceEvent]:
        """The roll, once the dice are at rest; after it, again where a die has moved to."""
        # A throw has two dice: a third reading is far likelier a false detection.
        surest = sorted(seen, key=lambda r: r.die.confidence, reverse=True)[:self.dice_per_throw]
        if any(r not in at_rest or r.reason is not None for r in surest):
            return []
        if self._roll is not None and all(
                any(centred_alike(r.die.box, box) for box in self._roll[1]) for r in surest):
            self._votes.clear()  # the dice lie where the roll was read (a hand passed over)
            return []
        values = tuple(sorted(r.die.value for r in surest if r.die.value is not None))
        self._votes.append((values, min(r.die.confidence for r in surest)))
        if len(self._votes) < self.vote_frames:
            return []
        best, seen_times = Counter(values for values, _ in self._votes).most_common(1)[0]
        if len(best) != self.dice_per_throw:
            return []
        confidence = seen_times / len(self._votes) * float(
            np.median([sure for _, sure in self._votes]))
        self._votes.clear()
        before, self._roll = self._roll, (best, [r.die.box for r in surest])
        self._announced = True
        # Dated like every event by the first frame that shows it: the last die at rest.
        self._roll_rest = rest_frame, rest_time = max(r.since for r in surest)
        if before is not None and before[0] == best:
            return []
        kind = Kind.ROLL_READ if before is None else Kind.ROLL_CHANGED
        at_exit = next((r.die.box for r in surest if self.zones is not None
                        and self.zones.at_exit(r.die.where)), None)
        details = ["a die moved after the roll was read"] if before is not None else []
        details += [AT_EXIT] if at_exit is not None else []
        return [DiceEvent(kind, rest_frame, rest_time, best, confidence,
                          detail="; ".join(details), box=at_exit)]

    def _cancel(self, frame: int, time: float, why: str) -> DiceEvent:
        self._count = self._count_moved = None
        self._votes.clear()
        return DiceEvent(Kind.CANCELLED, frame, time, detail=why)

    def _maybe_cleared(self, frame: int, time: float) -> list[DiceEvent]:
        """Dice picked up after a roll: ready for the next throw."""
        if not (self._announced or self._count or self._votes):
            return []
        if self._empty_since is None:
            self._empty_since = time
            return []
        if time - self._empty_since < self.rest_seconds:
            return []
        self._announced, self._count, self._empty_since, self._roll = False, None, None, None
        self._roll_rest = self._count_moved = None
        self._rolling, self._most_out, self._missing_since = False, 0, None
        self._votes.clear()
        return [DiceEvent(Kind.CLEARED, frame, time)]


def _whole_dice(dice: Sequence[DieReading], per_throw: int, min_presence: float,
                zones: DiceZones | None = None) -> list[int]:
    """Which readings are whole dice: with more dice surely read than a throw has, one under
    PART_OF_DIE the size of the smallest of the largest `per_throw` of those is a part of a die
    (a corner between the two dice read alone: 98005's, 14 px against 20 and 26, read cocked
    and voided a good throw), not a die. A faint reading (a hand's knuckle, however large)
    measures no die: a sliver of a die in the box beside it stays. Where `zones` know the
    tray's size, a reading in the tray narrower than PART_OF_DIE of a die read flat there
    MEASURES_SURE is a part too, however many are read."""
    areas = [box_area(die.box) for die in dice]
    sure = sorted((area for area, die in zip(areas, dice, strict=True)
                   if die.presence >= min_presence), reverse=True)
    whole = list(range(len(dice))) if len(sure) <= per_throw else [
        i for i, area in enumerate(areas) if area >= PART_OF_DIE * sure[per_throw - 1]]
    if zones is None:
        return whole
    widths = [None if zones.in_box(die.box) else zones.width_mm(die.box) for die in dice]
    measures = [width for width, die in zip(widths, dice, strict=True) if width is not None
                and not die.cocked and die.confidence >= MEASURES_SURE
                and not zones.too_wide(die.box)]
    if not measures:
        return whole
    narrowest = PART_OF_DIE * max(measures)
    return [i for i in whole if (width := widths[i]) is None or width >= narrowest]


def _one_leaning_per_pair(read: list[_Resting]) -> list[_Resting]:
    """Of two touching dice both read cocked, the one read less surely so is taken for the
    die the other leans on, lying flat: the crop of a die with another leaning on it shows
    that one's tilt beside it, and two dice leaning on each other are rare. The count runs
    for the surer one (a flat die counted in its place would void a good throw)."""
    cocked = [r for r in read if r.reason is Kind.COCKED]
    support = {id(min(a, b, key=lambda r: r.die.confidence))
               for i, a in enumerate(cocked) for b in cocked[i + 1:]
               if centred_alike(a.die.box, b.die.box, TOUCHING)}
    return [_Resting(r.die, r.since, None) if id(r) in support else r for r in read]


def _sureness(resting: _Resting) -> float:
    """How surely a die counted lies as counted: a cocked die, as its reading is sure of it
    (the cocked call); a die in the box voids the throw however it lies (5.4.32), so there,
    how surely it is a die at all."""
    die = resting.die
    return die.confidence if resting.reason is Kind.COCKED else die.presence


def _apart_count(boxes: Sequence[Box]) -> int:
    """How many dice `boxes` frame, any two that overlap counted as one: a rolling die
    blurred is often read twice, in boxes that overlap (284303: one die read as two out of
    the box, so the other, stopped out of sight in it, was never counted)."""
    dice: list[Box] = []
    for box in boxes:
        if not any(intersection(box, other) > 0 for other in dice):
            dice.append(box)
    return len(dice)


def _lies_as_counted(at_rest: Sequence[_Resting], counted: Count) -> bool:
    """Whether the cocked die a running count is for lies at rest where it lay when the
    count began, not having moved since."""
    box = counted.box
    return counted.reason is Kind.COCKED and box is not None and any(
        centred_alike(r.die.box, box) and r.since <= counted.since for r in at_rest)


def _twitched(at_rest: Sequence[_Resting], counted: Count) -> bool:
    """Whether the cocked die a running count is for lies within TWITCH of a die of where
    it was counted, read flat under FELL_SURE: it twitched on its edge, it has not fallen."""
    box = counted.box
    return counted.reason is Kind.COCKED and box is not None and any(
        centred_alike(r.die.box, box, TWITCH) and not r.die.cocked
        and r.die.confidence < FELL_SURE for r in at_rest)


def _continues(count: Count, counted: Count) -> bool:
    """Whether `count` is of the die the running count `counted` is for. A die counted
    unseen in the box and now read there is; so is a cocked die that shifted and lies cocked
    where it lay: it has not fallen (5.4.33). A die in the box that moved at all has moved on
    (5.4.32)."""
    box, counted_box = count.box, counted.box
    if counted_box is None:
        return count.reason is Kind.IN_BOX
    return (counted.reason is Kind.COCKED and count.reason is Kind.COCKED and box is not None
            and centred_alike(box, counted_box))


def _after(since: tuple[int, float], now: tuple[int, float],
           seconds: float) -> tuple[int, float]:
    """The frame `seconds` after `since`, estimated at the frame rate between the two; `now`
    itself when that is it or the frame before."""
    (first, start), (frame, time) = since, now
    then = first + round((frame - first) * seconds / (time - start))
    return now if then >= frame - 1 else (then, start + seconds)


def _rule(reason: Kind) -> str:
    return "5.4.33" if reason is Kind.COCKED else "5.4.32"
