"""Pictures of things on a desk that are not dice, for the die classifier to learn as `none`.

A camera over a table sees more than dice: a laptop's keys (a dark rounded square with a
white glyph looks like a black die's face) and the printed labels on cables and boxes, which
the reader took for dice on desk-webcam (models/dice/experiments.md, "What desk-webcam's
errors are"). Those photographs stay held out, so the like is drawn here: a tilted keyboard
of keys with glyphs and printed labels of letters and digits, on varied tables, under varied
light, blur and noise. No dice: every picture's things are negatives.

    python -m synth.dice.desk --out DIR --count 600 --seed 1

writes DIR/images/NNNNNN.jpg, DIR/labels.jsonl in the terms of `synth dice`'s labels (each
`dice` empty), which models/dice/data.py reads, and DIR/negatives.json: each picture's
things as boxes [x, y, w, h] keyed by the picture's path under DIR as given, the file
`train_classifier --hard-negatives` takes. Picture i depends only on the seed and i.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from synth.board.textures import value_noise

SIZE = (640, 480)
# what a laptop's keys show: words, symbols, letters and digits
KEY_GLYPHS = ("fn", "ctrl", "alt", "esc", "tab", "cmd", "opt", "shift", "control", "option",
              "^", "<", ">", "v", "#", "@", "?", "!", "%", "&", "*", "+", "=", "~",
              *"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
LABEL_CHARACTERS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789.-"
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN)
MOST_NEGATIVES = 14  # per picture: a keyboard has dozens of keys, the rest add little
Thing = tuple[np.ndarray, list[np.ndarray]]  # its picture, and its parts' corners in it


def table(rng: np.random.Generator) -> np.ndarray:
    """A table: wood-like streaks or a plain surface, in a random colour."""
    width, height = SIZE
    colour = rng.uniform(60, 230, 3)
    grain = value_noise(rng, height, width, float(rng.uniform(8, 60)))
    if rng.random() < 0.5:  # streaks along one direction
        grain = cv2.resize(grain[:, :1], (width, height)) * 0.6 + grain * 0.4
    shade = 1.0 + (grain[..., None] - 0.5) * rng.uniform(0.1, 0.5)
    return np.clip(colour * shade, 0, 255).astype(np.float32)


def keyboard(rng: np.random.Generator) -> Thing:
    """A flat keyboard drawn face on: its picture and each key's corners."""
    key = int(rng.integers(40, 90))
    gap = int(key * rng.uniform(0.12, 0.3))
    rows, columns = int(rng.integers(2, 6)), int(rng.integers(3, 9))
    width, height = columns * (key + gap) + gap, rows * (key + gap) + gap
    dark_keys = rng.random() < 0.75
    deck = rng.uniform(130, 220) if dark_keys else rng.uniform(20, 70)
    key_level = rng.uniform(10, 60) if dark_keys else rng.uniform(170, 240)
    glyph_level = rng.uniform(170, 250) if dark_keys else rng.uniform(10, 70)
    # drawn in 8 bits: OpenCV draws text on nothing else
    picture = np.clip(np.full((height, width, 3), deck) * rng.uniform(0.9, 1.1, 3),
                      0, 255).astype(np.uint8)
    corners = []
    radius = max(2, int(key * rng.uniform(0.05, 0.2)))
    for row in range(rows):
        for column in range(columns):
            x, y = gap + column * (key + gap), gap + row * (key + gap)
            _rounded_square(picture, x, y, key, radius, key_level)
            text = str(rng.choice(KEY_GLYPHS))
            font, scale = FONTS[int(rng.integers(len(FONTS)))], key * rng.uniform(0.008, 0.02)
            (tw, th), _ = cv2.getTextSize(text, font, scale, 1)
            at = (x + int(rng.uniform(0.1, 0.9) * max(key - tw, 1)),
                  y + th + int(rng.uniform(0.05, 0.9) * max(key - th, 1)))
            cv2.putText(picture, text, at, font, scale, (glyph_level,) * 3,
                        int(rng.integers(1, 3)), cv2.LINE_AA)
            corners.append(_corners(x, y, key, key))
    return picture, corners


def printed_label(rng: np.random.Generator) -> Thing:
    """A printed sticker: a light band with dark letters and digits, now and then a block."""
    text = "".join(rng.choice(list(LABEL_CHARACTERS), int(rng.integers(3, 9))))
    font, scale = FONTS[int(rng.integers(len(FONTS)))], float(rng.uniform(0.8, 2.2))
    thick = int(rng.integers(1, 4))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = int(th * rng.uniform(0.3, 0.8))
    width, height = tw + 2 * pad, th + base + 2 * pad
    picture = np.full((height, width, 3), int(rng.uniform(170, 250)), np.uint8)
    ink = (float(rng.uniform(0, 60)),) * 3
    cv2.putText(picture, text, (pad, pad + th), font, scale, ink, thick, cv2.LINE_AA)
    if rng.random() < 0.4:  # a dark block beside the text, as on a charger's cable
        block = int(height * 0.6)
        cv2.rectangle(picture, (width - block - 2, (height - block) // 2),
                      (width - 2, (height + block) // 2), ink, -1)
    parts = [_corners(0, 0, width, height)]
    for _ in range(int(rng.integers(1, 3))):  # squares of it, as a detector frames a die
        side = min(width, height * rng.uniform(1.0, 1.5))
        parts.append(_corners(rng.uniform(0, width - side), 0, side, side))
    return picture, parts


def _corners(x: float, y: float, width: float, height: float) -> np.ndarray:
    """An upright rectangle's corners, clockwise from the top left."""
    return np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]],
                    np.float32)


