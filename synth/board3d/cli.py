"""`nardy-referee synth board3d`: MuJoCo renders of boards under oblique cameras, JPEG + JSON
lines (the fields of `synth board`'s labels, plus checker visibility and pixel counts)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from synth.board.cli import VARIANTS, encode
from synth.cli import parse_size


def add_command(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `board3d` under `nardy-referee synth`."""
    p = kinds.add_parser("board3d", help="3D boards (MuJoCo) under oblique cameras")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--count", type=int, default=100, help="number of images")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", choices=sorted(VARIANTS), default="both")
    p.add_argument("--size", type=parse_size, default=(1280, 720), help="WIDTHxHEIGHT")
    p.add_argument("--tilt-max", type=float, default=35.0,
                   help="largest camera tilt from straight down, degrees")
    p.set_defaults(run=run)


def generate(out: Path, count: int, seed: int, variant: str = "both",
             size: tuple[int, int] = (1280, 720), tilt_max: float = 35.0) -> float:
    """Write `count` images and `labels.jsonl` into `out`; returns images per second."""
    from synth.board3d.render import Board3DRenderer  # MuJoCo loads only when asked for

    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    renderer = Board3DRenderer(seed, size, VARIANTS[variant], tilt_max)
    try:
        with (out / "labels.jsonl").open("w", encoding="utf-8") as labels:
            for i in range(count):
                scene = renderer.next_scene()
                name = f"board3d-{seed}-{i:06d}.jpg"
                quality = int(renderer.rng.integers(70, 96))
                (out / name).write_bytes(encode(scene.image, quality))
                label = {"image": name, "seed": seed, "index": i, "jpeg_quality": quality,
                         **scene.label}
                labels.write(json.dumps(label, separators=(",", ":")) + "\n")
    finally:
        renderer.close()
    return count / max(time.perf_counter() - start, 1e-9)


def run(args: argparse.Namespace) -> int:
    if args.count < 0:
        print("--count must not be negative", file=sys.stderr)
        return 2
    if not 0 <= args.tilt_max <= 60:
        print("--tilt-max must lie in [0, 60] degrees", file=sys.stderr)
        return 2
    rate = generate(args.out, args.count, args.seed, args.variant, args.size, args.tilt_max)
    print(json.dumps({"images": args.count, "out": str(args.out),
                      "images_per_second": round(rate, 2)}))
    return 0
