"""The tray camera: readings only when the tray changed, a second camera's events handed
over by time, and a live tray camera read in a thread of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from synth.light import Light
from vision.dice.reader import DieReading
from vision.dice.stream import DiceEvent, Kind
from vision.dice.zones import DiceZones, TrayCalibration
from vision.sources import VideoSource
from vision.tray import DiceFeed, TrayCamera, TrayVideo

TRAY = np.array([[0, 60], [160, 60], [160, 120], [0, 120]], np.float32)
BOX = np.array([[0, 0], [160, 0], [160, 59], [0, 59]], np.float32)


class ProposedOnly:
    """A stand-in reader sees dice only where its own detector proposes them: a box it is
    given to read (a change from the empty tray) shows it none."""

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   view: TrayView | None = None, floor: object = None) -> list[DieReading]:
        return []


class CountingReader(ProposedOnly):
    """Stands in for the dice reader: counts its calls, reads a 4 on the bright square."""

    def __init__(self) -> None:
        self.calls = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        self.calls += 1
        ys, xs = np.nonzero(image[..., 0] > 200)
        if not len(xs):
            return []
        box = (float(xs.min()), float(ys.min()), float(np.ptp(xs) + 1), float(np.ptp(ys) + 1))
        return [DieReading(box, 4, False, 0.99)]


class BrightDice(ProposedOnly):
    """Stands in for the dice reader: reads a 4 on every bright (white) square, and nothing
    of a grey one (a die the detector misses)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        bright = (image[..., 0] > 200).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(bright)
        return [DieReading((float(x), float(y), float(w), float(h)), 4, False, 0.95)
                for x, y, w, h, area in stats[1:] if area >= 100]


def frame_with_die(x: int) -> np.ndarray:
    image = np.full((120, 160, 3), 40, np.uint8)
    image[80:96, x:x + 16] = 230
    return image


def observed(camera: TrayCamera, frames: int,
             paint: Callable[[int, np.ndarray], None]) -> list[DiceEvent]:
    """The camera's events over `frames` frames of a dark 160x120 tray that `paint(index,
    image)` draws each frame's dice on."""
    events = []
    for index in range(frames):
        image = np.full((120, 160, 3), 40, np.uint8)
        paint(index, image)
        events += camera.observe(index, index / 30, image)
    return events


def test_dice_at_rest_are_read_once_and_dice_in_flight_every_third_frame() -> None:
    class CountedBrightDice(BrightDice):
        calls = 0

        def read(self, image: np.ndarray, view: TrayView | None = None,
                 floor: object = None) -> list[DieReading]:
            self.calls += 1
            return super().read(image, view)

    def two_dice(x: int) -> np.ndarray:
        image = frame_with_die(x)
        image[70:86, 120:136] = 230
        return image

    reader = CountedBrightDice()
    tray = TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120))
    for index in range(30):  # a still tray, both dice in view
        tray.observe(index, index / 30, two_dice(70))
    assert reader.calls == 1
    for index in range(30, 42):  # one slides along the tray
        tray.observe(index, index / 30, two_dice(10 + 8 * (index - 30)))
    assert 3 <= reader.calls - 1 <= 5


def test_a_still_tray_with_a_die_missing_is_read_again_for_a_while() -> None:
    reader = CountingReader()
    tray = TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120))
    tray.observe(0, 0.0, np.full((120, 160, 3), 40, np.uint8))  # the tray empty
    for index in range(1, 200):  # a die thrown; still, one in view: the other may be found yet
        tray.observe(index, index / 30, frame_with_die(70))
    # the tray once still, a closer look around the die, then every 5th frame for 4 seconds
    # the tray, the box and closer around the die again (a die leaning on it is not always
    # found)
    assert reader.calls == 2 + 3 * (120 // 5)


class FoundOnTheThirdLook(BrightDice):
    """Reads as BrightDice, but misses the die at the right on its first two readings of
    the whole tray (a detection near the threshold), and then reads it as a 5."""

    def __init__(self) -> None:
        self.whole = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        if image.shape[:2] != (120, 160):
            return dice  # a closer look, around the die at the left alone
        self.whole += 1
        return [d if d.box[0] < 100 else replace(d, value=5) for d in dice
                if d.box[0] < 100 or self.whole > 2]


def test_a_die_missed_at_rest_and_found_on_a_later_reading_is_taken() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 1:  # thrown onto the empty tray
            image[80:96, 60:76] = 230
            image[70:86, 120:136] = 230

    events = observed(TrayCamera(DiceZones(TRAY, BOX), FoundOnTheThirdLook(), (160, 120)),
                      60, paint)
    rolls = [e for e in events if e.kind is Kind.ROLL_READ]
    assert [r.values for r in rolls] == [(4, 5)]


def test_a_die_missing_when_the_tray_stops_is_looked_for_closer_once() -> None:
    class SizingReader(CountingReader):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[tuple[int, ...]] = []

        def read(self, image: np.ndarray, view: TrayView | None = None,
                 floor: object = None) -> list[DieReading]:
            self.sizes.append(image.shape[:2])
            return super().read(image, view)

    reader = SizingReader()
    tray = TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120))
    # Six moving frames: the last reading is made on the last of them, where the die stops,
    # so the still tray is not read again; the closer look is still owed.
    per_frame = []
    for index in range(40):
        x = 10 + 8 * min(max(index - 9, 0), 6)
        before = len(reader.sizes)
        tray.observe(index, index / 30, frame_with_die(x))
        per_frame.append(reader.sizes[before:])
    # less the still tray's re-readings: the tray, the box's inside, closer round the die
    rereading = [(120, 160), (120, 160), (80, 80)]
    looks = [sizes[3:] if sizes[:3] == rereading else sizes for sizes in per_frame]
    assert looks[1] == [(120, 160), (80, 80)]  # the still tray, then a closer look
    closer = [index for index, sizes in enumerate(looks) if (80, 80) in sizes]
    assert len(closer) == 2 and closer[1] > 15  # once more, when the die has stopped


