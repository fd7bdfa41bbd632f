"""Looking closer around the dice read: a die framed with its neighbour comes apart."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.tray_view import TrayView
from vision.dice.closer import find_missing, look_closer, one_die
from vision.dice.reader import DieReading
from vision.dice.zones import DiceZones

PAIR = [(100.0, 100.0, 20.0, 20.0), (112.0, 84.0, 20.0, 20.0)]  # one leaning on the other


class SmallDiceMissed:
    """Stands in for the reader: sees the pair as one die over a large image, both dice once
    they fill enough of the image (a crop around them)."""

    def __init__(self) -> None:
        self.origins: list[tuple[int, int]] = []

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image.shape[1] > 200:
            return [DieReading(PAIR[0], 3, False, 0.9)]
        # the crop's own pixels: where it was cut from is known from its first pixel's value
        left, top = int(image[0, 0, 0]), int(image[0, 0, 1])
        self.origins.append((left, top))
        return [DieReading((x - left, y - top, w, h), None, True, 0.8,
                           framed_box=(x - left + 1, y - top, w, h)) if i else
                DieReading((x - left, y - top, w, h), 3, False, 0.9)
                for i, (x, y, w, h) in enumerate(PAIR)]


def test_a_die_framed_with_its_neighbour_is_found_in_a_closer_look() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    reader = SmallDiceMissed()
    first = reader.read(image)
    # mark every pixel with its coordinates, so the fake reader knows where a crop came from
    ys, xs = np.mgrid[0:300, 0:400]
    image[..., 0], image[..., 1] = xs.clip(0, 255), ys.clip(0, 255)
    found = look_closer(reader, image, first, [d.box for d in first])
    assert [d.box for d in found] == PAIR  # the first kept, the second in the image's pixels
    assert found[1].cocked and found[0].value == 3
    x, y, w, h = PAIR[1]
    assert found[1].framed_box == (x + 1, y, w, h)  # the framer's box moved with it
    left, top = reader.origins[0]
    assert (left, top) == (60, 60)  # five dice wide around the first


def test_a_region_too_wide_for_one_die_is_read_whole_and_enlarged() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    ys, xs = np.mgrid[0:300, 0:400]
    image[..., 0], image[..., 1] = xs.clip(0, 255), ys.clip(0, 255)
    reader = SmallDiceMissed()
    # The detector's one box round both dice and the floor beside them, 60 px wide.
    region = (90.0, 74.0, 60.0, 60.0)
    found = look_closer(reader, image, [], [], regions=[region])
    assert [d.box for d in found] == PAIR
    # The crop is the region and a margin, centred on it: not five times its width.
    assert reader.origins == [(82, 66)]


def test_a_region_smaller_than_a_die_is_read_as_big_as_one() -> None:
    # A calibration's box zone drawn as a point: its crop is a die's, not an empty picture.
    class Sizes:
        def __init__(self) -> None:
            self.shapes: list[tuple[int, ...]] = []

        def read(self, image: np.ndarray, view: TrayView | None = None,
                 floor: object = None) -> list[DieReading]:
            self.shapes.append(image.shape)
            return []

    reader = Sizes()
    assert look_closer(reader, np.zeros((300, 400, 3), np.uint8), [], [],
                       regions=[(50.0, 50.0, 0.0, 0.0)]) == []
    assert reader.shapes == [(20, 20, 3)]


class CloserLook:
    """Stands in for the reader: over the large image, `first`; in a crop, `closer` (in the
    image's pixels, moved into the crop's)."""

    def __init__(self, first: list[DieReading], closer: list[DieReading]) -> None:
        self.first, self.closer = first, closer

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image.shape[1] > 300:  # the whole image, not a crop of it
            return self.first
        left, top = int(image[0, 0, 0]), int(image[0, 0, 1])
        return [replace(d, box=moved(d.box, -left, -top),
                        framed_box=d.framed_box and moved(d.framed_box, -left, -top))
                for d in self.closer]


def moved(box: tuple[float, float, float, float], dx: float,
          dy: float) -> tuple[float, float, float, float]:
    return box[0] + dx, box[1] + dy, box[2], box[3]


def coordinates_image() -> np.ndarray:
    image = np.zeros((300, 400, 3), np.uint8)
    ys, xs = np.mgrid[0:300, 0:400]
    image[..., 0], image[..., 1] = xs.clip(0, 255), ys.clip(0, 255)
    return image


def test_a_box_framing_both_dice_is_replaced_by_the_two_found_in_it() -> None:
    """Not too wide for one die where it stands, the pair's box is no die's reading once a
    closer look finds two dice side by side in it."""
    both = DieReading((100.0, 84.0, 32.0, 36.0), 2, False, 0.77)
    pair = [DieReading(PAIR[0], 2, False, 0.97), DieReading(PAIR[1], None, True, 0.99)]
    found = look_closer(CloserLook([both], pair), coordinates_image(), [both], [both.box])
    assert [d.box for d in found] == PAIR
    assert [d.cocked for d in found] == [False, True]


def test_one_die_framed_twice_in_the_closer_look_stays_one() -> None:
    """The closer look may frame a die's top face and the whole die apart: one die."""
    die = DieReading((100.0, 100.0, 26.0, 28.0), 5, False, 0.99)
    twice = [DieReading((100.0, 98.0, 20.0, 18.0), 5, False, 0.92),
             DieReading((100.0, 106.0, 26.0, 26.0), 5, False, 0.62)]
    found = look_closer(CloserLook([die], twice), coordinates_image(), [die], [die.box])
    assert found == [die]


