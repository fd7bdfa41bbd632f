"""The dice watcher on scripted observation streams (30 fps)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.reader import DieReading
from vision.dice.stream import DiceWatcher, Kind, motion
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
    # dated by the first frame at rest, though announced after 0.25 s and 5 frames of reading
    assert events[1].frame == 20


def test_a_die_cocked_for_three_seconds_voids_the_throw() -> None:
    events = run(DiceWatcher(), [(15, [die(5), die(None, 400)], 0.05),
                                 (120, [die(5), die(None, 400)], 0.0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.COCKED, Kind.VOID]
    cocked, void = events[1], events[2]
    assert cocked.frame == 15  # the count starts when the die came to rest
    assert void.rule == "5.4.33"
    assert void.frame - cocked.frame == pytest.approx(3 * FPS, abs=2)


def test_a_cocked_die_that_falls_cancels_the_count_and_the_roll_is_read() -> None:
    events = run(DiceWatcher(), [(15, [die(5), die(None, 400)], 0.05),
                                 (60, [die(5), die(None, 400)], 0.0),
                                 (3, [die(5), die(2, 400)], 0.05),
                                 (40, [die(5), die(2, 400)], 0.0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.COCKED, Kind.CANCELLED, Kind.ROLLING, Kind.ROLL_READ]
    assert events[-1].values == (2, 5)


def test_a_die_stopped_in_the_box_voids_after_three_seconds() -> None:
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    events = run(DiceWatcher(zones), [(10, [die(4, y=100), die(1, 400)], 0.05),
                                      (100, [die(4, y=100), die(1, 400)], 0.0)])
    kinds = [e.kind for e in events]
    assert kinds == [Kind.ROLLING, Kind.IN_BOX, Kind.VOID]
    assert events[2].rule == "5.4.32"


def test_a_die_in_the_box_voids_under_5_4_32_however_it_lies() -> None:
    # On the box's slanted ramp a flat die looks tilted and may read cocked: still 5.4.32.
    zones = DiceZones(np.array(TRAY, np.float32), np.array(BOX, np.float32))
    events = run(DiceWatcher(zones), [(10, [die(None, y=100), die(1, 400)], 0.05),
                                      (100, [die(None, y=100), die(1, 400)], 0.0)])
    assert [e.kind for e in events] == [Kind.ROLLING, Kind.IN_BOX, Kind.VOID]
    assert events[1].rule == events[2].rule == "5.4.32"


def test_dice_picked_up_clear_the_way_for_the_next_throw() -> None:
    pair = [die(6), die(1, 400)]
    events = run(DiceWatcher(), [(10, pair, 0.05), (30, pair, 0.0), (5, [], 0.05), (20, [], 0.0),
                                 (10, [die(2), die(2, 400)], 0.05), (30, [die(2), die(2, 400)], 0)])
    reads = [e.values for e in events if e.kind is Kind.ROLL_READ]
    assert reads == [(1, 6), (2, 2)]
    assert Kind.CLEARED in [e.kind for e in events]


def test_motion_measures_changed_pixels() -> None:
    a = np.zeros((10, 10), np.uint8)
    b = a.copy()
    b[:5] = 200
    assert motion(None, a) == 1.0
    assert motion(a, a) == 0.0
    assert motion(a, b) == pytest.approx(0.5)
    mask = np.zeros((10, 10), bool)
    mask[5:] = True
    assert motion(a, b, mask) == 0.0
