"""What varies between pictures: dice colours and pips, tray and box surfaces, camera, lights,
and the image-space effects. Sampling only; `render.py` applies a style to the model.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from synth.board.textures import value_noise
from synth.dice.scene import TEXTURE_SIZE

RGBA = tuple[float, float, float, float]

# name: (die colour, pip colour, accent pip colour for 1 and 4, alpha range)
DICE_STYLES: dict[str, tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...] | None]] = {
    "white": ((0.95, 0.95, 0.93), (0.04, 0.04, 0.04), None),
    "black": ((0.05, 0.05, 0.06), (0.95, 0.95, 0.95), None),
    "red": ((0.72, 0.04, 0.05), (0.96, 0.96, 0.96), None),
    "ivory": ((0.93, 0.87, 0.72), (0.12, 0.08, 0.05), None),
    "asian": ((0.96, 0.96, 0.95), (0.05, 0.05, 0.1), (0.8, 0.05, 0.05)),
    "translucent": ((0.8, 0.1, 0.1), (0.97, 0.97, 0.97), None),
}
# (tint, pip colour): a clear die has dark pips, as real clear dice do; white pips on it were
# invisible in the renders, labelled dice no judge could read
_WHITE_PIPS = (0.97, 0.97, 0.97)
_TRANSLUCENT_TINTS = (((0.8, 0.1, 0.1), _WHITE_PIPS), ((0.1, 0.55, 0.2), _WHITE_PIPS),
                      ((0.1, 0.25, 0.8), _WHITE_PIPS), ((0.9, 0.6, 0.05), _WHITE_PIPS),
                      ((0.85, 0.85, 0.9), (0.06, 0.06, 0.08)))
TRAY_KINDS = ("felt", "leather", "wood", "cloth", "plain")
MARBLED_SHARE = 0.5  # of a heap's dice: photographs' heaps are often of dice from sets


@dataclass(frozen=True)
class DieLook:
    style: str
    body: RGBA
    pip: RGBA
    accent: RGBA
    specular: float
    shininess: float
    veins: tuple[float, float, float] | None = None  # a marbled body's second colour
    pattern_seed: int = 0  # where its veins run


@dataclass(frozen=True)
class Camera:
    lookat: tuple[float, float, float]
    distance: float
    azimuth_deg: float  # 0: camera on the +x side (beyond the tray), looking back at the box
    elevation_deg: float  # 90: straight down
    fovy_deg: float
    roll_deg: float = 0.0
    follow: float = 0.0  # 0: aim at `lookat`; 1: at the dice (see `aimed`)

    def aimed(self, focus: tuple[float, float]) -> Camera:
        """The camera with its aim moved `follow` of the way toward `focus` (x, y)."""
        f = self.follow
        x, y, z = self.lookat
        return dataclasses.replace(self, lookat=(x + f * (focus[0] - x), y + f * (focus[1] - y),
                                                 z), follow=0.0)

    def pose(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Camera position and 3x3 rotation (columns: right, up, backward), MuJoCo's frame."""
        el, az = math.radians(self.elevation_deg), math.radians(self.azimuth_deg)
        back = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        pos = np.array(self.lookat) + self.distance * back
        # "up" in the image points away from the camera along the ground, toward the box
        world_up = np.array([-math.cos(az), -math.sin(az), 0.0]) if el > math.radians(89.0) \
            else np.array([0.0, 0.0, 1.0])
        right = np.cross(world_up, back)
        right /= np.linalg.norm(right)
        up = np.cross(back, right)
        roll = math.radians(self.roll_deg)
        right, up = (math.cos(roll) * right + math.sin(roll) * up,
                     -math.sin(roll) * right + math.cos(roll) * up)
        return pos, np.stack([right, up, back], axis=1)


@dataclass(frozen=True)
class Light:
    azimuth_deg: float
    elevation_deg: float
    intensity: float
    colour: tuple[float, float, float]
    shadows: bool
    ambient: float
    fill: float


