"""Train the die classifier (value 1-6, cocked, or no die at all) and export it to ONNX.

    python -m models.dice.train_classifier --epochs 10 --out models/dice

Data: every readable die of rune55 train, background squares of the same images as "none",
when given, the detector's false alarms on rune55 train as "none" (--hard-negatives, from
models/dice/mine_negatives.py), the detector's boxes around single training dice with those
dice's labels (--framed-positives, from the same script), and synthetic tray renders
(--synthetic DIR), the only source of cocked dice.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from models.dice.data import SHARED_DICE, LabelledImage, too_small
from models.dice.nets import DieClassifier
from models.dice.training import save, seeded, start_from, training_items, training_parser
from vision.dice.boxes import as_box, within
from vision.dice.preprocess import CROP_SIZE, CROP_SPAN, classifier_input, crop_square

CLASSES = ["none", "1", "2", "3", "4", "5", "6", "cocked"]
COCKED = CLASSES.index("cocked")
PATCH = 96
PATCH_SPAN = 2.6  # room around the die for rotation, shift and zoom augmentation
CONTEXT_ROOM = 1.6  # the patch spans this many times the context crop, for the same room


def patch_geometry(context_span: float) -> tuple[int, float]:
    """The stored patches' side in pixels and span (times the die's box): room for the
    augmentation around the widest crop, at PATCH / PATCH_SPAN pixels per box side."""
    span = max(PATCH_SPAN, CONTEXT_ROOM * context_span)
    return round(PATCH * span / PATCH_SPAN), span


def patches(items: list[LabelledImage], rng: np.random.Generator, negatives_per_image: int = 2,
            part_negatives: float = 0.0, cocked_parts: float = 0.0,
            hard_negatives: dict[str, list[list[float]]] | None = None,
            framed_positives: dict[str, list[list[float]]] | None = None,
            context_span: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grey squares (patch_geometry) around each die (class = value, or cocked), around
    empty spots, (for a `part_negatives` share of the dice) around a small part of a die, as
    "none", (for a `cocked_parts` share of the cocked dice) around a box off the die's centre,
    around each of the image's `hard_negatives` boxes as "none", and around each of its
    `framed_positives` boxes (x, y, w, h, value; 0 for cocked) with that label. Also says
    which crops come from real photographs."""
    crops: list[np.ndarray] = []
    labels: list[int] = []
    real: list[bool] = []
    size, span = patch_geometry(context_span)
    for item in items:
        grey = cv2.imread(str(item.path), cv2.IMREAD_GRAYSCALE)
        if grey is None:
            continue
        before = len(crops)
        for alarm in (hard_negatives or {}).get(str(item.path), []):
            crops.append(crop_square(grey, np.array(alarm, np.float32), size, span))
            labels.append(0)
        for *framed, value in (framed_positives or {}).get(str(item.path), []):
            crops.append(crop_square(grey, np.array(framed, np.float32), size, span))
            labels.append(COCKED if value == 0 else int(value))
        for box, value in zip(item.boxes, item.values, strict=True):
            if too_small(box):
                continue
            crops.append(crop_square(grey, box, size, span))
            labels.append(COCKED if value == 0 else int(value))
            if value == 0 and rng.random() < cocked_parts:
                crops.append(crop_square(grey, _off_centre(box, rng), size, span))
                labels.append(COCKED)
            if rng.random() < part_negatives:
                crops.append(crop_square(grey, _part_of(box, rng), size, span))
                labels.append(0)
        for box in _empty_spots(item.boxes, grey.shape, rng, negatives_per_image):
            crops.append(crop_square(grey, box, size, span))
            labels.append(0)
        real += [SHARED_DICE in item.path.parents] * (len(crops) - before)
    return np.stack(crops), np.array(labels, np.int64), np.array(real, bool)


def _stay_close(teacher: torch.nn.Module, logits: torch.Tensor, inputs: np.ndarray,
                target: torch.Tensor) -> torch.Tensor:
    """How far the network's calls on the dice crops (not the `none` ones) are from the
    teacher's, as KL divergence: a network continued to learn new negatives keeps what it
    read of dice before, instead of drifting by a few dice on every held-out set as every
    continued run did (experiments.md)."""
    dice = target != 0
    if not bool(dice.any()):
        return logits.sum() * 0.0
    with torch.no_grad():
        wanted = torch.softmax(teacher(torch.from_numpy(inputs[dice.numpy()])), dim=1)
    return torch.nn.functional.kl_div(torch.log_softmax(logits[dice], dim=1), wanted,
                                      reduction="batchmean")