def test_both_zones_are_watched_for_motion_whatever_their_points_order() -> None:
    # Joined into one polygon, these two rectangles would cross and leave half the box out.
    tray = np.array([[0, 0], [160, 0], [160, 50], [0, 50]], np.float32)
    box = np.array([[0, 120], [0, 60], [160, 60], [160, 120]], np.float32)
    camera = TrayCamera(DiceZones(tray, box), CountingReader(), (160, 120))
    watched = camera.mask  # the crop of the zones, here the whole frame
    for x, y in ((80, 25), (80, 90), (20, 100), (140, 70)):
        assert watched[y, x], (x, y)


def test_the_board_in_view_is_no_part_of_the_tray() -> None:
    board = np.array([[0, 0], [40, 0], [40, 120], [0, 120]], np.float32)
    camera = TrayCamera(DiceZones(TRAY, BOX), CountingReader(), (160, 120), exclude=board)
    assert not camera.mask[:, :40].any()
    assert camera.mask[:, 41:].all()


def test_a_second_cameras_events_reach_the_board_camera_at_their_time() -> None:
    feed = DiceFeed(fps=30.0)
    feed.put([DiceEvent(Kind.ROLL_READ, 7, 1.00, (6, 5), 0.9)])
    assert feed.update(29, 29 / 30, [], 0.0) == []  # not yet
    released = feed.update(33, 33 / 30, [], 0.0)
    assert [e.values for e in released] == [(6, 5)]
    assert released[0].frame == 30  # dated by the board camera's frame of that time


class TwoDice(ProposedOnly):
    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        return [DieReading((70.0, 80.0, 16.0, 16.0), 6, False, 0.99),
                DieReading((110.0, 80.0, 16.0, 16.0), 5, False, 0.99)]


class LiveTray:
    """A live tray camera: a die slides in and comes to rest, then the camera fails."""

    def __init__(self, clock: list[float]) -> None:
        self.index, self.clock = 0, clock

    def isOpened(self) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.index >= 60:
            return False, None
        self.clock[0] = 100.0 + self.index / 30  # the shared clock moves with the frames
        x = min(70, 10 + 6 * self.index)
        self.index += 1
        return True, frame_with_die(x)

    def get(self, prop: int) -> float:
        return 0.0

    def release(self) -> None:
        pass


def test_a_live_tray_camera_is_read_in_a_thread_on_the_tables_clock() -> None:
    now = [100.0]
    source = VideoSource(0, open_capture=lambda spec: LiveTray(now), clock=lambda: now[0],
                         sleep=lambda seconds: None, give_up_after=0.0, epoch=100.0)
    calibration = {"image_size": [160, 120],
                   "dice_zones": {"tray": TRAY.tolist(), "box": BOX.tolist()}}
    tray = TrayVideo(source, TrayCalibration.from_json(calibration), 30.0, TwoDice())
    tray.start(lambda: False).join(timeout=10)
    kinds = [event.kind for event in tray.feed.pending]
    assert Kind.ROLL_READ in kinds
    read = next(e for e in tray.feed.pending if e.kind is Kind.ROLL_READ)
    assert 0.0 < read.time < 2.0  # timed from the table's epoch, not the camera's own start
    assert tray.new_problem() is not None and tray.new_problem() is None  # said once


def test_a_tray_camera_needs_its_calibrations_zones_and_frame_size() -> None:
    zones = {"tray": TRAY.tolist(), "box": BOX.tolist()}
    with pytest.raises(ValueError, match="dice_zones"):
        TrayCalibration.from_json({"image_size": [160, 120]})
    with pytest.raises(ValueError, match="image_size"):
        TrayCalibration.from_json({"image_size": [160], "dice_zones": zones})
    source = VideoSource(0, open_capture=lambda spec: LiveTray([0.0]))
    with pytest.raises(ValueError, match="image_size"):
        TrayVideo(source, TrayCalibration.from_json({"dice_zones": zones}), 30.0,
                  CountingReader())

    with pytest.raises(ValueError, match="finite"):
        TrayCalibration.from_json({"image_size": [160, 120],
                                   "dice_zones": {**zones, "box": [[0, 0], [1e39, 0], [0, 59]]}})
    with pytest.raises(ValueError, match="finite"):
        DiceZones(TRAY, np.array([[0, 0], [np.nan, 0], [0, 59]]))
    with pytest.raises(ValueError, match="tray_mm"):
        DiceZones(TRAY, BOX, tray_mm=(float("inf"), 200.0))


