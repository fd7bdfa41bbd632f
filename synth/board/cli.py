"""`nardy-referee synth board`: labelled top-down-ish board scenes, JPEG + JSON lines."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.position import Variant
from synth.board.render import BoardRenderer
from synth.cli import parse_size

VARIANTS = {"long": (Variant.LONG,), "short": (Variant.SHORT,),
            "both": (Variant.LONG, Variant.SHORT)}


def add_command(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `board` under `nardy-referee synth`."""
    p = kinds.add_parser("board", help="boards with checkers from random legal games")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--count", type=int, default=100, help="number of images")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", choices=sorted(VARIANTS), default="both")
    p.add_argument("--size", type=parse_size, default=(1280, 720), help="WIDTHxHEIGHT")
    p.add_argument("--hand-rate", type=float, default=0.3, help="share of scenes with a hand")
    p.add_argument("--workers", type=int, default=1, help="processes (same output for any)")
    p.set_defaults(run=run)


def encode(image: np.ndarray[Any, Any], quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(buf.tobytes())


SHARD = 50  # images per independently seeded renderer: output never depends on --workers


def _shard(job: tuple[Path, int, int, int, str, tuple[int, int], float]) -> list[str]:
    """Render images [first, last) of shard `first // SHARD`; returns their label lines."""
    out, seed, first, last, variant, size, hand_rate = job
    renderer = BoardRenderer((seed, first // SHARD), size, VARIANTS[variant], hand_rate)
    lines = []
    for i in range(first, last):
        scene = renderer.next_scene()
        name = f"board-{seed}-{i:06d}.jpg"
        quality = int(renderer.rng.integers(55, 96))
        (out / name).write_bytes(encode(scene.image, quality))
        label = {"image": name, "seed": seed, "index": i, "jpeg_quality": quality, **scene.label}
        lines.append(json.dumps(label, separators=(",", ":")) + "\n")
    return lines


def generate(out: Path, count: int, seed: int, variant: str = "both",
             size: tuple[int, int] = (1280, 720), hand_rate: float = 0.3,
             workers: int = 1) -> float:
    """Write `count` images and `labels.jsonl` into `out`; returns images per second."""
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(out, seed, first, min(first + SHARD, count), variant, size, hand_rate)
            for first in range(0, count, SHARD)]
    start = time.perf_counter()
    with (out / "labels.jsonl").open("w", encoding="utf-8") as labels:
        if workers <= 1:
            results: Iterable[list[str]] = map(_shard, jobs)
            for lines in results:
                labels.writelines(lines)
        else:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                for lines in pool.imap(_shard, jobs):
                    labels.writelines(lines)
    return count / max(time.perf_counter() - start, 1e-9)


def run(args: argparse.Namespace) -> int:
    if args.count < 0:
        print("--count must not be negative", file=sys.stderr)
        return 2
    rate = generate(args.out, args.count, args.seed, args.variant, args.size, args.hand_rate,
                    args.workers)
    print(json.dumps({"images": args.count, "out": str(args.out),
                      "images_per_second": round(rate, 1)}))
    return 0
