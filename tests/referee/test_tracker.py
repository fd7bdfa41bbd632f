"""The game tracker on scripted tables: what a camera would report, frame by frame."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.judge import BoardBelief
from referee.position import Position, Side, Variant
from referee.rules import LongNardy, ShortNardy
from referee.tracker import GameTracker, RefereeEvent
from tests.builders import position
from vision.dice.stream import DiceEvent, Kind
from vision.table import Observation

FPS = 30.0
START = Position.start(Variant.LONG)


@dataclass
class Table:
    """A scripted camera: the clock, the board and the dice, advanced frame by frame."""

    tracker: GameTracker
    clock: Side | None = Side.WHITE
    board: Position = START
    frame: int = 0
    stale: bool = True
    events: list[RefereeEvent] = field(default_factory=list)

    def wait(self, frames: int = 1, **change: Any) -> None:
        for _ in range(frames):
            self.step(**change)

    def step(self, dice: tuple[DiceEvent, ...] = (), moving: bool = False,
             read: bool = False, unwatched: bool = False) -> None:
        belief = BoardBelief.certain(self.board) if read else None
        # The board looks different from its last reading from the first motion until read.
        self.stale = (self.stale or moving) and not read
        seen = Observation(self.frame, self.frame / FPS, list(dice), [], moving, self.stale,
                           self.clock, board=belief, dice_unwatched=unwatched)
        self.events += self.tracker.update(seen)
        self.frame += 1

    def dice(self, kind: Kind, values: tuple[int, ...] = (), confidence: float = 0.99,
             rule: str | None = None, box: tuple[float, float, float, float] | None = None
             ) -> None:
        self.step(dice=(DiceEvent(kind, self.frame, self.frame / FPS, values, confidence,
                                  rule, box=box),))

    def throw(self, values: tuple[int, int], confidence: float = 0.99) -> None:
        self.dice(Kind.ROLLING)
        self.wait(20)
        self.dice(Kind.ROLL_READ, values, confidence)
        self.wait(5)

    def move_to(self, after: Position) -> None:
        """A hand moves checkers, leaves, and the board settles and is read."""
        self.wait(30, moving=True)
        self.board = after
        self.wait(9)
        self.step(read=True)
        self.wait(10)

    def press(self) -> None:
        assert self.clock is not None
        self.clock = self.clock.other
        self.wait(5)

    def kinds(self) -> list[str]:
        return [e.event for e in self.events]

    def named(self, kind: str) -> list[RefereeEvent]:
        return [e for e in self.events if e.event == kind]


def long_table() -> Table:
    table = Table(GameTracker(LongNardy(), Variant.LONG))
    table.step(read=True)  # the start position, seen once before play
    return table


WHITE_65 = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
WHITE_TWO_OFF_HEAD = position("long", "black", white={24: 13, 18: 1, 19: 1}, black={24: 15})


def test_a_legal_turn_is_rolled_moved_and_recorded_at_the_clock_press() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    assert "move" not in table.kinds()  # not before the mover has finished
    table.press()
    assert table.kinds() == ["throw_start", "roll", "clock_press", "move"]
    move = table.named("move")[0]
    assert move.fields["player"] == "white" and move.fields["moves"] == [[24, 18], [18, 13]]
    assert table.tracker.position == WHITE_65 and table.tracker.mover is Side.BLACK


def test_a_roll_with_a_die_at_the_box_exit_names_it_for_the_judges() -> None:
    # The camera's roll names a die lying at the box's exit, where one leaning on the lip
    # looks flat: the referee's roll says so and which die, and the turn goes on as read.
    table = long_table()
    table.dice(Kind.ROLLING)
    table.wait(20)
    table.dice(Kind.ROLL_READ, (6, 5), box=(300.0, 172.0, 40.0, 40.0))
    table.move_to(WHITE_65)
    table.press()
    roll = table.named("roll")[0]
    assert roll.fields["at_exit"] is True and roll.fields["die_box"] == [300.0, 172.0, 40.0, 40.0]
    assert table.kinds() == ["throw_start", "roll", "clock_press", "move"]
    # A roll with no die there says nothing of it.
    table = long_table()
    table.throw((6, 5))
    assert "at_exit" not in table.named("roll")[0].fields


def test_the_move_is_dated_by_the_frame_the_board_settled() -> None:
    table = long_table()
    table.throw((6, 5))
    settled = table.frame + 30 + 9
    table.move_to(WHITE_65)
    table.press()
    assert table.named("move")[0].frame == settled


def test_a_throw_made_while_the_camera_was_away_is_read_once_it_is_back() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    table.press()
    table.wait(20, unwatched=True)  # knocked aside as black throws
    away = table.frame - 1
    table.wait(3)
    table.dice(Kind.ROLL_READ, (3, 1))  # back: the dice lie at rest, none seen rolling
    assert table.kinds()[-2:] == ["throw_start", "roll"]
    assert table.named("throw_start")[-1].frame == away
    assert table.named("roll")[-1].fields == {"player": "black", "dice": [3, 1],
                                              "confidence": 0.99}


def test_dice_read_at_rest_unstirred_with_the_camera_watching_are_no_throw() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    table.press()
    table.wait(20, unwatched=True)
    table.dice(Kind.CLEARED)  # heard of after the camera is back: the gap is over
    table.wait(3)
    table.dice(Kind.ROLL_READ, (3, 1))
    assert table.kinds().count("throw_start") == 1


def test_an_illegal_move_is_flagged_at_once_and_accepted_by_the_opponents_throw() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_TWO_OFF_HEAD)
    flag = table.named("illegal_move")[0]
    assert [v["rule"] for v in flag.fields["violations"]] == ["5.4.11"]
    table.press()
    assert "move" not in table.kinds()  # the flag waits for the opponent
    table.throw((3, 1))
    assert "move_accepted" in table.kinds()
    assert table.tracker.position.white == WHITE_TWO_OFF_HEAD.white
    assert "premature_throw" not in table.kinds()  # white had pressed


def test_a_flag_the_opponent_plays_on_before_the_board_is_seen_again_is_not_raised_twice(
        ) -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_TWO_OFF_HEAD)
    table.press()
    table.wait(3, moving=True)  # a hand over the board as black reaches for the dice
    table.throw((3, 1))  # so the flagged board is not seen settled before black moves
    black_31 = position("long", "white", white={24: 13, 18: 1, 19: 1}, black={24: 14, 20: 1})
    table.move_to(black_31)
    table.press()
    assert table.kinds().count("illegal_move") == 1  # black's checkers are no new flag
    assert "move_accepted" in table.kinds()
    move = table.named("move")[-1]
    assert move.fields["player"] == "black" and table.tracker.position == black_31


def test_a_corrected_illegal_move_ends_with_the_legal_move() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_TWO_OFF_HEAD)
    touched = table.frame
    table.move_to(WHITE_65)  # the claim: the checkers go back and a legal move is played
    table.press()
    correction = table.named("correction")[0]
    assert correction.frame == touched and correction.fields["claimant"] == "black"
    assert table.named("move")[0].fields["position"] == WHITE_65.to_json()


def test_half_a_move_is_not_flagged() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(position("long", "white", white={24: 14, 18: 1}, black={24: 15}))
    table.move_to(WHITE_65)
    table.press()
    assert "illegal_move" not in table.kinds() and len(table.named("move")) == 1


def test_a_throw_before_the_press_is_premature_and_counted_when_the_thrower_moves() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    table.throw((3, 1))  # black throws while white's clock still runs (5.4.18)
    premature = table.named("premature_throw")[0]
    assert premature.fields == {"player": "black", "opponent": "white", "rule": "5.4.18"}
    assert table.named("move")[0].fields["player"] == "white"  # white's move stands
    assert len(table.named("roll")) == 1  # black's roll waits for white's decision
    table.press()
    table.move_to(position("long", "white", white={24: 14, 13: 1}, black={24: 14, 20: 1}))
    roll = table.named("roll")[-1]
    assert roll.fields["premature"] and roll.fields["dice"] == [3, 1]


def test_a_throw_whose_dice_land_after_the_press_is_still_premature() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    thrown = table.frame
    table.dice(Kind.ROLLING)  # black's dice leave his hand while white's clock runs
    table.wait(5)
    table.press()  # white presses while they are in flight
    table.wait(15)
    table.dice(Kind.ROLL_READ, (3, 1))
    table.wait(5)
    assert table.named("move")[0].fields["player"] == "white"
    premature = table.named("premature_throw")[0]
    assert premature.fields["player"] == "black" and premature.frame == thrown
    table.move_to(position("long", "white", white={24: 14, 13: 1}, black={24: 14, 20: 1}))
    assert table.named("roll")[-1].fields["premature"]


def test_a_premature_throw_picked_up_before_any_move_is_not_counted() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    table.throw((3, 1))
    table.press()
    table.dice(Kind.CLEARED)
    assert table.named("throw_not_counted")[0].fields["player"] == "black"
    table.throw((4, 2))
    assert table.named("roll")[-1].fields["dice"] == [4, 2]


def test_early_dice_picked_up_before_the_board_is_read_wait_for_the_board() -> None:
    black_31 = position("long", "white", white={24: 14, 13: 1}, black={24: 14, 20: 1})
    for moved in (True, False):
        table = long_table()
        table.throw((6, 5))
        table.move_to(WHITE_65)
        table.dice(Kind.ROLLING)  # black throws early: white's clock still runs
        table.wait(5)
        table.press()
        table.wait(5, moving=True)  # hands over the board before black's roll is read
        if moved:
            table.board = black_31  # black played at once
        table.dice(Kind.ROLL_READ, (3, 1))
        table.dice(Kind.CLEARED)  # then picked his dice up, the board not yet read
        table.wait(9)
        table.step(read=True)
        assert ("throw_not_counted" in table.kinds()) is not moved
        assert table.named("roll")[-1].fields.get("premature", False) is moved


def test_a_cocked_die_for_three_seconds_voids_the_throw_and_the_same_player_throws_again() -> None:
    table = long_table()
    table.dice(Kind.ROLLING)
    table.wait(10)
    table.dice(Kind.COCKED, rule="5.4.33", box=(310.0, 52.5, 24.0, 26.0))
    table.wait(89)
    table.dice(Kind.VOID, rule="5.4.33", box=(310.0, 52.5, 24.0, 26.0))
    table.wait(20)
    table.throw((6, 5))
    assert table.kinds()[:3] == ["throw_start", "count_start", "throw_void"]
    assert table.named("roll")[0].fields["player"] == "white"
    # The judges see which die was counted, and how surely it was read cocked.
    for name in ("count_start", "throw_void"):
        assert table.named(name)[0].fields["die_box"] == [310.0, 52.5, 24.0, 26.0]
        assert table.named(name)[0].fields["confidence"] == 0.99


def test_a_doubtful_roll_is_reread_from_the_board_instead_of_flagging() -> None:
    table = long_table()
    table.throw((4, 4), confidence=0.5)  # really 6-5
    table.move_to(WHITE_65)
    table.press()
    assert "illegal_move" not in table.kinds()
    assert table.named("roll_reread")[0].fields["dice"] == [6, 5]
    assert table.named("move")[0].fields["dice"] == [6, 5]


def test_a_sure_roll_is_trusted_and_the_move_flagged() -> None:
    table = long_table()
    table.throw((4, 4), confidence=0.99)
    table.move_to(WHITE_65)
    assert "roll_reread" not in table.kinds() and "illegal_move" in table.kinds()


def test_a_board_not_seen_settled_before_the_opponent_throws_is_judged_at_the_next_view() -> None:
    table = long_table()
    table.throw((6, 5))
    table.wait(30, moving=True)
    table.board = WHITE_65
    table.throw((3, 1))  # no settled reading of white's move yet
    assert "move" not in table.kinds()
    table.step(read=True)
    assert table.named("move")[0].fields["player"] == "white"


def white_unseen_then_black_throws() -> Table:
    """White plays 6-5, never seen settled, presses; black throws 3-1."""
    table = long_table()
    table.throw((6, 5))
    table.wait(30, moving=True)
    table.board = WHITE_65
    table.press()
    table.throw((3, 1))
    return table


def test_a_board_first_seen_with_the_throwers_move_on_it_holds_both_moves() -> None:
    table = white_unseen_then_black_throws()
    table.wait(20, moving=True)  # black moves at once
    both = position("long", "white", white={24: 14, 13: 1}, black={24: 14, 20: 1})
    table.board = both
    table.wait(9)
    table.step(read=True)
    table.press()
    assert "illegal_move" not in table.kinds()
    white, black = table.named("move")
    assert white.fields["player"] == "white" and white.fields["moves"] == [[24, 18], [18, 13]]
    assert white.frame == table.named("throw_start")[1].frame  # done by the time black threw
    assert black.fields["player"] == "black" and table.tracker.position == both


def test_a_board_first_seen_with_the_thrower_already_playing_illegally_flags_him_alone(
        ) -> None:
    table = white_unseen_then_black_throws()
    table.wait(20, moving=True)
    # black takes two checkers off his head: not allowed with 3-1 (5.4.11)
    table.board = position("long", "white", white={24: 14, 13: 1},
                           black={24: 13, 21: 1, 23: 1})
    table.wait(9)
    table.step(read=True)
    white = table.named("move")[0]
    assert white.fields["player"] == "white" and white.fields["dice"] == [6, 5]
    flags = table.named("illegal_move")
    assert [flag.fields["player"] for flag in flags] == ["black"]


def test_a_move_whose_throw_was_not_seen_is_taken_from_the_board() -> None:
    table = long_table()
    table.move_to(WHITE_65)  # the dice were hidden: no throw, no roll
    settled = table.frame - 11
    table.press()
    assert [e.event for e in table.events] == ["clock_press", "roll_reread", "move"]
    move = table.named("move")[0]
    assert move.fields["dice"] == [6, 5] and move.frame == settled
    assert table.tracker.mover is Side.BLACK


def test_the_opponents_throw_after_an_unseen_throw_is_his_own() -> None:
    table = long_table()
    table.clock = None  # no clock at this table: the next throw ends the turn
    table.tracker.clock = None
    table.move_to(WHITE_65)  # white's throw not seen
    table.throw((3, 1))
    assert "illegal_move" not in table.kinds()
    assert table.named("move")[0].fields["player"] == "white"
    assert table.named("roll")[0].fields["player"] == "black"


def test_a_wrong_start_is_flagged() -> None:
    table = Table(GameTracker(LongNardy(), Variant.LONG))
    table.board = position("long", "white", white={24: 14}, black={24: 15})
    table.step(read=True)
    wrong = table.named("wrong_start")[0]
    assert wrong.fields["problems"] == ["white has 14 checkers on the board, not 15"]


def test_the_first_mover_is_told_by_the_clock() -> None:
    table = Table(GameTracker(LongNardy(), Variant.LONG), clock=Side.BLACK)
    table.step(read=True)
    table.throw((6, 5))
    assert table.named("roll")[0].fields["player"] == "black"


def test_without_a_clock_the_opponents_throw_ends_the_turn() -> None:
    table = Table(GameTracker(LongNardy(), Variant.LONG), clock=None)
    table.step(read=True)
    table.throw((6, 5))
    table.move_to(WHITE_65)  # the mover is found from which checkers moved
    table.throw((3, 1))
    assert table.named("move")[0].fields["player"] == "white"
    assert "premature_throw" not in table.kinds()


def test_a_roll_with_no_legal_step_passes_the_turn() -> None:
    # Short nardy: white on the bar facing a closed home board cannot enter with 6-6.
    blocked = position("short", "white", white={24: 1, 13: 5, 8: 3, 6: 5},
                       black={6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3}, bar=(1, 0))
    assert [o.moves for o in ShortNardy().outcomes(blocked, (6, 6))] == [()]
    table = Table(GameTracker(ShortNardy(), Variant.SHORT))
    table.tracker.position = blocked
    table.board = blocked
    table.step(read=True)
    table.throw((6, 6))
    table.press()
    move = table.named("move")[0]
    assert move.fields["moves"] == [] and table.tracker.mover is Side.BLACK
    assert move.frame == table.named("roll")[0].frame  # known from the roll on


def test_a_second_throw_before_any_checker_moved_is_the_movers_own() -> None:
    # A cocked die read as flat: the mover throws again, his clock still running.
    table = long_table()
    table.throw((6, 1))
    table.dice(Kind.CLEARED)
    table.throw((6, 5))
    assert "premature_throw" not in table.kinds()
    assert table.named("roll_discarded")[0].fields["dice"] == [6, 1]
    table.move_to(WHITE_65)
    table.press()
    assert table.named("move")[0].fields["player"] == "white"


def test_half_a_move_left_at_the_clock_press_is_judged_as_dice_unplayed() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(position("long", "white", white={24: 14, 18: 1}, black={24: 15}))
    assert "illegal_move" not in table.kinds()  # still moving
    table.press()
    flag = table.named("illegal_move")[0]
    assert "5.4.26" in [v["rule"] for v in flag.fields["violations"]]
    table.throw((3, 1))
    assert "move_accepted" in table.kinds()


def test_a_judges_reading_of_the_dice_stands_and_the_board_is_judged_again() -> None:
    table = long_table()
    table.throw((4, 4))  # misread, read with confidence: the move is flagged
    table.move_to(WHITE_65)
    assert "illegal_move" in table.kinds()
    events = table.tracker.override_dice((6, 5), table.frame, table.frame / FPS)
    assert [e.event for e in events] == ["roll"] and events[0].fields["judge"]
    table.events += events
    table.press()
    assert table.named("move")[0].fields["dice"] == [6, 5]


def test_a_die_that_falls_after_a_sure_misread_changes_the_roll_before_the_move() -> None:
    table = long_table()
    table.throw((4, 4), confidence=0.99)  # a cocked die read as a 4; it falls: 6-5
    table.dice(Kind.ROLL_CHANGED, (5, 6))
    table.move_to(WHITE_65)
    table.press()
    assert table.kinds() == ["throw_start", "roll", "roll_changed", "clock_press", "move"]
    assert table.named("roll_changed")[0].fields["read"] == [4, 4]
    assert table.named("move")[0].fields["dice"] == [5, 6]


def test_dice_moving_after_the_board_changed_leave_the_roll_as_read() -> None:
    table = long_table()
    table.throw((6, 5))
    table.move_to(WHITE_65)
    table.dice(Kind.ROLL_CHANGED, (2, 3))  # a sleeve brushes the dice
    table.press()
    assert "roll_changed" not in table.kinds() and "illegal_move" not in table.kinds()
    assert table.named("dice_moved")[0].fields["dice"] == [2, 3]
    assert table.named("move")[0].fields["dice"] == [6, 5]
