"""Train the cocked-die classifier on straight-down crops and export it to ONNX.

    python -m models.dice.train_cocked --synthetic DIR [--synthetic DIR ...] --out models/dice
        [--validate DIR] [--device cuda] [--workers 8] [--detector-boxes] [--values]
        [--slope] [--near-box] [--twice-styles STYLE ...]

The die classifier sees a crop as the camera saw it, where a flat die seen obliquely and a
tilted die seen from above look alike (models/dice/experiments.md). This one sees each die as a
camera over the tray looking straight down would (vision/dice/preprocess.py:
straight_down_crop, from the tray camera of the calibration), where a flat die's top face is
a square, and says flat or cocked. Data: rendered tray scenes (`nardy-referee synth dice`),
whose labels hold the camera (its view of the tray found from the tray's corners, as a
calibration finds it: models/dice/data.py); each die is cropped at its labelled box and at
boxes moved and scaled as the detector frames dice, and with --detector-boxes also at the box
the committed detector itself finds for it. The network may also be told, each as a constant
channel after the crop, how obliquely the camera sees the die (--slope) and how near the box's
inside it lies on the tray floor (--near-box). Augmentation runs in torch on the training
device. With --values the network also reads a flat die's top face, which the straight-down
view shows as a square however obliquely the camera sees it, and is written as faces.onnx
(the reader takes only its faces; the cocked call stays with cocked.onnx, models/dice/faces.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from models.dice.data import LabelledImage, read_grey, read_picture, synthetic, too_small
from models.dice.mine_negatives import points_in_boxes
from models.dice.nets import DieClassifier
from models.dice.training import map_jobs, save, start_from
from vision.dice.boxes import as_box, overlap
from vision.dice.preprocess import (
    CROP_SIZE,
    STRAIGHT_DOWN_SPAN,
    box_nearness,
    straight_down_crop,
    view_slope,
)
from vision.dice.reader import DiceReader
from vision.dice.zones import EXIT_MM

CLASSES = ["flat", "cocked"]
VALUE_CLASSES = ["cocked", "1", "2", "3", "4", "5", "6"]  # --values: the label is the class
PATCH = 72  # stored patches leave room around the crop for turning, zooming and shifting
PATCH_SPAN = STRAIGHT_DOWN_SPAN * PATCH / CROP_SIZE
# What the network may be told of each die besides its crop, each as a constant channel, in
# this order (`dataset`'s cues): how obliquely the camera sees it, how near the box it lies.
CUES = ("slope", "near_box")
BOX_CACHE = Path("/tmp/train_cocked_detector_boxes")  # the detector's boxes, per scene folder


def detector_box(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The box moved and scaled as the detector frames dice (measured against rune55 labels:
    centres off by 6% of the side in the median, 14% at the 90th percentile; sides 0.82 to
    1.18 times the label's)."""
    return moved_box(box, rng, 0.07, (0.82, 1.18), (0.93, 1.07))


def moved_box(box: np.ndarray, rng: np.random.Generator, shift: float,
              scale: tuple[float, float], stretch: tuple[float, float]) -> np.ndarray:
    """The box's centre moved by a normal `shift` of its longer side each way, its sides
    scaled by a factor drawn from `scale` and each stretched by one from `stretch`."""
    x, y, w, h = (float(v) for v in box)
    side = max(w, h)
    factor = rng.uniform(*scale)
    dx, dy = rng.normal(0.0, shift, 2) * side
    width = w * factor * rng.uniform(*stretch)
    height = h * factor * rng.uniform(*stretch)
    return np.array([x + w / 2 + dx - width / 2, y + h / 2 + dy - height / 2, width, height])


def detector_boxes(directory: Path, items: list[LabelledImage]) -> list[np.ndarray]:
    """The boxes the committed detector finds in each scene (at its own threshold), cached
    under BOX_CACHE so that a rerun does not run the detector again."""
    key = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:12]
    cache = BOX_CACHE / f"{directory.name}-{key}.json"
    found: dict[str, list[list[float]]] = (
        json.loads(cache.read_text()) if cache.exists() else {})
    missing = [item for item in items if item.path.name not in found]
    if missing:
        reader = DiceReader(threads=1)
        for item in missing:
            image = read_picture(item.path)
            found[item.path.name] = reader.candidates(image)[0].tolist()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(found))
    return [np.array(found[item.path.name], np.float64).reshape(-1, 4) for item in items]


