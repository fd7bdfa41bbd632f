"""When each die came to rest, and what lies in the tray unread, on drawn frames."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice.empty_tray import EmptyTray
from vision.dice.reader import DieReading
from vision.dice.rest import RestClock, SurestAtRest, changed_pixels, moved_pixels, smoothed

FPS = 30.0


def tray(dice: list[tuple[float, float]], noise: int = 0, seed: int = 0) -> np.ndarray:
    """A 200x160 grey tray with a light 20-pixel die at each (x, y) (sub-pixel: drawn large
    and shrunk) and sensor noise of `noise` grey levels."""
    big = np.full((160 * 8, 200 * 8, 3), 60, np.uint8)
    for x, y in dice:
        cv2.rectangle(big, (round(x * 8), round(y * 8)), (round((x + 20) * 8), round((y + 20) * 8)),
                      (220, 220, 220), -1)
    image = cv2.resize(big, (200, 160), interpolation=cv2.INTER_AREA).astype(np.int16)
    image += np.random.default_rng(seed).integers(-noise, noise + 1, image.shape, dtype=np.int16)
    return np.asarray(image.clip(0, 255), np.uint8)


def box(x: float, y: float) -> tuple[float, float, float, float]:
    return (x, y, 20.0, 20.0)


def test_a_die_creeping_a_third_of_a_pixel_a_frame_is_moving_until_it_stops() -> None:
    clock = RestClock()
    rests = []
    for frame in range(40):
        x = 50 + min(frame, 20) / 3  # creeps for 20 frames, then lies still
        rests.append(clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 6, frame)),
                                  [box(x, 60)])[0][0])
    # A third of a pixel is at the limit: a step may pass unseen, and once at rest a die may
    # shift half a pixel unseen (a quiver), but the creep adds up and is seen.
    assert all(frame - 2 <= rest <= frame for frame, rest in enumerate(rests[1:20], 1))
    assert set(rests[20:]) <= {19, 20}  # at rest since it stopped, however long ago


def test_a_die_creeping_down_the_box_stays_stopped_there_and_moves_in_the_tray() -> None:
    # A die stopped on the box's ramp slides down it by a pixel in half a second: stopped in
    # the box all the while (5.4.32), as the truth has it (within 0.5 mm over any 5 frames),
    # where a count started again every few frames would flicker on the judges' screens. In
    # the tray the same creep is a die still settling.
    for inside, restarted in ((True, False), (False, True)):
        clock = RestClock()
        rests = []
        for frame in range(60):
            x = 50 + min(frame, 5) * 3 + max(frame - 5, 0) * 0.06
            rests.append(clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 4, frame)),
                                      [box(x, 60)], [inside])[0][0])
        assert (set(rests[5:]) != {5}) == restarted


def test_a_die_quivering_at_rest_stays_at_rest() -> None:
    # A die leaning on another quivers in the physics by a few tenths of a pixel; seen frame
    # to frame that is a visible change, but the die lies where it came to rest.
    clock = RestClock()
    for frame in range(30):
        x = 50 + min(frame, 5) * 3 + (0.4 if frame > 8 and frame % 3 == 0 else 0.0)
        rest = clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 6, frame)),
                            [box(x, 60)])[0][0]
    assert rest == 5


def test_moved_pixels_forgives_half_a_pixel_and_not_more() -> None:
    still = smoothed(tray([(50, 60)]))
    assert changed_pixels(still, smoothed(tray([(50.4, 60)]))) >= 8  # seen frame to frame
    assert moved_pixels(still, smoothed(tray([(50.4, 60.4)]))) == 0
    assert moved_pixels(still, smoothed(tray([(51.5, 60)]))) >= 8


def test_sensor_noise_is_no_motion() -> None:
    clock = RestClock()
    for frame in range(30):
        rest = clock.update((frame, frame / FPS), smoothed(tray([(50, 60)], 10, frame)),
                            [box(50, 60)])
    assert rest == [(0, 0.0)]


def test_each_die_rests_on_its_own_while_the_other_rolls() -> None:
    clock = RestClock()
    for frame in range(20):
        rolling = (120 + 3 * frame, 40)
        rests = clock.update((frame, frame / FPS), smoothed(tray([(30, 90), rolling], 4, frame)),
                             [box(30, 90), box(*rolling)])
    assert rests[0][0] == 0 and rests[1][0] == 19


def test_a_die_rests_while_the_other_rolls_up_beside_it() -> None:
    clock = RestClock()
    for frame in range(12):
        # The other die rolls in from the right and stops 2 pixels from the first, inside
        # the margin the first's surroundings are watched in.
        rolling = (max(120 - 8 * frame, 52), 92)
        rests = clock.update((frame, frame / FPS), smoothed(tray([(30, 90), rolling], 4, frame)),
                             [box(30, 90), box(*rolling)])
    assert rests[0][0] == 0 and rests[1][0] == 9


def test_a_die_rests_while_the_other_rolls_up_against_its_box() -> None:
    clock = RestClock()
    for frame in range(12):
        # Both dice framed a few pixels wider than they are, as the reader frames them: the
        # other die stops 3 pixels from the first, its box over the edge of the first's.
        rolling = (max(120 - 8 * frame, 53), 92)
        rests = clock.update((frame, frame / FPS), smoothed(tray([(30, 90), rolling], 4, frame)),
                             [(28.0, 88.0, 25.0, 24.0), (rolling[0] - 3, 89.0, 26.0, 25.0)])
    assert rests[0][0] == 0 and rests[1][0] == 9


def test_a_die_is_dated_again_once_the_die_beside_it_unread_is_read() -> None:
    clock = RestClock()
    for frame in range(14):
        # The other die rolls up beside the first and stops at frame 10, inside the margin
        # the first's surroundings are watched in; unread while it rolls, its arrival counts
        # as the first's move. Read from frame 11 on, it is no part of the first's
        # surroundings: the first has lain still since frame 0 all the same.
        rolling = (max(112 - 6 * frame, 52), 92)
        boxes = [box(30, 90)] + ([box(*rolling)] if frame >= 11 else [])
        rests = clock.update((frame, frame / FPS), smoothed(tray([(30, 90), rolling], 4, frame)),
                             boxes)
    assert rests[0][0] == 0 and rests[1][0] == 10


def test_a_die_read_again_framed_differently_keeps_its_rest() -> None:
    clock = RestClock()
    for frame in range(10):
        clock.update((frame, frame / FPS), smoothed(tray([(50, 60)])), [box(50, 60)])
    # the same die, read again as a larger box (framed with a neighbour, say)
    rest = clock.update((10, 10 / FPS), smoothed(tray([(50, 60)])), [(48.0, 58.0, 30.0, 24.0)])
    assert rest == [(0, 0.0)]


def test_a_die_lying_unread_shows_against_the_empty_tray_and_one_in_the_box_does_not() -> None:
    floor = np.zeros((160, 200), bool)
    floor[60:] = True  # the tray's floor; above it, the box
    empty = EmptyTray(floor)
    assert empty.unexplained(smoothed(tray([(30, 90)])), [box(30, 90)]) is None  # never seen empty
    empty.remember(smoothed(tray([])))
    assert empty.unexplained(smoothed(tray([(30, 90)], 6)), [box(30, 90)]) == []
    lying = empty.unexplained(smoothed(tray([(30, 90), (140, 100)], 6)), [box(30, 90)])
    assert lying is not None and len(lying) == 1
    x, y, w, h = lying[0]
    assert abs(x - 140) <= 2 and abs(y - 100) <= 2 and 18 <= w <= 24 and 18 <= h <= 24
    assert empty.unexplained(smoothed(tray([(30, 90), (140, 10)], 6)), [box(30, 90)]) == []
    # No die read to size one by: a change the size of the smallest readable die still counts.
    assert empty.unexplained(smoothed(tray([(140, 100)], 6)), []) is not None
    assert len(empty.unexplained(smoothed(tray([(140, 100)], 6)), []) or []) == 1


def test_a_die_first_read_late_is_dated_from_when_it_stopped() -> None:
    clock = RestClock()
    for frame in range(12):
        x = 50 + 4 * min(frame, 4)  # rolls, stops at frame 4; not read until frame 11
        rest = clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 6, frame)),
                            [box(x, 60)] if frame == 11 else [])
    assert rest == [(4, 4 / FPS)]


def test_a_die_found_seconds_after_it_stopped_is_dated_from_then() -> None:
    """A still tray is read again for a missing die for seconds (vision/tray.py): a die found
    only on such a reading lay where it lies since it stopped."""
    clock = RestClock()
    for frame in range(80):
        x = 50 + 4 * min(frame, 4)
        rest = clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 6, frame)),
                            [box(x, 60)] if frame == 79 else [])
    assert rest == [(4, 4 / FPS)]


def test_a_die_drifting_slower_than_the_eye_sees_stays_at_rest() -> None:
    """A pixel in four seconds (the physics' settling, a camera's thermal drift) is no move,
    though it adds up to more than half a pixel over the seconds kept."""
    clock = RestClock()
    for frame in range(120):
        x = 50 + frame / 120
        rest = clock.update((frame, frame / FPS), smoothed(tray([(x, 60)], 4, frame)),
                            [box(x, 60)])
    assert rest == [(0, 0.0)]


def test_changed_pixels_counts_visible_changes_where_asked() -> None:
    before = np.zeros((10, 10), np.uint8)
    after = before.copy()
    after[:4] = 200  # 40 pixels changed visibly
    after[4:6] = 10  # 20 changed too little to count
    assert changed_pixels(before, after) == 40
    mask = np.zeros((10, 10), bool)
    mask[2:] = True
    assert changed_pixels(before, after, mask) == 20
    assert changed_pixels(before, before) == 0


def test_the_surest_reading_of_a_die_at_rest_stands_until_it_moves() -> None:
    surest = SurestAtRest()
    cocked = DieReading(box(50, 60), None, True, 0.6)
    flat_again = DieReading((50.5, 60.0, 20.0, 20.0), 5, False, 0.4)  # a creep, read again
    other = DieReading(box(120, 40), 3, False, 0.9)
    assert surest.update([cocked, other], [(4, 0.13), (9, 0.3)], (12, 0.4)) == [cocked, other]
    steady = surest.update([flat_again, other], [(4, 0.13), (9, 0.3)], (15, 0.5))
    assert steady[0].cocked and steady[0].box == flat_again.box  # kept, where seen now
    surer = DieReading(box(50, 60), 5, False, 0.8)
    assert surest.update([surer, other], [(4, 0.13), (9, 0.3)], (18, 0.6))[0] == surer
    # Moved (a new moment of rest): the new reading stands, however unsure.
    fell = DieReading(box(52, 60), 1, False, 0.3)
    assert surest.update([fell, other], [(20, 0.67), (9, 0.3)], (20, 0.67))[0] == fell


def test_a_die_seen_to_move_and_dated_back_keeps_its_surest_reading() -> None:
    # 361209: a flat 1 read at frame 2 while the other die landed beside it, its rest dated
    # from 4 (the reading made before it: set aside), then moving on frames 41-42 as the other
    # fell past it unread, then dated back to frame 0 and read cocked 0.55 in a box framing
    # the other's shadow too. It lay there all along: the flat reading stands.
    surest = SurestAtRest()
    flat = DieReading((246.0, 239.0, 29.0, 26.0), 1, False, 0.78)
    surest.update([flat], [(4, 0.13)], (2, 0.07))
    surest.update([flat], [(41, 1.37)], (2, 0.07))
    unsure = DieReading((249.0, 239.0, 34.0, 33.0), None, True, 0.55)
    steady = surest.update([unsure], [(0, 0.0)], (43, 1.43))[0]
    assert (steady.value, steady.cocked, steady.box) == (1, False, unsure.box)
    # Dated at rest only after the reading set aside was made, it is another lie of the die.
    surest = SurestAtRest()
    surest.update([flat], [(4, 0.13)], (2, 0.07))
    assert surest.update([unsure], [(30, 1.0)], (43, 1.43)) == [unsure]


def test_a_face_of_a_die_at_rest_framed_alone_is_no_new_reading_of_it() -> None:
    # A closer look frames the top face of a die leaning at rest (half its size, surer flat
    # than the die was cocked): the die read whole stands, with its box.
    surest = SurestAtRest()
    cocked = DieReading(box(50, 60), None, True, 0.55)
    surest.update([cocked], [(4, 0.13)], (6, 0.2))
    face = DieReading((55.0, 63.0, 11.0, 12.0), 1, False, 0.9)
    assert surest.update([face], [(4, 0.13)], (9, 0.3)) == [cocked]


def test_a_part_of_a_die_framed_apart_is_not_held_once_the_die_is_read_whole() -> None:
    # A closer look framed a die's lower part and its top face as two dice (302309); read
    # whole, the die holds the face, which is no die missing from the reading.
    surest = SurestAtRest()
    lower = DieReading((52.0, 68.0, 21.0, 20.0), 2, False, 0.99)
    face = DieReading((53.0, 60.0, 11.0, 10.0), 1, False, 0.82)
    surest.update([lower, face], [(21, 0.7), (21, 0.7)], (22, 0.73))
    whole = DieReading((50.0, 60.0, 26.0, 28.0), 2, False, 0.99)
    assert surest.missing([whole]) == []


def test_a_die_framed_with_its_neighbour_is_held_where_it_lies() -> None:
    # A re-reading frames the first of two touching dice with a corner of the second: the
    # second's centre lies in that box, under half its size, and it is still a die of its own.
    surest = SurestAtRest()
    first, second = DieReading(box(50, 60), 4, False, 0.9), DieReading(box(66, 72), 2, False, 0.9)
    surest.update([first, second], [(4, 0.13), (6, 0.2)], (9, 0.3))
    both = DieReading((50.0, 60.0, 30.0, 28.0), 4, False, 0.7)
    assert [die for die, _ in surest.missing([both])] == [second]


def test_a_reading_made_while_the_die_still_tumbled_is_not_kept() -> None:
    surest = SurestAtRest()
    tumbling = DieReading(box(50, 60), None, True, 0.97)  # read on frame 9, lies still from 10
    assert surest.update([tumbling], [(10, 0.33)], (9, 0.3)) == [tumbling]
    flat = DieReading(box(50, 60), 3, False, 0.9)
    assert surest.update([flat], [(10, 0.33)], (12, 0.4)) == [flat]


def test_a_box_framing_two_dice_does_not_lend_its_reading_to_one_of_them() -> None:
    surest = SurestAtRest()
    both = DieReading((50.0, 60.0, 44.0, 20.0), 4, False, 0.9)
    surest.update([both], [(4, 0.13)], (6, 0.2))
    apart = [DieReading(box(50, 60), None, True, 0.5), DieReading(box(74, 60), 2, False, 0.5)]
    assert surest.update(apart, [(4, 0.13), (4, 0.13)], (9, 0.3)) == apart


def test_a_die_rests_while_the_other_rolls_past_it_unread() -> None:
    clock = RestClock()
    for frame in range(16):
        # The other die rolls past 3 pixels below the first, through the margin its
        # surroundings are watched in, and is never read (a blur the detector misses).
        rolling = (120 - 8 * frame, 113)
        rest = clock.update((frame, frame / FPS), smoothed(tray([(30, 90), rolling], 4, frame)),
                            [box(30, 90)])
    assert rest == [(0, 0.0)]


def test_only_changes_centred_on_a_box_count_as_its_own() -> None:
    before = smoothed(tray([(30, 90), (80, 90)]))
    after = smoothed(tray([(33, 90), (84, 90)]))  # both dice moved
    assert changed_pixels(before, after, on=box(30, 90)) > 0
    both = changed_pixels(before, after)
    assert changed_pixels(before, after, on=box(30, 90)) < both
    assert changed_pixels(before, after, on=box(140, 20)) == 0


def test_a_die_in_the_box_showing_more_of_itself_as_it_settles_keeps_its_rest() -> None:
    # Seen through the box's exit, a die toppling slowly there shows a sliver that grows by a
    # twentieth of a pixel a frame, and is then read whole in a box holding the sliver's: the
    # same die, stopped in the box since it came to rest (5.4.32), not a die stopped anew.
    def sliver(frame: int) -> tuple[float, float, float, float]:
        shown = 6 + max(frame - 5, 0) * 0.05
        return (50.0 + min(frame, 5) * 3, 80.0 - shown, 20.0, shown)

    # In the tray the same reading is dated anew (a box framing two touching dice holds each).
    for inside, kept in ((True, True), (False, False)):
        clock = RestClock()
        for frame in range(90):
            x, y, w, h = sliver(frame)
            big = np.full((160 * 8, 200 * 8, 3), 60, np.uint8)
            cv2.rectangle(big, (round(x * 8), round(y * 8)), (round((x + w) * 8), 80 * 8),
                          (220, 220, 220), -1)
            image = cv2.resize(big, (200, 160), interpolation=cv2.INTER_AREA)
            read = (x - 3, y - 14, w + 6, h + 17) if frame >= 60 else (x, y, w, h)
            rest = clock.update((frame, frame / FPS), smoothed(image), [read], [inside])[0]
        assert (rest[0] == 5) == kept


def test_a_dies_shadow_is_the_empty_tray_darkened_and_a_die_is_not() -> None:
    rng = np.random.default_rng(0)

    def floor(colour: tuple[int, int, int]) -> np.ndarray:
        image = np.empty((120, 160, 3), np.float32)
        image[:] = colour
        return np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)

    felt = floor((90, 110, 190))
    empty = EmptyTray(np.ones(felt.shape[:2], bool))
    shadowed = felt.copy()
    shadowed[40:70, 40:70] = (shadowed[40:70, 40:70] * 0.45).astype(np.uint8)
    assert not empty.shadow(shadowed, (40.0, 40.0, 30.0, 30.0))  # the tray never seen empty
    empty.remember(smoothed(felt), felt)
    assert empty.shadow(shadowed, (40.0, 40.0, 30.0, 30.0))
    # A clear yellow die darker than the felt: its hue is not the felt's.
    clear = felt.copy()
    clear[40:70, 40:70] = (40, 140, 150)
    assert not empty.shadow(clear, (40.0, 40.0, 30.0, 30.0))
    # A white die on a grey tray, its faces shaded darker than the tray and of its hue: its
    # edges and pips are no shadow's flat inside (142207).
    grey = floor((150, 150, 150))
    on_grey = EmptyTray(np.ones(grey.shape[:2], bool))
    on_grey.remember(smoothed(grey), grey)
    white = grey.copy()
    white[40:70, 40:70] = 110
    white[40:52, 40:70] = 60
    for px, py in ((46, 56), (55, 62), (64, 66)):
        cv2.circle(white, (px, py), 3, (20, 20, 20), -1)
    assert not on_grey.shadow(white, (40.0, 40.0, 30.0, 30.0))


def test_a_box_showing_the_empty_tray_as_it_was_is_unchanged_and_a_die_is_not() -> None:
    rng = np.random.default_rng(1)
    tray = np.clip(rng.normal((60, 90, 60), 3, (120, 160, 3)), 0, 255).astype(np.uint8)
    tray[30:50, 100:120] = (150, 170, 150)  # a highlight on the tray, there before the throw
    empty = EmptyTray(np.ones(tray.shape[:2], bool))
    box = (100.0, 30.0, 20.0, 20.0)
    assert not empty.unchanged(tray, box)  # the tray never seen empty
    empty.remember(smoothed(tray), tray)
    again = np.clip(tray + rng.normal(0, 3, tray.shape), 0, 255).astype(np.uint8)
    assert empty.unchanged(again, box)  # the same tray, a camera's noise apart
    die = again.copy()
    die[32:48, 102:118] = 230  # a white die on the highlight, its pips dark
    for px, py in ((106, 36), (114, 44)):
        cv2.circle(die, (px, py), 2, (20, 20, 20), -1)
    assert not empty.unchanged(die, box)
    # A die as bright as the felt, of another colour: the grey image cannot tell it (172304).
    felt_box = (40.0, 60.0, 20.0, 20.0)
    assert empty.unchanged(again, felt_box)
    coloured = again.copy()
    coloured[62:78, 42:58] = (110, 60, 110)  # grey level about the felt's 78
    assert abs(float(smoothed(coloured)[70, 50]) - float(smoothed(again)[70, 50])) < 12
    assert not empty.unchanged(coloured, felt_box)


def test_a_dies_hard_shadow_framed_with_what_lies_round_it_is_no_die() -> None:
    """481203: a flat white die on grained wood, its hard shadow beside it framed with a
    sliver of the die and the lit wood round it, was read as a third die, cocked."""
    rng = np.random.default_rng(2)
    grain = cv2.GaussianBlur(rng.normal(0, 30, (120, 160)), (0, 0), sigmaX=6, sigmaY=1)
    wood = np.clip(np.stack([60 + grain, 150 + grain, 200 + grain], axis=2), 0, 255
                   ).astype(np.uint8)
    empty = EmptyTray(np.ones(wood.shape[:2], bool))
    empty.remember(smoothed(wood), wood)
    seen = wood.copy()
    seen[40:60, 60:80] = (seen[40:60, 60:80] * 0.5).astype(np.uint8)  # the shadow
    seen[40:60, 40:60] = 235  # the die
    die, framed = (40.0, 40.0, 20.0, 20.0), (56.0, 36.0, 30.0, 28.0)
    assert not empty.shadow(seen, framed)  # the grain is no flat inside; the lit wood round it
    assert empty.shade_beside(seen, framed, [die])
    assert not empty.shade_beside(seen, framed, [])  # the die's sliver, brighter, counts then
    assert not empty.shade_beside(seen, die, [framed])  # the die itself
    # A black die showing a 1 on the grey tray, darker and of the tray's hue: its pip is
    # brighter than the tray.
    grey = np.full((120, 160, 3), 150, np.uint8)
    on_grey = EmptyTray(np.ones(grey.shape[:2], bool))
    on_grey.remember(smoothed(grey), grey)
    black = grey.copy()
    black[40:60, 40:60] = 30
    cv2.circle(black, (50, 50), 3, (235, 235, 235), -1)
    assert not on_grey.shade_beside(black, (38.0, 38.0, 24.0, 24.0), [])