def throw(unread_die: bool, frames: int = 150, light: Light | None = None) -> list[DiceEvent]:
    """An empty tray; then one white die slides in and stops at frame 20; with `unread_die`
    a grey one comes to lie in plain view too, else the second die stays in the box. Under
    `light`, the frames as a 30 fps camera would take them."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            x = min(20 + 5 * (index - 10), 70)
            image[80:96, x:x + 16] = 230
            if unread_die:
                image[70:86, 120:136] = 120
        if light is not None:
            image[:] = light.lit(image, index / 30)

    return observed(TrayCamera(DiceZones(TRAY, BOX), BrightDice(), (160, 120)), frames, paint)


def test_a_die_that_never_comes_out_of_the_box_voids_the_throw() -> None:
    counted = [e for e in throw(unread_die=False) if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert [(e.kind, e.rule) for e in counted] == [(Kind.IN_BOX, "5.4.32"), (Kind.VOID, "5.4.32")]
    started, void = counted
    assert started.frame == 20  # the throw is over when the die out has stopped
    assert void.frame - started.frame == 90


@pytest.mark.parametrize("readout", [0.0, 0.03])
def test_a_flickering_light_is_no_die_moving(readout: float) -> None:
    """Mains light beating at 10 Hz against the camera, by 8%, all at once or in a rolling
    shutter's bands: the die stopped in the box is counted from the other's rest and voids
    the throw on time, the count never cancelled."""
    events = throw(unread_die=False, light=Light(flicker=0.08, phase=1.0, readout=readout))
    assert [(e.kind, e.frame) for e in events if e.kind in (Kind.IN_BOX, Kind.VOID, Kind.CANCELLED)
            ] == [(Kind.IN_BOX, 20), (Kind.VOID, 110)]


class FindsAFaceOnASearch(BrightDice):
    """Reads as BrightDice; from the eighth reading of the whole view on (the still tray's
    searches for the die missing), also the die's top face framed alone, read as a 2."""

    def __init__(self) -> None:
        self.whole = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        if image.shape[:2] == (120, 160) and dice:
            self.whole += 1
            if self.whole >= 8:
                x, y, _, _ = dice[0].box
                dice.append(DieReading((x + 2, y + 1, 10.0, 7.0), 2, False, 0.9))
        return dice