def matched_boxes(labelled: np.ndarray, found: np.ndarray) -> list[np.ndarray | None]:
    """For each labelled die, the detector box framing it, or None. A box goes to the die its
    centre lies in (so a box holding two touching dice keeps the label of the one at its
    centre), else to the die it overlaps best by IoU 0.3 or more; a die given several keeps
    the one it overlaps best."""
    matches: list[np.ndarray | None] = [None] * len(labelled)
    best = np.zeros(len(labelled))
    for box in found:
        iou = np.array([overlap(tuple(die), tuple(box)) for die in labelled])
        centre = box[:2] + box[2:] / 2
        inside = points_in_boxes(labelled, centre[0], centre[1])
        if inside.any():
            die = int(np.argmax(np.where(inside, iou, -1.0)))
        elif len(iou) and iou.max() >= 0.3:
            die = int(np.argmax(iou))
        else:
            continue
        if iou[die] >= best[die]:
            matches[die], best[die] = box, iou[die]
    return matches


Patches = tuple[np.ndarray, np.ndarray, np.ndarray]


def image_patches(job: tuple[LabelledImage, int, int, np.ndarray | None]) -> Patches:
    """Patches (n, PATCH, PATCH) uint8 of one scene's readable dice, at the labelled box, at
    `variants` - 1 detector-like boxes and at the detector's own box when `found` holds one
    for the die, each crop's cues (n, 2: how obliquely the camera sees the die, view_slope,
    and how near the box's inside it lies, box_nearness) and each die's label (its top face
    1-6, 0 when cocked)."""
    item, variants, seed, found = job
    grey = read_grey(item.path)
    if item.view is None:
        raise ValueError(f"{item.path} has no camera view")
    rng = np.random.default_rng(seed)
    homography, nadir = item.view.straight_down, item.view.nadir
    focal = float(item.view.intrinsics[0, 0])
    patches, cues, labels = [], [], []
    matches = matched_boxes(item.boxes, found) if found is not None else [None] * len(item.boxes)
    for box, value, match in zip(item.boxes, item.values, matches, strict=True):
        if too_small(box):
            continue
        framings = [box] + [detector_box(box, rng) for _ in range(variants - 1)]
        for framed in framings + ([] if match is None else [match]):
            patches.append(straight_down_crop(grey, framed, homography, nadir, PATCH, PATCH_SPAN))
            near = None if item.zones is None else item.zones.mm_from_box(as_box(framed))
            cues.append((view_slope(framed, homography, nadir, focal), box_nearness(near)))
            labels.append(int(value))
    if not patches:
        return (np.zeros((0, PATCH, PATCH), np.uint8), np.zeros((0, len(CUES)), np.float32),
                np.zeros(0, np.int64))
    return np.stack(patches), np.array(cues, np.float32), np.array(labels, np.int64)


def scenes_and_boxes(directories: list[Path], detector: bool = True,
                     twice: Sequence[str] = ()) -> tuple[list[LabelledImage],
                                                         list[np.ndarray | None]]:
    """The rendered scenes in `directories`, and with `detector` the boxes the committed
    detector finds in each (else None); each folder's scenes holding a die of a style in
    `twice` are listed again after its own."""
    items: list[LabelledImage] = []
    found: list[np.ndarray | None] = []
    for directory in directories:
        scenes = synthetic(directory)
        boxes = detector_boxes(directory, scenes) if detector else [None] * len(scenes)
        again = styled_scenes(directory, twice)
        items += scenes + [scenes[index] for index in again]
        found += boxes + [boxes[index] for index in again]
    return items, found


def styled_scenes(directory: Path, styles: Sequence[str]) -> list[int]:
    """The indices of a folder's scenes (as `synthetic` lists them) with a die of one of
    `styles` (synth/dice/style.py: DICE_STYLES) among those rendered."""
    if not styles:
        return []
    records = [json.loads(line) for line in
               (directory / "labels.jsonl").read_text().splitlines()]
    return [index for index, record in enumerate(records)
            if set(record["style"]["dice"]) & set(styles)]