@dataclass(frozen=True)
class Effects:
    blur_sigma: float  # Gaussian blur, pixels (0: none)
    motion_px: int  # motion blur length (0: none)
    motion_deg: float
    noise_sigma: float  # Gaussian noise, 0-255 scale
    gain: float  # brightness multiplier
    gamma: float
    jpeg_quality: int


@dataclass(frozen=True)
class Style:
    dice: tuple[DieLook, ...]
    tray_kind: str
    tray_colour: tuple[float, float, float]
    table_kind: str
    table_colour: tuple[float, float, float]
    wood_colour: tuple[float, float, float]
    tray_friction: float
    camera: Camera
    light: Light
    effects: Effects
    texture_seed: int
    pip_scale: float = 1.0

    def summary(self) -> dict[str, Any]:
        c = self.camera
        return {"dice": [d.style for d in self.dice], "tray": self.tray_kind,
                "shadows": self.light.shadows, "elevation_deg": round(c.elevation_deg, 1),
                "blur": round(self.effects.blur_sigma, 2), "motion_px": self.effects.motion_px,
                "noise": round(self.effects.noise_sigma, 2), "jpeg": self.effects.jpeg_quality}


def _jitter(rng: np.random.Generator, colour: tuple[float, ...], amount: float) -> np.ndarray:
    return np.clip(np.array(colour) + rng.normal(0, amount, 3), 0.0, 1.0)


def _rgba(rgb: np.ndarray, alpha: float) -> RGBA:
    return (float(rgb[0]), float(rgb[1]), float(rgb[2]), alpha)


def sample_die_look(rng: np.random.Generator, style: str | None = None) -> DieLook:
    style = style or str(rng.choice(list(DICE_STYLES), p=[0.3, 0.18, 0.14, 0.14, 0.1, 0.14]))
    body, pip, accent = DICE_STYLES[style]
    alpha = 1.0
    if style == "translucent":
        body, pip = _TRANSLUCENT_TINTS[int(rng.integers(len(_TRANSLUCENT_TINTS)))]
        alpha = float(rng.uniform(0.55, 0.8))
    b = _jitter(rng, body, 0.03)
    p = _jitter(rng, pip, 0.03)
    a = _jitter(rng, accent, 0.03) if accent is not None else p
    return DieLook(style=style, body=_rgba(b, alpha), pip=_rgba(p, 1.0),
                   accent=_rgba(a, 1.0), specular=float(rng.uniform(0.1, 0.8)),
                   shininess=float(rng.uniform(0.2, 0.9)))