def _empty_spots(boxes: np.ndarray, shape: tuple[int, ...], rng: np.random.Generator,
                 count: int) -> list[np.ndarray]:
    height, width = shape[:2]
    sizes = boxes[:, 2:].max(axis=1) if len(boxes) else np.array([40.0])
    spots: list[np.ndarray] = []
    for _ in range(count * 10):
        if len(spots) == count:
            break
        side = float(rng.choice(sizes)) * rng.uniform(0.7, 1.4)
        x, y = rng.uniform(0, width - side), rng.uniform(0, height - side)
        candidate = np.array([x, y, side, side], np.float32)
        if not any(within(as_box(candidate), as_box(box), 0.05) for box in boxes):
            spots.append(candidate)
    return spots


def _part_of(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A box a quarter to half the die's size inside it: a pip or two framed alone, as a
    detector misled by big dice proposes them. The classifier must call it no die."""
    x, y, w, h = box
    side = max(w, h) * rng.uniform(0.25, 0.5)
    cx = x + w / 2 + rng.uniform(-0.3, 0.3) * w
    cy = y + h / 2 + rng.uniform(-0.3, 0.3) * h
    return np.array([cx - side / 2, cy - side / 2, side, side], np.float32)


def _off_centre(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Most of the die, off its centre: a detector often frames only the lit face of a cocked
    die, and the crop around that must still read as cocked."""
    x, y, w, h = box
    side = max(w, h) * rng.uniform(0.65, 0.85)
    cx = x + w / 2 + rng.uniform(-0.2, 0.2) * w
    cy = y + h / 2 + rng.uniform(-0.2, 0.2) * h
    return np.array([cx - side / 2, cy - side / 2, side, side], np.float32)


def augmented(patch: np.ndarray, rng: np.random.Generator, context_span: float = 0.0,
              turn: float = 180.0) -> np.ndarray:
    """The classifier input from a stored patch, as the detector's boxes might frame it,
    turned by up to `turn` degrees either way."""
    size = patch.shape[0]
    side = size / patch_geometry(context_span)[1]
    box = np.array([(size - side) / 2, (size - side) / 2, side, side], np.float32)
    pixels: np.ndarray = patch.astype(np.float32) * rng.uniform(0.6, 1.4) + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        pixels = cv2.GaussianBlur(pixels, (0, 0), rng.uniform(0.4, 1.2))
    pixels = np.clip(pixels + rng.normal(0, rng.uniform(0, 6), pixels.shape), 0, 255)
    return classifier_input(
        pixels.astype(np.uint8),
        box,
        context_span,
        zoom=rng.uniform(0.85, 1.25),
        angle=rng.uniform(-turn, turn),
        shift=(rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08)),
    )


