"""Training patches for the tray classifier (vision/board/trays.py), cut from synthetic scenes.

Each scene is rendered (synth/board), sometimes given an extra hand over a tray half,
JPEG-compressed and cut into the four tray-half patches through the reader's own warp, the
corners jittered by a pixel as a person clicks them. Classes as vision/board/classes.py
(31: hidden by a hand); a patch not wholly in the picture is labelled -1 and left out (the
reader never asks the network about it).

    python -m models.board.tray_data --out /tmp/board_off/hr-41.npz --count 3000 --seed 41 \
        --bear-off 0.7
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from models.board.data import jpeg
from referee.position import Variant
from synth.board.hand import covered_share, draw_hand
from synth.board.render import HIDDEN_SHARE, OCCLUDED_SHARE, BoardRenderer, Scene, _Session
from synth.board.scene import random_game
from vision.board.classes import OCCLUDED, encode_class
from vision.board.strips import canonical_geometry
from vision.board.trays import TRAY_NAMES, extract_trays


class BearOffRenderer(BoardRenderer):
    """`BoardRenderer` whose sessions show, in `bear_off` of them, the end of a finished game
    (both sides bearing off), where the default scenes rarely have borne-off checkers."""

    def __init__(self, seed: int, bear_off: float, hand_rate: float) -> None:
        super().__init__(seed, (1280, 720), (Variant.LONG, Variant.SHORT), hand_rate)
        self.bear_off = bear_off

    def _new_session(self) -> _Session:
        session = super()._new_session()
        if self.bear_off > 0 and self.rng.random() < self.bear_off:  # 0: the seed's own scenes
            session.game = random_game(session.layout.variant, self.rng, 400)
        return session


def tray_labels(label: dict[str, Any]) -> npt.NDArray[np.int64]:
    """Class of each tray half (`TRAY_NAMES` order) from a scene label (its "trays")."""
    out = np.zeros(len(TRAY_NAMES), np.int64)
    for i, name in enumerate(TRAY_NAMES):
        half = label["trays"][name]
        out[i] = OCCLUDED if half["hidden"] else encode_class(half["colour"], half["count"])
    return out


def cover_tray(image: npt.NDArray[np.uint8], label: dict[str, Any],
               rng: np.random.Generator) -> None:
    """Draw a hand reaching into a random tray half and mark the halves it hides in `label`,
    by the renderer's rules (a quarter of the half covered, or half of one of its checkers)."""
    name = TRAY_NAMES[int(rng.integers(len(TRAY_NAMES)))]
    quad = np.array(label["trays"][name]["quad"])
    w = rng.dirichlet(np.ones(4))
    d_px = float(label["checker_diameter_px"])
    mask = draw_hand(image, w @ quad, d_px, rng)
    ring = np.array([[0.0, 0.0]] + [[np.cos(a), np.sin(a)] for a in np.linspace(0, 6.28, 8)])
    hidden_centres = []
    for c in label["checkers"]:
        if c["where"] != "off":
            continue
        xy = np.round(np.array(c["centre"]) + ring * d_px * 0.35).astype(int)
        xy = np.clip(xy, 0, [image.shape[1] - 1, image.shape[0] - 1])
        if float(np.mean(mask[xy[:, 1], xy[:, 0]] > 127)) >= HIDDEN_SHARE:
            hidden_centres.append(c["centre"])
    for half in label["trays"].values():
        poly = np.array(half["quad"], np.float32)
        hides = any(_inside(poly, c) for c in hidden_centres)
        if hides or covered_share(mask, np.array(half["quad"])) >= OCCLUDED_SHARE:
            half["hidden"] = True


def _inside(poly: npt.NDArray[np.float32], point: list[float]) -> bool:
    import cv2

    return bool(cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0)


def scene_trays(scene: Scene, rng: np.random.Generator, quality: int,
                ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """The four tray patches of a scene (after JPEG) and their classes (-1: not in picture)."""
    image = jpeg(scene.image, quality)
    corners = np.array(scene.label["corners"]) + rng.normal(0, 1.0, (4, 2))
    patches, inside = extract_trays(image, corners, canonical_geometry())
    labels = tray_labels(scene.label)
    labels[~inside] = -1
    return patches, labels


def build(count: int, seed: int, bear_off: float = 0.6, hand_rate: float = 0.3,
          tray_hands: float = 0.15) -> dict[str, npt.NDArray[Any]]:
    renderer = BearOffRenderer(seed, bear_off, hand_rate)
    rng = np.random.default_rng((seed, 13))
    xs, ys, img = [], [], []
    for i in range(count):
        scene = renderer.next_scene()
        if rng.random() < tray_hands:
            cover_tray(scene.image, scene.label, rng)
        patches, labels = scene_trays(scene, rng, int(rng.integers(55, 96)))
        xs.append(patches)
        ys.append(labels)
        img.append(np.full(len(TRAY_NAMES), i))
    return {"x": np.concatenate(xs), "y": np.concatenate(ys), "image": np.concatenate(img)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--bear-off", type=float, default=0.6,
                        help="share of sessions showing the end of a finished game")
    parser.add_argument("--hand-rate", type=float, default=0.3)
    parser.add_argument("--tray-hands", type=float, default=0.15,
                        help="share of scenes given an extra hand over a tray half")
    args = parser.parse_args()
    start = time.perf_counter()
    data = build(args.count, args.seed, args.bear_off, args.hand_rate, args.tray_hands)
    np.savez_compressed(args.out, x=data["x"], y=data["y"], image=data["image"])
    y = data["y"]
    print(f"{len(y)} patches ({int((y > 0).sum())} with checkers, {int((y == OCCLUDED).sum())} "
          f"hidden, {int((y < 0).sum())} out of picture) from {args.count} scenes in "
          f"{time.perf_counter() - start:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
