"""Measure the dice reader on pictures it never trained on.

    python -m models.dice.evaluate [--out models/dice/evaluation.json]
        [--synthetic-test DIR] [--heaps-test DIR] [--game-test GAME_DIR ...]
    python -m models.dice.evaluate --halves [--models DIR]

Held-out sets: rune55 test and valid without the near-duplicates of train images (see
models/dice/data.py), desk-webcam, a second source held back from training entirely, and,
when given, rendered tray scenes, rendered heaps of dice (read as photographs) and `synth
game` videos of seeds never trained on.
A detection matches a labelled die when its centre falls inside the label's box (grown by
half: desk-webcam boxes frame the top face only), or else when its box holds the label's
centre. Dice smaller than MIN_DIE_PIXELS show no countable pips and are reported apart.
The readings surer than the referee's second-look threshold are also scored alone.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from models.dice.data import (
    MIN_DIE_PIXELS,
    RUNE55_SOURCES,
    GameDie,
    LabelledImage,
    desk_webcam,
    drop_near_duplicates,
    game_frames,
    heaps,
    read_picture,
    rune55,
    rune55_source,
    synthetic,
    too_small,
)
from models.dice.judgements import judged, load_judgements
from referee.tracker import MIN_ROLL_CONFIDENCE
from vision.dice.closer import DiceReading, find_missing, look_closer, searching_harder
from vision.dice.reader import MODEL_DIR, DiceReader, DieReading
from vision.dice.stream import DICE_PER_THROW, MIN_PRESENCE
from vision.dice.zones import DiceZones

JUDGED = ", judged readable die by die"
# A roll read at least this sure stands without a second look at the board (referee/tracker.py).
SURE = MIN_ROLL_CONFIDENCE


class PhotoReader(Protocol):
    """What `score` needs of a reader: the dice of a photograph."""

    def read(self, image: np.ndarray) -> list[DieReading]: ...


def matched(truth: LabelledImage,
            found: list[DieReading]) -> tuple[list[DieReading | None], list[DieReading]]:
    """The reading of each labelled die (None when missed), and the readings of no die.

    A reading can match a die when its centre lies in the die's box grown by half or, failing
    that, when its box holds the die's centre: desk-webcam boxes frame the top face only, and
    a reading framing the whole die of an oblique view has its centre further off. Nearest
    pairs are matched first: touching dice lie within each other's grown boxes, and a reading
    must not be credited to the neighbour of the die it frames."""
    reads: list[int | None] = [None] * len(truth.values)
    used: set[int] = set()
    for loose in (False, True):
        pairs = []
        for k, (x, y, w, h) in enumerate(truth.boxes):
            for index, reading in enumerate(found):
                fx, fy, fw, fh = reading.box
                dx, dy = fx + fw / 2 - (x + w / 2), fy + fh / 2 - (y + h / 2)
                if loose:
                    hit = fx <= x + w / 2 <= fx + fw and fy <= y + h / 2 <= fy + fh
                else:
                    hit = abs(dx) <= 0.75 * w and abs(dy) <= 0.75 * h
                if hit:
                    pairs.append((float(np.hypot(dx / w, dy / h)), k, index))
        for _, k, index in sorted(pairs):
            if reads[k] is None and index not in used:
                used.add(index)
                reads[k] = index
    return ([None if index is None else found[index] for index in reads],
            [reading for i, reading in enumerate(found) if i not in used])


def match(truth: LabelledImage, found: list[DieReading]) -> list[tuple[int, int | None]]:
    """(true value, read value or None if missed) per labelled die, then (-1, read value) per
    reading of no die; values 0 for cocked (`matched`)."""
    readings, invented = matched(truth, found)
    return ([(int(value), None if reading is None else reading.value or 0)
             for value, reading in zip(truth.values, readings, strict=True)]
            + [(-1, reading.value or 0) for reading in invented])


def held_out_photographs() -> dict[str, list[LabelledImage]]:
    """The real photographs never trained on, by the name each set is reported under: rune55
    test and valid without the near-duplicates of train images, desk-webcam, a set again with
    its dice as judged by eye where `judgements.json` holds its verdicts, and each of rune55's
    sources apart (they differ in difficulty more than any change moves the whole)."""
    held_out = drop_near_duplicates(rune55("test") + rune55("valid"), rune55("train"))
    sets = {
        "rune55 test+valid without near-duplicates": held_out,
        "desk-webcam (never trained on)": desk_webcam("Train") + desk_webcam("Valid"),
    }
    judgements = load_judgements()
    for name in list(sets):
        if name in judgements:
            sets[f"{name}{JUDGED}"] = judged(sets[name], judgements[name])
    for source, _ in RUNE55_SOURCES:
        sets[f"rune55 held out: {source}"] = [
            item for item in held_out if rune55_source(item) == source]
    return sets


def in_selection_half(item: LabelledImage) -> bool:
    """Whether a held-out photograph lies in the half that chooses between models (the other
    half reports only, so that a choice made on many runs does not flatter the figures).
    Halves by a hash of what a photograph was taken as: a rune55 photograph with all its
    augmented copies (the name before `.rf.`); a desk-webcam frame with its neighbours in
    blocks of ten, as the webcam took them one after another."""
    name = item.path.name.split(".rf.")[0]
    taken = re.fullmatch(r"([a-z]+)_(\d+)\.jpg", name)
    if taken is not None:
        name = f"{taken[1]} {int(taken[2]) // 10}"
    return zlib.crc32(name.encode()) % 2 == 0


def held_out_set(name: str) -> tuple[str, list[LabelledImage]]:
    """The held-out set of that name, or else the one set whose name starts with it."""
    sets = held_out_photographs()
    chosen = [name] if name in sets else [full for full in sets if full.startswith(name)]
    if len(chosen) != 1:
        raise KeyError(f"{name!r} names {len(chosen)} of the held-out sets: {', '.join(sets)}")
    return chosen[0], sets[chosen[0]]


@dataclass(frozen=True)
class PhotographRead:
    """One photograph as the reader read it: each labelled die's reading (None when missed),
    the readings of no labelled die, and the seconds the reading took."""

    item: LabelledImage
    readings: list[DieReading | None]
    not_dice: list[DieReading]
    seconds: float


def read_photographs(reader: PhotoReader,
                     items: list[LabelledImage]) -> Iterator[PhotographRead]:
    """Each photograph read and matched to its labels, in order: what `score` counts and
    `error_sheets` shows."""
    for item in items:
        image = read_picture(item.path)
        started = time.perf_counter()
        found = reader.read(image)
        seconds = time.perf_counter() - started
        readings, not_dice = matched(item, found)
        yield PhotographRead(item, readings, not_dice, seconds)


def score(reader: PhotoReader, items: list[LabelledImage],
          sure: float = SURE) -> dict[str, float | int]:
    """Recall, value accuracy and invented dice; and the same for the readings at least
    `sure` confident alone, what a referee could take without a second look."""
    readable = missed = right = invented = small_seen = small = unreadable = 0
    sure_read = sure_right = sure_invented = 0
    seconds = 0.0
    for photograph in read_photographs(reader, items):
        seconds += photograph.seconds
        not_dice = photograph.not_dice
        invented += len(not_dice)
        sure_invented += sum(reading.confidence >= sure for reading in not_dice)
        item = photograph.item
        for box, truth, reading, legible in zip(item.boxes, item.values, photograph.readings,
                                                item.readable_dice(), strict=True):
            if too_small(box):
                small += 1
                small_seen += reading is not None
                continue
            if not legible:  # a reading of it is neither right nor invented
                unreadable += 1
                continue
            readable += 1
            if reading is None:
                missed += 1
                continue
            is_right = (reading.value or 0) == truth
            right += is_right
            if reading.confidence >= sure:
                sure_read += 1
                sure_right += is_right
    return {
        "images": len(items),
        "dice": readable,
        "recall": round((readable - missed) / max(readable, 1), 4),
        "value_accuracy": round(right / max(readable - missed, 1), 4),
        "read_right_of_all": round(right / max(readable, 1), 4),
        "invented": invented,
        "sure_confidence": sure,
        "sure_share_of_dice": round(sure_read / max(readable, 1), 4),
        "sure_value_accuracy": round(sure_right / max(sure_read, 1), 4),
        "sure_invented": sure_invented,
        "small_dice": small,
        "small_dice_found": small_seen,
        "judged_unreadable": unreadable,
        "ms_per_image": round(1000 * seconds / max(len(items), 1), 2),
    }


def read_still_tray(reader: DiceReading, image: np.ndarray,
                    zones: DiceZones) -> list[DieReading]:
    """A frame of the tray at rest read as the tray camera reads it (`vision.tray.TrayCamera`),
    less what its picture of the empty tray adds (the shadow test, places where a change
    shows): the dice read where dice are read, looked at closer when fewer than a throw's
    are (two dice leaning together are one blob at the whole view's scale), then, a die
    still missing, the tray read again harder (`find_missing`), and a die called cocked
    where nothing could hold it on an edge read flat."""
    dice, too_wide = zones.sort(reader.read(image, zones.view, zones))
    if len(dice) < DICE_PER_THROW:
        dice, _ = zones.sort(look_closer(reader, image, dice, [d.box for d in dice], zones,
                                         too_wide))
    if len(dice) < DICE_PER_THROW:
        dice += find_missing(searching_harder(reader), reader, image, zones, dice,
                             DICE_PER_THROW - len(dice), MIN_PRESENCE)
    return zones.flat_where_unpropped(dice, DICE_PER_THROW)


def read_rendered(reader: DiceReader, item: LabelledImage, calibrated: bool = False,
                  still_tray: bool = False) -> list[DieReading]:
    """A rendered tray scene read as one frame, or with `still_tray` as the tray camera reads
    a frame at rest (`read_still_tray`; calibrated). `calibrated`: with the view its
    calibration gives, a die called cocked where nothing could hold it on an edge then read
    flat (`DiceZones.flat_where_unpropped`)."""
    image = read_picture(item.path)
    if still_tray and item.zones is not None:
        return read_still_tray(reader, image, item.zones)
    if not (calibrated or still_tray):
        return reader.read(image)
    found = reader.read(image, item.view, item.zones)
    return found if item.zones is None else item.zones.flat_where_unpropped(found,
                                                                           DICE_PER_THROW)


def score_cocked(reader: DiceReader, items: list[LabelledImage],
                 calibrated: bool = False, still_tray: bool = False) -> dict[str, float | int]:
    """Cocked dice (value 0 in the labels) on rendered tray scenes: recall and precision of
    the cocked call among the dice found, and values of the flat ones; the same for the dice
    in the tray alone (a die stopped inside the box voids the throw however it lies, 5.4.32,
    so only there does the cocked call decide); dice missed, and readings of no die (those
    called cocked apart: each would start a count). `calibrated`: the reader knows how each
    scene's camera views the tray (from the tray's corners, as a calibration gives it), and
    a die called cocked where nothing could hold it on an edge is read flat, as the tray
    camera reads it (`DiceZones.flat_where_unpropped`). `still_tray`: each scene read as
    the tray camera reads a frame at rest (`read_still_tray`; calibrated). Where a scene's
    calibration places the box, the tray's dice are told apart again: at the box's exit
    (`DiceZones.at_exit`: the lip's cocked dice and the ramp toe's flat ones) and in the
    open tray."""
    counts = {where: np.zeros(5, int) for where in ("all", "tray", "tray_exit", "tray_open")}
    missed = invented = invented_cocked = 0
    for item in items:
        sizes = [min(b[2], b[3]) for b in item.boxes]
        in_box = item.in_box if item.in_box is not None else np.zeros(len(sizes), bool)
        found = read_rendered(reader, item, calibrated, still_tray)
        for index, (truth, read) in enumerate(match(item, found)):
            if truth == -1:
                invented += 1
                invented_cocked += read == 0
                continue
            if sizes[index] < MIN_DIE_PIXELS:
                continue
            if read is None:
                missed += 1
                continue
            is_cocked, called = truth == 0, read == 0
            # cocked dice, caught, called cocked, flat dice, flat read right
            tally = np.array([is_cocked, is_cocked and called, called, not is_cocked,
                              not is_cocked and read == truth], int)
            counts["all"] += tally
            if not in_box[index]:
                counts["tray"] += tally
                at_exit = None if item.zones is None else item.zones.at_exit(item.boxes[index])
                if at_exit is not None:
                    counts["tray_exit" if at_exit else "tray_open"] += tally
    scores: dict[str, float | int] = {"images": len(items)}
    for where, tallies in counts.items():
        cocked, caught, calls, flat, flat_right = (int(v) for v in tallies)
        if where in ("tray_exit", "tray_open") and not tallies.any():
            continue  # no die placed there: no scene's calibration places the box
        prefix = "" if where == "all" else f"{where}_"
        scores |= {f"{prefix}cocked_dice": cocked,
                   f"{prefix}cocked_recall": round(caught / max(cocked, 1), 4),
                   f"{prefix}cocked_precision": round(caught / max(calls, 1), 4),
                   f"{prefix}flat_dice": flat,
                   f"{prefix}flat_value_accuracy": round(flat_right / max(flat, 1), 4)}
    return scores | {"dice_missed": missed, "invented": invented,
                     "invented_cocked": invented_cocked}


def match_game(truth: list[GameDie], found: list[DieReading],
               reach: float) -> tuple[list[DieReading | None], int]:
    """The reading of each die (the nearest unused one whose centre is within `reach`
    pixels), and how many readings match no die."""
    used: set[int] = set()
    reads: list[DieReading | None] = []
    for die in truth:
        best, best_distance = None, reach
        for index, reading in enumerate(found):
            x, y, w, h = reading.box
            distance = float(np.hypot(x + w / 2 - die.centre[0], y + h / 2 - die.centre[1]))
            if index not in used and distance <= best_distance:
                best, best_distance = index, distance
        if best is not None:
            used.add(best)
        reads.append(None if best is None else found[best])
    return reads, len(found) - len(used)


def score_game(reader: DiceReader, directories: list[Path]) -> dict[str, float | int]:
    """Dice at rest in `synth game` videos, read from the live referee's crop (the tray and
    box zones' bounding box) a few frames after they stop."""
    dice = found = right = invented = frames = 0
    flat = flat_found = flat_right = cocked = caught = called = in_box = in_box_right = 0
    for directory in directories:
        calibration = json.loads((directory / "calibration.json").read_text())
        reach = 0.6 * float(calibration["die_px"])
        for image, truth in game_frames(directory):
            frames += 1
            found_dice = reader.read(image)
            reads, extra = match_game(truth, found_dice, reach)
            invented += extra
            called += sum(r.cocked for r in found_dice)
            for die, read in zip(truth, reads, strict=True):
                ok = read is not None and read.cocked == die.cocked and read.value == die.value
                dice += 1
                found += read is not None
                right += ok
                flat += not die.cocked
                flat_found += not die.cocked and read is not None
                flat_right += not die.cocked and ok
                cocked += die.cocked
                caught += die.cocked and ok
                in_box += die.in_box
                in_box_right += die.in_box and ok
    return {
        "videos": len(directories),
        "frames": frames,
        "dice": dice,
        "recall": round(found / max(dice, 1), 4),
        "value_accuracy": round(flat_right / max(flat_found, 1), 4),
        "read_right_of_all": round(right / max(dice, 1), 4),
        "cocked_dice": cocked,
        "cocked_recall": round(caught / max(cocked, 1), 4),
        "cocked_precision": round(caught / max(called, 1), 4),
        "in_box_dice": in_box,
        "in_box_read_right": round(in_box_right / max(in_box, 1), 4),
        "invented": invented,
    }


