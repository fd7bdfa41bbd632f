"""Train the die framer, which moves a detector's box onto the die, and export it to ONNX.

    python -m models.dice.train_framer --synthetic DIR [--synthetic DIR ...] --out models/dice
        [--validate DIR] [--features models/dice/classifier.pt] [--workers 2]

The straight-down networks' calls depend on where the crop is centred: on MuJoCo scenes the
cocked network reads better at the labelled boxes than at the detector's, whose centres sit
a few pixels off at its 8-pixel stride (models/dice/cocked-experiments.md). The framer sees a
crop twice the box's side around it (vision/dice/preprocess.py: framer_inputs) and answers
where the die at its centre lies. Data: rendered tray scenes (`nardy-referee synth dice`);
each die cropped around the box the committed detector finds for it, its labelled box, and
boxes moved and scaled further than the detector frames dice. Augmentation (flips and the
transpose, which move the answer with the picture; light, blur, noise) runs in torch.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from models.dice.data import LabelledImage, read_grey, too_small
from models.dice.nets import DieFramer
from models.dice.train_cocked import (
    lit_blurred_noised,
    matched_boxes,
    moved_box,
    normalised,
    scenes_and_boxes,
)
from models.dice.training import map_jobs, save, seeded, training_parser
from vision.dice.boxes import overlap
from vision.dice.preprocess import FRAMER_SIZE, FRAMER_SPAN, crop_square, framing_target

Crops = tuple[np.ndarray, np.ndarray, np.ndarray]
# The answer's parts weighed alike in the loss: offsets are a few hundredths of the crop's
# side, log sides vary by tenths.
ANSWER_SCALE = (10.0, 10.0, 3.0, 3.0)


def loose_box(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The box moved and scaled further than the detector frames dice (its centres are off by
    6% of the side in the median, 14% at the 90th percentile: models/dice/train_cocked.py)."""
    return moved_box(box, rng, 0.1, (0.75, 1.3), (0.9, 1.1))


def image_crops(job: tuple[LabelledImage, int, int, np.ndarray | None]) -> Crops:
    """One scene's crops (n, FRAMER_SIZE, FRAMER_SIZE) uint8 around the boxes framing each
    readable die, their answers (n, 4), and which of them are the detector's own boxes."""
    item, variants, seed, found = job
    grey = read_grey(item.path)
    if found is None:
        raise ValueError(f"no detector boxes for {item.path}")
    rng = np.random.default_rng(seed)
    crops, answers, detected = [], [], []
    for die, match in zip(item.boxes, matched_boxes(item.boxes, found), strict=True):
        if too_small(die):
            continue
        framings = [die] + [loose_box(die, rng) for _ in range(variants)]
        if match is not None:
            framings.append(match)
        for index, box in enumerate(framings):
            crops.append(crop_square(grey, np.asarray(box, np.float32), FRAMER_SIZE, FRAMER_SPAN))
            answers.append(framing_target(np.asarray(box), die))
            detected.append(match is not None and index == len(framings) - 1)
    if not crops:
        return (np.zeros((0, FRAMER_SIZE, FRAMER_SIZE), np.uint8), np.zeros((0, 4), np.float32),
                np.zeros(0, bool))
    return np.stack(crops), np.stack(answers), np.array(detected)


def dataset(directories: list[Path], variants: int, seed: int, workers: int) -> Crops:
    items, found = scenes_and_boxes(directories)
    jobs = [(item, variants, seed * 1_000_003 + index, boxes)
            for index, (item, boxes) in enumerate(zip(items, found, strict=True))]
    crops, answers, detected = zip(*map_jobs(image_crops, jobs, workers), strict=True)
    return np.concatenate(crops), np.concatenate(answers), np.concatenate(detected)


