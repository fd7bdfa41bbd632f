"""Look closer around the dice read when a throw's die is missing from the reading.

Two dice touching, one leaning on the other, are framed once by the detector over the whole
tray: at its scale the pair is one blob; a small die far from the camera may not be found at
all. Read again in a crop a few dice wide around each die, or around a change from the empty
tray that no reading explains, enlarged to the detector's input, the pair comes apart and the
small die is found. It costs a reading per place, so it is done only where it can change a
decision: dice at rest, fewer than a throw has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from calibration.tray_view import TrayView
from vision.dice.boxes import Box, centre_in, overlap
from vision.dice.reader import DiceReader, DieReading, TrayFloor, framed_alike
from vision.dice.rest import centred_alike, part_of
from vision.dice.zones import DiceZones

SPAN = 5.0  # the crop's side, in dice: the die, a neighbour leaning on it, and their shadows
SAME_DIE = 0.3  # intersection over union above which two readings are one die
MIN_SIDE = 16.0  # pixels: a place smaller than a readable die is looked at as one
SPLIT_APART = 0.7  # of a die's side: touching dice, one leaning on the other, lie further apart
REGION_MARGIN = 1.25  # a region's crop: its box and a die's width around a die at its edge
# Pixels: a die whose box reaches this near an edge of a closer look's crop (one inside the
# image) is cut by it, and its straight-down crop runs past the border into smeared pixels
# (271006: the die below the one looked round, cut by the bottom edge, called cocked 0.96 and
# counted to a void, where the whole view read it flat 5). It is read where it lies whole.
CUT_MARGIN = 2.0


class DiceReading(Protocol):
    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: TrayFloor | None = None) -> list[DieReading]: ...

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   view: TrayView | None = None,
                   floor: TrayFloor | None = None) -> list[DieReading]: ...


def look_closer(reader: DiceReading, image: np.ndarray, dice: Sequence[DieReading],
                places: Sequence[Box], zones: DiceZones | None = None,
                regions: Sequence[Box] = ()) -> list[DieReading]:
    """`dice` with the dice found only in a closer look around each of `places` (boxes of
    the dice read, of something lying unread) and inside each of `regions` (boxes too wide
    for one die: the detector framed two dice, or a die and its surroundings, as one); all
    in `image`'s pixels. A die found again keeps its first reading: the whole view's is the
    one the models were measured on; but a reading whose box the closer look finds two dice
    in, apart, was of the pair framed as one, and gives way to them. `zones`: the image's,
    whose view and floor the reader reads each crop with."""
    found = list(dice)
    height, width = image.shape[:2]
    crops = [(x + w / 2, y + h / 2, SPAN * max(w, h, MIN_SIDE)) for x, y, w, h in places]
    crops += [(x + w / 2, y + h / 2, REGION_MARGIN * max(w, h, MIN_SIDE))
              for x, y, w, h in regions]
    for centre_x, centre_y, side in crops:
        left = int(np.clip(centre_x - side / 2, 0, max(width - side, 0)))
        top = int(np.clip(centre_y - side / 2, 0, max(height - side, 0)))
        crop = image[top:top + int(side), left:left + int(side)]
        shifted = None if zones is None else zones.shifted(left, top)
        looked = (reader.read(crop) if shifted is None
                  else reader.read(crop, shifted.view, shifted))
        near = [replace(closer, box=_moved(closer.box, left, top),
                        framed_box=closer.framed_box and _moved(closer.framed_box, left, top))
                for closer in looked if not _cut(closer.box, left, top, crop.shape, image.shape)]
        found = _split(found, near)
        found += [die for die in near if not any(one_die(die, other) for other in found)]
    return found


def searching_harder(reader: DiceReading) -> DiceReading:
    """The reader a still tray is read again with for a missing die: the detector also looks
    at its mirror images, proposes a die any look sees (a die dark in the box or in a wall's
    shadow, weak in the one look) and fainter ones (`DiceReader.looking_harder`). Another
    reader (a test's) reads as it reads."""
    return reader.looking_harder() if isinstance(reader, DiceReader) else reader


def detecting_in(reader: DiceReading, region: tuple[int, int, int, int]) -> DiceReading:
    """The reader whose detector looks only at `region` of a picture, each die it finds read
    in the whole picture (`DiceReader.detecting_in`). Another reader (a test's) reads as it
    reads."""
    return reader.detecting_in(region) if isinstance(reader, DiceReader) else reader


def find_missing(search: DiceReading, reader: DiceReading, image: np.ndarray, zones: DiceZones,
                 held: Sequence[DieReading], wanted: int, min_presence: float,
                 keep: Callable[[list[DieReading]], list[DieReading]] = list,
                 whole: DiceReading | None = None) -> list[DieReading]:
    """Up to `wanted` dice found apart from those `held` when a still tray is read again for
    a throw's die missing from it: read by `search` (a reader looking harder: the mirror
    images, any look, fainter proposals), and the box's inside enlarged, where at the whole
    view's scale a die dark against the box's side can go unseen (one look of `reader`; the
    harder reader's four would cost a fifth more a frame), and closer around each die held
    in the tray, where a die leaning on it is framed with it (the closer look made when the
    tray stopped finds it on most frames, not all: 192204's crop a pixel off missed it); the
    surest first, each as sure a die as `min_presence`. `keep`: what of the readings to judge
    (the tray camera drops those on the empty tray); `whole`: the searching reader the whole
    image is read with, when not `search` (`detecting_in`). A face of a die held, framed
    alone, is that die (92309: its top face read as a second die 2 s after the throw cancelled the
    count of the die in the box; 144309: its front face as the die missing in the box). Not
    around a die held in the box: a 6-pixel reading beside one there was taken for the die
    out of sight (162300)."""
    (left, top), (right, bottom) = zones.box.min(0), zones.box.max(0)
    inside_box: Box = (float(left), float(top), float(right - left), float(bottom - top))
    read = (whole or search).read(image, zones.view, zones)
    read += look_closer(reader, image, [], [], zones, [inside_box])
    in_tray = [die.box for die in held if not zones.in_box(die.box)]
    read += look_closer(search, image, [], in_tray, zones)
    read, _ = zones.sort(keep(read))
    found: list[DieReading] = []
    for die in sorted(read, key=lambda die: -die.presence):
        if (die.presence >= min_presence
                and not any(one_die(die, other) or part_of(die.box, other.box)
                            for other in [*held, *found])):
            found.append(die)
    return found[:max(wanted, 0)]


def one_die(a: DieReading, b: DieReading) -> bool:
    """Whether two readings from different looks are of one die: boxes overlapping, or the
    framer putting both on it (its top face framed in one look, its front face in another)."""
    return overlap(a.box, b.box) > SAME_DIE or framed_alike(a, b)


def _split(found: list[DieReading], near: Sequence[DieReading]) -> list[DieReading]:
    """`found` with a reading whose box the closer look finds two dice in, apart from each
    other, replaced by them: the pair was framed as one."""
    kept = []
    for die in found:
        inside = [other for other in near if centre_in(other.box, die.box)]
        kept += inside if len(inside) == 2 and _apart(*inside) else [die]
    return kept


def _apart(a: DieReading, b: DieReading) -> bool:
    """Two dice side by side, not one die framed twice (its top face, and the whole die):
    centres more than SPLIT_APART of a die's side from each other, or, where the framer put
    each reading on its die (a tray view), readings that are not one die by the test that
    matches a closer look's readings to the dice found. A die leaning on the other at 45
    degrees overhangs it, so the pair's centres lie closer (0.55-0.65 of a side in 104105,
    106209 and 108106), yet their boxes overlap little and the framer puts them on two dice;
    each overlapped the box framing both enough to pass for that reading."""
    framed = a.framed_box is not None and b.framed_box is not None
    return not centred_alike(a.box, b.box, SPLIT_APART) or (framed and not one_die(a, b))


def _cut(box: Box, left: int, top: int, crop: tuple[int, ...], image: tuple[int, ...]) -> bool:
    """Whether a box in the pixels of a crop (of `crop` shape, at `left`, `top` in an image of
    `image` shape) reaches within CUT_MARGIN of one of the crop's edges that lies inside the
    image: at the image's own edge a die is cut in the whole view too."""
    x, y, w, h = box
    rows, columns = crop[:2]
    return ((left > 0 and x <= CUT_MARGIN) or (top > 0 and y <= CUT_MARGIN)
            or (left + columns < image[1] and x + w >= columns - CUT_MARGIN)
            or (top + rows < image[0] and y + h >= rows - CUT_MARGIN))


def _moved(box: Box, dx: float, dy: float) -> Box:
    return box[0] + dx, box[1] + dy, box[2], box[3]