def test_a_face_of_the_die_held_found_on_a_search_is_no_second_die() -> None:
    """92309: the die in the tray's top face, read alone 2 s into the count of the die in the
    box, was taken for the second die: the count cancelled and a roll read."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[80:96, min(20 + 5 * (index - 10), 70):][:, :16] = 230

    reader = FindsAFaceOnASearch()
    events = observed(TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120)), 150, paint)
    assert reader.whole > 8  # the face was proposed
    assert [e.kind for e in events if e.kind is not Kind.ROLLING] == [Kind.IN_BOX, Kind.VOID]


class ReadsTheChangeCocked(BrightDice):
    """Reads as BrightDice, whose detector never proposes the grey die; read in a box it is
    given, a grey die there is a cocked one (193105: a green translucent die against a dark
    wall, no detector box on it, read cocked 0.99 in its change from the empty tray)."""

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   view: TrayView | None = None, floor: object = None) -> list[DieReading]:
        return [DieReading((float(x), float(y), float(w), float(h)), None, True, 0.95, 0.9)
                for x, y, w, h in boxes if image[int(y + h / 2), int(x + w / 2), 0] == 120]


def test_a_die_no_detector_box_finds_is_read_in_its_change_from_the_empty_tray() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[80:96, min(20 + 5 * (index - 10), 70):][:, :16] = 230
            image[70:86, 120:136] = 120  # lying since frame 10, as the white one stops at 20

    events = observed(TrayCamera(DiceZones(TRAY, BOX), ReadsTheChangeCocked(), (160, 120)),
                      150, paint)
    counted = [(e.kind, e.rule) for e in events if e.kind in (Kind.COCKED, Kind.VOID)]
    assert counted == [(Kind.COCKED, "5.4.33"), (Kind.VOID, "5.4.33")]
    assert Kind.ROLL_READ not in [e.kind for e in events]


def test_a_die_lying_unread_in_the_tray_is_not_taken_for_one_in_the_box() -> None:
    kinds = [e.kind for e in throw(unread_die=True)]
    assert Kind.IN_BOX not in kinds and Kind.VOID not in kinds


def test_a_dies_long_shadow_is_not_taken_for_a_die_lying_unread() -> None:
    """164307: the die out of the box cast a shadow reaching well past it, which was taken
    for the second die lying unread: the die that never came out was not counted."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            x = min(20 + 5 * (index - 10), 70)
            image[80:96, x:x + 16] = 230
            image[100:118, x + 20:x + 44] = 18  # its shadow: the tray darkened, flat inside

    events = observed(TrayCamera(DiceZones(TRAY, BOX), BrightDice(), (160, 120)), 150, paint)
    counted = [(e.kind, e.rule) for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert counted == [(Kind.IN_BOX, "5.4.32"), (Kind.VOID, "5.4.32")]


def test_a_die_unread_in_the_box_counts_from_its_own_rest() -> None:
    # A grey die (the reader misses it) drops into the box and lies there from frame 14; the
    # white one slides into the tray from frame 18 and stops at 28 (clip 76307: a translucent
    # die in the box). The tray still for four frames between is not the empty tray: the grey
    # die shows against it, and its count runs from its own rest, as a die read there would.
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 12:
            y = min(20 + 5 * (index - 12), 30)
            image[y:y + 14, 40:54] = 120
        if index >= 18:
            x = min(20 + 5 * (index - 18), 70)
            image[80:96, x:x + 16] = 230

    events = observed(TrayCamera(DiceZones(TRAY, BOX), BrightDice(), (160, 120)), 150, paint)
    counted = [(e.kind, e.frame) for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert counted == [(Kind.IN_BOX, 14), (Kind.VOID, 104)]


class MissesTheBoxDieBesideAnother(BrightDice):
    """Reads as BrightDice, but a die in the box goes unread while another is in view (a
    re-reading made as the other die rolls past)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        return [d for d in dice if d.box[1] >= 60] if len(dice) > 1 else dice


def box_die_then_another(box_die_stays: bool) -> list[DiceEvent]:
    """A die stops in the box at frame 10; from frame 20 a second one slides into the tray
    and stops at frame 30. Without `box_die_stays` the first is taken out as the second comes."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10 and (box_die_stays or index < 20):
            image[20:36, 40:56] = 230
        if index >= 20:
            x = min(20 + 5 * (index - 20), 70)
            image[80:96, x:x + 16] = 230

    camera = TrayCamera(DiceZones(TRAY, BOX), MissesTheBoxDieBesideAnother(), (160, 120))
    return observed(camera, 150, paint)


def test_a_die_at_rest_that_a_re_reading_misses_keeps_its_count() -> None:
    events = [e for e in box_die_then_another(box_die_stays=True)
              if e.kind in (Kind.IN_BOX, Kind.VOID, Kind.CANCELLED)]
    assert [(e.kind, e.frame) for e in events] == [(Kind.IN_BOX, 10), (Kind.VOID, 100)]


def test_a_die_taken_away_is_not_kept_for_a_re_reading_that_misses_it() -> None:
    kinds = [e.kind for e in box_die_then_another(box_die_stays=False)]
    assert kinds.index(Kind.IN_BOX) < kinds.index(Kind.CANCELLED)


class MergesOnReReading(BrightDice):
    """Reads as BrightDice, the die right of x=100 cocked; from its third reading on, two
    dice are framed as one flat die (a re-reading that takes a leaning die with its
    neighbour)."""

    def __init__(self) -> None:
        self.calls = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        self.calls += 1
        dice = [DieReading(d.box, None, True, 0.95) if d.box[0] >= 100 else d
                for d in super().read(image, view)]
        if self.calls > 2 and len(dice) == 2:
            left = min(d.box[0] for d in dice)
            right = max(d.box[0] + d.box[2] for d in dice)
            return [DieReading((left, 80.0, right - left, 16.0), 4, False, 0.4)]
        return dice


def test_a_cocked_die_framed_with_its_neighbour_on_a_re_reading_keeps_its_count() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[80:96, 60:76] = 230
            image[80:96, 100:116] = 230
        if 40 <= index < 60:  # something grey passes at the tray's far end: the tray is read
            image[100:115, 5 + index - 40:20 + index - 40] = 120

    events = observed(TrayCamera(DiceZones(TRAY, BOX), MergesOnReReading(), (160, 120)), 150,
                      paint)
    counted = [(e.kind, e.frame) for e in events
               if e.kind in (Kind.COCKED, Kind.VOID, Kind.CANCELLED)]
    assert counted == [(Kind.COCKED, 10), (Kind.VOID, 100)]


class CallsTheHighlightCocked(BrightDice):
    """Reads as BrightDice, and a cocked die on the pale patch of light at (120, 70)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        if image.shape[:2] == (120, 160) and image[75, 125, 0] == 150:
            dice.append(DieReading((120.0, 70.0, 16.0, 16.0), None, True, 0.69))
        return dice


def test_what_is_read_before_anything_moved_is_the_trays_own() -> None:
    """A patch of light on the tray is read as a cocked die from the camera's first frame
    (481008): nothing came to rest there in sight, so no count starts, and the tray with it is
    the empty tray, on which the dice thrown later are read."""
    def paint(index: int, image: np.ndarray) -> None:
        image[70:86, 120:136] = 150
        if index >= 40:
            image[80:96, 30:46] = 230
            image[80:96, 70:86] = 230

    events = observed(TrayCamera(DiceZones(TRAY, BOX), CallsTheHighlightCocked(), (160, 120)),
                      200, paint)
    assert [(e.kind, e.values) for e in events if e.kind is not Kind.ROLLING] == [
        (Kind.ROLL_READ, (4, 4))]


def test_a_die_like_thing_beside_the_zones_is_not_read_as_a_die() -> None:
    # The crop read is the zones' bounding box and a margin: a white ledge beside the box lies
    # in it.
    tray = np.array([[20, 70], [140, 70], [140, 120], [20, 120]], np.float32)
    box = np.array([[50, 0], [110, 0], [110, 59], [50, 59]], np.float32)
    camera = TrayCamera(DiceZones(tray, box), BrightDice(), (160, 120))

    def paint(index: int, image: np.ndarray) -> None:
        image[10:26, 20:36] = 230  # the ledge, from the first frame on

    assert observed(camera, 60, paint) == [] and camera.dice == []


def test_a_die_leaning_over_the_trays_near_wall_is_read_whole() -> None:
    # The floor ends at y = 100; a die leaning on the near wall shows 6 px past it (272201).
    tray = np.array([[20, 50], [140, 50], [140, 100], [20, 100]], np.float32)
    box = np.array([[50, 0], [110, 0], [110, 49], [50, 49]], np.float32)
    camera = TrayCamera(DiceZones(tray, box), BrightDice(), (160, 120))

    def paint(index: int, image: np.ndarray) -> None:
        image[90:106, 70:86] = 230

    observed(camera, 30, paint)
    assert [die.box[2:] for die in camera.dice] == [(16.0, 16.0)]


def test_a_die_standing_at_the_trays_far_wall_is_in_the_zones() -> None:
    tray = np.array([[20, 70], [140, 70], [140, 120], [20, 120]], np.float32)
    zones = DiceZones(tray, np.array([[50, 0], [110, 0], [110, 40], [50, 40]], np.float32))
    # Leaning on the far wall the die shows above the floor's edge: its foot 6 px over it.
    assert zones.holds((30.0, 46.0, 20.0, 24.0))
    assert not zones.holds((10.0, 20.0, 16.0, 16.0))  # off to the side, level with the box


def test_a_thing_just_past_the_trays_far_corner_is_not_in_the_zones() -> None:
    # The tray seen corner first (clip 79209): the box's base shows past the far corner, read
    # as a cocked die whose foot lies 0.4 of its size off the tray.
    tray = np.array([[80, 60], [150, 90], [80, 120], [10, 90]], np.float32)
    zones = DiceZones(tray, np.array([[110, 0], [150, 0], [150, 30], [110, 30]], np.float32))
    assert not zones.holds((70.0, 37.0, 20.0, 20.0))  # foot 8 px past the corner
    assert zones.holds((70.0, 41.0, 20.0, 20.0))  # 4 px past it: a die leaning there


class FramesThePairAsOne(BrightDice):
    """Reads as BrightDice in a closer look; over the whole tray it frames the two dice, far
    apart, in one box and calls it cocked (the detector taking two dice and the floor between
    them for one die)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        if image.shape[1] < 160 or len(dice) < 2:
            return dice
        left = min(d.box[0] for d in dice)
        right = max(d.box[0] + d.box[2] for d in dice)
        return [DieReading((left, 70.0, right - left, 40.0), None, True, 0.7)]


def pair_framed_as_one(tray_mm: tuple[float, float] | None) -> list[DiceEvent]:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[80:96, 30:46] = 230
            image[90:106, 110:126] = 230

    camera = TrayCamera(DiceZones(TRAY, BOX, tray_mm=tray_mm), FramesThePairAsOne(),
                        (160, 120))
    return observed(camera, 150, paint)


def test_a_box_too_wide_for_a_die_is_read_closer_not_counted_as_cocked() -> None:
    # The tray 160 x 60 mm: the dice are 16 mm, the box round both 96 mm wide.
    events = pair_framed_as_one((160.0, 60.0))
    assert [e.kind for e in events if e.kind in (Kind.COCKED, Kind.VOID)] == []
    rolls = [e for e in events if e.kind is Kind.ROLL_READ]
    assert [sorted(e.values) for e in rolls] == [[4, 4]]
    # Without the tray's size the box cannot be judged: the pair is one cocked die.
    assert Kind.VOID in [e.kind for e in pair_framed_as_one(None)]


def test_the_tray_size_says_how_wide_a_die_can_look_where_it_lies() -> None:
    # A camera looking down the tray: its far end (top) is half as wide in pixels as its
    # near end, so a box of the same pixels is twice as wide in millimetres at the far end.
    tray = np.array([[40, 10], [120, 10], [160, 110], [0, 110]], np.float32)
    zones = DiceZones(tray, BOX, tray_mm=(50.0, 50.0))
    assert not zones.too_wide((25.0, 90.0, 110.0, 20.0))  # near: 110 px are 34 mm
    assert zones.too_wide((25.0, 5.0, 110.0, 10.0))  # far: 69 mm
    assert not DiceZones(tray, BOX).too_wide((0.0, 0.0, 160.0, 120.0))  # no size, no limit
    # A reading narrower than a die can look is part of one (a pip, a face framed apart).
    pip, die = (70.0, 88.0, 20.0, 16.0), (60.0, 84.0, 40.0, 20.0)  # 6.6 and 13 mm near
    assert zones.too_narrow(pip) and not zones.too_narrow(die)
    assert [d.box for d in zones.sort([DieReading(b, 1, False, 0.9) for b in (pip, die)])[0]] \
        == [die]
    assert not zones.too_narrow((70.0, 30.0, 8.0, 8.0))  # in the box: a sliver may be a die
    assert not DiceZones(tray, BOX).too_narrow(pip)
    round_trip = DiceZones.from_json(zones.to_json())
    assert round_trip.tray_mm == (50.0, 50.0)
    with pytest.raises(ValueError, match="tray_mm"):
        DiceZones(np.concatenate([tray, [[80, 115]]]), BOX, tray_mm=(50.0, 50.0))
    with pytest.raises(ValueError, match="tray_mm"):
        DiceZones(tray, BOX, tray_mm=(50.0, 0.0))


def test_the_zones_sort_readings_and_place_them_on_the_framers_box() -> None:
    zones = DiceZones(TRAY, BOX, tray_mm=(160.0, 60.0))  # a pixel a millimetre
    die = DieReading((40.0, 80.0, 16.0, 16.0), 4, False, 0.9)
    pair = DieReading((20.0, 70.0, 100.0, 30.0), None, True, 0.7)  # 100 mm: two dice
    ledge = DieReading((60.0, -40.0, 16.0, 16.0), 2, False, 0.9)  # above the box, off the zones
    assert zones.sort([die, pair, ledge]) == ([die], [pair.box])
    # Its detector box stands in the box (foot at y 52), the framer's on the tray (y 64).
    at_the_exit = DieReading((40.0, 40.0, 16.0, 16.0), 1, False, 0.9,
                             framed_box=(40.0, 52.0, 16.0, 16.0))
    assert zones.describe(at_the_exit) == {"in_box": False}
    assert zones.describe(DieReading(at_the_exit.box, 1, False, 0.9)) == {"in_box": True}


def test_how_far_a_die_lies_from_the_box_is_measured_on_the_tray_floor() -> None:
    """The cocked network is told how near the box's inside a die lies: a die on the exit's
    lip, propped on the ramp's end, tilts only a few degrees (models/dice/cocked.md)."""
    tray = np.array([[0, 100], [260, 100], [260, 320], [0, 320]], np.float32)
    zones = DiceZones(tray, np.array([[60, 0], [200, 0], [200, 100], [60, 100]], np.float32),
                      tray_mm=(260.0, 220.0))  # a pixel a millimetre, the exit along y = 100
    # Feet (a quarter of the box below its centre) 10 mm and 50 mm in front of the exit, and
    # one inside the box.
    assert zones.mm_from_box((100.0, 95.0, 20.0, 20.0)) == pytest.approx(10.0)
    assert zones.mm_from_box((100.0, 75.0, 20.0, 20.0)) == 0.0
    assert zones.mm_from_box((100.0, 135.0, 20.0, 20.0)) == pytest.approx(50.0)
    # Beside the exit, in front of the tray's near wall, the distance runs to its corner.
    assert zones.mm_from_box((20.0, 85.0, 20.0, 20.0)) == pytest.approx(30.0)
    assert DiceZones(tray, zones.box).mm_from_box((100.0, 95.0, 20.0, 20.0)) is None
    # At the exit: within EXIT_MM of the box's inside (the lip's dice and the ramp toe's).
    assert zones.at_exit((100.0, 95.0, 20.0, 20.0)) is True
    assert zones.at_exit((100.0, 135.0, 20.0, 20.0)) is False
    assert DiceZones(tray, zones.box).at_exit((100.0, 95.0, 20.0, 20.0)) is None


def test_a_die_called_cocked_with_nothing_to_lean_on_is_read_flat() -> None:
    """A die stands on an edge only against a wall, the box's exit or the other die: called
    cocked in the open, both dice read, it lies flat (101003: a good throw voided before)."""
    big_tray = np.array([[0, 100], [260, 100], [260, 320], [0, 320]], np.float32)
    zones = DiceZones(big_tray, np.array([[0, 0], [260, 0], [260, 99], [0, 99]], np.float32),
                      tray_mm=(260.0, 220.0))  # a pixel a millimetre

    def cocked(x: float, y: float) -> DieReading:
        return DieReading((x, y, 20.0, 20.0), None, True, 0.7, if_flat=(4, 0.25))

    flat = DieReading((200.0, 250.0, 20.0, 20.0), 2, False, 0.9)
    in_the_open = cocked(120.0, 190.0)  # its foot 105 mm from the nearest wall
    read = zones.flat_where_unpropped([in_the_open, flat], 2)
    assert read == [replace(in_the_open, value=4, cocked=False, confidence=0.25, if_flat=None),
                    flat]
    for stands in ([cocked(5.0, 190.0), flat],  # at a wall
                   [in_the_open, replace(flat, box=(145.0, 190.0, 20.0, 20.0))],  # on the other
                   [cocked(120.0, 40.0), flat]):  # inside the box
        assert zones.flat_where_unpropped(stands, 2) == stands
    # The other die unread may be what it leans on; with no tray size there is no floor to
    # measure on; without the tray view's call there is no flat reading to take.
    assert zones.flat_where_unpropped([in_the_open], 2) == [in_the_open]
    unsized = DiceZones(big_tray, zones.box)
    assert unsized.flat_where_unpropped([in_the_open, flat], 2) == [in_the_open, flat]
    no_view = replace(in_the_open, if_flat=None)
    assert zones.flat_where_unpropped([no_view, flat], 2) == [no_view, flat]
    # A sure call stands: a die may balance on an edge in the open.
    sure = replace(in_the_open, confidence=0.95)
    assert zones.flat_where_unpropped([sure, flat], 2) == [sure, flat]


def test_a_count_names_its_die_in_the_frames_pixels() -> None:
    # The zones lie 30 pixels right of and 20 below the frame's corner: the dice are read in
    # their crop, and the count and the void name the die where it lies in the frame.
    offset = np.array([30, 20], np.float32)
    camera = TrayCamera(DiceZones(TRAY + offset, BOX + offset), BrightDice(), (200, 150))
    events = []
    for index in range(110):
        image = np.full((150, 200, 3), 40, np.uint8)
        if index >= 10:
            image[40:56, 70:86] = 230  # a die stopped in the box from frame 10
        events += camera.observe(index, index / 30, image)
    counted = [e for e in events if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert [e.kind for e in counted] == [Kind.IN_BOX, Kind.VOID]
    assert all(e.box == (70.0, 40.0, 16.0, 16.0) for e in counted)
    assert all(type(v) is float for e in counted for v in e.to_json()["box"])  # plain JSON


def test_a_still_tray_is_read_harder_for_a_missing_die() -> None:
    # The dice reader's harder self reads the still tray again for a missing die (its
    # detector looking at the mirror images too); a stand-in reader reads as it reads.
    from vision.dice.reader import DiceReader

    reader = DiceReader()
    camera = TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120))
    assert isinstance(camera._search, DiceReader) and camera._search is not reader
    assert camera._search.any_look and len(camera._search.mirrored_axes) == 3
    stand_in = BrightDice()
    assert TrayCamera(DiceZones(TRAY, BOX), stand_in, (160, 120))._search is stand_in


SMALL_BOX = np.array([[0, 0], [60, 0], [60, 40], [0, 40]], np.float32)
BELOW_BOX = np.array([[0, 41], [160, 41], [160, 120], [0, 120]], np.float32)


class MissesTheBoxDieInTheWholeView(BrightDice):
    """Reads as BrightDice, but misses a die in the box (above row 40) in a picture 100
    pixels wide or more: at the whole view's scale the detector misses a die dark in the box,
    a crop of the box enlarged finds it."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        return dice if image.shape[1] < 100 else [d for d in dice if d.box[1] >= 40]


def box_counts(paint: Callable[[int, np.ndarray], None]) -> list[DiceEvent]:
    """The counts of a die in the box and the voids over 160 frames that `paint` draws, the
    box above row 40 read as `MissesTheBoxDieInTheWholeView` reads it."""
    camera = TrayCamera(DiceZones(BELOW_BOX, SMALL_BOX), MissesTheBoxDieInTheWholeView(),
                        (160, 120))
    return [e for e in observed(camera, 160, paint) if e.kind in (Kind.IN_BOX, Kind.VOID)]


def test_a_die_the_whole_view_misses_in_the_box_is_found_in_the_box_read_closer() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[10:26, 10:26] = 230  # stopped in the box at frame 10
        if index >= 20:  # the other slides into the tray and stops at frame 30
            x = min(20 + 5 * (index - 20), 70)
            image[80:96, x:x + 16] = 230

    events = box_counts(paint)
    assert [e.kind for e in events] == [Kind.IN_BOX, Kind.VOID]
    # dated from the die's own stop, not from the throw looking over at frame 30
    assert events[0].frame == 10 and events[0].box == (10.0, 10.0, 16.0, 16.0)


def test_a_throw_with_no_die_read_is_searched_for_a_die_stopped_in_the_box() -> None:
    """Both dice stopped in the box, the one in sight unread at the whole view's scale (243305:
    a red die in a red box): the still tray is searched before it could be taken for the
    empty tray again, and the die found in the box is counted."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 20:  # slides into the box and stops there at frame 26
            x = max(50 - 5 * (index - 20), 20)
            image[10:26, x:x + 16] = 230

    events = box_counts(paint)
    assert [e.kind for e in events] == [Kind.IN_BOX, Kind.VOID]
    assert events[0].frame == 26 and events[0].box == (20.0, 10.0, 16.0, 16.0)


