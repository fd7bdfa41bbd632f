"""A random camera over the board (a homography from field units to the image) and the
photometric side of a photograph: table background, lighting, glare, blur, noise. BGR uint8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layout import FloatArray
from synth.board.textures import Image, value_noise

TABLES: list[tuple[int, int, int]] = [
    (110, 70, 45), (95, 60, 40), (60, 90, 120), (40, 60, 90), (70, 110, 60),
    (150, 150, 150), (40, 40, 45), (200, 200, 205), (30, 50, 80), (120, 100, 90),
]


@dataclass(frozen=True, slots=True)
class CameraPose:
    """Camera angles; the placement in the image is fitted afterwards."""

    tilt: float  # degrees away from looking straight down
    azimuth: float  # degrees: direction of the tilt in the board plane
    roll: float  # degrees about the optical axis
    distance: float  # camera distance over the board size: small = strong perspective
    fill: float  # share of the image's limiting side the board's bounding box takes
    shift: tuple[float, float]  # where the board sits in the room left, in [0, 1]


def random_pose(rng: np.random.Generator, max_tilt: float = 35.0) -> CameraPose:
    tilt = max_tilt * float(np.sqrt(rng.random())) if rng.random() < 0.8 else 0.0
    return CameraPose(
        tilt=tilt,
        azimuth=float(rng.uniform(0, 360)),
        roll=float(np.clip(rng.normal(0, 5), -15, 15)),
        distance=float(rng.uniform(1.2, 4.0)),
        fill=float(rng.uniform(0.65, 0.98)),
        shift=(float(rng.random()), float(rng.random())),
    )


def jitter_pose(pose: CameraPose, rng: np.random.Generator) -> CameraPose:
    """The same camera a little later: a few pixels of drift."""
    return CameraPose(pose.tilt, pose.azimuth, pose.roll + float(rng.normal(0, 0.3)),
                      pose.distance, pose.fill * float(rng.uniform(0.99, 1.01)),
                      (float(np.clip(pose.shift[0] + rng.normal(0, 0.02), 0, 1)),
                       float(np.clip(pose.shift[1] + rng.normal(0, 0.02), 0, 1))))


def _rotation(axis: tuple[float, float, float], angle: float) -> FloatArray:
    rvec = np.array(axis, float) * math.radians(angle)
    r, _ = cv2.Rodrigues(rvec)
    return np.asarray(r, float)


def homography(pose: CameraPose, extent: tuple[float, float, float, float],
               size: tuple[int, int]) -> FloatArray:
    """3x3 matrix from field units to image pixels for a board spanning `extent`."""
    x0, y0, x1, y1 = extent
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    span = max(x1 - x0, y1 - y0)
    az = math.radians(pose.azimuth)
    rot = _rotation((0, 0, 1), pose.roll) @ _rotation((math.cos(az), math.sin(az), 0), pose.tilt)
    centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    plane = np.stack([rot[:, 0], rot[:, 1], np.array([0, 0, pose.distance * span])], 1)
    h = plane @ centre  # focal length 1: any scale is fitted below
    corners = project(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    lo, hi = corners.min(0), corners.max(0)
    w, hgt = size
    s = pose.fill * min(w / (hi[0] - lo[0]), hgt / (hi[1] - lo[1]))
    room = np.array([w, hgt]) - s * (hi - lo)
    off = room * np.array(pose.shift) - s * lo
    fit = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    out = fit @ h
    return np.asarray(out / out[2, 2], float)


def project(h: FloatArray, pts: FloatArray) -> FloatArray:
    """Apply a homography to (n, 2) points."""
    p = np.asarray(pts, float).reshape(-1, 2)
    q = np.concatenate([p, np.ones((len(p), 1))], 1) @ h.T
    return np.asarray(q[:, :2] / q[:, 2:3], float)


def table(rng: np.random.Generator, size: tuple[int, int]) -> Image:
    """A table cloth or top with a few flat objects lying about (score cards, clocks, cans)."""
    w, h = size
    base = np.array(TABLES[int(rng.integers(len(TABLES)))], np.float32)
    base *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    shade = value_noise(rng, h // 8, w // 8, 12) * 0.15 + 0.92
    small = np.clip(shade[..., None] * base, 0, 255).astype(np.uint8)
    img: Image = np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), np.uint8)
    for _ in range(int(rng.integers(0, 5))):
        kind = rng.random()  # score cards (light), clocks and phones (dark), anything
        grey = int(rng.integers(215, 250)) if kind < 0.5 else int(rng.integers(15, 70))
        colour = (grey,) * 3 if kind < 0.75 else tuple(int(c) for c in rng.integers(0, 256, 3))
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        if rng.random() < 0.6:
            rw, rh = int(rng.integers(w // 20, w // 6)), int(rng.integers(h // 12, h // 3))
            cv2.rectangle(img, (cx, cy), (cx + rw, cy + rh), colour, -1)
            if rng.random() < 0.5:
                cv2.putText(img, str(int(rng.integers(0, 10))), (cx + rw // 4, cy + rh * 3 // 4),
                            cv2.FONT_HERSHEY_SIMPLEX, rh / 50, (20, 20, 20), 3, cv2.LINE_AA)
        else:
            cv2.circle(img, (cx, cy), int(rng.integers(h // 30, h // 10)), colour, -1, cv2.LINE_AA)
    return img


def light_and_lens(img: Image, rng: np.random.Generator, noise: Image) -> Image:
    """Lighting gradient and vignette, glare, blur and sensor noise, in place where possible."""
    h, w = img.shape[:2]
    gh, gw = 9, 16
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    grad = (np.cos(a) * (xx / gw - 0.5) + np.sin(a) * (yy / gh - 0.5)) * rng.uniform(0, 0.6)
    vig = ((xx / gw - 0.5) ** 2 + (yy / gh - 0.5) ** 2) * rng.uniform(0, 0.8)
    gain = float(rng.uniform(0.75, 1.2)) * (1 + grad - vig)
    tint = rng.uniform(0.96, 1.04, 3).astype(np.float32)
    small = np.clip(gain[..., None] * tint * 128, 0, 255).astype(np.uint8)
    gain8 = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    out: Image = np.asarray(cv2.multiply(img, gain8, scale=1 / 128), np.uint8)
    for _ in range(int(rng.integers(0, 3))):
        _glare(out, rng)
    if rng.random() < 0.4:
        k = int(rng.choice([3, 5]))
        out = np.asarray(cv2.GaussianBlur(out, (k, k), 0), np.uint8)
    elif rng.random() < 0.15:
        out = _motion_blur(out, rng)
    sigma = float(rng.uniform(0, 0.25))
    oy = int(rng.integers(0, noise.shape[0] - h + 1))
    ox = int(rng.integers(0, noise.shape[1] - w + 1))
    patch = noise[oy:oy + h, ox:ox + w]
    return np.asarray(cv2.addWeighted(out, 1.0, patch, sigma, -128 * sigma), np.uint8)


def _glare(img: Image, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    rx, ry = int(rng.integers(w // 30, w // 8)), int(rng.integers(h // 30, h // 8))
    cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
    x0, y0 = max(0, cx - 2 * rx), max(0, cy - 2 * ry)
    x1, y1 = min(w, cx + 2 * rx), min(h, cy + 2 * ry)
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    blob = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2)) * rng.uniform(40, 150)
    roi = img[y0:y1, x0:x1]
    roi[:] = np.clip(roi + blob[..., None], 0, 255).astype(np.uint8)


def _motion_blur(img: Image, rng: np.random.Generator) -> Image:
    k = int(rng.integers(3, 8))
    kernel = np.zeros((k, k), np.float32)
    a = rng.uniform(0, math.pi)
    c = (k - 1) / 2
    dx, dy = math.cos(a) * c, math.sin(a) * c
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    kernel /= max(float(kernel.sum()), 1e-6)
    return np.asarray(cv2.filter2D(img, -1, kernel), np.uint8)
