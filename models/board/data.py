"""Training strips for the board classifier, cut from synthetic scenes (synth/board).

Each scene is rendered, JPEG-compressed at its label's quality (as `synth board` writes it),
and cut into the 26 strips of `vision.board.strips` through the reader's own warp. Labels:

Classes as in vision/board/classes.py (0 empty, 1-15 light, 16-30 dark, 31 occluded).

The bar width and the corners are jittered a little, as the reader estimates the one and a
person clicks the other.

    python -m models.board.data --out /tmp/board-strips.npz --count 3000 --seed 1
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.layout import BoardGeometry
from referee.position import Variant
from synth.board.render import BoardRenderer, Scene
from vision.board.classes import OCCLUDED, encode_class
from vision.board.strips import canonical_geometry, extract_strips
from vision.board.warp import field_homography, project

VARIANTS = {"both": (Variant.LONG, Variant.SHORT), "long": (Variant.LONG,),
            "short": (Variant.SHORT,)}


def jpeg(image: npt.NDArray[np.uint8], quality: int) -> npt.NDArray[np.uint8]:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def strip_labels(label: dict[str, Any]) -> npt.NDArray[np.int64]:
    """Class of each of the 26 strips (points 1-24, bar top, bar bottom) from a scene label."""
    out = np.zeros(26, np.int64)
    for key, v in label["points"].items():
        out[int(key) - 1] = encode_class(v["colour"], v["count"])
    for p in label["occluded"]:
        out[p - 1] = OCCLUDED
    g = BoardGeometry(height=897.0)
    h_inv = np.asarray(np.linalg.inv(field_homography(np.array(label["corners"]), g)), np.float64)
    halves: dict[int, dict[str, int]] = {24: {}, 25: {}}
    for c in label["checkers"]:
        if c["where"] != "bar":
            continue
        y = project(h_inv, np.array([c["centre"]]))[0, 1]
        idx = 24 if y < g.height / 2 else 25
        halves[idx][c["colour"]] = halves[idx].get(c["colour"], 0) + 1
    for idx, counts in halves.items():
        if len(counts) == 1:
            (colour, n), = counts.items()
            out[idx] = encode_class(colour, n)
        elif len(counts) > 1:
            out[idx] = -1  # both colours on one half: not a class of ours, left out
        if label.get("bar_occluded"):
            out[idx] = -1  # which half the hand covers is not labelled: left out
    return out


def scene_strips(scene: Scene | Any, rng: np.random.Generator, quality: int,
                 bar_jitter: float = 3.0, corner_jitter: float = 1.0,
                 ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """The 26 strips of a scene (after JPEG) and their classes."""
    label = scene.label
    image = jpeg(scene.image, quality)
    corners = np.array(label["corners"]) + rng.normal(0, corner_jitter, (4, 2))
    bar = label["board"]["geometry"]["bar_width"] + rng.normal(0, bar_jitter)
    strips = extract_strips(image, corners, canonical_geometry(bar))
    return strips, strip_labels(label)


def build(count: int, seed: int, size: tuple[int, int] = (1280, 720),
          hand_rate: float = 0.3, head_rate: float = 0.0, real_look: float = 0.0,
          narrow_points: float = 0.0, bar_spread: float = 0.0,
          variants: tuple[Variant, ...] = (Variant.LONG, Variant.SHORT),
          ) -> dict[str, npt.NDArray[Any]]:
    renderer = BoardRenderer(seed, size, variants, hand_rate,
                             head_rate=head_rate, real_look=real_look,
                             narrow_points=narrow_points, bar_spread=bar_spread)
    rng = np.random.default_rng((seed, 7))
    xs, ys, img = [], [], []
    for i in range(count):
        scene = renderer.next_scene()
        quality = int(rng.integers(55, 96))
        strips, labels = scene_strips(scene, rng, quality)
        xs.append(strips)
        ys.append(labels)
        img.append(np.full(26, i))
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "image": np.concatenate(img)}


def build3d(count: int, seed: int, size: tuple[int, int] = (1280, 720),
            tilt_max: float = 25.0) -> dict[str, npt.NDArray[Any]]:
    """The same from MuJoCo renders (synth/board3d: thick checkers, real stacks; no hands)."""
    from synth.board3d.render import Board3DRenderer  # MuJoCo loads only when asked for

    renderer = Board3DRenderer(seed, size, (Variant.LONG, Variant.SHORT), tilt_max)
    rng = np.random.default_rng((seed, 7))
    xs, ys, img = [], [], []
    try:
        for i in range(count):
            scene = renderer.next_scene()
            strips, labels = scene_strips(scene, rng, int(rng.integers(55, 96)))
            xs.append(strips)
            ys.append(labels)
            img.append(np.full(26, i))
    finally:
        renderer.close()
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "image": np.concatenate(img)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hand-rate", type=float, default=0.3)
    parser.add_argument("--head-rate", type=float, default=0.0,
                        help="share of sessions from a game's first turns (tall heads)")
    parser.add_argument("--real-look", type=float, default=0.0,
                        help="share of sessions with real sets' checkers (synth.board.style)")
    parser.add_argument("--narrow-points", type=float, default=0.0,
                        help="share of those real-look boards with narrower triangles")
    parser.add_argument("--bar-spread", type=float, default=0.0,
                        help="share of scenes with the bar's checkers spread along it")
    parser.add_argument("--variant", choices=("both", "long", "short"), default="both",
                        help="short nardy alone puts checkers on the bar")
    parser.add_argument("--renderer", choices=("2.5d", "3d"), default="2.5d",
                        help="synth/board (default) or MuJoCo's synth/board3d")
    parser.add_argument("--tilt-max", type=float, default=25.0, help="3d only")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.renderer == "3d":
        data = build3d(args.count, args.seed, tilt_max=args.tilt_max)
    else:
        data = build(args.count, args.seed, hand_rate=args.hand_rate, head_rate=args.head_rate,
                     real_look=args.real_look, narrow_points=args.narrow_points,
                     bar_spread=args.bar_spread,
                     variants=VARIANTS[args.variant])
    np.savez_compressed(args.out, x=data["x"], y=data["y"], image=data["image"])
    print(f"{len(data['y'])} strips from {args.count} scenes in "
          f"{time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