def sample_style(rng: np.random.Generator, top_down: bool = False,
                 into_box: bool = False) -> Style:
    """A random style; `top_down`: a fixed straight-down camera; `into_box`: a lower camera
    beyond the tray that looks into the exit of the box (to see dice stalled there)."""
    first = sample_die_look(rng)
    second = sample_die_look(rng, first.style) if rng.random() < 0.85 else sample_die_look(rng)
    tray_kind = str(rng.choice(TRAY_KINDS))
    tray_colour = _tray_colour(rng, tray_kind)
    wood = _jitter(rng, (0.45, 0.27, 0.12), 0.12)
    table_kind = str(rng.choice(["wood", "plain", "cloth", "leather"]))
    table = _tray_colour(rng, table_kind)
    if top_down:
        camera = Camera(lookat=(0.12, 0.0, 0.0), distance=0.36, azimuth_deg=0.0,
                        elevation_deg=90.0, fovy_deg=45.0)
    elif into_box:
        camera = Camera(lookat=(float(rng.uniform(0.0, 0.06)), float(rng.uniform(-0.02, 0.02)),
                                0.01),
                        distance=float(rng.uniform(0.25, 0.4)),
                        azimuth_deg=float(rng.normal(0.0, 12.0)),
                        elevation_deg=float(rng.uniform(25.0, 50.0)),
                        fovy_deg=float(rng.uniform(38.0, 50.0)), roll_deg=float(rng.normal(0, 3)),
                        follow=float(rng.uniform(0.0, 0.4)))
    else:
        camera = Camera(
            lookat=(float(rng.uniform(0.08, 0.17)), float(rng.uniform(-0.03, 0.03)), 0.0),
            distance=float(rng.uniform(0.24, 0.45)),
            azimuth_deg=float(rng.normal(0.0, 25.0)),
            elevation_deg=float(min(90.0, rng.uniform(45.0, 100.0))),
            fovy_deg=float(rng.uniform(38.0, 55.0)),
            roll_deg=float(rng.normal(0.0, 4.0)), follow=float(rng.uniform(0.3, 0.9)))
    light = Light(azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(35, 88)),
                  intensity=float(rng.uniform(0.35, 0.95)),
                  colour=tuple(map(float, _jitter(rng, (1.0, 0.97, 0.92), 0.04))),  # type: ignore[arg-type]
                  shadows=bool(rng.random() < 0.6), ambient=float(rng.uniform(0.12, 0.4)),
                  fill=float(rng.uniform(0.0, 0.35)))
    effects = Effects(
        blur_sigma=float(rng.uniform(0.3, 1.4)) if rng.random() < 0.4 else 0.0,
        motion_px=int(rng.integers(3, 9)) if rng.random() < 0.12 else 0,
        motion_deg=float(rng.uniform(0, 180)),
        noise_sigma=float(rng.uniform(0.0, 7.0)),
        gain=float(rng.uniform(0.8, 1.2)), gamma=float(rng.uniform(0.85, 1.15)),
        jpeg_quality=int(rng.integers(55, 96)))
    return Style(dice=(first, second), tray_kind=tray_kind,
                 tray_colour=tuple(map(float, tray_colour)),  # type: ignore[arg-type]
                 table_kind=table_kind,
                 table_colour=tuple(map(float, table)),  # type: ignore[arg-type]
                 wood_colour=tuple(map(float, wood)),  # type: ignore[arg-type]
                 tray_friction=float(rng.uniform(0.4, 0.9)), camera=camera, light=light,
                 effects=effects, texture_seed=int(rng.integers(2**31)),
                 pip_scale=float(rng.uniform(0.8, 1.25)))


def sample_pile_style(rng: np.random.Generator, dice: int) -> Style:
    """A style for a heap of `dice` dice as a photograph shows one: dice of one style or of
    many, a camera close to the heap (the dice 15-60 pixels across at 640x480), from any side
    but the box's and from overhead down to 30 degrees."""
    base = sample_style(rng)
    same = rng.random() < 0.4
    first = sample_die_look(rng)
    looks = tuple(_marbled(rng, look) if rng.random() < MARBLED_SHARE else look
                  for look in (first, *(sample_die_look(rng, first.style if same else None)
                                        for _ in range(dice - 1))))
    camera = Camera(lookat=(0.13, 0.0, 0.0), distance=float(rng.uniform(0.12, 0.35)),
                    azimuth_deg=float(rng.uniform(-110.0, 110.0)),
                    elevation_deg=float(rng.uniform(30.0, 90.0)),
                    fovy_deg=float(rng.uniform(35.0, 70.0)), roll_deg=float(rng.normal(0, 8)),
                    follow=1.0)
    return dataclasses.replace(base, dice=looks, camera=camera)


def _marbled(rng: np.random.Generator, look: DieLook) -> DieLook:
    """The look with veins of another colour through its body, as many dice sold in sets
    have; the veins are drawn towards the body's brightness, so the pips keep most of their
    contrast."""
    body = np.array(look.body[:3])
    other = rng.uniform(0.0, 1.0, 3)
    other += (luminance(body) - luminance(other)) * rng.uniform(0.6, 1.0)
    veins = np.clip(0.2 * body + 0.8 * other, 0.0, 1.0)
    return dataclasses.replace(look, veins=(float(veins[0]), float(veins[1]), float(veins[2])),
                               pattern_seed=int(rng.integers(2**31)))


