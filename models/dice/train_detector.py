"""Train the dice detector and export it to ONNX.

    python -m models.dice.train_detector --epochs 12 --out models/dice

Data: rune55 train (real photographs) plus, when given, synthetic tray renders made by
`nardy-referee synth dice` (--synthetic DIR, labels.jsonl inside). The held-out sets for the
model card are chosen in models/dice/evaluate.py, never here.
"""

from __future__ import annotations

import time

import cv2
import numpy as np
import onnx
import torch

from models.dice.data import SHARED_DICE, LabelledImage, read_picture
from models.dice.detector_targets import STRIDE, augment, targets
from models.dice.nets import DiceDetector
from models.dice.phase_split import split
from models.dice.training import save, seeded, start_from, training_items, training_parser
from vision.dice.preprocess import DETECTOR_SIZE

# The export's input and output, as the reader runs it (vision/dice/reader.py).
DETECTOR_NAMES = ("image", "maps")
DETECTOR_AXES = {"image": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "h4", 3: "w4"}}


def focal_loss(logits: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, averaged over the number of centres."""
    prob = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = heat.eq(1.0).float()
    positive = -torch.log(prob) * (1 - prob) ** 2 * centre
    negative = -torch.log(1 - prob) * prob**2 * (1 - heat) ** 4 * (1 - centre)
    return (positive.sum() + negative.sum()) / centre.sum().clamp(min=1.0)


def load(items: list[LabelledImage], longest: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Images shrunk so the longer side is at most `longest`, with their boxes."""
    loaded = []
    for item in items:
        image = read_picture(item.path)
        scale = min(1.0, longest / max(image.shape[:2]))
        if scale < 1.0:
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        loaded.append((image, item.boxes * scale))
    return loaded


def batches(data: list[tuple[np.ndarray, np.ndarray]], rng: np.random.Generator, size: int,
            batch: int, count: int) -> list[tuple[torch.Tensor, ...]]:
    """`count` images drawn at random, augmented, in batches."""
    order = rng.permutation(len(data))[:count]
    out = []
    for start in range(0, len(order) - batch + 1, batch):
        images, heats, regs, masks = [], [], [], []
        for index in order[start : start + batch]:
            image, boxes = data[index]
            view, kept = augment(image, boxes, rng, size)
            heat, regress, mask = targets(kept, size)
            images.append(view.transpose(2, 0, 1).astype(np.float32) / 255.0)
            heats.append(heat)
            regs.append(regress)
            masks.append(mask)
        out.append(tuple(torch.from_numpy(np.stack(a)) for a in (images, heats, regs, masks)))
    return out


def main() -> None:
    parser = training_parser(__doc__.splitlines()[0], epochs=12, batch=32)
    parser.add_argument("--limit", type=int, default=0, help="use only this many images")
    parser.add_argument("--per-epoch", type=int, default=2400, help="images drawn per epoch")
    parser.add_argument("--real-repeat", type=int, default=1,
                        help="list rune55 train this many times (drawn that much more often)")
    args = parser.parse_args()
    rng = seeded(args)
    items = training_items(args)
    if args.limit:
        items = [items[i] for i in rng.permutation(len(items))[: args.limit]]
    data = load(items, longest=512)
    real = [pair for pair, item in zip(data, items, strict=True)
            if SHARED_DICE in item.path.parents]
    data += real * (args.real_repeat - 1)  # the same arrays again
    print(f"{len(data)} training images", flush=True)
    model = start_from(DiceDetector(), args)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = min(args.per_epoch, len(data))
    steps = args.epochs * (per_epoch // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr, total_steps=steps)
    for epoch in range(args.epochs):
        started, total = time.time(), 0.0
        model.train()
        epoch_batches = batches(data, rng, DETECTOR_SIZE, args.batch, per_epoch)
        for images, heat, regress, mask in epoch_batches:
            out = model(images)
            heat_loss = focal_loss(out[:, 0:1], heat)
            weight = mask.unsqueeze(1)
            size_loss = (torch.abs(out[:, 1:3] - regress[:, 0:2]) * weight).sum()
            offset_loss = (torch.abs(out[:, 3:5] - regress[:, 2:4]) * weight).sum()
            loss = heat_loss + (0.5 * size_loss + offset_loss) / mask.sum().clamp(min=1.0)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / len(epoch_batches):.4f} "
              f"{time.time() - started:.0f}s", flush=True)
    save(model, args, "detector", torch.zeros(1, 3, DETECTOR_SIZE, DETECTOR_SIZE),
         DETECTOR_NAMES, DETECTOR_AXES,
         {"input_size": DETECTOR_SIZE, "stride": STRIDE, "images": len(data),
          "real_repeat": args.real_repeat})
    # Committed as the reader runs it fastest: its smoothing split by phase (phase_split.py).
    path = args.out / "detector.onnx"
    onnx.save(split(onnx.load(str(path))), str(path))


if __name__ == "__main__":
    main()
