"""The tray camera: readings only when the tray changed, and a second camera's events handed
over by time."""

from __future__ import annotations

import numpy as np

from vision.dice.reader import DieReading
from vision.dice.stream import DiceEvent, Kind
from vision.dice.zones import DiceZones
from vision.tray import DiceFeed, TrayCamera

TRAY = np.array([[0, 60], [160, 60], [160, 120], [0, 120]], np.float32)
BOX = np.array([[0, 0], [160, 0], [160, 59], [0, 59]], np.float32)


class CountingReader:
    """Stands in for the dice reader: counts its calls, sees one die wherever it is."""

    def __init__(self) -> None:
        self.calls = 0

    def read(self, image: np.ndarray) -> list[DieReading]:
        self.calls += 1
        return [DieReading((70.0, 80.0, 16.0, 16.0), 4, False, 0.99)]


def frame_with_die(x: int) -> np.ndarray:
    image = np.full((120, 160, 3), 40, np.uint8)
    image[80:96, x:x + 16] = 230
    return image


def test_dice_at_rest_are_read_once_and_dice_in_flight_every_third_frame() -> None:
    reader = CountingReader()
    tray = TrayCamera(DiceZones(TRAY, BOX), reader, (160, 120))
    for index in range(30):  # a still tray
        tray.observe(index, index / 30, frame_with_die(70))
    assert reader.calls == 1
    for index in range(30, 42):  # the die slides along the tray
        tray.observe(index, index / 30, frame_with_die(10 + 8 * (index - 30)))
    assert 3 <= reader.calls - 1 <= 5


def test_a_second_cameras_events_reach_the_board_camera_at_their_time() -> None:
    feed = DiceFeed(fps=30.0)
    feed.put([DiceEvent(Kind.ROLL_READ, 7, 1.00, (6, 5), 0.9)])
    assert feed.update(29, 29 / 30, [], 0.0) == []  # not yet
    released = feed.update(33, 33 / 30, [], 0.0)
    assert [e.values for e in released] == [(6, 5)]
    assert released[0].frame == 30  # dated by the board camera's frame of that time
