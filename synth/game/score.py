"""Score a referee's event log against a generated game's ground truth, turn by turn.

Each ground-truth event that the referee must report is matched, in order, to a referee
event of the same kind and content within a few frames. A turn (the events up to and
including a player's `move_complete`) is right when all its events were matched and no
flag was raised in it that the truth does not have.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.dice.reader import DieReading
from vision.dice.stream import DiceEvent, Kind

# truth event -> the referee's event name
COUNTERPART = {
    "roll": "roll",
    "move_complete": "move",
    "illegal_move": "illegal_move",
    "correction": "correction",
    "move_accepted": "move_accepted",
    "premature_throw": "premature_throw",
    "throw_not_counted": "throw_not_counted",
    "count_start": "count_start",
    "throw_void": "throw_void",
    "count_cancelled": "count_cancelled",
    "game_end": "game_end",
}
FLAGS = ("illegal_move", "premature_throw", "move_accepted", "wrong_start", "throw_void",
         "throw_not_counted")
TOLERANCE = 12  # frames
# Decisions that wait on what the players do next are dated by when they became clear.
LATE_TOLERANCE = {"roll": 75, "throw_not_counted": 45}
# Events dated by a throw: the referee sees the throw begin when the dice first move in view,
# which for a hand carried across the tray is up to 0.6 s before they leave it.
THROW_TOLERANCE = 20
THROWN = ("move_accepted", "premature_throw")
# The 3-second rules (5.4.32-5.4.33): their timing is measured to the frame.
COUNTED = ("count_start", "throw_void", "count_cancelled")


@dataclass
class Score:
    turns: int = 0
    turns_right: int = 0
    missed: list[dict[str, Any]] = field(default_factory=list)
    false_flags: list[dict[str, Any]] = field(default_factory=list)
    # (event, frames the referee dated it after the truth) of each matched 3-second decision
    count_offsets: list[tuple[str, int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"turns": self.turns, "turns_right": self.turns_right,
                "missed": self.missed, "false_flags": self.false_flags,
                "count_offsets": self.count_offsets}


def same_content(truth: dict[str, Any], seen: dict[str, Any]) -> bool:
    kind = truth["event"]
    if "player" in truth and seen.get("player") != truth["player"]:
        return False
    if kind == "roll":
        return sorted(seen["dice"]) == sorted(truth["dice"])
    if kind == "move_complete":
        return bool(seen["position"] == truth["position"])
    if kind in ("count_start", "throw_void"):
        return bool(seen.get("rule") == truth["rule"])
    if kind == "game_end":
        result = truth.get("result")
        return result is None or seen["result"]["winner"] == result["winner"]
    return True


def score(truth: Sequence[dict[str, Any]], seen: Sequence[dict[str, Any]]) -> Score:
    """`truth`: a generated game's events.jsonl; `seen`: the referee's events."""
    result = Score()
    used: set[int] = set()
    turn_ok, turn_start = True, 0
    for event in truth:
        kind = event["event"]
        name = COUNTERPART.get(kind)
        if name is None:
            continue
        # An accepted illegal move has no `move` of its own (its flag and acceptance stand
        # for it), and a game stopped by --max-turns has no result to report.
        needed = event.get("legal", True) and (kind != "game_end" or event.get("result"))
        matched = _match(event, name, seen, used) if needed else None
        if needed and matched is None:
            result.missed.append(event)
            turn_ok = False
        elif matched is not None and kind in COUNTED:
            result.count_offsets.append((kind, seen[matched]["frame"] - event["frame"]))
        if kind == "move_complete":
            extra = _false_flags(seen, used, turn_start, event["frame"] + TOLERANCE)
            result.false_flags += extra
            result.turns += 1
            result.turns_right += turn_ok and not extra
            turn_ok, turn_start = True, event["frame"] + TOLERANCE + 1
    return result


def _match(event: dict[str, Any], name: str, seen: Sequence[dict[str, Any]],
           used: set[int]) -> int | None:
    """The index of the referee's event that reports `event`, now used; None if none does."""
    tolerance = THROW_TOLERANCE if event["event"] in THROWN else TOLERANCE
    if event.get("premature") or event["event"] == "throw_not_counted":
        tolerance = LATE_TOLERANCE[event["event"]]
    for index, candidate in enumerate(seen):
        if (index not in used and candidate["event"] == name
                and abs(candidate["frame"] - event["frame"]) <= tolerance
                and same_content(event, candidate)):
            used.add(index)
            return index
    return None


def _false_flags(seen: Sequence[dict[str, Any]], used: set[int], start: int,
                 end: int) -> list[dict[str, Any]]:
    return [e for i, e in enumerate(seen)
            if i not in used and e["event"] in FLAGS and start <= e["frame"] <= end]


class TruthDice:
    """A dice watcher that reports the generated game's true dice events: reviewing with it
    measures the rest of the referee (board reading, tracking) on its own."""

    def __init__(self, truth: Sequence[dict[str, Any]]) -> None:
        self.events: dict[int, list[DiceEvent]] = defaultdict(list)
        for event in truth:
            for dice_event in _dice_events(event):
                self.events[event["frame"]].append(dice_event)

    def update(self, frame: int, time: float, dice: Sequence[DieReading],
               moved: float) -> list[DiceEvent]:
        return self.events.get(frame, [])


def _dice_events(event: dict[str, Any]) -> list[DiceEvent]:
    frame, time, kind = event["frame"], event["time"], event["event"]
    if kind == "throw_start":
        return [DiceEvent(Kind.ROLLING, frame, time)]
    if kind == "dice_at_rest":
        read = [die["value"] for die in event["dice"]
                if not die["cocked"] and not die["in_box"]]
        if len(read) == 2:
            return [DiceEvent(Kind.ROLL_READ, frame, time, tuple(sorted(read)), 1.0)]
    if kind == "count_start":
        reason = Kind.COCKED if event["reason"] == "cocked" else Kind.IN_BOX
        return [DiceEvent(reason, frame, time, rule=event["rule"])]
    if kind == "throw_void":
        return [DiceEvent(Kind.VOID, frame, time, rule=event["rule"])]
    if kind == "count_cancelled":
        return [DiceEvent(Kind.CANCELLED, frame, time)]
    if kind == "dice_picked_up":
        return [DiceEvent(Kind.CLEARED, frame, time)]
    return []