def judged_halves(reader: PhotoReader) -> dict[str, dict[str, float | int]]:
    """The judged sets' scores in each half (`in_selection_half`)."""
    halves = {}
    for name, items in held_out_photographs().items():
        if name.endswith(JUDGED):
            for half, chosen in (("selection", True), ("report", False)):
                halves[f"{name}, {half} half"] = score(
                    reader, [item for item in items if in_selection_half(item) == chosen])
    return halves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "evaluation.json")
    parser.add_argument("--models", type=Path, help="folder of the ONNX models (default: ours)")
    parser.add_argument("--synthetic-test", type=Path, action="append", default=[],
                        help="rendered scenes never trained on (nardy-referee synth dice)")
    parser.add_argument("--heaps-test", type=Path, action="append", default=[],
                        help="rendered heaps of dice never trained on (synth dice --scenario "
                             "pile), read as photographs")
    parser.add_argument("--game-test", type=Path, nargs="+", default=[],
                        help="`synth game` folders of seeds never trained on")
    parser.add_argument("--only-games", action="store_true",
                        help="measure the game videos alone (a quick check while training)")
    parser.add_argument("--halves", action="store_true",
                        help="the judged photograph sets alone, in their selection half (which "
                             "chooses between models) and report half; prints, writes nothing")
    args = parser.parse_args()
    model_dir = args.models or MODEL_DIR
    # The photographs are read as `read-dice` reads them, the tray scenes and game videos as
    # the tray camera reads its frames.
    reader = DiceReader(model_dir)
    photographs = DiceReader.for_photographs(model_dir)
    if args.only_games:
        print(json.dumps(score_game(reader, args.game_test), indent=2))
        return
    if args.halves:
        print(json.dumps(judged_halves(photographs), indent=2))
        return
    results: dict[str, dict[str, float | int]] = {
        name: score(photographs, items) for name, items in held_out_photographs().items()}
    for directory in args.synthetic_test:
        scenes = synthetic(directory)
        results[f"synthetic {directory.name} (never trained on)"] = score_cocked(reader, scenes)
        results[f"synthetic {directory.name}, tray view calibrated"] = score_cocked(
            reader, scenes, calibrated=True)
        results[f"synthetic {directory.name}, read as a still tray frame"] = score_cocked(
            reader, scenes, still_tray=True)
    for directory in args.heaps_test:
        results[f"heaps {directory.name} (never trained on)"] = score(photographs,
                                                                      heaps(directory))
    if args.game_test:
        results["synth game videos (seeds never trained on)"] = score_game(reader, args.game_test)
    text = json.dumps(results, indent=2)
    print(text)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