def test_a_die_the_framer_puts_both_looks_on_stays_one() -> None:
    """Clip 77307: the whole view frames a die's front face, the closer look its top face;
    the boxes barely overlap (0.05), the framer puts both on the die (0.5)."""
    die = (94.6, 133.2, 20.2, 20.5)
    front = DieReading((96.1, 138.3, 21.2, 19.4), 1, False, 0.81, framed_box=die)
    top = DieReading((94.8, 126.7, 18.0, 14.6), 1, False, 0.93,
                     framed_box=(93.6, 127.1, 20.2, 20.3))
    found = look_closer(CloserLook([front], [top]), coordinates_image(), [front], [front.box])
    assert found == [front]
    # A die leaning on it is framed apart: both stay.
    leaning = DieReading((112.0, 120.0, 22.0, 24.0), None, True, 0.9,
                         framed_box=(113.0, 121.0, 22.0, 24.0))
    found = look_closer(CloserLook([front], [leaning]), coordinates_image(), [front], [front.box])
    assert found == [front, leaning]


def test_a_front_face_framed_within_its_die_stays_one_die() -> None:
    """Clip 105301: a 3's front face read apart as a 2, 0.53 a die, framed on the die's lower
    part: most of its framed box lies within the die's (0.7), though their union is
    large (0.37). Two dice overlapping in the box as much, each surely a die, stay two."""
    top = DieReading((162.0, 112.0, 22.0, 19.0), 3, False, 0.99, presence=0.99,
                     framed_box=(160.0, 113.0, 25.0, 28.0))
    front = DieReading((170.0, 129.0, 19.0, 17.0), 2, False, 0.3, presence=0.53,
                       framed_box=(164.0, 126.0, 20.0, 21.0))
    assert one_die(top, front)
    behind = replace(front, confidence=0.9, presence=0.93)
    assert not one_die(top, behind)
    found = look_closer(CloserLook([top], [front]), coordinates_image(), [top], [top.box])
    assert found == [top]


def test_a_die_leaning_on_another_comes_apart_from_it() -> None:
    """Clip 108106: a die cocked at 45 degrees on a flat 6, framed with it as one 6; the
    closer look reads both, centres 0.6 of a side apart, each overlapping the pair's box by
    over 0.3, and the framer puts them on two dice: the pair gives way to them."""
    pair = DieReading((130.0, 270.0, 41.0, 33.0), 6, False, 0.88,
                      framed_box=(138.0, 273.0, 32.0, 28.0))
    flat = DieReading((146.0, 277.0, 30.0, 26.0), 6, False, 0.95,
                      framed_box=(145.0, 276.0, 29.0, 29.0))
    leaning = DieReading((133.0, 268.0, 23.0, 29.0), None, True, 0.59, presence=0.84,
                         framed_box=(126.0, 268.0, 31.0, 27.0))
    found = look_closer(CloserLook([pair], [flat, leaning]), coordinates_image(), [pair],
                        [pair.box])
    assert sorted(d.cocked for d in found) == [False, True]


