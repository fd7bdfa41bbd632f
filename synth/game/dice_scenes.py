"""Training pictures for the dice reader: the game videos' tray, with dice drawn by the very
code that draws them in the videos (`synth.game.draw.draw_die`), widely varied.

The live referee reads the dice from the bounding box of the calibration's tray and box
zones; a picture here is that crop (sometimes a little larger or smaller) of a side column
laid out as `synth.game.scene.make_scene` lays it out, drawn as `draw_static` draws it, with
other frame sizes, colours, dice looks, dice touching each other and the walls, cocked dice,
dice stopped in the box, hands and shadows, blur, lighting and compression.

    python -m synth.game.dice_scenes --out DIR --count 3000 --seed 1

writes DIR/images/NNNNNN.jpg and DIR/labels.jsonl in the terms of `synth dice`'s labels
(`image`, `dice`: `value` (None when cocked), `cocked`, `in_box`, `box` [x, y, w, h],
`centre`, `visible_px`), which models/dice/data.py reads. Picture i depends only on the seed
and i. The game videos' own seeds never enter here: the evaluation keeps to whole games.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from synth.board.hand import SKIN
from synth.board.render import DICE_COLOURS
from synth.board.textures import Image, value_noise
from synth.game.dice import ADJACENT
from synth.game.draw import BGR, DieLook, DieState, HandLook, draw_die, draw_hand

Box = tuple[int, int, int, int]
COCKED_DEPTH = 0.71  # draw_die: each face of a cocked die is cos(45 deg) as deep
# The game's own colours (synth/game/scene.py draw_static); half the pictures keep them.
WOOD: BGR = (30, 50, 80)
BOX_INSIDE: BGR = (22, 30, 42)
BAFFLE: BGR = (35, 48, 66)
FELT: BGR = (55, 95, 40)
WALL_SHADE: BGR = (40, 70, 30)


@dataclass(frozen=True, slots=True)
class Column:
    """The side column of one frame: frame size, the box's visible inside and the tray."""

    size: tuple[int, int]
    box: Box
    tray: Box

    @property
    def crop(self) -> Box:
        """The reader's region: the bounding box of the tray and box zones."""
        return (min(self.box[0], self.tray[0]), min(self.box[1], self.tray[1]),
                max(self.box[2], self.tray[2]), max(self.box[3], self.tray[3]))

    @property
    def die_px(self) -> float:
        return min(self.tray[2] - self.tray[0], self.tray[3] - self.tray[1]) * 0.17


def make_column(w: int, h: int, jitter: float, rng: np.random.Generator) -> Column:
    """make_scene's column for a w x h frame, its fractions moved by up to `jitter`."""

    def f(x: float) -> float:
        return x + float(rng.uniform(-jitter, jitter))

    cx0, cx1 = int(w * f(0.791)), int(w * min(0.995, f(0.985)))
    box = (cx0 + int(w * 0.01), int(h * f(0.05)), cx1 - int(w * 0.01), int(h * f(0.25)))
    tray = (cx0, int(h * f(0.27)), cx1, int(h * f(0.68)))
    return Column((w, h), box, tray)


def die_corners(die: DieState, size: float) -> np.ndarray:
    """The outline of what draw_die paints of the die itself (not its shadow): (4, 2)."""
    a = np.radians(die.angle)
    u = np.array([np.cos(a), np.sin(a)]) * size / 2
    v = np.array([-np.sin(a), np.cos(a)]) * size / 2
    depth = 2 * COCKED_DEPTH if die.pose == "cocked" else 1.0
    c = np.array(die.centre, float)
    return np.array([c - u - v * depth, c + u - v * depth, c + u + v * depth, c - u + v * depth])


def _colour(rng: np.random.Generator, base: BGR, spread: float) -> BGR:
    """`base` kept half the time, else moved by up to `spread` per channel, or any colour."""
    r = rng.random()
    if r < 0.5:
        return base
    if r < 0.85:
        c = np.clip(np.array(base) + rng.uniform(-spread, spread, 3), 0, 255)
    else:
        c = rng.uniform(15, 200, 3)
    return (int(c[0]), int(c[1]), int(c[2]))


def _die_look(rng: np.random.Generator) -> DieLook:
    if rng.random() < 0.8:  # the game's own choice (synth/game/script.py)
        body = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))]
        return DieLook(body, (250, 250, 250) if sum(body) < 300 else (20, 20, 20))
    b = rng.integers(0, 256, 3)
    body = (int(b[0]), int(b[1]), int(b[2]))
    p = rng.integers(0, 60, 3) if sum(body) > 330 else 255 - rng.integers(0, 60, 3)
    return DieLook(body, (int(p[0]), int(p[1]), int(p[2])))


