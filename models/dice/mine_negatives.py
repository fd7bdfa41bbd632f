"""Mine hard negatives for the die classifier: the detector's false alarms on rune55 train.

    python -m models.dice.mine_negatives --out /tmp/dice_negatives.json [--models DIR]

Runs the reader's detector over the training photographs only (never a held-out set) and
keeps each candidate box that frames no labelled die: its centre lies in no die's box and it
overlaps every die's box by less than a quarter of its own area, or it holds the centres of
two dice or more (a box around touching dice). The classifier learns these crops as `none`
(`train_classifier --hard-negatives`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from models.dice.data import LabelledImage, rune55
from vision.dice.reader import DiceReader


def false_alarms(item: LabelledImage, boxes: np.ndarray) -> list[list[float]]:
    """The candidate boxes (x, y, w, h) that frame no labelled die of `item`."""
    found = []
    truth = item.boxes
    centres = truth[:, :2] + truth[:, 2:] / 2
    for x, y, w, h in boxes:
        cx, cy = x + w / 2, y + h / 2
        inside = ((truth[:, 0] <= cx) & (cx <= truth[:, 0] + truth[:, 2])
                  & (truth[:, 1] <= cy) & (cy <= truth[:, 1] + truth[:, 3]))
        held = ((x <= centres[:, 0]) & (centres[:, 0] <= x + w)
                & (y <= centres[:, 1]) & (centres[:, 1] <= y + h))
        overlap_w = np.clip(np.minimum(x + w, truth[:, 0] + truth[:, 2])
                            - np.maximum(x, truth[:, 0]), 0, None)
        overlap_h = np.clip(np.minimum(y + h, truth[:, 1] + truth[:, 3])
                            - np.maximum(y, truth[:, 1]), 0, None)
        overlap = overlap_w * overlap_h / max(float(w * h), 1.0)
        alone = not inside.any() and not (overlap >= 0.25).any()
        if alone or held.sum() >= 2:
            found.append([round(float(v), 1) for v in (x, y, w, h)])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=Path, help="folder of the ONNX models (default: ours)")
    args = parser.parse_args()
    reader = DiceReader(args.models) if args.models else DiceReader()
    mined: dict[str, list[list[float]]] = {}
    for item in rune55("train"):
        image = cv2.imread(str(item.path))
        if image is None:
            continue
        boxes, _ = reader.candidates(image)
        alarms = false_alarms(item, boxes)
        if alarms:
            mined[str(item.path)] = alarms
    total = sum(len(v) for v in mined.values())
    print(f"{total} false alarms in {len(mined)} training images")
    args.out.write_text(json.dumps(mined) + "\n")


if __name__ == "__main__":
    main()