def test_a_die_found_after_a_throw_with_none_read_must_have_changed_the_tray() -> None:
    """A hand passing over the tray leaves it as it was: what the search reads in the box
    then (a reading on the empty box) is no die of a throw."""
    class ReadsADieInTheBoxCrop(ProposedOnly):
        def read(self, image: np.ndarray, view: TrayView | None = None,
                 floor: object = None) -> list[DieReading]:
            return [] if image.shape[1] >= 100 else [DieReading((10.0, 10.0, 16.0, 16.0), 3,
                                                               False, 0.9)]

    def paint(index: int, image: np.ndarray) -> None:
        if 20 <= index < 26:  # a hand reaching across the tray
            image[60:100, 20 * (index - 20):20 * (index - 20) + 30] = 120

    camera = TrayCamera(DiceZones(BELOW_BOX, SMALL_BOX), ReadsADieInTheBoxCrop(), (160, 120))
    events = observed(camera, 160, paint)
    assert not [e for e in events if e.kind in (Kind.IN_BOX, Kind.VOID, Kind.ROLL_READ)]


class ReadsAShadowedDieInTheBox(BrightDice):
    """Reads as BrightDice, and while a die lies bright in the tray also a die at (10, 10)
    in the box whose pixels show nothing of it: the lower half of a die in the box's shadow,
    looking as the empty box did."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        hidden = DieReading((10.0, 10.0, 16.0, 16.0), 3, False, 0.9)
        return [*dice, hidden] if dice and image.shape[1] >= 100 else dice


def test_a_die_that_looks_as_the_empty_tray_did_is_dated_when_the_tray_went_still() -> None:
    """Its place is unchanged since the camera's first frame, so the rest clock would date
    it then, before anything moved (93302: a void 44 frames early). No die of the throw
    lay still before the throw: it is dated from the tray's stillness."""
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 20:  # the other slides into the tray and stops at frame 30
            x = min(20 + 5 * (index - 20), 70)
            image[80:96, x:x + 16] = 230

    camera = TrayCamera(DiceZones(BELOW_BOX, SMALL_BOX), ReadsAShadowedDieInTheBox(), (160, 120))
    events = [e for e in observed(camera, 160, paint) if e.kind in (Kind.IN_BOX, Kind.VOID)]
    assert [e.kind for e in events] == [Kind.IN_BOX, Kind.VOID]
    assert events[0].frame == 30 and events[1].frame == 30 + 90  # the first still frame


