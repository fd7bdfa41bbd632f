"""Every error of the dice reader on a held-out set of photographs, cut out to be judged by eye.

    python -m models.dice.error_sheets --set desk-webcam --out /tmp/desk_errors

Writes `errors.json` (one entry per missed die, misread die and reading of no labelled die,
numbered) and `sheet-N.png`: the errors in that order, 16 a sheet, each with its box drawn,
twice its size of surroundings, and its number, kind, labelled and read values. Judging them
is how `experiments.md` tells wrong labels and unreadable dice from the reader's own errors.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from models.dice.data import LabelledImage, too_small
from models.dice.evaluate import PhotoReader, held_out_photographs, read_photographs
from vision.dice.reader import MODEL_DIR, PHOTOGRAPH_MIRRORS, DiceReader

TILE = 200
TILES_A_ROW = 4
ROWS_A_SHEET = 4


@dataclass(frozen=True)
class ReadingError:
    kind: str  # "missed", "misread" or "invented"
    image: str
    box: tuple[float, float, float, float]  # the reading's, or the label's when missed
    label: int | None  # the labelled value; 0 is cocked, None for a reading of no die
    read: int | None  # the value read; 0 is cocked, None when missed
    confidence: float | None


def reading_errors(reader: PhotoReader, items: list[LabelledImage]) -> list[ReadingError]:
    """The errors `evaluate.score` counts, in the images' order; dice too small to show pips
    are left out, as there."""
    errors = []
    for photograph in read_photographs(reader, items):
        item = photograph.item
        for box, label, reading in zip(item.boxes, item.values, photograph.readings,
                                       strict=True):
            if too_small(box):
                continue
            if reading is None:
                x, y, w, h = (float(v) for v in box)
                errors.append(ReadingError("missed", str(item.path), (x, y, w, h), int(label),
                                           None, None))
            elif (reading.value or 0) != label:
                errors.append(ReadingError("misread", str(item.path), reading.box, int(label),
                                           reading.value or 0, reading.confidence))
        errors += [ReadingError("invented", str(item.path), reading.box, None,
                                reading.value or 0, reading.confidence)
                   for reading in photograph.not_dice]
    return errors


def tile(error: ReadingError, number: int) -> np.ndarray:
    """The error's box drawn on its photograph, cut out with surroundings twice its size."""
    image = cv2.imread(error.image)
    if image is None:
        raise OSError(f"cannot read {error.image}")
    x, y, w, h = error.box
    cv2.rectangle(image, (round(x), round(y)), (round(x + w), round(y + h)), (0, 0, 255), 1)
    side, cx, cy = 2.5 * max(w, h), x + w / 2, y + h / 2
    left, top = max(0, round(cx - side / 2)), max(0, round(cy - side / 2))
    right = min(image.shape[1], round(cx + side / 2))
    bottom = min(image.shape[0], round(cy + side / 2))
    out = cv2.resize(image[top:bottom, left:right], (TILE, TILE), interpolation=cv2.INTER_AREA)
    sure = "" if error.confidence is None else f" {error.confidence:.2f}"
    caption = f"{number} {error.kind} label {error.label} read {error.read}{sure}"
    cv2.putText(out, caption, (2, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 255, 255), 1)
    return out


def sheets(errors: list[ReadingError]) -> list[np.ndarray]:
    per_sheet = TILES_A_ROW * ROWS_A_SHEET
    out = []
    for start in range(0, len(errors), per_sheet):
        tiles = [tile(error, start + i) for i, error in enumerate(errors[start:start + per_sheet])]
        tiles += [np.zeros((TILE, TILE, 3), np.uint8)] * (-len(tiles) % TILES_A_ROW)
        rows = [np.hstack(tiles[i:i + TILES_A_ROW]) for i in range(0, len(tiles), TILES_A_ROW)]
        out.append(np.vstack(rows))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True,
                        help="a held-out set, by the start of its name in evaluation.json")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODEL_DIR)
    args = parser.parse_args()
    chosen = {name: items for name, items in held_out_photographs().items()
              if name.startswith(args.set)}
    if len(chosen) != 1:
        parser.error(f"--set {args.set!r} names {len(chosen)} of the held-out sets")
    (name, items), = chosen.items()
    errors = reading_errors(DiceReader(args.models, mirrors=PHOTOGRAPH_MIRRORS), items)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "errors.json").write_text(
        json.dumps([asdict(error) for error in errors], indent=1) + "\n")
    for number, sheet in enumerate(sheets(errors)):
        cv2.imwrite(str(args.out / f"sheet-{number}.png"), sheet)
    counts = {kind: sum(error.kind == kind for error in errors)
              for kind in ("missed", "misread", "invented")}
    print(f"{name}: {len(errors)} errors {counts}, sheets in {args.out}")


if __name__ == "__main__":
    main()
