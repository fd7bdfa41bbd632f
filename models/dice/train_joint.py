"""Train one straight-down network for both of its calls, flat or cocked and the top face, and
export it as cocked.onnx with two outputs (`logits`, `faces`).

    python -m models.dice.train_joint --synthetic DIR [--synthetic DIR ...] --init FACES.pt \
        --teacher COCKED.pt --out DIR [--clip-crops CROPS.npz ...] [--validate DIR]

The cocked call and the top face were two networks of the same shape reading the same crop
(`train_cocked`, without and with --values). This one shares their convolutions: it starts as
the face network (--init; or a joint network's weights, to continue), its flat-or-cocked head
grown from that network's own cocked share. On the rendered scenes it learns the faces from
the labels and the cocked call from the cocked network's probabilities (--teacher), whose
calls the physics clips validated. On crops the tray pipeline cut from clip frames
(--clip-crops, `models.dice.clip_crops`) it learns both heads from the two committed
networks' probabilities there: a head that copies its teacher on the training scenes alone
parts from it on the clips' frames (`cocked-experiments.md`). Its crops, cues and
augmentation are `train_cocked`'s.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from models.dice.nets import DieClassifier, TwoHeads
from models.dice.train_cocked import (
    CLASSES,
    VALUE_CLASSES,
    augment,
    centred,
    dataset,
    held_out_crops,
    told,
    weighted_loss,
    with_cues,
)
from models.dice.training import export_onnx
from vision.dice.preprocess import CROP_SIZE, STRAIGHT_DOWN_SPAN

OUTPUTS = ("logits", "faces")
AGREEMENT_SAMPLE = 20_000  # clip crops the agreement with the teachers is measured on


def joint_head(faces: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The face network's weights with a flat-or-cocked head in front of its own: cocked is
    its cocked row, flat its six faces' rows averaged and raised by log 6, so the new head
    starts near the face network's own cocked share. A joint network's weights (both heads
    already) are returned as they are, to continue from."""
    weight, bias = faces["classify.weight"], faces["classify.bias"]
    if len(bias) == len(CLASSES) + len(VALUE_CLASSES):
        return faces
    flat_weight = weight[1:].mean(0, keepdim=True)
    flat_bias = bias[1:].mean(0, keepdim=True) + float(np.log(6.0))
    return {**faces, "classify.weight": torch.cat([flat_weight, weight[:1], weight]),
            "classify.bias": torch.cat([flat_bias, bias[:1], bias])}