def dataset(directories: list[Path], variants: int, seed: int, workers: int,
            detector: bool = False, twice: Sequence[str] = ()) -> Patches:
    items, found = scenes_and_boxes(directories, detector, twice)
    # A scene whose tray no calibration could measure has no straight-down view to crop.
    jobs = [(item, variants, seed * 1_000_003 + index, boxes)
            for index, (item, boxes) in enumerate(zip(items, found, strict=True))
            if item.view is not None]
    images, cues, labels = zip(*map_jobs(image_patches, jobs, workers), strict=True)
    return np.concatenate(images), np.concatenate(cues), np.concatenate(labels)


def augment(patches: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """(n, 1, CROP_SIZE, CROP_SIZE) classifier inputs from (n, PATCH, PATCH) uint8 patches:
    turned up to 15 degrees (the view's up is the direction of the camera, so no more),
    mirrored, zoomed, shifted, lit, blurred and noised, then normalised as at inference."""
    n, device = len(patches), patches.device

    def uniform(low: float, high: float, *shape: int) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, *shape, generator=generator, device=device)

    angle = torch.deg2rad(uniform(-15.0, 15.0))
    zoom = uniform(0.85, 1.2) * CROP_SIZE / PATCH
    mirror = torch.where(uniform(0.0, 1.0) < 0.5, -1.0, 1.0)
    cos, sin = torch.cos(angle) * zoom, torch.sin(angle) * zoom
    theta = torch.stack([torch.stack([cos * mirror, -sin, uniform(-0.06, 0.06)], 1),
                         torch.stack([sin * mirror, cos, uniform(-0.06, 0.06)], 1)], 1)
    grid = F.affine_grid(theta, [n, 1, CROP_SIZE, CROP_SIZE], align_corners=False)
    pixels = F.grid_sample(patches[:, None].float(), grid, mode="bilinear",
                           padding_mode="border", align_corners=False)
    return lit_blurred_noised(pixels, generator)


