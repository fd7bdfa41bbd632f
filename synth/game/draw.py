"""Drawing what moves in a game video, in image pixels: dice, the hand, the clock. BGR uint8.

Everything here is a handful of OpenCV polygon and circle calls, cheap enough for every
frame: the board and its resting checkers come from a cached background instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from calibration.layout import FloatArray
from referee.position import Side
from synth.board.draw import PIPS
from synth.board.hand import Mask
from synth.board.textures import Image

BGR = tuple[int, int, int]
Pose = Literal["flat", "cocked", "rolling"]
_SHIFT = 4
_ONE = 1 << _SHIFT


@dataclass(frozen=True, slots=True)
class DieLook:
    body: BGR
    pip: BGR


@dataclass(frozen=True, slots=True)
class DieState:
    """One die in a frame: its top value, centre (pixels), angle (degrees) and pose.

    A cocked die stands on an edge: the camera sees two faces, `value` and `side`, each
    foreshortened; a rolling die is drawn smaller and blurred toward a cocked shape.
    """

    value: int
    centre: tuple[float, float]
    angle: float
    pose: Pose = "flat"
    side: int = 2


@dataclass(frozen=True, slots=True)
class HandLook:
    skin: BGR
    sleeve: BGR
    width: float  # palm width in pixels


def _poly(img: Image, pts: FloatArray, colour: BGR) -> None:
    cv2.fillPoly(img, [np.round(pts * _ONE).astype(np.int32)], colour, cv2.LINE_AA, _SHIFT)


def _shade(colour: BGR, f: float) -> BGR:
    return (min(255, int(colour[0] * f)), min(255, int(colour[1] * f)),
            min(255, int(colour[2] * f)))


def _face(img: Image, centre: FloatArray, u: FloatArray, v: FloatArray, value: int,
          body: BGR, pip: BGR, size: float) -> None:
    """A die face: centre, half-axis vectors u and v (pixels), pips on it."""
    corners = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    _poly(img, corners, body)
    inner = np.array([centre - 0.8 * (u + v) + 0.0, centre + 0.8 * (u - v),
                      centre + 0.8 * (u + v), centre - 0.8 * (u - v)])
    _poly(img, inner, _shade(body, 1.06))
    r = size * 0.09 * min(1.0, float(np.linalg.norm(v)) / max(float(np.linalg.norm(u)), 1e-6))
    for px, py in PIPS[value]:
        c = centre + u * px * 0.55 + v * py * 0.55
        cv2.circle(img, (round(c[0] * _ONE), round(c[1] * _ONE)), max(_ONE, round(r * _ONE)),
                   pip, -1, cv2.LINE_AA, _SHIFT)


def draw_die(img: Image, die: DieState, size: float, look: DieLook) -> None:
    """A die seen from above: flat (one face), cocked (two faces) or rolling."""
    a = math.radians(die.angle)
    u = np.array([math.cos(a), math.sin(a)]) * size / 2
    v = np.array([-math.sin(a), math.cos(a)]) * size / 2
    c = np.array(die.centre, float)
    if die.pose == "flat":
        shadow = c + np.array([size * 0.08, size * 0.1])
        _poly(img, np.array([shadow - u - v, shadow + u - v, shadow + u + v, shadow - u + v]),
              (15, 25, 15))
        _poly(img, np.array([c - u - v, c + u - v, c + u + v, c - u + v]) * 1.0,
              _shade(look.body, 0.7))
        _face(img, c, u * 0.94, v * 0.94, die.value, look.body, look.pip, size)
        return
    # Standing on an edge along u: two faces, each cos(45 deg) as deep, one lit, one shaded.
    k = 0.71 if die.pose == "cocked" else 0.55
    shadow = c + np.array([size * 0.25, size * 0.3])
    _poly(img, np.array([shadow - u - v * 1.4, shadow + u - v * 1.4, shadow + u + v * 1.4,
                         shadow - u + v * 1.4]), (15, 25, 15))
    _face(img, c - v * k, u, v * k, die.value, look.body, look.pip, size)
    _face(img, c + v * k, u, v * k, die.side, _shade(look.body, 0.72), _shade(look.pip, 0.8),
          size)
    p0, p1 = c - u, c + u
    cv2.line(img, (round(p0[0]), round(p0[1])), (round(p1[0]), round(p1[1])),
             _shade(look.body, 0.5), 1, cv2.LINE_AA)


def hand_parts(target: tuple[float, float], edge: Literal["top", "bottom"], height: int,
               look: HandLook) -> tuple[FloatArray, list[tuple[FloatArray, FloatArray, float]]]:
    """The arm and hand reaching from the player's edge to `target` (the fingertips).

    Returns the arm's polygon and the fingers and palm as capsules (start, end, thickness).
    """
    t = np.array(target, float)
    y_edge = -0.15 * height if edge == "top" else 1.15 * height
    start = np.array([t[0] + (0.12 * height if edge == "top" else -0.12 * height), y_edge])
    d = t - start
    d /= max(float(np.linalg.norm(d)), 1e-6)
    n = np.array([-d[1], d[0]])
    pw = look.width
    knuckles = t - d * pw * 0.7
    wrist = knuckles - d * pw * 1.1
    arm = np.array([start - n * pw * 0.5, wrist - n * pw * 0.38, wrist + n * pw * 0.38,
                    start + n * pw * 0.5])
    parts = [(wrist, knuckles, pw * 0.95)]
    for f in (-0.33, -0.11, 0.11, 0.33):
        base = knuckles + n * pw * f
        tip = t + n * pw * f * 1.2 - d * pw * (0.12 if abs(f) > 0.3 else 0.0)
        parts.append((base, tip, pw * 0.2))
    thumb = wrist + d * pw * 0.4 + n * pw * 0.45
    parts.append((thumb, thumb + (d * 0.5 + n * 0.6) * pw * 0.6, pw * 0.24))
    return arm, parts


def draw_hand(img: Image | Mask, target: tuple[float, float], edge: Literal["top", "bottom"],
              look: HandLook, mask: bool = False) -> None:
    """Draw the arm and hand (or, with `mask`, fill them with 255 on a one-channel mask)."""
    arm, parts = hand_parts(target, edge, img.shape[0], look)
    sleeve: BGR = (255, 255, 255) if mask else look.sleeve
    skin: BGR = (255, 255, 255) if mask else look.skin
    dark: BGR = (255, 255, 255) if mask else _shade(look.skin, 0.75)
    _poly(img, arm, sleeve)
    for (a, b, thick), colour in zip(parts, [dark] + [skin] * (len(parts) - 1), strict=True):
        cv2.line(img, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), colour,
                 max(2, round(thick)), cv2.LINE_AA)
    if not mask:
        a, b, thick = parts[0]
        cv2.line(img, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), skin,
                 max(2, round(thick * 0.8)), cv2.LINE_AA)


def draw_clock(img: Image, buttons: dict[Side, tuple[int, int, int, int]],
               displays: dict[Side, tuple[int, int, int, int]], lit: Side | None,
               pressed: Side | None, seconds: dict[Side, int]) -> None:
    """The clock's buttons (the running side's up, the other down), lamp and displays."""
    for side, (x0, y0, x1, y1) in buttons.items():
        down = side is pressed or (pressed is None and side is not lit and lit is not None)
        top = y0 + (y1 - y0) // 2 if down else y0
        cv2.rectangle(img, (x0 - 2, y0 - 2), (x1 + 2, y1), (45, 45, 48), -1)
        cv2.rectangle(img, (x0, top), (x1, y1), (70, 70, 75) if down else (200, 200, 205), -1)
        dx0, dy0, dx1, dy1 = displays[side]
        running = side is lit and pressed is None
        cv2.rectangle(img, (dx0, dy0), (dx1, dy1), (90, 200, 110) if running else (60, 90, 70),
                      -1)
        s = max(0, seconds[side])
        text = f"{s // 60:02d}:{s % 60:02d}"
        scale = (dx1 - dx0) / 110
        cv2.putText(img, text, (dx0 + (dx1 - dx0) // 10, dy1 - (dy1 - dy0) // 4),
                    cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 30, 20), max(1, round(scale * 2)),
                    cv2.LINE_AA)
        lamp = (dx0 + (dx1 - dx0) // 2, dy0 - max(3, (dy0 - y1) // 2))
        cv2.circle(img, lamp, max(2, (dx1 - dx0) // 14),
                   (40, 40, 230) if running else (40, 40, 60), -1, cv2.LINE_AA)
