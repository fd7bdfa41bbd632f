"""Measure the dice reader on real photographs it never trained on.

    python -m models.dice.evaluate [--out models/dice/evaluation.json]

Held-out sets: rune55 test and valid without the near-duplicates of train images (see
models/dice/data.py), and desk-webcam, a second source held back from training entirely.
A detection matches a labelled die when its centre falls inside the label's box (grown by
half: desk-webcam boxes frame the top face only). Dice smaller than MIN_DIE_PIXELS show no
countable pips and are reported apart.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2

from models.dice.data import (
    MIN_DIE_PIXELS,
    LabelledImage,
    desk_webcam,
    drop_near_duplicates,
    rune55,
    synthetic,
)
from vision.dice.reader import DiceReader, DieReading


def match(truth: LabelledImage, found: list[DieReading]) -> list[tuple[int, int | None]]:
    """(true value, read value or None if missed) per labelled die; unmatched reads get -1."""
    pairs: list[tuple[int, int | None]] = []
    used: set[int] = set()
    order = sorted(range(len(found)), key=lambda i: -found[i].confidence)
    for box, value in zip(truth.boxes, truth.values, strict=True):
        x, y, w, h = box
        hit = None
        for index in order:
            if index in used:
                continue
            fx, fy, fw, fh = found[index].box
            cx, cy = fx + fw / 2, fy + fh / 2
            if abs(cx - (x + w / 2)) <= 0.75 * w and abs(cy - (y + h / 2)) <= 0.75 * h:
                hit = index
                break
        if hit is None:
            pairs.append((int(value), None))
        else:
            used.add(hit)
            pairs.append((int(value), found[hit].value or 0))
    pairs += [(-1, found[i].value or 0) for i in range(len(found)) if i not in used]
    return pairs


def score(reader: DiceReader, items: list[LabelledImage]) -> dict[str, float | int]:
    readable = missed = right = invented = small_seen = small = 0
    seconds = 0.0
    for item in items:
        image = cv2.imread(str(item.path))
        if image is None:
            raise OSError(f"cannot read {item.path}")
        started = time.perf_counter()
        found = reader.read(image)
        seconds += time.perf_counter() - started
        sizes = {i: min(b[2], b[3]) for i, b in enumerate(item.boxes)}
        for index, (truth, read) in enumerate(match(item, found)):
            if truth == -1:
                invented += 1
            elif index in sizes and sizes[index] < MIN_DIE_PIXELS:
                small += 1
                small_seen += read is not None
            else:
                readable += 1
                missed += read is None
                right += read == truth
    return {
        "images": len(items),
        "dice": readable,
        "recall": round((readable - missed) / max(readable, 1), 4),
        "value_accuracy": round(right / max(readable - missed, 1), 4),
        "read_right_of_all": round(right / max(readable, 1), 4),
        "invented": invented,
        "small_dice": small,
        "small_dice_found": small_seen,
        "ms_per_image": round(1000 * seconds / max(len(items), 1), 2),
    }


def score_cocked(reader: DiceReader, items: list[LabelledImage]) -> dict[str, float | int]:
    """Cocked dice (value 0 in the labels) on rendered tray scenes: recall and precision of
    the cocked call among the dice found, and values of the flat ones."""
    cocked = caught = called = called_right = flat = flat_right = missed = 0
    for item in items:
        image = cv2.imread(str(item.path))
        if image is None:
            raise OSError(f"cannot read {item.path}")
        sizes = [min(b[2], b[3]) for b in item.boxes]
        for index, (truth, read) in enumerate(match(item, reader.read(image))):
            if truth == -1 or sizes[index] < MIN_DIE_PIXELS:
                continue
            if read is None:
                missed += 1
                continue
            is_cocked = truth == 0
            cocked += is_cocked
            caught += is_cocked and read == 0
            called += read == 0
            called_right += is_cocked and read == 0
            flat += not is_cocked
            flat_right += not is_cocked and read == truth
    return {
        "images": len(items),
        "cocked_dice": cocked,
        "cocked_recall": round(caught / max(cocked, 1), 4),
        "cocked_precision": round(called_right / max(called, 1), 4),
        "flat_dice": flat,
        "flat_value_accuracy": round(flat_right / max(flat, 1), 4),
        "dice_missed": missed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "evaluation.json")
    parser.add_argument("--models", type=Path, help="folder of the ONNX models (default: ours)")
    parser.add_argument("--synthetic-test", type=Path, action="append", default=[],
                        help="rendered scenes never trained on (nardy-referee synth dice)")
    args = parser.parse_args()
    reader = DiceReader(args.models) if args.models else DiceReader()
    train = rune55("train")
    held_out = drop_near_duplicates(rune55("test") + rune55("valid"), train)
    results: dict[str, dict[str, float | int]] = {
        "rune55 test+valid without near-duplicates": score(reader, held_out),
        "desk-webcam (never trained on)": score(
            reader, desk_webcam("Train") + desk_webcam("Valid")
        ),
    }
    for directory in args.synthetic_test:
        results[f"synthetic {directory.name} (never trained on)"] = score_cocked(
            reader, synthetic(directory)
        )
    text = json.dumps(results, indent=2)
    print(text)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