def taught(logits: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of `logits` against a teacher's probabilities (n, classes)."""
    return -(teacher * F.log_softmax(logits, 1)).sum(1).mean()


def scene_loss(cocked: torch.Tensor, faces: torch.Tensor, labels: torch.Tensor,
               teacher: torch.Tensor, cocked_weight: float) -> torch.Tensor:
    """On rendered scenes: the faces head's cross-entropy on the labels (VALUE_CLASSES,
    cocked dice weighing `cocked_weight`), and the cocked head's against the teacher's
    probabilities (n, 2) alone."""
    face_weight = torch.ones(len(VALUE_CLASSES), device=labels.device)
    face_weight[VALUE_CLASSES.index("cocked")] = cocked_weight
    ones = torch.ones(len(labels), device=labels.device)
    return weighted_loss(faces, labels, face_weight, ones) + taught(cocked, teacher)


def measure(model: TwoHeads, patches: torch.Tensor, cues: torch.Tensor,
            labels: torch.Tensor) -> str:
    model.eval()
    with torch.no_grad():
        outputs = [model(with_cues(centred(patches[i:i + 1024]), cues[i:i + 1024]))
                   for i in range(0, len(patches), 1024)]
    called = torch.cat([cocked for cocked, _ in outputs]).argmax(1) == 1
    faces = torch.cat([faces for _, faces in outputs])[:, 1:].argmax(1) + 1
    cocked = labels == 0
    caught = int((called & cocked).sum())
    right = int(((faces == labels) & ~cocked).sum())
    return (f"cocked recall {caught / max(int(cocked.sum()), 1):.4f} "
            f"precision {caught / max(int(called.sum()), 1):.4f} "
            f"flat called cocked {int((called & ~cocked).sum())} of {int((~cocked).sum())} "
            f"flat read right {right / max(int((~cocked).sum()), 1):.4f}")


def agreement(model: TwoHeads, crops: torch.Tensor, cocked: torch.Tensor,
              faces: torch.Tensor) -> str:
    """How often the network calls the clip crops as their teachers do."""
    model.eval()
    with torch.no_grad():
        outputs = [model(crops[i:i + 1024].float()) for i in range(0, len(crops), 1024)]
    called = torch.cat([c for c, _ in outputs]).argmax(1)
    read = torch.cat([f for _, f in outputs])[:, 1:].argmax(1)
    return (f"clip crops called as cocked.onnx calls them "
            f"{float((called == cocked.argmax(1)).float().mean()):.4f}, faces as faces.onnx "
            f"{float((read == faces[:, 1:].argmax(1)).float().mean()):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=Path, action="append", required=True,
                        help="rendered tray scenes to train on (nardy-referee synth dice)")
    parser.add_argument("--validate", type=Path, action="append", default=[],
                        help="rendered scenes never trained on, measured after each epoch")
    parser.add_argument("--init", type=Path, required=True,
                        help="the face network's weights (its export unfolded by from_onnx), "
                             "or a joint network's to continue")
    parser.add_argument("--teacher", type=Path, required=True,
                        help="the cocked network's weights, whose calls the head learns")
    parser.add_argument("--clip-crops", type=Path, action="append", default=[],
                        help="clip crops with both teachers' probabilities (clip_crops)")
    parser.add_argument("--variants", type=int, default=2)
    parser.add_argument("--twice-styles", nargs="+", default=["translucent", "red"],
                        metavar="STYLE")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--cocked-weight", type=float, default=2.0)
    parser.add_argument("--blocks", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.time()
    args.out.mkdir(parents=True, exist_ok=True)
    columns = told({"slope": True})
    patches, cues, labels = dataset(args.synthetic, args.variants, args.seed, args.workers,
                                    True, args.twice_styles)
    device = torch.device(args.device)
    train_x = torch.from_numpy(patches).to(device)
    train_y = torch.from_numpy(labels).to(device)
    train_cues = torch.from_numpy(cues[:, columns]).to(device)
    loaded = [np.load(path) for path in args.clip_crops]
    # The clip crops, with cocked.onnx's and faces.onnx's probabilities on them.
    clips = None if not loaded else tuple(
        torch.from_numpy(np.concatenate([found[key] for found in loaded])).to(device)
        for key in ("crops", "cocked", "faces"))
    print(f"{len(labels)} scene crops, {int((labels == 0).sum())} cocked; "
          f"{0 if clips is None else len(clips[0])} clip crops; {time.time() - started:.0f}s",
          flush=True)
    held_out = held_out_crops(args.validate, args.seed, args.workers, columns, device)
    channels = 1 + len(columns)
    model = TwoHeads(len(CLASSES), len(VALUE_CLASSES), args.blocks, channels)
    model.load_state_dict(joint_head(torch.load(args.init)))
    model.to(device)
    teacher = DieClassifier(len(CLASSES), args.blocks, channels)
    teacher.load_state_dict(torch.load(args.teacher))
    teacher.to(device).eval()
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    batch = min(args.batch, len(train_y))
    steps_per_epoch = len(train_y) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, args.lr,
                                                   total_steps=args.epochs * steps_per_epoch)
    generator = torch.Generator(device=device).manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        begun, total = time.time(), torch.zeros((), device=device)
        order = torch.randperm(len(train_y), generator=generator, device=device)
        for step in range(steps_per_epoch):
            chosen = order[step * batch:(step + 1) * batch]
            crops = with_cues(augment(train_x[chosen], generator), train_cues[chosen])
            with torch.no_grad():
                called = F.softmax(teacher(crops), 1)
            if clips is None:
                cocked, faces = model(crops)
                loss = scene_loss(cocked, faces, train_y[chosen], called, args.cocked_weight)
            else:
                # As many clip crops as scene crops a step, in one batch (one set of batch
                # statistics for both).
                clip_crops, clip_cocked, clip_faces = clips
                drawn = torch.randint(len(clip_crops), (batch,), generator=generator,
                                      device=device)
                cocked, faces = model(torch.cat([crops, clip_crops[drawn].float()]))
                loss = (scene_loss(cocked[:batch], faces[:batch], train_y[chosen], called,
                                   args.cocked_weight)
                        + taught(cocked[batch:], clip_cocked[drawn])
                        + taught(faces[batch:], clip_faces[drawn]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.detach()
        report = measure(model, *held_out) if held_out else ""
        if clips is not None:
            every = max(1, len(clips[0]) // AGREEMENT_SAMPLE)
            report += " " + agreement(model, *(tensor[::every] for tensor in clips))
        print(f"epoch {epoch + 1}/{args.epochs} loss {float(total) / steps_per_epoch:.4f} "
              f"{report} {time.time() - begun:.0f}s", flush=True)
    model.cpu()
    torch.save(model.state_dict(), args.out / "cocked.pt")
    path = args.out / "cocked.onnx"
    export_onnx(model, torch.zeros(1, channels, CROP_SIZE, CROP_SIZE), path,
                ("crops", *OUTPUTS), {name: {0: "n"} for name in ("crops", *OUTPUTS)})
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")
    config = {"classes": CLASSES, "faces_classes": VALUE_CLASSES, "crop_size": CROP_SIZE,
              "span": STRAIGHT_DOWN_SPAN, "slope": True, "near_box": False,
              "variants": args.variants, "detector_boxes": True, "blocks": args.blocks,
              "cocked_weight": args.cocked_weight, "twice_styles": args.twice_styles,
              "init": str(args.init), "teacher": str(args.teacher),
              "clip_crops": [str(p) for p in args.clip_crops],
              "crops": [int((labels != 0).sum()), int((labels == 0).sum())],
              "validate": [str(d) for d in args.validate], "epochs": args.epochs,
              "batch": args.batch, "lr": args.lr, "seed": args.seed,
              "synthetic": [str(d) for d in args.synthetic]}
    (args.out / "cocked.json").write_text(json.dumps(config, indent=2) + "\n")
    print(json.dumps({"seconds": round(time.time() - started)}))


if __name__ == "__main__":
    main()
