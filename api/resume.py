"""Where a restarted table picks its game up, from the events stored before the restart.

The tracker restarts from the last position play went on from (a move, an accepted illegal
move, a judge's override of the board) with the next player to throw. A replayed file is
deterministic, so it also skips the frames already refereed up to that point, and drops the
events after it that it decides again (same kind, same frame) rather than store them twice.

A camera cannot be replayed: a turn in progress at the restart goes on from its roll (the
last one read for the player to move, unless voided since), so the move it ends with is
still judged. A turn with an illegal move flagged and not yet settled is refereed from the
next throw on; the flag stays for the judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.position import Position, Side
from referee.rules import Dice
from referee.session import ROLL_EVENTS

# Events the service itself writes into a stream: never decided again by a replay.
SERVICE_EVENTS = ("decision", "override", "table_start", "table_stop")


@dataclass(frozen=True)
class ResumePoint:
    position: Position | None  # None: from the start position, as a fresh table
    mover: Side | None
    after_frame: int  # a replayed file's frames up to this one were refereed already
    decided: frozenset[tuple[str, int]]  # (event, frame) stored after that point
    roll: tuple[Side, Dice] | None = None  # the turn in progress: who rolled what


def resume_point(records: Sequence[dict[str, Any]]) -> ResumePoint:
    """Where to pick up, from a table's stored records in seq order."""
    last = -1
    for index, record in enumerate(records):
        kind = record.get("event")
        if kind in ("move", "move_accepted") or (kind == "override"
                                                   and record.get("kind") == "position"):
            last = index
    position: Position | None = None
    if last >= 0:
        found = records[last]
        position = Position.from_json(found["position" if "position" in found else "value"])
    frames = [int(r["frame"]) for r in records[:last + 1]
              if r.get("event") not in SERVICE_EVENTS and isinstance(r.get("frame"), int)]
    decided = frozenset((str(r["event"]), int(r["frame"])) for r in records[last + 1:]
                        if r.get("event") not in SERVICE_EVENTS
                        and isinstance(r.get("frame"), int))
    return ResumePoint(position, position.turn if position else None,
                       max(frames, default=-1), decided, _turn_in_progress(records[last + 1:]))


def _turn_in_progress(records: Sequence[dict[str, Any]]) -> tuple[Side, Dice] | None:
    """The roll of the turn the records stop in, if it is still to be played."""
    roll: tuple[Side, Dice] | None = None
    for record in records:
        kind = record.get("event")
        if kind in ROLL_EVENTS and record.get("player") in ("white", "black"):
            dice = record.get("dice")
            if isinstance(dice, list) and len(dice) == 2:
                roll = Side(record["player"]), (int(dice[0]), int(dice[1]))
        elif kind in ("throw_void", "roll_discarded", "throw_not_counted", "illegal_move"):
            roll = None
    return roll