def _draw_column(img: Image, col: Column, rng: np.random.Generator) -> None:
    """draw_static's box and tray, in colours near the game's."""
    w = col.size[0]
    wood, inside, baffle = _colour(rng, WOOD, 30), _colour(rng, BOX_INSIDE, 20), BAFFLE
    felt = _colour(rng, FELT, 50)
    shade = (int(felt[0] * 0.73), int(felt[1] * 0.73), int(felt[2] * 0.73))
    bx0, by0, bx1, by1 = col.box
    tx0, ty0, tx1, ty1 = col.tray
    pad = max(1, int(w * 0.008))
    cv2.rectangle(img, (bx0 - pad * 2, 0), (bx1 + pad * 2, by1 + pad), wood, -1)
    cv2.rectangle(img, (bx0, by0), (bx1, by1), inside, -1)
    for k in range(1, 4):
        y = by0 + (by1 - by0) * k // 4
        cv2.line(img, (bx0, y), (bx1, y - (by1 - by0) // 8), baffle, 2, cv2.LINE_AA)
    cv2.rectangle(img, (tx0 - pad, ty0 - pad), (tx1 + pad, ty1 + pad), wood, -1)
    cv2.rectangle(img, (tx0, ty0), (tx1, ty1), felt, -1)
    cv2.rectangle(img, (tx0, ty0), (tx1, ty0 + pad), shade, -1)
    if rng.random() < 0.4:  # a felt or wood texture instead of a flat fill
        x0, y0, x1, y1 = col.tray
        noise = value_noise(rng, y1 - y0, x1 - x0, float(rng.uniform(3, 30)))
        patch = img[y0:y1, x0:x1].astype(np.float32)
        patch *= (1 + (noise[..., None] - 0.5) * float(rng.uniform(0.05, 0.3)))
        img[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)


def _footprint(shape: tuple[int, int], corners: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
    return mask


def _place_dice(col: Column, rng: np.random.Generator, size: float,
                hand: np.ndarray) -> list[tuple[DieState, bool]]:
    """Dice at rest: flat or cocked in the tray, flat in the box; some touching another die
    or a wall. Each keeps off the others and the hand (a die may just touch them)."""
    count = int(rng.choice([0, 1, 2, 3, 4], p=[0.05, 0.1, 0.7, 0.1, 0.05]))
    occupied = hand.copy()
    placed: list[tuple[DieState, bool]] = []
    for _ in range(count):
        for _attempt in range(40):
            in_box = rng.random() < 0.12
            zone = col.box if in_box else col.tray
            cocked = not in_box and rng.random() < 0.3
            value = int(rng.integers(1, 7))
            angle = float(rng.uniform(0, 360))
            side = ADJACENT[value][int(rng.integers(4))]
            pose: Literal["flat", "cocked"] = "cocked" if cocked else "flat"
            x0, y0, x1, y1 = zone
            r = rng.random()
            if placed and r < 0.35:  # touching the previous die
                prev = placed[-1][0].centre
                t = rng.uniform(0, 2 * np.pi)
                d = size * float(rng.uniform(0.95, 1.35 if cocked else 1.15))
                centre = (prev[0] + d * np.cos(t), prev[1] + d * np.sin(t))
            else:  # anywhere, down to touching a wall (the game keeps 0.9 size off)
                m = size * (float(rng.uniform(0.5, 0.9)) if r < 0.6 else 0.9)
                if x1 - x0 <= 2 * m or y1 - y0 <= 2 * m:
                    continue
                centre = (rng.uniform(x0 + m, x1 - m), rng.uniform(y0 + m, y1 - m))
            die = DieState(value, (float(centre[0]), float(centre[1])), angle, pose, side)
            foot = _footprint(occupied.shape, die_corners(die, size))
            area = int(foot.sum())
            inside = foot[y0:y1, x0:x1].sum() >= 0.85 * area
            if area and inside and (foot & occupied).sum() <= 0.04 * area:
                occupied |= foot
                placed.append((die, in_box))
                break
    return placed


def _lighting(img: Image, rng: np.random.Generator, shadow: np.ndarray | None) -> Image:
    """A light gradient, a colour cast, a soft shadow (of the hand, or of something out of
    view), gamma."""
    h, w = img.shape[:2]
    pixels = img.astype(np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    light = 1 + gx * (xs / w - 0.5) + gy * (ys / h - 0.5)
    pixels *= light[..., None] * rng.uniform(0.7, 1.3) * rng.uniform(0.9, 1.1, 3)
    if shadow is None and rng.random() < 0.25:
        shadow = np.zeros((h, w), np.uint8)
        centre = (int(rng.integers(w)), int(rng.integers(h)))
        axes = (int(rng.integers(w // 6, w)), int(rng.integers(h // 8, h // 2)))
        cv2.ellipse(shadow, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1, -1)
    if shadow is not None:
        soft = cv2.GaussianBlur(shadow.astype(np.float32), (0, 0), float(rng.uniform(2, 12)))
        pixels *= (1 - soft * rng.uniform(0.2, 0.55))[..., None]
    lit = 255 * (np.clip(pixels, 0, 255) / 255) ** rng.uniform(0.75, 1.3)
    return np.clip(lit, 0, 255).astype(np.uint8)


def _degrade(img: Image, rng: np.random.Generator) -> Image:
    """Camera and codec: blur, motion blur, lower resolution, noise (JPEG comes on writing)."""
    out: np.ndarray = img
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.3, 1.3)))
    if rng.random() < 0.1:
        k = int(rng.integers(3, 8))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2] = 1.0 / k
        turn = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kernel, turn, (k, k)))
    if rng.random() < 0.3:
        h, w = out.shape[:2]
        s = float(rng.uniform(0.45, 0.9))
        small = cv2.resize(out, (max(8, round(w * s)), max(8, round(h * s))),
                           interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    noisy = out.astype(np.float32) + rng.normal(0, rng.uniform(0, 5), out.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def tray_scene(rng: np.random.Generator) -> tuple[Image, list[dict[str, Any]], int]:
    """One picture (the reader's crop), its dice labels in its pixels, and a JPEG quality."""
    w = int(rng.choice([640, 854, 960, 1280, 1280, 1280, 1600, 1920]))
    h = round(w * float(rng.choice([9 / 16, 9 / 16, 9 / 16, 3 / 4, 10 / 16])))
    col = make_column(w, h, 0.0 if rng.random() < 0.5 else 0.02, rng)
    size = col.die_px * (1.0 if rng.random() < 0.5 else float(rng.uniform(0.8, 1.25)))
    img = np.empty((h, w, 3), np.uint8)
    img[:] = _colour(rng, (60, 80, 100), 60)
    _draw_column(img, col, rng)
    hand_mask = np.zeros((h, w), np.uint8)
    hand = None
    if rng.random() < 0.25:
        x0, y0, x1, y1 = col.crop
        target = (float(rng.uniform(x0 - 0.3 * (x1 - x0), x1)), float(rng.uniform(y0, y1)))
        edge: Literal["top", "bottom"] = "top" if rng.random() < 0.5 else "bottom"
        skin = SKIN[int(rng.integers(len(SKIN)))]
        sleeve = rng.integers(20, 230, 3)
        hand = (target, edge, HandLook(skin, (int(sleeve[0]), int(sleeve[1]), int(sleeve[2])),
                                       size * float(rng.uniform(1.0, 1.8))))
        draw_hand(hand_mask, target, edge, hand[2], mask=True)
        hand_mask = (hand_mask > 0).astype(np.uint8)
    dice = _place_dice(col, rng, size, hand_mask)
    look = _die_look(rng)
    index = np.zeros((h, w), np.uint8)
    for k, (die, _) in enumerate(dice):
        draw_die(img, die, size, look)
        cv2.fillPoly(index, [np.round(die_corners(die, size)).astype(np.int32)], k + 1)
    shadow = None
    if hand is not None:
        draw_hand(img, *hand)
        offset = rng.uniform(-0.6, 0.6, 2) * size
        move = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
        shadow = cv2.warpAffine(hand_mask, move, (w, h)) if rng.random() < 0.7 else None
    img = _lighting(img, rng, shadow)
    x0, y0, x1, y1 = col.crop
    if rng.random() < 0.5:  # a region drawn a little off the zones' bounding box
        dw, dh = x1 - x0, y1 - y0
        x0, x1 = x0 - int(dw * rng.uniform(-0.03, 0.1)), x1 + int(dw * rng.uniform(-0.03, 0.1))
        y0, y1 = y0 - int(dh * rng.uniform(-0.03, 0.1)), y1 + int(dh * rng.uniform(-0.03, 0.1))
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    crop = _degrade(np.ascontiguousarray(img[y0:y1, x0:x1]), rng)
    labels = []
    for k, (die, in_box) in enumerate(dice):
        visible = index[y0:y1, x0:x1] == k + 1
        ys, xs = np.nonzero(visible)
        if not len(xs):
            continue
        labels.append({
            "value": None if die.pose == "cocked" else die.value,
            "cocked": die.pose == "cocked",
            "in_box": in_box,
            "box": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                    int(ys.max() - ys.min() + 1)],
            "centre": [round(die.centre[0] - x0, 1), round(die.centre[1] - y0, 1)],
            "visible_px": int(visible.sum()),
        })
    return crop, labels, int(rng.integers(35, 96))


def write_scenes(out: Path, count: int, seed: int) -> None:
    """`count` pictures and labels.jsonl into `out`."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    with (out / "labels.jsonl").open("w", encoding="utf-8") as f:
        for i in range(count):
            image, dice, quality = tray_scene(np.random.default_rng([seed, i]))
            name = f"images/{i:06d}.jpg"
            cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            f.write(json.dumps({"image": name, "seed": [seed, i], "dice": dice}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_scenes(args.out, args.count, args.seed)


if __name__ == "__main__":
    main()