def lit_blurred_noised(pixels: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """(n, 1, h, w) grey pixels (0-255) each lit brighter or darker, a third of them blurred,
    noised, then normalised as at inference."""
    n, device = len(pixels), pixels.device

    def uniform(low: float, high: float) -> torch.Tensor:
        return low + (high - low) * torch.rand(n, 1, 1, 1, generator=generator, device=device)

    pixels = pixels * uniform(0.6, 1.4) + uniform(-30.0, 30.0)
    blur = torch.tensor([0.25, 0.5, 0.25], device=device)
    blurred = F.conv2d(F.pad(pixels, (1, 1, 1, 1), mode="replicate"),
                       (blur[:, None] * blur[None, :])[None, None])
    pixels = torch.where(uniform(0.0, 1.0) < 0.3, blurred, pixels)
    noise = torch.randn(pixels.shape, generator=generator, device=device)
    return normalised((pixels + noise * uniform(0.0, 6.0)).clamp(0.0, 255.0))


def centred(patches: torch.Tensor) -> torch.Tensor:
    """The plain classifier inputs of stored patches: their centre, normalised."""
    margin = (PATCH - CROP_SIZE) // 2
    # The crop spans STRAIGHT_DOWN_SPAN boxes at CROP_SIZE pixels; the patch is sampled at
    # the same scale, so the centre square is exactly that crop.
    return normalised(
        patches[:, None, margin:margin + CROP_SIZE, margin:margin + CROP_SIZE].float())


def normalised(pixels: torch.Tensor) -> torch.Tensor:
    """vision/dice/preprocess.py: normalise_crop, on a batch in torch."""
    mean = pixels.mean(dim=(2, 3), keepdim=True)
    spread = pixels.std(dim=(2, 3), keepdim=True, unbiased=False)
    return (pixels - mean) / (spread + 8.0)


def with_cues(crops: torch.Tensor, cues: torch.Tensor) -> torch.Tensor:
    """The crops (n, 1, h, w), and each of the cues the network is told (n, k: `told`'s
    columns, k may be 0), as a constant channel after them."""
    if not cues.shape[1]:
        return crops
    n, _, height, width = crops.shape
    return torch.cat([crops, cues[:, :, None, None].expand(n, cues.shape[1], height, width)],
                     dim=1)


def told(flags: Mapping[str, Any]) -> list[int]:
    """The columns of `dataset`'s cues the network is told, as its flags say (the command
    line's, or the `slope` and `near_box` of the config a run writes beside its export)."""
    return [index for index, cue in enumerate(CUES) if flags.get(cue)]


def targets(labels: np.ndarray, values: bool) -> np.ndarray:
    """The class of each die: its label itself with --values (VALUE_CLASSES), else flat (0)
    or cocked (1)."""
    return labels if values else (labels == 0).astype(np.int64)


def head_for_values(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A flat-or-cocked network's weights for the VALUE_CLASSES head: each face starts as
    the flat logit less log 6, so the network first calls cocked exactly as it did, each face
    equally likely."""
    weight, bias = state["classify.weight"], state["classify.bias"]
    if len(bias) != len(CLASSES):
        return state
    flat, cocked = CLASSES.index("flat"), CLASSES.index("cocked")
    rows = [cocked] + [flat] * 6
    grown = bias[rows].clone()
    grown[1:] -= float(np.log(6.0))
    return {**state, "classify.weight": weight[rows].clone(), "classify.bias": grown}


def measure(model: torch.nn.Module, patches: torch.Tensor, cues: torch.Tensor,
            labels: torch.Tensor, values: bool) -> str:
    model.eval()
    with torch.no_grad():
        chosen = torch.cat([
            model(with_cues(centred(patches[i:i + 1024]), cues[i:i + 1024])).argmax(1)
            for i in range(0, len(patches), 1024)])
    cocked = labels == 0
    called = chosen == (VALUE_CLASSES if values else CLASSES).index("cocked")
    caught = int((called & cocked).sum())
    report = (f"cocked recall {caught / max(int(cocked.sum()), 1):.4f} "
              f"precision {caught / max(int(called.sum()), 1):.4f} "
              f"flat called cocked {int((called & ~cocked).sum())} of {int((~cocked).sum())}")
    if values:
        right = int(((chosen == labels) & ~cocked).sum())
        report += f" flat read right {right / max(int((~cocked).sum()), 1):.4f}"
    return report


def exit_emphasis(cues: np.ndarray, weight: float) -> np.ndarray:
    """Each crop's weight in the loss (`dataset`'s cues): `weight` for a die within EXIT_MM
    of the box's inside, 1 elsewhere."""
    at_exit = cues[:, CUES.index("near_box")] >= box_nearness(EXIT_MM)
    return np.where(at_exit, weight, 1.0).astype(np.float32)


def held_out_crops(directories: list[Path], seed: int, workers: int, columns: list[int],
                   device: torch.device) -> tuple[torch.Tensor, torch.Tensor,
                                                  torch.Tensor] | None:
    """The crops of scenes never trained on, their cues the network is told and their labels,
    to measure after each epoch (None without scenes)."""
    if not directories:
        return None
    patches, cues, labels = dataset(directories, 1, seed, workers)
    return (torch.from_numpy(patches).to(device), torch.from_numpy(cues[:, columns]).to(device),
            torch.from_numpy(labels).to(device))


def weighted_loss(logits: torch.Tensor, target: torch.Tensor, class_weight: torch.Tensor,
                  emphasis: torch.Tensor) -> torch.Tensor:
    """Cross-entropy weighted by class and by each crop's `emphasis`, averaged over the
    weights as `F.cross_entropy` averages over the class weights alone."""
    losses = F.cross_entropy(logits, target, weight=class_weight, label_smoothing=0.02,
                             reduction="none")
    return (losses * emphasis).sum() / (class_weight[target] * emphasis).sum()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=Path, action="append", required=True,
                        help="rendered tray scenes to train on (nardy-referee synth dice)")
    parser.add_argument("--validate", type=Path, action="append", default=[],
                        help="rendered scenes never trained on, measured after each epoch")
    parser.add_argument("--variants", type=int, default=4,
                        help="crops per die: its labelled box and detector-like boxes")
    parser.add_argument("--detector-boxes", action="store_true",
                        help="one more crop per die, at the box the committed detector finds")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--cocked-weight", type=float, default=2.0,
                        help="loss weight of cocked dice (fewer than flat ones)")
    parser.add_argument("--blocks", type=int, default=1, help="residual blocks (capacity)")
    parser.add_argument("--slope", action="store_true",
                        help="tell the network how obliquely the camera sees each die")
    parser.add_argument("--near-box", action="store_true",
                        help="tell the network how near the box's inside each die lies")
    parser.add_argument("--exit-weight", type=float, default=1.0,
                        help="loss weight of dice within EXIT_MM of the box's inside (the "
                             "lip's cocked dice and the ramp toe's flat ones look alike)")
    parser.add_argument("--values", action="store_true",
                        help="read a flat die's top face too (classes: cocked, 1-6)")
    parser.add_argument("--twice-styles", nargs="+", default=[], metavar="STYLE",
                        help="scenes with a die of these styles drawn twice (translucent "
                             "and red dice, whose faint or low-contrast pips are misread "
                             "most)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch")
    parser.add_argument("--workers", type=int, default=1, help="processes cropping the scenes")
    parser.add_argument("--init", type=Path, help="start from these weights (a .pt state dict)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.time()
    patches, cues, labels = dataset(args.synthetic, args.variants, args.seed, args.workers,
                                    args.detector_boxes, args.twice_styles)
    columns = told(vars(args))
    cocked = labels == 0
    print(f"{len(cocked)} crops, {int(cocked.sum())} cocked, {time.time() - started:.0f}s",
          flush=True)
    device = torch.device(args.device)
    train_x = torch.from_numpy(patches).to(device)
    train_y = torch.from_numpy(targets(labels, args.values)).to(device)
    train_cues = torch.from_numpy(cues[:, columns]).to(device)
    held_out = held_out_crops(args.validate, args.seed, args.workers, columns, device)
    channels = 1 + len(columns)
    classes = VALUE_CLASSES if args.values else CLASSES
    model = start_from(DieClassifier(len(classes), args.blocks, channels), args,
                       head_for_values if args.values else None).to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    batch = min(args.batch, len(train_y))
    steps_per_epoch = len(train_y) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr,
                                                   total_steps=args.epochs * steps_per_epoch)
    weight = torch.tensor([args.cocked_weight if name == "cocked" else 1.0 for name in classes],
                          device=device)
    crop_weights = exit_emphasis(cues, args.exit_weight)
    if args.exit_weight != 1.0:
        at_exit = crop_weights == args.exit_weight
        print(f"{int(at_exit.sum())} crops within {EXIT_MM:.0f} mm of the box, "
              f"{int((at_exit & cocked).sum())} of them cocked", flush=True)
    emphasis = torch.from_numpy(crop_weights).to(device)
    generator = torch.Generator(device=device).manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        begun, total = time.time(), torch.zeros((), device=device)
        order = torch.randperm(len(train_y), generator=generator, device=device)
        for step in range(steps_per_epoch):
            chosen = order[step * batch:(step + 1) * batch]
            logits = model(with_cues(augment(train_x[chosen], generator), train_cues[chosen]))
            loss = weighted_loss(logits, train_y[chosen], weight, emphasis[chosen])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.detach()
        report = measure(model, *held_out, args.values) if held_out else ""
        print(f"epoch {epoch + 1}/{args.epochs} loss {float(total) / steps_per_epoch:.4f} "
              f"{report} {time.time() - begun:.0f}s", flush=True)
    model.cpu()
    save(model, args, "faces" if args.values else "cocked",
         torch.zeros(1, channels, CROP_SIZE, CROP_SIZE), ("crops", "logits"),
         {"crops": {0: "n"}, "logits": {0: "n"}},
         {"classes": classes, "crop_size": CROP_SIZE, "span": STRAIGHT_DOWN_SPAN,
          "slope": args.slope, "near_box": args.near_box,
          "variants": args.variants, "detector_boxes": args.detector_boxes,
          "blocks": args.blocks, "cocked_weight": args.cocked_weight,
          "twice_styles": args.twice_styles,
          "crops": [int((~cocked).sum()), int(cocked.sum())],
          "validate": [str(d) for d in args.validate]})
    print(json.dumps({"seconds": round(time.time() - started)}))


if __name__ == "__main__":
    main()
