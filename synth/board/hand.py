"""A player's hand and arm over the board, drawn in image space, and what it hides."""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from calibration.layout import FloatArray
from synth.board.textures import Image

Mask = npt.NDArray[np.uint8]

SKIN: list[tuple[int, int, int]] = [
    (150, 175, 225), (120, 150, 205), (95, 125, 180), (70, 95, 140), (45, 65, 100),
    (135, 165, 215), (105, 140, 190),
]


def _entry(rng: np.random.Generator, target: FloatArray, w: int, h: int) -> FloatArray:
    """Where the arm comes in: mostly the top or bottom edge (players sit there)."""
    edge = rng.choice(4, p=[0.4, 0.4, 0.1, 0.1])
    jitter = float(rng.uniform(-0.3, 0.3))
    if edge == 0:
        return np.array([target[0] + jitter * w, -0.1 * h])
    if edge == 1:
        return np.array([target[0] + jitter * w, 1.1 * h])
    if edge == 2:
        return np.array([-0.1 * w, target[1] + jitter * h])
    return np.array([1.1 * w, target[1] + jitter * h])


def draw_hand(img: Image, target: FloatArray, checker_px: float,
              rng: np.random.Generator) -> Mask:
    """Draw an arm reaching to `target` (image pixels); returns the hand's mask (0/255)."""
    h, w = img.shape[:2]
    start = _entry(rng, target, w, h)
    d = target - start
    d /= max(float(np.linalg.norm(d)), 1e-6)
    n = np.array([-d[1], d[0]])
    palm_len = checker_px * rng.uniform(2.2, 3.0)
    palm_w = palm_len * rng.uniform(0.75, 0.95)
    finger_len = palm_len * rng.uniform(0.6, 1.0)
    tip = target
    knuckles = tip - d * finger_len * 0.8
    wrist = knuckles - d * palm_len
    pad = int(palm_len + finger_len + checker_px)
    x0, y0 = np.clip(np.minimum(start, tip) - pad, 0, [w, h]).astype(int)
    x1, y1 = np.clip(np.maximum(start, tip) + pad, 0, [w, h]).astype(int)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((h, w), np.uint8)
    org = np.array([x0, y0], float)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    arm = np.zeros_like(mask)

    def capsule(m: Mask, a: FloatArray, b: FloatArray, thick: float) -> None:
        a, b = a - org, b - org
        cv2.line(m, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 255, max(2, int(thick)),
                 cv2.LINE_AA)

    capsule(arm, start, wrist, palm_w * rng.uniform(0.8, 1.0))
    centre = (wrist + knuckles) / 2 - org
    angle = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(mask, (int(centre[0]), int(centre[1])), (int(palm_len / 2 + 4), int(palm_w / 2)),
                angle, 0, 360, 255, -1, cv2.LINE_AA)
    curl = rng.uniform(0.3, 1.0, 4)
    for i, f in enumerate(np.linspace(-0.38, 0.38, 4)):
        base = knuckles + n * palm_w * f
        spread = d + n * f * rng.uniform(0.1, 0.5)
        spread /= np.linalg.norm(spread)
        length = finger_len * curl[i] * (0.85 if abs(f) > 0.3 else 1.0)
        capsule(mask, base, base + spread * length, palm_w * 0.22)
    side = 1 if rng.random() < 0.5 else -1
    thumb_base = wrist + d * palm_len * 0.3 + n * side * palm_w * 0.45
    thumb_dir = d * 0.6 + n * side * 0.8
    capsule(mask, thumb_base, thumb_base + thumb_dir * finger_len * 0.7, palm_w * 0.25)

    skin = (np.array(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.9, 1.1, 3)).astype(
        np.float32)
    sleeve = skin if rng.random() < 0.4 else rng.uniform(10, 230, 3).astype(np.float32)
    full = cv2.bitwise_or(mask, arm)
    sl = np.s_[y0:y1, x0:x1]
    shadow_off = (rng.uniform(-0.6, 0.6, 2) * checker_px).astype(int)
    shadow = np.roll(full, (int(shadow_off[1]), int(shadow_off[0])), (0, 1))
    shadow = cv2.blur(shadow, (9, 9)).astype(np.float32) * (0.45 / 255)
    roi = img[sl].astype(np.float32)
    roi *= (1 - shadow)[..., None]
    k = max(3, int(checker_px * 0.5))
    soft = cv2.blur(full, (k, k)).astype(np.float32)
    shade = 0.65 + (0.4 / 255) * soft
    alpha = cv2.blur(full, (3, 3)).astype(np.float32)[..., None] * (1 / 255)
    hand_only = (mask > 0).astype(np.float32)[..., None]
    colour = shade[..., None] * (sleeve + (skin - sleeve) * hand_only)
    blended = roi * (1 - alpha) + colour * alpha
    img[sl] = np.clip(blended, 0, 255).astype(np.uint8)
    out = np.zeros((h, w), np.uint8)
    out[sl] = full
    return out


def covered_share(mask: Mask, polygon: FloatArray) -> float:
    """Share of an image polygon's pixels that the mask covers (0 when the polygon is empty)."""
    h, w = mask.shape
    pts = np.round(polygon).astype(np.int32)
    x0, y0 = np.clip(pts.min(0), 0, [w, h])
    x1, y1 = np.clip(pts.max(0) + 1, 0, [w, h])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    poly = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(poly, [pts - [x0, y0]], 255)
    area = cv2.countNonZero(poly)
    if area == 0:
        return 0.0
    hit = cv2.countNonZero(cv2.bitwise_and(poly, mask[y0:y1, x0:x1]))
    return hit / area