class FindsTheLeanerOnASearch(ProposedOnly):
    """Stands in for the dice reader while one die leans on another: reads the lower die (a
    4) on every picture, and the one leaning on it (a 5, its centre 0.58 of a die away,
    overlapping it by 0.21) from the third reading of the whole view on."""

    def __init__(self) -> None:
        self.whole = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image[..., 0].max() < 200:
            return []
        dice = [DieReading((60.0, 80.0, 16.0, 16.0), 4, False, 0.95)]
        if image.shape[:2] == (120, 160):
            self.whole += 1
            if self.whole >= 3:
                dice.append(DieReading((66.0, 87.0, 16.0, 16.0), 5, False, 0.95))
        return dice


def test_a_die_found_leaning_on_another_when_searching_is_taken() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            image[80:103, 60:82] = 230  # the two dice, one leaning on the other

    events = observed(TrayCamera(DiceZones(TRAY, BOX), FindsTheLeanerOnASearch(), (160, 120)),
                      60, paint)
    rolls = [e.values for e in events if e.kind is Kind.ROLL_READ]
    assert rolls == [(4, 5)] and Kind.IN_BOX not in [e.kind for e in events]


def test_a_knocked_tray_camera_reads_no_dice_until_its_view_is_back() -> None:
    """A grained tray; two dice thrown and cleared away; the camera knocked aside (the tray
    6 px further left in its frames), two dice thrown again; the camera put back, two dice
    thrown a third time."""
    grain = cv2.GaussianBlur(np.random.default_rng(0).integers(0, 90, (140, 190), np.uint8),
                             (0, 0), 1.5)

    def view(index: int) -> np.ndarray:
        dx = 6 if 150 <= index < 300 else 0  # knocked aside from frame 150 to 299
        image = cv2.cvtColor(grain[10:130, 15 + dx:175 + dx], cv2.COLOR_GRAY2BGR)
        if any(start <= index < start + 60 for start in (40, 200, 350)):  # a throw at rest
            image[80:96, 40:56] = image[70:86, 110:126] = 230
        return image

    camera = TrayCamera(DiceZones(TRAY, BOX), BrightDice(), (160, 120))
    events: dict[int, list[DiceEvent]] = {}
    moved: dict[int, str | None] = {}
    for index in range(420):
        events[index] = camera.observe(index, index / 30, view(index))
        moved[index] = camera.moved
    read = [i for i, found in events.items() if any(e.kind is Kind.ROLL_READ for e in found)]
    # The first throw and the third read; the knocked camera's not.
    assert len(read) == 2 and 40 <= read[0] < 100 and 350 <= read[1] < 410, read
    knocked = [i for i, why in moved.items() if why is not None]
    # Noticed on the still tray within a second; watched until it is back.
    assert knocked[0] < 180 and knocked == list(range(knocked[0], knocked[-1] + 1))
    assert 300 <= knocked[-1] < 330 and "moved by -6, +0 px" in str(moved[knocked[0]])
    assert not any(events[i] for i in knocked)


