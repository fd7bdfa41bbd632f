"""Every error of the dice reader on a held-out set of photographs, cut out to be judged by eye.

    python -m models.dice.error_sheets --set "desk-webcam (never trained on)" --out /tmp/desk_errors

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

from models.dice.data import LabelledImage, read_picture, too_small
from models.dice.evaluate import PhotoReader, held_out_set, read_photographs
from vision.dice.reader import MODEL_DIR, DiceReader

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
    and dice judged unreadable are left out, as there."""
    errors = []
    for photograph in read_photographs(reader, items):
        item = photograph.item
        for box, label, reading, legible in zip(item.boxes, item.values, photograph.readings,
                                                item.readable_dice(), strict=True):
            if too_small(box) or not legible:
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


def cut_out(image_path: str, box: tuple[float, float, float, float], caption: str,
            side: int = TILE, text_scale: float = 0.38) -> np.ndarray:
    """The box drawn on its photograph, cut out with surroundings 2.5 times its size, scaled
    to `side` pixels and captioned. The box is drawn after scaling, so it shows however far
    a big photograph is shrunk."""
    image = read_picture(Path(image_path))
    x, y, w, h = box
    span, cx, cy = 2.5 * max(w, h), x + w / 2, y + h / 2
    left, top = max(0, round(cx - span / 2)), max(0, round(cy - span / 2))
    right = min(image.shape[1], round(cx + span / 2))
    bottom = min(image.shape[0], round(cy + span / 2))
    out = cv2.resize(image[top:bottom, left:right], (side, side), interpolation=cv2.INTER_AREA)
    scale_x, scale_y = side / (right - left), side / (bottom - top)
    corner = (round((x - left) * scale_x), round((y - top) * scale_y))
    far = (round((x + w - left) * scale_x), round((y + h - top) * scale_y))
    cv2.rectangle(out, corner, far, (0, 0, 255), 1)
    cv2.putText(out, caption, (2, round(36 * text_scale)), cv2.FONT_HERSHEY_SIMPLEX, text_scale,
                (0, 255, 255), 1 + (text_scale > 0.5))
    return out


def tile(error: ReadingError, number: int) -> np.ndarray:
    sure = "" if error.confidence is None else f" {error.confidence:.2f}"
    return cut_out(error.image, error.box,
                   f"{number} {error.kind} label {error.label} read {error.read}{sure}")


def sheets(tiles: list[np.ndarray], per_row: int = TILES_A_ROW,
           rows: int = ROWS_A_SHEET) -> list[np.ndarray]:
    """The tiles laid out in order, `per_row` by `rows` a sheet."""
    side = tiles[0].shape[0] if tiles else TILE
    out = []
    for start in range(0, len(tiles), per_row * rows):
        page = tiles[start:start + per_row * rows]
        page += [np.zeros((side, side, 3), np.uint8)] * (-len(page) % per_row)
        out.append(np.vstack([np.hstack(page[i:i + per_row])
                              for i in range(0, len(page), per_row)]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True,
                        help="a held-out set, by its name in evaluation.json or the start of it")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODEL_DIR)
    args = parser.parse_args()
    try:
        name, items = held_out_set(args.set)
    except KeyError as error:
        parser.error(str(error))
    errors = reading_errors(DiceReader.for_photographs(args.models), items)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "errors.json").write_text(
        json.dumps([asdict(error) for error in errors], indent=1) + "\n")
    tiles = [tile(error, number) for number, error in enumerate(errors)]
    for number, sheet in enumerate(sheets(tiles)):
        cv2.imwrite(str(args.out / f"sheet-{number}.png"), sheet)
    counts = {kind: sum(error.kind == kind for error in errors)
              for kind in ("missed", "misread", "invented")}
    print(f"{name}: {len(errors)} errors {counts}, sheets in {args.out}")


if __name__ == "__main__":
    main()