def main() -> None:
    parser = training_parser(__doc__.splitlines()[0], epochs=10, batch=128)
    parser.add_argument("--per-epoch", type=int, default=16000, help="crops drawn per epoch")
    parser.add_argument("--cocked-weight", type=float, default=4.0,
                        help="how much more often cocked crops are drawn (they are rare)")
    parser.add_argument("--none-weight", type=float, default=1.0,
                        help="how much more often crops of no die are drawn (to keep their "
                             "share of the draws when --framed-positives adds dice)")
    parser.add_argument("--part-negatives", type=float, default=0.0,
                        help="share of dice that also give a crop of a part of the die as none")
    parser.add_argument("--cocked-parts", type=float, default=0.0,
                        help="share of cocked dice that also give a crop off their centre")
    parser.add_argument("--hard-negatives", type=Path, action="append", default=[],
                        help="JSON of false-alarm boxes per training image (mine_negatives, "
                             "synth.dice.desk's negatives.json); may be given again")
    parser.add_argument("--framed-positives", type=Path,
                        help="JSON of the detector's boxes around single training dice, with "
                             "their labels (mine_negatives --positives)")
    parser.add_argument("--real-weight", type=float, default=1.0,
                        help="how much more often crops of real photographs are drawn")
    parser.add_argument("--blocks", type=int, default=0,
                        help="residual blocks at 12x12 and at 6x6 (capacity)")
    parser.add_argument("--synthetic-turn", type=float, default=180.0,
                        help="synthetic crops turn by up to this many degrees (their cameras "
                             "stand level: a flat die's sides show below its top face)")
    parser.add_argument("--teacher", type=Path,
                        help="weights (.pt) whose calls on dice the network is kept close to")
    parser.add_argument("--teacher-weight", type=float, default=1.0,
                        help="the weight of keeping close to --teacher in the loss")
    parser.add_argument("--context", type=float, default=0.0,
                        help="also a crop this many times the die's box, as a second channel "
                             "(0: the die's crop alone)")
    args = parser.parse_args()
    rng = seeded(args)
    items = training_items(args)
    hard = {path: boxes for negatives in args.hard_negatives
            for path, boxes in json.loads(negatives.read_text()).items()}
    framed = json.loads(args.framed_positives.read_text()) if args.framed_positives else None
    stored, labels, real = patches(items, rng, part_negatives=args.part_negatives,
                                   cocked_parts=args.cocked_parts, hard_negatives=hard,
                                   framed_positives=framed, context_span=args.context)
    counts = np.bincount(labels, minlength=len(CLASSES))
    print("training crops per class:", dict(zip(CLASSES, counts.tolist(), strict=True)),
          f"of which {int(real.sum())} real", flush=True)
    channels = 2 if args.context else 1
    model = start_from(DieClassifier(len(CLASSES), args.blocks, channels), args)
    teacher = None
    if args.teacher:
        teacher = DieClassifier(len(CLASSES), args.blocks, channels)
        teacher.load_state_dict(torch.load(args.teacher))
        teacher.eval()
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = min(args.per_epoch, len(labels))
    # Cocked dice are rare but must be caught: draw them more often.
    draw = np.where(labels == COCKED, args.cocked_weight, 1.0)
    draw *= np.where(labels == 0, args.none_weight, 1.0)
    draw *= np.where(real, args.real_weight, 1.0)
    draw /= draw.sum()
    print(f"drawn as none: {draw[labels == 0].sum():.1%}", flush=True)
    steps = args.epochs * (per_epoch // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps)
    for epoch in range(args.epochs):
        started, total, right = time.time(), 0.0, 0
        model.train()
        order = rng.choice(len(labels), per_epoch, replace=False, p=draw)
        for start in range(0, len(order) - args.batch + 1, args.batch):
            chosen = order[start : start + args.batch]
            inputs = np.stack([augmented(stored[i], rng, args.context,
                                         180.0 if real[i] else args.synthetic_turn)
                               for i in chosen])
            target = torch.from_numpy(labels[chosen])
            logits = model(torch.from_numpy(inputs))
            loss = torch.nn.functional.cross_entropy(logits, target, label_smoothing=0.05)
            if teacher is not None:
                loss = loss + args.teacher_weight * _stay_close(teacher, logits, inputs, target)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(chosen)
            right += int((logits.argmax(1) == target).sum())
        seen = len(order) // args.batch * args.batch
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / seen:.4f} "
              f"train accuracy {right / seen:.4f} {time.time() - started:.0f}s", flush=True)
    save(model, args, "classifier", torch.zeros(1, channels, CROP_SIZE, CROP_SIZE),
         ("crops", "logits"), {"crops": {0: "n"}, "logits": {0: "n"}},
         {"classes": CLASSES, "crop_size": CROP_SIZE, "crop_span": CROP_SPAN,
          "context_span": args.context, "synthetic_turn": args.synthetic_turn,
          "cocked_weight": args.cocked_weight, "none_weight": args.none_weight,
          "part_negatives": args.part_negatives, "cocked_parts": args.cocked_parts,
          "blocks": args.blocks, "real_weight": args.real_weight,
          "hard_negatives": [str(path) for path in args.hard_negatives],
          "framed_positives": str(args.framed_positives) if args.framed_positives else None,
          "teacher": str(args.teacher) if args.teacher else None,
          "teacher_weight": args.teacher_weight if args.teacher else None,
          "crops": counts.tolist()})


if __name__ == "__main__":
    main()
