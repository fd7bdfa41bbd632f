"""The dice watcher on scripted observation streams (30 fps)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.reader import DieReading
from vision.dice.stream import AT_EXIT, DiceWatcher, Kind
from vision.dice.zones import DiceZones

FPS = 30.0
TRAY = [[0, 200], [640, 200], [640, 480], [0, 480]]
BOX = [[0, 0], [640, 0], [640, 199], [0, 199]]


def die(value: int | None, x: float = 300, y: float = 300) -> DieReading:
    return DieReading((x, y, 40, 40), value, value is None, 0.99)


def run(watcher: DiceWatcher, script: list[tuple[int, list[DieReading], float]]) -> list:
    """`script`: (number of frames, dice seen, motion) segments played in order."""
    events, frame = [], 0
    for frames, dice, moved in script:
        for _ in range(frames):
            events += watcher.update(frame, frame / FPS, dice, moved)
            frame += 1
    return events


def test_a_clean_roll_is_read_once() -> None:
    events = run(DiceWatcher(), [(20, [die(6), die(3, 400)], 0.05), (60, [die(6), die(3, 400)], 0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.ROLL_READ]
    assert events[1].values == (3, 6)
    # dated by the first frame showing the dice as they lie (the last one that changed),
    # though announced after 0.2 s and 3 frames of reading
    assert events[1].frame == 19


def test_a_roll_with_a_die_at_the_box_exit_says_so() -> None:
    """There a die leaning a few degrees on the lip looks flat from above: the judges are
    shown which die to look at."""
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32),
                      tray_mm=(640.0, 280.0))  # a pixel a millimetre, the exit along y = 200
    at_exit = [die(6, y=172), die(3, 400)]  # the 6's foot 2 mm in front of the exit
    events = run(DiceWatcher(zones), [(20, at_exit, 0.05), (60, at_exit, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ]
    assert events[1].values == (3, 6) and events[1].box == (300, 172, 40, 40)
    assert events[1].detail == AT_EXIT and events[1].to_json()["box"] == [300, 172, 40, 40]
    # In the open tray, or where the tray's size is not known, a roll says nothing of it.
    unmeasured = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    for where, dice in ((zones, [die(6), die(3, 400)]), (unmeasured, at_exit)):
        roll = run(DiceWatcher(where), [(20, dice, 0.05), (60, dice, 0.0)])[-1]
        assert roll.kind is Kind.ROLL_READ and roll.box is None and roll.detail == ""


def test_a_die_cocked_for_three_seconds_voids_the_throw() -> None:
    events = run(DiceWatcher(), [(15, [die(5), die(None, 400)], 0.05),
                                 (120, [die(5), die(None, 400)], 0.0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.COCKED, Kind.VOID]
    cocked, void = events[1], events[2]
    assert cocked.frame == 14  # the count starts when the die came to rest
    assert void.rule == "5.4.33"
    assert void.frame - cocked.frame == pytest.approx(3 * FPS, abs=2)
    # Both name the die, for the judges to see which: the cocked one, not the 5.
    assert cocked.box == void.box == (400, 300, 40, 40)
    assert cocked.to_json()["box"] == [400, 300, 40, 40]
    assert "box" not in events[0].to_json()


@pytest.mark.parametrize("rolling", range(10, 40))
def test_the_void_comes_on_the_frame_three_seconds_after_the_count(rolling: int) -> None:
    """Frame times are index / 30: frame 123's less frame 33's falls a hair short of 3.0,
    which must not put the void a frame late."""
    events = run(DiceWatcher(), [(rolling, [die(5), die(None, 400)], 0.05),
                                 (120, [die(5), die(None, 400)], 0.0)])
    cocked, void = (e for e in events if e.kind in (Kind.COCKED, Kind.VOID))
    assert void.frame - cocked.frame == 3 * FPS


def test_a_cocked_die_that_falls_cancels_the_count_and_the_roll_is_read() -> None:
    events = run(DiceWatcher(), [(15, [die(5), die(None, 400)], 0.05),
                                 (60, [die(5), die(None, 400)], 0.0),
                                 (3, [die(5), die(2, 400)], 0.05),
                                 (40, [die(5), die(2, 400)], 0.0)])
    kinds = [e.kind for e in events]
    # Whether it fell is seen once it lies still again; the count ended when it moved.
    assert kinds == [Kind.ROLLING, Kind.COCKED, Kind.ROLLING, Kind.CANCELLED, Kind.ROLL_READ]
    assert events[3].frame == 15 + 60
    assert events[-1].values == (2, 5)


def test_a_cocked_die_read_flat_without_moving_keeps_its_count() -> None:
    """A die on the edge between the two calls, read cocked and later flat where it lay
    (104100: cancelled 2 frames before its void): it has not fallen (5.4.33)."""
    cocked, read_flat = [die(5), die(None, 400)], [die(5), die(2, 400)]
    events = run(DiceWatcher(), [(15, cocked, 0.05), (40, cocked, 0.0), (80, read_flat, 0.0)])
    assert [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.COCKED, 14), (Kind.VOID, 14 + 90)]
    # A die counted in the box and then framed out of it may have been judged in the box
    # wrongly: that count ends.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    in_box, out = [die(4, y=165), die(1, 400)], [die(4, y=172), die(1, 400)]  # feet 195, 202
    events = run(DiceWatcher(zones), [(10, in_box, 0.05), (40, in_box, 0.0), (60, out, 0.0)])
    assert [e.kind for e in events if e.kind is not Kind.ROLLING][:2] == [
        Kind.IN_BOX, Kind.CANCELLED]


def test_a_cocked_die_that_twitches_and_reads_flat_unsurely_keeps_its_count() -> None:
    """A die balanced on an edge moves a pixel, and read again reads flat at 0.61 (154108:
    cancelled 51 frames before its void): it has not fallen (5.4.33)."""
    cocked = [die(5), die(None, 400)]
    unsure = [die(5), DieReading((401, 300, 40, 40), 1, False, 0.61)]
    events = run(DiceWatcher(), [(15, cocked, 0.05), (40, cocked, 0.0), (2, unsure, 0.05),
                                 (100, unsure, 0.0)])
    assert [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.COCKED, 14), (Kind.VOID, 14 + 90)]
    # Read flat surely where it twitched, it has fallen: the count ended when it moved.
    sure = [die(5), DieReading((401, 300, 40, 40), 1, False, 0.95)]
    events = run(DiceWatcher(), [(15, cocked, 0.05), (40, cocked, 0.0), (2, sure, 0.05),
                                 (100, sure, 0.0)])
    assert [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING][:2] == [
        (Kind.COCKED, 14), (Kind.CANCELLED, 55)]


def test_a_cocked_die_that_settles_where_it_lay_keeps_its_count() -> None:
    # It shifts by a pixel and lies cocked still: it has not fallen (5.4.33), and the throw
    # is void 3 s after it first came to rest.
    cocked, shifted = [die(5), die(None, 400)], [die(5), die(None, 402)]
    events = run(DiceWatcher(), [(15, cocked, 0.05), (40, cocked, 0.0), (2, shifted, 0.05),
                                 (100, shifted, 0.0)])
    assert [e.kind for e in events if e.kind is not Kind.ROLLING] == [Kind.COCKED, Kind.VOID]
    assert events[-1].frame == 14 + 90
    # A die in the box that moves at all has moved on (5.4.32): its count ends and starts again.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    in_box, shifted = [die(4, y=100), die(1, 400)], [die(4, x=302, y=100), die(1, 400)]
    events = run(DiceWatcher(zones), [(10, in_box, 0.05), (40, in_box, 0.0), (2, shifted, 0.05),
                                      (100, shifted, 0.0)])
    assert [e.kind for e in events if e.kind is not Kind.ROLLING] == [
        Kind.IN_BOX, Kind.CANCELLED, Kind.IN_BOX, Kind.VOID]


def test_a_die_stopped_in_the_box_voids_after_three_seconds() -> None:
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    events = run(DiceWatcher(zones), [(10, [die(4, y=100), die(1, 400)], 0.05),
                                      (100, [die(4, y=100), die(1, 400)], 0.0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.IN_BOX, Kind.VOID]
    assert events[2].rule == "5.4.32"


def test_a_die_just_out_of_the_box_is_judged_where_the_framer_puts_it() -> None:
    # The detector's box sits high: its foot is over the box's exit edge (y 199), where the
    # framer's box, on the die, stands in the tray.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    high = DieReading((400, 160, 40, 40), 1, False, 0.99)
    on_the_die = DieReading((400, 160, 40, 40), 1, False, 0.99, framed_box=(400, 175, 40, 40))
    for reading, kinds in ((on_the_die, [Kind.ROLLING, Kind.ROLL_READ]),
                           (high, [Kind.ROLLING, Kind.IN_BOX, Kind.VOID])):
        dice = [die(4), reading]
        events = run(DiceWatcher(zones), [(10, dice, 0.05), (100, dice, 0.0)])
        assert [e.kind for e in events] == kinds


def test_a_die_in_the_box_voids_under_5_4_32_however_it_lies() -> None:
    # On the box's slanted ramp a flat die looks tilted and may read cocked: still 5.4.32.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    events = run(DiceWatcher(zones), [(10, [die(None, y=100), die(1, 400)], 0.05),
                                      (100, [die(None, y=100), die(1, 400)], 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.IN_BOX, Kind.VOID]
    assert events[1].rule == events[2].rule == "5.4.32"


def test_a_die_that_moves_after_the_roll_was_read_is_read_again_where_it_lies() -> None:
    # A cocked die read as a 2 falls on its side (5.4.33: the throw stands as it fell).
    read_flat, fallen = [die(5), die(2, 400)], [die(5), die(6, 420)]
    events = run(DiceWatcher(), [(15, read_flat, 0.05), (40, read_flat, 0.0),
                                 (3, fallen, 0.05), (40, fallen, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ, Kind.ROLL_CHANGED]
    assert events[1].values == (2, 5) and events[2].values == (5, 6)
    assert events[2].frame == 14 + 40 + 3  # the first frame that shows it at rest


def test_a_die_read_flat_then_surer_cocked_where_it_lay_is_counted_from_its_rest() -> None:
    # The tray camera keeps the surest reading of a die lying still: read first as a 2 at
    # little confidence, then surely cocked, it was cocked all along (5.4.33).
    read_flat, cocked = [die(5), die(2, 400)], [die(5), die(None, 400)]
    events = run(DiceWatcher(), [(15, read_flat, 0.05), (30, read_flat, 0.0),
                                 (120, cocked, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ, Kind.COCKED, Kind.VOID]
    assert events[2].frame == 14  # when the die came to rest, not when it was seen cocked
    assert events[3].frame == 14 + 90 and events[3].rule == "5.4.33"
    # Read surely cocked only after 3 seconds: the count and the void come at once, each dated
    # by the frame that shows it (its rest, and 3 s later).
    events = run(DiceWatcher(), [(15, read_flat, 0.05), (100, read_flat, 0.0),
                                 (10, cocked, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ, Kind.COCKED, Kind.VOID]
    assert events[2].frame == 14 and events[3].frame == 14 + 90
    assert events[3].time == pytest.approx((14 + 90) / FPS)
    # One that moves after the roll and comes to rest cocked is a new lie of the dice: the
    # roll read stands (a die knocked aside), as before.
    events = run(DiceWatcher(), [(15, read_flat, 0.05), (30, read_flat, 0.0),
                                 (3, cocked, 0.05), (120, cocked, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ]


def test_dice_that_stay_where_the_roll_was_read_are_not_read_again() -> None:
    # A hand passes over the tray, and the dice, read again, read differently: still the roll.
    pair, misread = [die(5), die(2, 400)], [die(5), die(3, 400)]
    events = run(DiceWatcher(), [(15, pair, 0.05), (40, pair, 0.0), (5, misread, 0.05),
                                 (40, misread, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ]
    # Dice slid aside that show the same faces: nothing new either.
    moved = [die(5, 200), die(2, 500)]
    events = run(DiceWatcher(), [(15, pair, 0.05), (40, pair, 0.0), (5, moved, 0.05),
                                 (40, moved, 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ]


def test_dice_picked_up_clear_the_way_for_the_next_throw() -> None:
    pair = [die(6), die(1, 400)]
    events = run(DiceWatcher(), [(10, pair, 0.05), (30, pair, 0.0), (5, [], 0.05), (20, [], 0.0),
                                 (10, [die(2), die(2, 400)], 0.05), (30, [die(2), die(2, 400)], 0)])
    reads = [e.values for e in events if e.kind is Kind.ROLL_READ]
    assert reads == [(1, 6), (2, 2)]
    assert Kind.CLEARED in [e.kind for e in events]


def run_rests(watcher: DiceWatcher, frames: int, dice_at: object, unread: int | None = 0
              ) -> list:
    """`dice_at(frame)`: (dice, per-die rest frames, tray motion) seen in that frame."""
    events = []
    for frame in range(frames):
        dice, rests, moved = dice_at(frame)  # type: ignore[operator]
        events += watcher.update(frame, frame / FPS, dice, moved,
                                 [(r, r / FPS) for r in rests], unread)
    return events


def test_a_die_stopped_in_the_box_is_counted_while_the_other_still_rolls() -> None:
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    # the box's die stops at frame 10; the other rolls until frame 40
    events = run_rests(DiceWatcher(zones), 140, lambda f: (
        [die(4, y=100), die(2, 400)], [min(f, 10), min(f, 40)], 0.05 if f < 40 else 0.0))
    counts = [e for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert [(e.kind, e.frame) for e in counts] == [(Kind.IN_BOX, 10), (Kind.VOID, 100)]
    assert Kind.ROLL_READ not in [e.kind for e in events]


def test_a_die_not_out_of_the_box_is_counted_once_the_throw_is_over() -> None:
    # One die comes out and stops at frame 20; the rest of the tray settles at frame 24.
    def seen(frame: int) -> tuple[list[DieReading], list[int], float]:
        return [die(5)], [min(frame, 20)], 0.05 if frame < 25 else 0.0

    events = run_rests(DiceWatcher(), 130, seen)
    assert [(e.kind, e.frame, e.rule) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.IN_BOX, 24, "5.4.32"), (Kind.VOID, 114, "5.4.32")]
    # Unknown whether something lies unread in the tray (never seen empty): no count.
    assert not [e for e in run_rests(DiceWatcher(), 130, seen, unread=None)
                if e.kind is not Kind.ROLLING]
    # A second thing lies unread in the tray: the die is out, only not read.
    assert not [e for e in run_rests(DiceWatcher(), 130, seen, unread=1)
                if e.kind is not Kind.ROLLING]


def test_a_flicker_against_the_empty_tray_does_not_cancel_a_die_not_out_of_the_box() -> None:
    # One die out and at rest from frame 20, the tray still from 24, the other not out of the
    # box. A shadow's edge near the change threshold shows as something unread on frames 40,
    # 46 and 47 (96309): no die has come out, and the count runs on. Something that stays
    # from frame 60 on is a die come out unread: the count ends once it has lain 0.2 s.
    watcher, events = DiceWatcher(), []
    for frame in range(100):
        unread = int(frame in (40, 46, 47) or frame >= 60)
        events += watcher.update(frame, frame / FPS, [die(5)], 0.05 if frame < 25 else 0.0,
                                 [(min(frame, 20), min(frame, 20) / FPS)], unread)
    assert [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.IN_BOX, 24), (Kind.CANCELLED, 66)]
    assert events[-1].detail == "the die lies out of the box now"  # not "reads flat"


def test_a_die_not_out_of_the_box_counts_from_the_throw_not_from_the_other_dies_fall() -> None:
    # One die comes out cocked, at rest from frame 20, the tray still from 24; the other stays
    # out of sight in the box. The cocked die falls at frame 60 and lies flat from 63: the die
    # in the box has not come out, its count runs from when the throw was over (clip 87306).
    def seen(frame: int) -> tuple[list[DieReading], list[int], float]:
        if frame < 60:
            return [die(None)], [min(frame, 20)], 0.05 if frame < 25 else 0.0
        return [die(2)], [min(frame, 63)], 0.05 if frame < 63 else 0.0

    events = run_rests(DiceWatcher(), 160, seen)
    assert [(e.kind, e.frame, e.rule) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.COCKED, 20, "5.4.33"), (Kind.CANCELLED, 60, None), (Kind.IN_BOX, 24, "5.4.32"),
        (Kind.VOID, 114, "5.4.32")]


def test_a_die_cocked_on_the_unread_one_keeps_that_one_out_of_the_box() -> None:
    # 342202: a white die on a cream tray is never read; the other stands cocked on it in the
    # open tray, at rest from frame 20, falls at frame 60 and lies flat from 63. What it
    # leaned on lies in view, not in the box: no count for it, before the fall or after.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32),
                      tray_mm=(260.0, 220.0))

    def leaning_at(x: float) -> object:
        def seen(frame: int) -> tuple[list[DieReading], list[int], float]:
            if frame < 60:
                return [die(None, x)], [min(frame, 20)], 0.05 if frame < 25 else 0.0
            return [die(2, x)], [min(frame, 63)], 0.05 if frame < 63 else 0.0
        return seen

    def counted(x: float) -> list[tuple[Kind, int]]:
        return [(e.kind, e.frame) for e in run_rests(DiceWatcher(zones), 200, leaning_at(x))
                if e.kind is not Kind.ROLLING]

    assert counted(300) == [(Kind.COCKED, 20), (Kind.CANCELLED, 60)]
    # Cocked against the tray's wall (its foot 12 mm from it) it needs no other die: the
    # unread one is not out of the box.
    assert counted(590) == [(Kind.COCKED, 20), (Kind.CANCELLED, 60), (Kind.IN_BOX, 24),
                            (Kind.VOID, 114)]


def test_a_die_out_of_sight_is_given_a_second_to_come_out_before_it_is_counted() -> None:
    # One die out and at rest from frame 20, the tray still from 24; the other, rolling on
    # out of sight in the box, comes out at frame 50 and stops at frame 60.
    def seen(frame: int) -> tuple[list[DieReading], list[int], float]:
        if frame < 50:
            return [die(5)], [min(frame, 20)], 0.05 if frame < 25 else 0.0
        return [die(5), die(2, 400)], [20, min(frame, 60)], 0.05 if frame < 60 else 0.0

    events = run_rests(DiceWatcher(), 130, seen)
    assert [(e.kind, e.values) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.ROLL_READ, (2, 5))]


def test_a_die_seen_out_is_not_counted_in_the_box_when_it_is_lost_later() -> None:
    # Both dice read while rolling; at rest the reader loses one (a black die on black).
    events = run_rests(DiceWatcher(), 130, lambda f: (
        [die(5), die(3, 400)] if f < 20 else [die(5)], [f if f < 20 else 20] * (2 if f < 20 else 1),
        0.05 if f < 20 else 0.0))
    assert Kind.IN_BOX not in [e.kind for e in events]
    assert Kind.VOID not in [e.kind for e in events]


def test_one_rolling_die_read_twice_is_not_both_dice_out_of_the_box() -> None:
    # 284303: the die rolling out, blurred, read twice in overlapping boxes; the other stops
    # out of sight in the box. Once the tray is still it is counted as not out of the box.
    events = run_rests(DiceWatcher(), 150, lambda f: (
        [die(5), die(3, 320, 315)] if f < 20 else [die(5)], [f if f < 20 else 20] * (
            2 if f < 20 else 1), 0.05 if f < 20 else 0.0))
    counted = [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING]
    assert counted[:2] == [(Kind.IN_BOX, 20), (Kind.VOID, 20 + 90)]


def test_a_die_counted_unseen_in_the_box_and_read_there_later_keeps_its_count() -> None:
    # One die out and at rest from frame 14, nothing else in view: the other is counted as
    # not out of the box. Read in the box from frame 60 (its rest dated from then), it is
    # the same die: the count runs on, the void 3 s after it started.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    watcher, events = DiceWatcher(zones), []
    for frame in range(160):
        time, moved = frame / FPS, 0.05 if frame < 15 else 0.0
        dice, rests = [die(3, 400)], [(14, 14 / FPS)]
        if frame >= 60:
            dice.append(die(4, y=100))
            rests.append((60, 60 / FPS))
        events += watcher.update(frame, time, dice, moved, rests, unread=0)
    counted = [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING]
    assert counted == [(Kind.IN_BOX, 14), (Kind.VOID, 14 + 90)]


def test_a_die_counted_unseen_in_the_box_stays_counted_while_the_tray_stirs() -> None:
    # As above, the die out of the box at rest from frame 14 and the other counted unseen in
    # the box; at frame 70 the tray stirs for a frame (the unseen die sliding a pixel down the
    # ramp: 124307) and still no second die lies in view. The count runs on, not cancelled and
    # started again.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    watcher, events = DiceWatcher(zones), []
    for frame in range(160):
        moved = 0.05 if frame < 15 or frame == 70 else 0.0
        events += watcher.update(frame, frame / FPS, [die(3, 400)], moved, [(14, 14 / FPS)],
                                 unread=0)
    counted = [(e.kind, e.frame) for e in events if e.kind is not Kind.ROLLING]
    assert counted == [(Kind.IN_BOX, 14), (Kind.VOID, 14 + 90)]


def test_the_void_cites_what_started_the_count() -> None:
    # A die in the box, read again framed with its neighbour: the box now centres outside the
    # box zone and reads cocked. Still the same die at rest: the void is the box's (5.4.32).
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    in_box = DieReading((300, 150, 40, 40), None, True, 0.99)
    reframed = DieReading((300, 170, 40, 60), None, True, 0.99)
    events = run_rests(DiceWatcher(zones), 120, lambda f: (
        [in_box if f < 60 else reframed, die(3, 400)], [5, 5], 0.0))
    assert [(e.kind, e.rule) for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)] == [
        (Kind.IN_BOX, "5.4.32"), (Kind.VOID, "5.4.32")]


def test_a_faint_die_is_read_into_the_roll_when_too_few_dice_are_sure() -> None:
    faint = DieReading((400, 300, 40, 40), 2, False, 0.3, presence=0.3)
    events = run(DiceWatcher(), [(10, [die(4), faint], 0.05), (30, [die(4), faint], 0.0)])
    roll = [e for e in events if e.kind is Kind.ROLL_READ]
    assert [e.values for e in roll] == [(2, 4)]
    assert roll[0].confidence <= 0.3  # its doubt shows
    # With two sure dice, a faint third reading (a knuckle, a shadow) stays out of the roll.
    events = run(DiceWatcher(), [(10, [die(4), faint, die(6, 500)], 0.05),
                                 (30, [die(4), faint, die(6, 500)], 0.0)])
    assert [e.values for e in events if e.kind is Kind.ROLL_READ] == [(4, 6)]


def test_a_die_surely_there_but_doubtful_flat_or_cocked_is_not_faint() -> None:
    # The other die stays out of sight in the box; the one out is read with doubt about its
    # tilt alone: it is seen, so the die missing is counted (5.4.32).
    doubtful = DieReading((300, 300, 40, 40), 3, False, 0.3, presence=0.95)
    events = run_rests(DiceWatcher(), 120, lambda f: ([doubtful], [5], 0.0), unread=0)
    assert [(e.kind, e.rule) for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)] == [
        (Kind.IN_BOX, "5.4.32"), (Kind.VOID, "5.4.32")]
    knuckle = DieReading((300, 300, 40, 40), 3, False, 0.3, presence=0.3)
    events = run_rests(DiceWatcher(), 120, lambda f: ([knuckle], [5], 0.0), unread=0)
    assert Kind.IN_BOX not in [e.kind for e in events]


def test_a_long_wait_with_one_die_read_does_not_outvote_the_roll() -> None:
    # For ten seconds one die alone is read (where the other lies nothing is known); then
    # both are: the roll is read within a second, not after as many frames again.
    alone, both = [die(4)], [die(4), die(6, 400)]
    events = run_rests(DiceWatcher(), 360, lambda f: (
        (alone, [0], 0.0) if f < 300 else (both, [0, 300], 0.0)), unread=None)
    roll = [e for e in events if e.kind is Kind.ROLL_READ]
    assert [e.values for e in roll] == [(4, 6)] and roll[0].frame == 300


def test_of_two_touching_dice_read_cocked_the_surer_is_counted() -> None:
    # A die leans on another that lies flat from frame 5; the leaning one comes to rest at
    # frame 12. Both read cocked (the flat one's crop shows the other's tilt beside it),
    # the flat one less surely: the count runs for the leaning one, from its rest.
    flat = DieReading((300, 300, 40, 40), None, True, 0.6)
    leaning = DieReading((338, 296, 40, 46), None, True, 0.9)
    events = run_rests(DiceWatcher(), 130, lambda f: (
        [flat, leaning], [min(f, 5), min(f, 12)], 0.05 if f < 12 else 0.0))
    counts = [e for e in events if e.kind in (Kind.COCKED, Kind.VOID)]
    assert [(e.kind, e.frame, e.box) for e in counts] == [
        (Kind.COCKED, 12, leaning.box), (Kind.VOID, 102, leaning.box)]
    # Two dice cocked apart, each against a wall: both stand cocked; the first counts.
    apart = DieReading((500, 300, 40, 46), None, True, 0.9)
    events = run_rests(DiceWatcher(), 130, lambda f: (
        [flat, apart], [min(f, 5), min(f, 12)], 0.05 if f < 12 else 0.0))
    assert [(e.kind, e.frame, e.box) for e in events if e.kind is Kind.COCKED] == [
        (Kind.COCKED, 5, flat.box)]


def test_a_count_and_its_void_say_how_surely_the_die_lies_so() -> None:
    # A cocked die read 0.6 cocked, then surer (0.9) where it lies: the void carries the surer
    # call, for the judges deciding on it; a die in the box, how surely it is a die at all.
    doubtful = DieReading((400, 300, 40, 40), None, True, 0.6)
    surer = DieReading((400, 300, 40, 40), None, True, 0.9)
    events = run(DiceWatcher(), [(15, [die(5), doubtful], 0.05), (30, [die(5), doubtful], 0.0),
                                 (90, [die(5), surer], 0.0)])
    cocked, void = (e for e in events if e.kind in (Kind.COCKED, Kind.VOID))
    assert (cocked.confidence, void.confidence) == (0.6, 0.9)
    assert cocked.to_json()["confidence"] == 0.6
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    in_box = DieReading((300, 100, 40, 40), 4, False, 0.5, presence=0.97)
    events = run(DiceWatcher(zones), [(10, [in_box, die(1, 400)], 0.05),
                                      (100, [in_box, die(1, 400)], 0.0)])
    assert [e.confidence for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)] == [0.97, 0.97]


def test_a_die_counted_unseen_in_the_box_carries_no_confidence() -> None:
    def seen(frame: int) -> tuple[list[DieReading], list[int], float]:
        return [die(5)], [min(frame, 20)], 0.05 if frame < 25 else 0.0

    counted = [e for e in run_rests(DiceWatcher(), 130, seen)
               if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert len(counted) == 2
    assert all(e.confidence is None and "confidence" not in e.to_json() for e in counted)


def test_a_part_of_a_die_read_as_a_third_die_starts_no_count() -> None:
    # A closer look frames a corner between the two dice alone, 14 px against dice of 20 and
    # 26, and reads it cocked: a throw has two dice, and a reading under half the size of
    # either is a part of one, not a die that voids the throw.
    corner = DieReading((389, 327, 14, 14), None, True, 0.97)
    dice = [DieReading((402, 320, 26, 29), 6, False, 0.99),
            DieReading((379, 315, 20, 21), 2, False, 0.9)]
    events = run(DiceWatcher(), [(15, dice, 0.05), (120, [*dice, corner], 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.ROLL_READ]
    assert events[1].values == (2, 6)
    # Half the size or more, it is read as a die: its count starts.
    bigger = DieReading((389, 327, 15, 15), None, True, 0.97)
    events = run(DiceWatcher(), [(15, dice, 0.05), (120, [*dice, bigger], 0.0)])
    assert Kind.COCKED in [e.kind for e in events]
    # A faint reading, however large (a knuckle), measures no die: a small die beside it is
    # no part.
    knuckle = DieReading((100, 300, 60, 60), 3, False, 0.2, presence=0.2)
    events = run(DiceWatcher(), [(15, dice[:1], 0.05), (120, [dice[0], corner, knuckle], 0.0)])
    assert Kind.COCKED in [e.kind for e in events]


def test_a_die_framed_by_its_pip_alone_starts_no_count() -> None:
    """487205: a black 1 in a wall's shadow framed by its pip, under half the width at its
    foot of the other die read flat and sure, was called cocked and voided a good throw. In
    tray floor millimetres, as here a pixel a millimetre, the camera's perspective is undone."""
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32),
                      tray_mm=(640.0, 280.0))
    one = DieReading((400, 300, 32, 31), 1, False, 0.99)
    pip = DieReading((200, 300, 13, 13), None, True, 0.57)

    def counted(where: DiceZones, dice: list[DieReading]) -> list[Kind]:
        # the die read as a part lies unread in view, a change from the empty tray
        def dice_at(frame: int) -> tuple[list[DieReading], list[int], float]:
            return (dice[:1], [0], 0.05) if frame < 15 else (dice, [15] * len(dice), 0.0)
        return [e.kind for e in run_rests(DiceWatcher(where), 135, dice_at, unread=1)
                if e.kind in (Kind.COCKED, Kind.IN_BOX, Kind.VOID)]

    assert counted(zones, [one, pip]) == []
    # Half as wide or more it is a die, and its count starts; so it does where the other die
    # is read unsurely, or the tray's size is not known.
    wider = DieReading((200, 300, 16, 16), None, True, 0.57)
    unsure = DieReading((400, 300, 32, 31), 1, False, 0.6)
    unmeasured = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    for where, dice in ((zones, [one, wider]), (zones, [unsure, pip]), (unmeasured, [one, pip])):
        assert counted(where, dice) == [Kind.COCKED, Kind.VOID]
