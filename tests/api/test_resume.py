"""Where a restarted table picks its game up, from the events stored before the restart."""

from __future__ import annotations

from typing import Any

from api.resume import resume_point
from referee.position import Position, Side, Variant
from referee.rules import LongNardy
from referee.tracker import GameTracker
from tests.referee.test_tracker import WHITE_65, Table

START = Position.start(Variant.LONG)


def stored(*events: tuple[str, int, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"event": kind, "frame": frame, **fields} for kind, frame, fields in events]


def test_a_turn_in_progress_goes_on_from_its_roll_and_its_move_is_judged() -> None:
    records = stored(("throw_start", 10, {"player": "white"}),
                     ("roll", 30, {"player": "white", "dice": [6, 5]}))
    point = resume_point(records)
    assert point.position is None and point.roll == (Side.WHITE, (6, 5))

    # The restarted camera sees only the rest of the turn: the checkers moved, the press.
    table = Table(GameTracker(LongNardy(), Variant.LONG))
    mover, dice = point.roll
    table.tracker.resume(START, mover, dice)
    table.step(read=True)
    table.move_to(WHITE_65)
    table.press()
    move = table.named("move")[0]
    assert move.fields["player"] == "white" and move.fields["dice"] == [6, 5]
    assert table.tracker.position == WHITE_65 and table.tracker.mover is Side.BLACK


def test_an_illegal_move_after_the_restart_is_flagged_against_the_stored_roll() -> None:
    point = resume_point(stored(("roll", 30, {"player": "white", "dice": [4, 4]})))
    assert point.roll is not None
    table = Table(GameTracker(LongNardy(), Variant.LONG))
    table.tracker.resume(START, *point.roll)
    table.step(read=True)
    table.move_to(WHITE_65)  # 6-5 played on a 4-4
    assert "illegal_move" in table.kinds()


def test_no_turn_in_progress_after_a_move_a_void_throw_or_a_flag() -> None:
    moved = stored(("roll", 30, {"player": "white", "dice": [6, 5]}),
                   ("move", 90, {"player": "white", "position": WHITE_65.to_json()}))
    point = resume_point(moved)
    assert point.position == WHITE_65 and point.mover is Side.BLACK and point.roll is None
    voided = stored(("roll", 30, {"player": "white", "dice": [6, 5]}),
                    ("throw_void", 120, {"player": "white", "rule": "5.4.33"}))
    assert resume_point(voided).roll is None
    flagged = stored(("roll", 30, {"player": "white", "dice": [6, 5]}),
                     ("illegal_move", 80, {"player": "white"}))
    assert resume_point(flagged).roll is None
    reread = stored(("roll", 30, {"player": "white", "dice": [4, 4]}),
                    ("roll_reread", 80, {"player": "white", "dice": [6, 5], "read": [4, 4]}))
    assert resume_point(reread).roll == (Side.WHITE, (6, 5))
    fallen = stored(("roll", 30, {"player": "white", "dice": [4, 4]}),
                    ("roll_changed", 60, {"player": "white", "dice": [6, 5], "read": [4, 4]}))
    assert resume_point(fallen).roll == (Side.WHITE, (6, 5))