def augment(crops: torch.Tensor, answers: torch.Tensor,
            generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Network inputs (n, 1, FRAMER_SIZE, FRAMER_SIZE) and their answers from stored crops:
    mirrored either way and transposed (the answer moved with the picture), lit, blurred and
    noised, then normalised as at inference."""

    def chance(p: float) -> torch.Tensor:
        return torch.rand(len(crops), generator=generator, device=crops.device) < p

    pixels, answers = crops[:, None].float(), answers.clone()
    across, down, swap = chance(0.5), chance(0.5), chance(0.5)
    pixels = torch.where(across[:, None, None, None], pixels.flip(3), pixels)
    answers[across, 0] *= -1
    pixels = torch.where(down[:, None, None, None], pixels.flip(2), pixels)
    answers[down, 1] *= -1
    pixels = torch.where(swap[:, None, None, None], pixels.transpose(2, 3), pixels)
    answers[swap] = answers[swap][:, [1, 0, 3, 2]]
    return lit_blurred_noised(pixels, generator), answers


def centre_errors(boxes: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """How far each box's centre lies from its die's, in the die's longer side."""
    offset = (boxes[:, :2] + boxes[:, 2:] / 2) - (dice[:, :2] + dice[:, 2:] / 2)
    return np.asarray(np.hypot(offset[:, 0], offset[:, 1]) / dice[:, 2:].max(axis=1))


def measure(model: torch.nn.Module, crops: torch.Tensor, answers: torch.Tensor) -> str:
    """Centre error and overlap of the detector's boxes before and after the framer, in the
    crops' own frame (the crop's side is 1, its box centred)."""
    model.eval()
    with torch.no_grad():
        predicted = torch.cat([model(normalised(crops[i:i + 1024, None].float()))
                               for i in range(0, len(crops), 1024)]).numpy()
    truth = answers.numpy()
    box = np.array([[-0.5 / FRAMER_SPAN, -0.5 / FRAMER_SPAN, 1 / FRAMER_SPAN, 1 / FRAMER_SPAN]])

    def as_boxes(values: np.ndarray) -> np.ndarray:
        sides = np.exp(values[:, 2:])
        return np.concatenate([values[:, :2] - sides / 2, sides], axis=1)

    dice, framed = as_boxes(truth), as_boxes(predicted)
    before = centre_errors(np.repeat(box, len(dice), 0), dice)
    after = centre_errors(framed, dice)
    overlaps = [np.mean([overlap(tuple(a), tuple(b)) for a, b in zip(boxes, dice, strict=True)])
                for boxes in (np.repeat(box, len(dice), 0), framed)]
    return (f"centre error median {np.median(before):.3f} -> {np.median(after):.3f}, "
            f"p90 {np.percentile(before, 90):.3f} -> {np.percentile(after, 90):.3f}; "
            f"IoU {overlaps[0]:.3f} -> {overlaps[1]:.3f}")


def main() -> None:
    parser = training_parser(__doc__.splitlines()[0], epochs=6, batch=256)
    parser.set_defaults(lr=2e-3)
    parser.add_argument("--validate", type=Path, action="append", default=[],
                        help="rendered scenes never trained on, measured after each epoch "
                             "at the detector's boxes")
    parser.add_argument("--variants", type=int, default=3,
                        help="loosely framed crops per die, besides its labelled and "
                             "detected boxes")
    parser.add_argument("--workers", type=int, default=1, help="processes cropping the scenes")
    parser.add_argument("--width", type=int, default=16,
                        help="channels of the first convolution (16: the classifier's)")
    parser.add_argument("--features", type=Path,
                        help="start the convolutions from these weights (the die "
                             "classifier's .pt state dict)")
    args = parser.parse_args()
    if not args.synthetic:
        parser.error("give the rendered tray scenes to train on: --synthetic DIR")
    seeded(args)  # the crops' draws are seeded per scene: its numpy generator is not needed
    started = time.time()
    crops, answers, _ = dataset(args.synthetic, args.variants, args.seed, args.workers)
    print(f"{len(crops)} crops, {time.time() - started:.0f}s", flush=True)
    train_x, train_y = torch.from_numpy(crops), torch.from_numpy(answers)
    held_out = None
    if args.validate:
        test_crops, test_answers, test_detected = dataset(args.validate, 0, args.seed,
                                                          args.workers)
        held_out = (torch.from_numpy(test_crops[test_detected]),
                    torch.from_numpy(test_answers[test_detected]))
    model = DieFramer(args.width, FRAMER_SIZE)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    else:
        if args.features:
            saved = torch.load(args.features)
            model.features.load_state_dict(
                {key.removeprefix("features."): value for key, value in saved.items()
                 if key.startswith("features.")})
        with torch.no_grad():  # the answer starts at the average die
            model.locate[-1].bias.copy_(train_y.mean(dim=0))
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    batch = min(args.batch, len(train_y))
    steps_per_epoch = len(train_y) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr,
                                                   total_steps=args.epochs * steps_per_epoch)
    scale = torch.tensor(ANSWER_SCALE)
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        begun, total = time.time(), torch.zeros(())
        order = torch.randperm(len(train_y), generator=generator)
        for step in range(steps_per_epoch):
            chosen = order[step * batch:(step + 1) * batch]
            inputs, wanted = augment(train_x[chosen], train_y[chosen], generator)
            loss = F.smooth_l1_loss(model(inputs) * scale, wanted * scale)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.detach()
        report = measure(model, *held_out) if held_out else ""
        print(f"epoch {epoch + 1}/{args.epochs} loss {float(total) / steps_per_epoch:.4f} "
              f"{report} {time.time() - begun:.0f}s", flush=True)
    save(model, args, "framer", torch.zeros(1, 1, FRAMER_SIZE, FRAMER_SIZE), ("crops", "boxes"),
         {"crops": {0: "n"}, "boxes": {0: "n"}},
         {"crop_size": FRAMER_SIZE, "span": FRAMER_SPAN, "width": args.width,
          "variants": args.variants,
          "features": str(args.features) if args.features else None, "crops": len(crops),
          "validate": [str(d) for d in args.validate]})
    print(json.dumps({"seconds": round(time.time() - started)}))


if __name__ == "__main__":
    main()