class ReadsAShadowCocked(BrightDice):
    """Reads as BrightDice, and a cocked die on any patch darker than the tray (a die's
    shadow, as 144001's translucent die cast one that was read cocked 0.97)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        ys, xs = np.nonzero(image[..., 0] < 30)
        if len(xs):
            box = (float(xs.min()), float(ys.min()), float(np.ptp(xs) + 1), float(np.ptp(ys) + 1))
            dice.append(DieReading(box, None, True, 0.97))
        return dice


def test_a_cocked_call_on_a_dies_shadow_starts_no_count() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        if index >= 10:
            x = min(20 + 5 * (index - 10), 70)
            image[80:96, x:x + 16] = 230
            image[98:112, x + 6:x + 22] = 20  # its shadow: the tray darkened, flat inside
            image[70:86, 120:136] = 230

    events = observed(TrayCamera(DiceZones(TRAY, BOX), ReadsAShadowCocked(), (160, 120)), 150,
                      paint)
    kinds = [e.kind for e in events]
    assert Kind.ROLL_READ in kinds
    assert Kind.COCKED not in kinds and Kind.VOID not in kinds


class ReadsAHighlightCocked(BrightDice):
    """Reads as BrightDice, and, once dice lie in the tray, a cocked die on the tray's
    lighter patch (161005: a highlight on the tray, read cocked only once the throw had
    begun, voided a good throw)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        dice = super().read(image, view)
        ys, xs = np.nonzero((image[..., 0] > 120) & (image[..., 0] < 160))
        if dice and len(xs):
            box = (float(xs.min()), float(ys.min()), float(np.ptp(xs) + 1), float(np.ptp(ys) + 1))
            dice.append(DieReading(box, None, True, 0.6))
        return dice


def test_a_cocked_call_on_the_empty_tray_unchanged_starts_no_count() -> None:
    def paint(index: int, image: np.ndarray) -> None:
        image[92:108, 132:148] = 140  # the highlight, in the empty tray too
        if index >= 10:
            x = min(20 + 5 * (index - 10), 70)
            image[80:96, x:x + 16] = 230
            image[70:86, 100:116] = 230

    events = observed(TrayCamera(DiceZones(TRAY, BOX), ReadsAHighlightCocked(), (160, 120)),
                      150, paint)
    kinds = [e.kind for e in events]
    assert Kind.ROLL_READ in kinds
    assert Kind.COCKED not in kinds and Kind.VOID not in kinds
