"""A table's live state, folded from its event stream.

The state is what the station and the overlay show: the game position, the board a flag
stands on, whose turn, the dice, whose clock runs, the flags still waiting for a judge, the
score of the games finished at this table, and whether its camera was knocked off its
calibration. It is a pure function of the stored events,
so a restarted service shows exactly what it showed before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.position import Position, Side, Variant
from referee.session import FLAG_EVENTS, ROLL_EVENTS

# The events after which play goes on from the position they carry.
POSITION_EVENTS = ("move", "move_accepted", "correction")


@dataclass
class LiveState:
    variant: Variant
    position: Position = field(init=False)
    flagged_board: Position | None = None  # an illegal move standing, as the board shows it
    mover: Side | None = None
    dice: tuple[int, int] | None = None
    clock: Side | None = None  # whose clock runs
    last_move: tuple[Side, list[tuple[int, int]]] | None = None
    open_flags: dict[int, dict[str, Any]] = field(default_factory=dict)
    score: dict[Side, int] | None = None
    over: bool = False
    camera_moved: str | None = None  # why, while the table's camera is off its calibration
    camera_flicker: str | None = None  # the camera's light flickers in bands: set it up
    last_seq: int = -1

    def __post_init__(self) -> None:
        self.position = Position.start(self.variant)

    def apply(self, record: dict[str, Any]) -> None:
        """Fold one stored event (with its `seq`) into the state."""
        kind = record.get("event")
        self.last_seq = record["seq"]
        player = Side(record["player"]) if record.get("player") else None
        if kind == "throw_start":
            self.mover, self.dice, self.over = player or self.mover, None, False
        elif kind in ROLL_EVENTS:
            self.dice = (int(record["dice"][0]), int(record["dice"][1]))
        elif kind == "clock_press" and player is not None:
            self.clock = player.other
        elif kind in POSITION_EVENTS:
            self.position = Position.from_json(record["position"])
            self.flagged_board = None
            if kind == "move" and player is not None:
                self.last_move = (player, [(int(a), int(b)) for a, b in record["moves"]])
        elif kind == "game_end":
            winner, points = Side(record["result"]["winner"]), int(record["result"]["points"])
            score = self.score or dict.fromkeys(Side, 0)
            score[winner] += points
            self.score, self.over = score, True
        elif kind == "override" and record.get("kind") == "position":
            self.position, self.flagged_board = Position.from_json(record["value"]), None
            self.mover = self.position.turn
        elif kind == "decision":
            self.open_flags.pop(int(record["flag_seq"]), None)
        elif kind == "camera_moved":
            self.camera_moved = str(record.get("detail"))
        elif kind in ("camera_back", "table_start"):  # put back, or calibrated and started again
            self.camera_moved = None
        if kind == "camera_flicker":
            self.camera_flicker = str(record.get("detail"))
        elif kind == "table_start":  # the camera may have been set up meanwhile
            self.camera_flicker = None
        if kind == "illegal_move":
            self.flagged_board = Position.from_json(record["position"])
        if kind in FLAG_EVENTS:
            self.open_flags[record["seq"]] = record

    def pip_counts(self) -> dict[Side, int]:
        return {side: self.position.pip_count(side) for side in Side}
