"""Follow the dice over a stream of tray-camera frames and time the 3-second rules.

The watcher takes, per frame, its timestamp, the dice read in it and how much the tray moved
since the previous frame. It decides when the dice are at rest, reads them over several
frames, and emits events: the roll read; a die cocked (5.4.33) or stopped inside the baffle
box (5.4.32), which starts a 3-second count; the throw void when the count runs out; the count
cancelled when the die falls or moves on. Every time comes from the frame timestamps, so a
recording gives the same answers as the live camera.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.dice.reader import DieReading
from vision.dice.zones import DiceZones

VOID_AFTER_SECONDS = 3.0  # 5.4.32, 5.4.33


class Kind(enum.Enum):
    ROLLING = "dice_rolling"
    ROLL_READ = "roll_read"
    COCKED = "die_cocked"
    IN_BOX = "die_in_box"
    VOID = "throw_void"
    CANCELLED = "count_cancelled"
    CLEARED = "dice_cleared"


@dataclass(frozen=True, slots=True)
class DiceEvent:
    kind: Kind
    frame: int
    time: float
    values: tuple[int, ...] = ()
    confidence: float = 1.0
    rule: str | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": self.kind.value, "frame": self.frame,
                                "time": round(self.time, 3)}
        if self.values:
            data["values"] = list(self.values)
            data["confidence"] = round(self.confidence, 4)
        if self.rule:
            data["rule"] = self.rule
        if self.detail:
            data["detail"] = self.detail
        return data


def motion(previous: np.ndarray | None, grey: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Share of pixels (in `mask`, if given) that changed visibly since the previous frame."""
    if previous is None:
        return 1.0
    changed = cv2.absdiff(previous, grey) > 25
    if mask is not None:
        return float(changed[mask].mean()) if mask.any() else 0.0
    return float(changed.mean())


@dataclass
class _Count:
    reason: Kind
    started_frame: int
    started: float


@dataclass
class DiceWatcher:
    """The state machine; feed it every frame in order with `update`."""

    zones: DiceZones | None = None
    dice_per_throw: int = 2
    still_below: float = 0.002  # motion under this share of pixels is "still"
    rest_seconds: float = 0.2  # still this long: the dice are at rest
    vote_frames: int = 3  # frames read at rest before announcing the roll
    min_confidence: float = 0.35  # readings below it are ignored
    _still_since: tuple[int, float] | None = None
    _rolling: bool = False
    _announced: bool = False
    _votes: list[tuple[int, ...]] = field(default_factory=list)
    _confidences: list[float] = field(default_factory=list)
    _count: _Count | None = None
    _empty_since: float | None = None

    def update(
        self, frame: int, time: float, dice: Sequence[DieReading], moved: float
    ) -> list[DiceEvent]:
        # Faint readings are a hand's knuckle or a shadow far more often than a die.
        dice = [d for d in dice if d.confidence >= self.min_confidence]
        events: list[DiceEvent] = []
        if moved >= self.still_below:
            self._still_since = None
            if self._count is not None:
                # The cocked die fell, or the die in the box moved on: no void (5.4.32-33).
                events.append(self._cancel(frame, time, "the die moved"))
            if not self._rolling and dice and not self._announced:
                self._rolling = True
                events.append(DiceEvent(Kind.ROLLING, frame, time))
            return events
        if self._still_since is None:
            self._still_since = (frame, time)
        if not dice:
            return events + self._maybe_cleared(frame, time)
        self._empty_since = None
        if time - self._still_since[1] < self.rest_seconds:
            return events
        self._rolling = False
        return events + self._at_rest(frame, time, dice)

    def _at_rest(self, frame: int, time: float, dice: Sequence[DieReading]) -> list[DiceEvent]:
        in_box = [d for d in dice if self.zones is not None and self.zones.in_box(d.box)]
        # A die stopped inside the box voids the throw however it lies (5.4.32): on the box's
        # slanted ramp a flat die looks tilted, so only a die in the tray is judged cocked.
        cocked = [d for d in dice if d.cocked and d not in in_box]
        reason = Kind.IN_BOX if in_box else Kind.COCKED if cocked else None
        if self._count is not None:
            if reason is None:
                return [self._cancel(frame, time, "the die reads flat in the tray now")]
            if time - self._count.started >= VOID_AFTER_SECONDS:
                count, self._count = self._count, None
                self._announced = True
                rule = "5.4.33" if count.reason is Kind.COCKED else "5.4.32"
                return [DiceEvent(Kind.VOID, frame, time, rule=rule,
                                  detail=f"{count.reason.value} for 3 seconds")]
            return []
        if self._announced:
            return []
        if reason is not None:
            started_frame, started = self._still_since or (frame, time)
            self._count = _Count(reason, started_frame, started)
            rule = "5.4.33" if reason is Kind.COCKED else "5.4.32"
            return [DiceEvent(reason, started_frame, started, rule=rule,
                              detail="3-second count started")]
        # A throw has two dice: a third reading is far likelier a false detection.
        surest = sorted(dice, key=lambda d: d.confidence, reverse=True)[:self.dice_per_throw]
        values = tuple(sorted(d.value for d in surest if d.value is not None))
        self._votes.append(values)
        self._confidences.append(min(d.confidence for d in surest))
        if len(self._votes) < self.vote_frames:
            return []
        best, seen = Counter(self._votes).most_common(1)[0]
        if len(best) != self.dice_per_throw:
            return []
        self._announced = True
        confidence = seen / len(self._votes) * float(np.median(self._confidences))
        # Dated like every event by the first frame that shows it: the dice at rest.
        rest_frame, rest_time = self._still_since or (frame, time)
        return [DiceEvent(Kind.ROLL_READ, rest_frame, rest_time, best, confidence)]

    def _cancel(self, frame: int, time: float, why: str) -> DiceEvent:
        count, self._count = self._count, None
        self._votes.clear()
        self._confidences.clear()
        assert count is not None
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
        self._announced, self._count, self._empty_since = False, None, None
        self._votes.clear()
        self._confidences.clear()
        return [DiceEvent(Kind.CLEARED, frame, time)]
