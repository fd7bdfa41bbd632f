"""Sheets to judge by eye, die by die, which held-out dice a person could read from the picture.

    python -m models.dice.judging_sheets --set "rune55 test+valid without near-duplicates" \
        --out /tmp/judge

writes the sheets to judge: every labelled die of the set, numbered, its box drawn and its
label beside it, but no reading (the judging is blind to the reader), and `dice.json`, which
image and die each number is. The verdicts go in `judgements.json` (`judgements.py` says
how). Seeing the label errs against the reader: a doubtful die is judged readable and stays.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from models.dice.error_sheets import cut_out, sheets
from models.dice.evaluate import held_out_set

TILE = 170
TILES_A_ROW = 6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True,
                        help="a held-out set, by its name in evaluation.json or the start of it")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rows", type=int, default=6, help="rows of six dice a sheet")
    args = parser.parse_args()
    try:
        name, items = held_out_set(args.set)
    except KeyError as error:
        parser.error(str(error))
    dice: list[dict[str, str | int]] = []
    tiles: list[np.ndarray] = []
    for item in items:
        for index, (box, label) in enumerate(zip(item.boxes, item.values, strict=True)):
            caption = f"{len(dice)}: {label}"
            dice.append({"image": item.path.name, "die": index})
            x, y, w, h = (float(v) for v in box)
            tiles.append(cut_out(str(item.path), (x, y, w, h), caption, TILE, text_scale=0.6))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dice.json").write_text(json.dumps({"set": name, "dice": dice}, indent=1) + "\n")
    laid_out = sheets(tiles, TILES_A_ROW, max(args.rows, 1))
    for number, sheet in enumerate(laid_out):
        cv2.imwrite(str(args.out / f"sheet-{number}.png"), sheet)
    print(f"{name}: {len(dice)} dice on {len(laid_out)} sheets in {args.out}")


if __name__ == "__main__":
    main()
