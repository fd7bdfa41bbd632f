"""Mine the detector's boxes on training images for the die classifier: its false alarms on
rune55 train (hard negatives) and its boxes around single dice (framed positives).

    python -m models.dice.mine_negatives --out /tmp/dice_negatives.json
        [--positives /tmp/dice_framed.json --synthetic DIR ...] [--models DIR]

Runs the reader's detector over the training images only (never a held-out set). A false
alarm is a candidate box that frames no labelled die: its centre lies in no die's box and it
overlaps every die's box by less than a quarter of its own area, or it holds the centres of
two dice or more (a box around touching dice). The classifier learns these crops as `none`
(`train_classifier --hard-negatives`). A framed positive is a candidate box whose centre lies
in exactly one die's box and that holds no other die's centre; the classifier learns its crop
with that die's label (`train_classifier --framed-positives`), so it reads dice as the
detector frames them (off centre, too big or too small) and not only at the labelled boxes.
Framed positives come from rune55 train and the `--synthetic` folders; their paths must be
given as training will give them, as both files are keyed by image path.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from models.dice.data import SHARED_DICE, LabelledImage, rune55, synthetic, too_small
from vision.dice.reader import DiceReader

# A box under half the die's side frames a pip or two: left out of the framed positives, as
# no value can be read from it, and as `none` it would lose the many dice the detector frames
# no better (100 of the 133 such boxes on rune55 train).
MIN_FRAMED_SHARE = 0.5


def points_in_boxes(boxes: np.ndarray, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
    """Whether each point lies in each box (x, y, w, h), broadcast."""
    within: np.ndarray = (boxes[..., 0] <= x) & (x <= boxes[..., 0] + boxes[..., 2]) & (
        boxes[..., 1] <= y) & (y <= boxes[..., 1] + boxes[..., 3])
    return within


def false_alarms(item: LabelledImage, boxes: np.ndarray) -> list[list[float]]:
    """The candidate boxes (x, y, w, h) that frame no labelled die of `item`."""
    found = []
    truth = item.boxes
    centres = truth[:, :2] + truth[:, 2:] / 2
    for box in boxes:
        x, y, w, h = box
        inside = points_in_boxes(truth, x + w / 2, y + h / 2)
        held = points_in_boxes(box, centres[:, 0], centres[:, 1])
        overlap_w = np.clip(np.minimum(x + w, truth[:, 0] + truth[:, 2])
                            - np.maximum(x, truth[:, 0]), 0, None)
        overlap_h = np.clip(np.minimum(y + h, truth[:, 1] + truth[:, 3])
                            - np.maximum(y, truth[:, 1]), 0, None)
        overlap = overlap_w * overlap_h / max(float(w * h), 1.0)
        alone = not inside.any() and not (overlap >= 0.25).any()
        if alone or held.sum() >= 2:
            found.append([round(float(v), 1) for v in (x, y, w, h)])
    return found


def framed_positives(item: LabelledImage, boxes: np.ndarray) -> list[list[float]]:
    """The candidate boxes that frame one readable die of `item`, as (x, y, w, h, value),
    value 0 for a cocked die."""
    found = []
    truth = item.boxes
    centres = truth[:, :2] + truth[:, 2:] / 2
    for box in boxes:
        x, y, w, h = box
        inside = np.flatnonzero(points_in_boxes(truth, x + w / 2, y + h / 2))
        if len(inside) != 1:
            continue
        die = int(inside[0])
        held = points_in_boxes(box, centres[:, 0], centres[:, 1])
        held[die] = False
        if (held.any() or too_small(truth[die])
                or max(w, h) < MIN_FRAMED_SHARE * truth[die, 2:].max()):
            continue
        found.append([*(round(float(v), 1) for v in box), int(item.values[die])])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON of the false alarms")
    parser.add_argument("--positives", type=Path, help="JSON of the framed positives")
    parser.add_argument("--synthetic", type=Path, action="append", default=[],
                        help="rendered training scenes, mined for framed positives only")
    parser.add_argument("--models", type=Path, help="folder of the ONNX models (default: ours)")
    args = parser.parse_args()
    cv2.setNumThreads(1)  # the development machine is a shared 2-core CPU
    reader = DiceReader(args.models) if args.models else DiceReader()
    items = rune55("train")
    if args.positives:
        items += [item for d in args.synthetic for item in synthetic(d)]
    alarms: dict[str, list[list[float]]] = {}
    framed: dict[str, list[list[float]]] = {}
    for item in items:
        image = cv2.imread(str(item.path))
        if image is None:
            continue
        boxes, _ = reader.candidates(image)
        # False alarms of real photographs only: mostly symbol dice the rune55 labels leave
        # out, which is what the classifier must learn to drop.
        if SHARED_DICE in item.path.parents and (found := false_alarms(item, boxes)):
            alarms[str(item.path)] = found
        if args.positives and (found := framed_positives(item, boxes)):
            framed[str(item.path)] = found
    for name, mined, path in (("false alarms", alarms, args.out),
                              ("framed positives", framed, args.positives)):
        if path:
            print(f"{sum(len(v) for v in mined.values())} {name} in {len(mined)} images")
            path.write_text(json.dumps(mined) + "\n")


if __name__ == "__main__":
    main()