# coordinates_image's tray below, the baffle box above
ZONES = DiceZones(np.array([[0, 100], [400, 100], [400, 300], [0, 300]], np.float32),
                  np.array([[0, 0], [400, 0], [400, 99], [0, 99]], np.float32))


def test_a_die_leaning_on_one_held_is_found_when_the_still_tray_is_read_again() -> None:
    """Clip 192204: a die cocked on the other, framed with it in the whole view, and missed
    by the closer look made when the tray stopped (its crop a pixel off), is found when the
    still tray is read again for it: the search looks closer around each die held."""
    held = DieReading(PAIR[0], 1, False, 0.93)
    leaning = DieReading(PAIR[1], None, True, 0.84, presence=0.77)
    search = CloserLook([held], [held, leaning])
    reader = CloserLook([held], [held])
    found = find_missing(search, reader, coordinates_image(), ZONES, [held], 1, 0.35)
    assert found == [leaning]
    # Not around a die held in the box: a die there shows as a sliver, read in its inside.
    in_box = DieReading((100.0, 40.0, 20.0, 20.0), 1, False, 0.93)
    beside = DieReading((112.0, 24.0, 20.0, 20.0), None, True, 0.84, presence=0.77)
    found = find_missing(CloserLook([in_box], [in_box, beside]), CloserLook([in_box], [in_box]),
                         coordinates_image(), ZONES, [in_box], 1, 0.35)
    assert found == []


def test_a_face_of_a_held_die_framed_alone_is_no_second_die() -> None:
    """Clip 144309: a closer look framed a held die's front face alone, read 4 at 0.31: its
    centre lies in the held die's box, so it is part of that die, not the die missing."""
    held = DieReading((104.0, 111.0, 22.0, 20.0), 6, False, 0.9)
    face = DieReading((107.0, 123.0, 14.0, 13.0), 4, False, 0.31, presence=0.86)
    assert not one_die(face, held)
    for search in (CloserLook([held], [held, face]), CloserLook([held, face], [held])):
        found = find_missing(search, CloserLook([held], [held]), coordinates_image(), ZONES,
                             [held], 1, 0.35)
        assert found == []


class DieAtTheCropsFoot:
    """Stands in for the reader: in any crop, the die looked round at its centre and another
    whose box runs to the crop's bottom edge (a die cut by it, or at the image's foot)."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        rows, columns = image.shape[:2]
        return [DieReading((columns / 2 - 10, rows / 2 - 10, 20.0, 20.0), 3, False, 0.9),
                DieReading((columns / 2 - 5, rows - 15, 20.0, 15.0), None, True, 0.96)]


def test_a_die_cut_by_the_closer_looks_edge_is_not_read_from_it() -> None:
    # 271006: the die below the one looked round, cut by the crop's bottom edge, its
    # straight-down crop smeared past the border, was called cocked and voided a good throw.
    image = np.zeros((300, 400, 3), np.uint8)
    found = look_closer(DieAtTheCropsFoot(), image, [], [(100.0, 100.0, 20.0, 20.0)])
    assert [d.box for d in found] == [(100.0, 100.0, 20.0, 20.0)]


def test_a_die_at_the_images_own_edge_is_read_in_a_closer_look() -> None:
    # The crop's bottom is the image's: the die there is as whole as the whole view shows it.
    image = np.zeros((300, 400, 3), np.uint8)
    found = look_closer(DieAtTheCropsFoot(), image, [], [(100.0, 240.0, 20.0, 20.0)])
    assert len(found) == 2 and found[1].cocked
    _, y, _, h = found[1].box
    assert y + h == 300