def luminance(rgb: Sequence[float] | np.ndarray) -> float:
    """A colour's brightness as the eye weighs it (its first three channels, 0-1)."""
    return float(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2])


def _tray_colour(rng: np.random.Generator, kind: str) -> np.ndarray:
    palette = {"felt": [(0.08, 0.35, 0.15), (0.45, 0.06, 0.08), (0.08, 0.15, 0.4),
                        (0.1, 0.1, 0.1), (0.6, 0.55, 0.45)],
               "leather": [(0.35, 0.18, 0.08), (0.1, 0.08, 0.06), (0.55, 0.4, 0.25)],
               "wood": [(0.55, 0.35, 0.18), (0.3, 0.17, 0.08), (0.75, 0.6, 0.4)],
               "cloth": [(0.2, 0.3, 0.5), (0.5, 0.45, 0.4), (0.15, 0.35, 0.2)],
               "plain": [(0.85, 0.85, 0.82), (0.2, 0.2, 0.22), (0.5, 0.5, 0.5)]}[kind]
    return _jitter(rng, palette[int(rng.integers(len(palette)))], 0.05)


def make_texture(kind: str, colour: tuple[float, float, float], seed: int,
                 size: int = TEXTURE_SIZE) -> NDArray[np.uint8]:
    """A (size, size, 3) RGB texture of the kind, tileable enough for a tray lining."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) / size
    base = np.array(colour)[None, None, :]
    if kind == "felt":
        shade = 1.0 + 0.08 * rng.standard_normal((size, size))
    elif kind == "leather":
        cells = rng.standard_normal((size // 8, size // 8))
        shade = 1.0 + 0.1 * np.kron(cells, np.ones((8, 8))) + 0.04 * rng.standard_normal(
            (size, size))
    elif kind == "wood":
        phase = rng.uniform(0, 2 * np.pi)
        grain = np.cumsum(rng.standard_normal(size), axis=0)[None, :] * 0.02
        rings = np.sin(2 * np.pi * (x * 4 + grain + 0.15 * np.sin(2 * np.pi * y + phase)))
        shade = 1.0 + 0.08 * rings + 0.04 * np.kron(rng.standard_normal((size, size // 16)),
                                                     np.ones((1, 16)))
    elif kind == "cloth":
        weave = np.sin(2 * np.pi * x * 64) * np.sin(2 * np.pi * y * 64)
        shade = 1.0 + 0.1 * weave + 0.04 * rng.standard_normal((size, size))
    else:
        shade = 1.0 + 0.015 * rng.standard_normal((size, size))
    image = np.clip(base * shade[..., None], 0.0, 1.0)
    return (image * 255).astype(np.uint8)


def marble_texture(look: DieLook, size: int) -> NDArray[np.uint8]:
    """A marbled die's six faces as a MuJoCo cube texture, (6 * size, size, 3) RGB: its body
    colour with thin veins of `look.veins` bent by smooth noise."""
    if look.veins is None:
        raise ValueError("the look has no veins")
    rng = np.random.default_rng(look.pattern_seed)
    body, veins = np.array(look.body[:3]), np.array(look.veins)
    faces = []
    for _ in range(6):
        flow = value_noise(rng, size, size, float(rng.uniform(size / 5, size / 2)))
        vein = (0.5 + 0.5 * np.sin(2 * np.pi * flow * rng.uniform(2.0, 5.0))) ** 2
        faces.append(body * (1.0 - vein[..., None]) + veins * vein[..., None])
    return np.asarray(np.clip(np.concatenate(faces), 0.0, 1.0) * 255, dtype=np.uint8)