def _rounded_square(picture: np.ndarray, x: int, y: int, side: int, radius: int,
                    level: float) -> None:
    colour = (level,) * 3
    cv2.rectangle(picture, (x + radius, y), (x + side - radius, y + side), colour, -1)
    cv2.rectangle(picture, (x, y + radius), (x + side, y + side - radius), colour, -1)
    near, far = radius, side - radius
    for cx, cy in ((x + near, y + near), (x + far, y + near), (x + near, y + far),
                   (x + far, y + far)):
        cv2.circle(picture, (cx, cy), radius, colour, -1, cv2.LINE_AA)


def place(canvas: np.ndarray, thing: Thing, rng: np.random.Generator,
          share: float) -> list[list[float]]:
    """Paste a thing on the canvas, its longer side about `share` of the picture's shorter,
    seen at a slant (a random homography), and give the boxes of its parts that land mostly
    inside the picture."""
    picture, parts = thing
    height, width = picture.shape[:2]
    corners = _corners(0, 0, width, height)
    scale = rng.uniform(0.5, 1.3) * share * min(SIZE) / max(width, height, 1)
    angle = rng.uniform(-np.pi, np.pi)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = rng.uniform((0.15 * SIZE[0], 0.15 * SIZE[1]), (0.85 * SIZE[0], 0.85 * SIZE[1]))
    moved = (corners - (width / 2, height / 2)) @ turn.T * scale + centre
    moved += rng.uniform(-0.12, 0.12, (4, 2)) * scale * max(width, height)  # the slant
    moved = moved.astype(np.float32)
    warp = cv2.getPerspectiveTransform(corners, moved)
    seen = cv2.warpPerspective(picture.astype(np.float32), warp, SIZE, flags=cv2.INTER_AREA)
    covered = cv2.warpPerspective(np.ones((height, width), np.float32), warp, SIZE,
                                  flags=cv2.INTER_LINEAR)[..., None]
    canvas[:] = canvas * (1 - covered) + seen * covered
    boxes = []
    for part in parts:
        ends = cv2.perspectiveTransform(part[None], warp)[0]
        x0, y0 = ends.min(axis=0)
        x1, y1 = ends.max(axis=0)
        inside = (min(x1, SIZE[0]) - max(x0, 0)) * (min(y1, SIZE[1]) - max(y0, 0))
        if min(x1 - x0, y1 - y0) >= 12 and inside >= 0.6 * (x1 - x0) * (y1 - y0):
            boxes.append([float(x0), float(y0), float(x1 - x0), float(y1 - y0)])
    return boxes


def picture(seed: int, index: int) -> tuple[np.ndarray, list[list[float]]]:
    """Picture `index` of `seed`, BGR, and the boxes of its things (at most MOST_NEGATIVES)."""
    rng = np.random.default_rng([seed, index])
    canvas = table(rng)
    boxes: list[list[float]] = []
    if rng.random() < 0.7:
        boxes += place(canvas, keyboard(rng), rng, 0.8)
    for _ in range(int(rng.integers(0 if boxes else 1, 3))):
        boxes += place(canvas, printed_label(rng), rng, 0.3)
    light = rng.uniform(0.6, 1.3) * rng.uniform(0.9, 1.1, 3)
    canvas = canvas * light + rng.uniform(-25, 25)
    if rng.random() < 0.6:
        canvas = cv2.GaussianBlur(canvas, (0, 0), float(rng.uniform(0.5, 2.5)))
    canvas += rng.normal(0, rng.uniform(1, 8), canvas.shape)
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    order = rng.permutation(len(boxes))[:MOST_NEGATIVES]
    return image, [boxes[i] for i in sorted(order)]


def write_pictures(out: Path, count: int, seed: int) -> None:
    (out / "images").mkdir(parents=True, exist_ok=True)
    negatives = {}
    with open(out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for index in range(count):
            image, boxes = picture(seed, index)
            name = f"images/{index:06d}.jpg"
            quality = int(np.random.default_rng([seed, index, 1]).integers(60, 95))
            cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            labels.write(json.dumps({"image": name, "dice": []}) + "\n")
            negatives[str(out / name)] = [[round(v, 1) for v in box] for box in boxes]
    (out / "negatives.json").write_text(json.dumps(negatives) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_pictures(args.out, args.count, args.seed)


if __name__ == "__main__":
    main()
