"""Top-down (2.5D) drawing of a board in the canonical frame of `layout.py`. BGR uint8.

`draw_board` paints the bare board once per design (frame, trays, field, points, bar);
`checker_sprite` makes one shaded checker (top face, visible side, cast shadow) with
premultiplied colour and alpha; `paste` lays sprites onto a copy of the bare board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.layout import BoardGeometry, FloatArray
from synth.board.style import BGR, BoardStyle, CheckerLook
from synth.board.textures import Image, surface, value_noise

Float = npt.NDArray[np.float32]
_SHIFT = 4  # sub-pixel bits for cv2 polygons
_ONE = 1 << _SHIFT


@dataclass(frozen=True, slots=True)
class Canvas:
    """A drawn board: `image` covers the board's outer frame; `px` maps field units to it."""

    image: Image
    scale: float  # pixels per field unit
    origin: tuple[float, float]  # field-unit coordinates of the image's top-left pixel corner

    def px(self, pts: FloatArray) -> FloatArray:
        return np.asarray((np.asarray(pts, float) - np.array(self.origin)) * self.scale, float)

    def units_to_px(self) -> FloatArray:
        """3x3 matrix taking field units to canvas pixels."""
        ox, oy = self.origin
        s = self.scale
        return np.array([[s, 0.0, -ox * s], [0.0, s, -oy * s], [0.0, 0.0, 1.0]])


def board_extent(style: BoardStyle) -> tuple[float, float, float, float]:
    """The board's outer frame in field units: (x0, y0, x1, y1)."""
    g, fw = style.geometry, style.frame_width
    side = g.tray_gap + g.tray_width + fw
    return (-side, -fw, g.width + side, g.height + fw)


def _poly(img: Image, pts: FloatArray, colour: BGR) -> None:
    cv2.fillPoly(img, [np.round(pts * _ONE).astype(np.int32)], colour, cv2.LINE_AA, _SHIFT)


def _rect(img: Image, canvas_px: FloatArray, colour: BGR) -> None:
    (x0, y0), (x1, y1) = canvas_px
    _poly(img, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), colour)


def _point_shape(tri: FloatArray, power: float, rounded: float, n: int = 10) -> FloatArray:
    """A triangle with curved sides (power < 1 bulges, > 1 narrows to a slim tip), its tip
    rounded off with a radius of `rounded` half-widths (0: sharp)."""
    (xl, yb), (xr, _), (xa, ya) = tri
    hw = (xr - xl) / 2
    t_end = 1 - rounded ** (1 / power) if rounded > 0 else 1.0
    t = np.linspace(0.0, t_end, n)
    half = hw * (1 - t) ** power
    y = yb + (ya - yb) * t
    left = np.stack([xa - half, y], 1)
    right = np.stack([xa + half, y], 1)[::-1]
    if rounded <= 0:
        return np.concatenate([left, right])
    r, towards = hw * rounded, np.sign(ya - yb)
    a = np.linspace(np.pi, 0.0, 9)
    arc = np.stack([xa + r * np.cos(a), y[-1] + towards * r * np.sin(a)], 1)
    return np.concatenate([left, arc, right])


def _darker(colour: BGR, f: float) -> BGR:
    return (int(colour[0] * f), int(colour[1] * f), int(colour[2] * f))


def draw_board(style: BoardStyle, scale: float, rng: np.random.Generator) -> Canvas:
    """Paint the bare board (no checkers) at `scale` pixels per field unit."""
    g = style.geometry
    x0, y0, x1, y1 = board_extent(style)
    w, h = math.ceil((x1 - x0) * scale), math.ceil((y1 - y0) * scale)
    canvas = Canvas(np.zeros((h, w, 3), np.uint8), scale, (x0, y0))
    img = canvas.image
    img[:] = surface(rng, h, w, style.frame, style.frame_surface)
    for side in ("left", "right"):
        tx0, ty0, tx1, ty1 = g.tray_rect(side)
        tray = canvas.px(np.array([[tx0, ty0], [tx1, ty1]]))
        _rect(img, tray + np.array([[-3, -3], [3, 3]]), _darker(style.frame, 0.55))
        _rect(img, tray, _darker(style.field if rng.random() < 0.5 else style.frame, 0.8))
    fx0, fy0 = canvas.px(np.array([[0.0, 0.0]]))[0]
    fx1, fy1 = canvas.px(np.array([[g.width, g.height]]))[0]
    ix0, iy0, ix1, iy1 = int(fx0), int(fy0), math.ceil(fx1), math.ceil(fy1)
    img[iy0:iy1, ix0:ix1] = surface(rng, iy1 - iy0, ix1 - ix0, style.field, style.field_surface)
    outline_px = max(1, round(scale * 3))
    for p in range(1, 25):
        col = g.column(p)
        top = g.half_of(p) == "top"
        colour = style.triangles[(col + (0 if top else 1)) % 2]
        tri = g.triangle(p)
        if style.base_width != 1.0:  # narrower base, same tip
            tri = np.array(tri, float)
            tri[:2, 0] = tri[2, 0] + (tri[:2, 0] - tri[2, 0]) * style.base_width
        shape = canvas.px(_point_shape(tri, style.tip_power, style.tip_round))
        _poly(img, shape, colour)
        if style.outline is not None:
            cv2.polylines(img, [np.round(shape * _ONE).astype(np.int32)], True, style.outline,
                          outline_px, cv2.LINE_AA, _SHIFT)
    bx0, by0, bx1, by1 = g.bar_rect()
    bar = canvas.px(np.array([[bx0, by0], [bx1, by1]]))
    _rect(img, bar, style.bar)
    edge = _darker(style.frame, 0.4)
    for hx0, hy0, hx1, hy1 in g.half_rects():
        r = np.round(canvas.px(np.array([[hx0, hy0], [hx1, hy1]]))).astype(int)
        cv2.rectangle(img, tuple(r[0]), tuple(r[1]), edge, max(1, round(scale * 4)))
    if style.hinges:
        _hinges(canvas, g)
    if style.logo:
        _logos(canvas, g, style, rng)
    return canvas


def _hinges(canvas: Canvas, g: BoardGeometry) -> None:
    cx = g.half_width + g.bar_width / 2
    hw = max(g.bar_width * 0.6, 14.0)
    for fy in (0.14, 0.86):
        cy = g.height * fy
        box = canvas.px(np.array([[cx - hw, cy - 45], [cx + hw, cy + 45]]))
        _rect(canvas.image, box, (60, 160, 200))
        _rect(canvas.image, box + np.array([[2, 2], [-2, -2]]), (90, 190, 220))


def _logos(canvas: Canvas, g: BoardGeometry, style: BoardStyle, rng: np.random.Generator) -> None:
    colour = _darker(style.field, float(rng.uniform(0.55, 0.85)))
    text = "".join(chr(int(c)) for c in rng.integers(97, 123, int(rng.integers(2, 5))))
    for hx0, _, hx1, _ in g.half_rects():
        cx, cy = (hx0 + hx1) / 2, g.height / 2
        s = g.point_width * 0.9
        box = canvas.px(np.array([[cx - s, cy - s * 0.8], [cx + s, cy + s * 0.8]]))
        _rect(canvas.image, box, colour)
        org = (int(box[0, 0] + 4), int((box[0, 1] + box[1, 1]) / 2 + 6))
        cv2.putText(canvas.image, text, org, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                    max(0.4, canvas.scale * s / 60), style.field, 2, cv2.LINE_AA)


@dataclass(frozen=True, slots=True)
class Sprite:
    """A checker image centred at (half, half): premultiplied BGR and alpha, float32."""

    colour: Float
    alpha: Float
    half: int


def checker_sprite(look: CheckerLook, diameter: float, light: tuple[float, float],
                   shadow: tuple[float, float], side: tuple[float, float],
                   rng: np.random.Generator, *, real: float = 0.0) -> Sprite:
    """One checker `diameter` pixels across, lit from direction `light` (unit vector).

    `shadow` and `side` are pixel offsets of the cast shadow and of the checker's base (its
    side shows between base and top face, as seen by a tilted camera). `real` (0-1) adds the
    look of real tournament checkers: a raised ring and a recessed centre, a dark rim and a
    darker side, blotchy reflections of the room (strong on metal) and bright glints.
    """
    r = diameter / 2
    half = math.ceil(r + max(math.hypot(*shadow), math.hypot(*side)) + 3)
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(np.float32)
    dist = np.hypot(xx, yy)
    rel = dist / r
    top_a = np.clip(r - dist + 0.5, 0, 1)
    sx, sy = side
    seg = max(sx * sx + sy * sy, 1e-6)
    t = np.clip((xx * sx + yy * sy) / seg, 0, 1)
    side_a = np.clip(r - np.hypot(xx - t * sx, yy - t * sy) + 0.5, 0, 1)
    blur = max(1.5, r * 0.15)
    sh_d = np.hypot(xx - shadow[0], yy - shadow[1])
    shadow_a = float(rng.uniform(0.25, 0.55)) * np.clip((r + blur - sh_d) / (2 * blur), 0, 1)

    base = np.array(look.colour, np.float32)
    lx, ly = light
    with np.errstate(invalid="ignore", divide="ignore"):
        facing = np.nan_to_num((xx * lx + yy * ly) / dist)
    rim = np.clip((rel - 0.8) / 0.2, 0, 1)
    shade = 1 + 0.35 * rim * facing - 0.12 * rim
    groove = float(rng.uniform(0.55, 0.8))
    shade -= float(rng.uniform(0.05, 0.2)) * np.exp(-(((rel - groove) / 0.04) ** 2))
    spec_amp = {"plastic": 0.25, "pearl": 0.35, "metal": 0.55, "wood": 0.1}[look.finish]
    if look.finish == "metal":
        shade *= 0.75 + 0.3 * np.cos(rel * float(rng.uniform(6, 11))) ** 2
    elif look.finish == "pearl":
        swirl = value_noise(rng, 2 * half + 1, 2 * half + 1, max(2.0, r / 3))
        shade *= 0.9 + 0.2 * swirl
    elif look.finish == "wood":
        shade *= 0.92 + 0.08 * np.sin(xx * 0.8 + 3 * value_noise(rng, 2 * half + 1,
                                                                  2 * half + 1, r))
    sd = np.hypot(xx + lx * r * 0.45, yy + ly * r * 0.45)
    spec = spec_amp * np.exp(-((sd / (r * 0.25)) ** 2)) * (rel < 0.95)
    side_colour = base * 0.55
    if real > 0:
        shade, spec, side_colour = _real_finish(look, rel, xx, yy, r, half, shade, spec,
                                                base, real, rng)
    top = np.clip(shade[..., None] * base + 255 * spec[..., None], 0, 255)
    alpha = top_a + (1 - top_a) * side_a
    colour = top * top_a[..., None] + side_colour * ((1 - top_a) * side_a)[..., None]
    full = alpha + (1 - alpha) * shadow_a
    return Sprite(colour.astype(np.float32), full.astype(np.float32), half)


def _real_finish(look: CheckerLook, rel: Float, xx: Float, yy: Float, r: float, half: int,
                 shade: Float, spec: Float, base: Float, real: float,
                 rng: np.random.Generator) -> tuple[Float, Float, Float]:
    """Shading of real checkers (the stream's gold and pearl ones, turned wood)."""
    n = 2 * half + 1
    metal = look.finish == "metal"
    # Raised ring and recessed centre (turned checkers), a thin bright lip at the edge.
    ring_at = float(rng.uniform(0.55, 0.8))
    ring = np.exp(-(((rel - ring_at) / float(rng.uniform(0.05, 0.1))) ** 2))
    lip = np.exp(-(((rel - 0.92) / 0.03) ** 2))
    inner = rel < ring_at
    shade = shade * (1 + real * (0.25 * ring + 0.15 * lip - float(rng.uniform(0.0, 0.2)) * inner))
    # Reflections of the room: large blotches, dark ones on metal (brown streaks on gold).
    env = value_noise(rng, n, n, max(2.0, r / float(rng.uniform(0.8, 2.0)))) - 0.5
    amount = real * (float(rng.uniform(0.6, 1.2)) if metal else float(rng.uniform(0.1, 0.4)))
    shade = shade * np.clip(1 + amount * env * 2, 0.25, 1.6)
    # Dark rim: the bevel turns away from the camera.
    edge = np.clip((rel - float(rng.uniform(0.82, 0.92))) / 0.1, 0, 1)
    shade = shade * (1 - real * float(rng.uniform(0.2, 0.55)) * edge)
    # Glints: a few small hot spots.
    spec = spec * (1 - 0.5 * real)
    for _ in range(int(rng.integers(1, 5))):
        a, d = float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(0.0, 0.85)) * r
        size = r * float(rng.uniform(0.05, 0.2))
        blob = np.exp(-((np.hypot(xx - d * math.cos(a), yy - d * math.sin(a)) / size) ** 2))
        spec = spec + real * float(rng.uniform(0.3, 0.9 if metal else 0.6)) * blob * (rel < 0.97)
    side_colour = base * float(rng.uniform(0.2, 0.5))
    return shade.astype(np.float32), spec.astype(np.float32), side_colour


def paste(img: Image, sprite: Sprite, centre: tuple[float, float]) -> None:
    """Composite a sprite onto `img` (in place) with its centre at the nearest pixel."""
    cx, cy = round(centre[0]), round(centre[1])
    h, w = img.shape[:2]
    s = sprite.half
    x0, y0, x1, y1 = cx - s, cy - s, cx + s + 1, cy + s + 1
    ox0, oy0 = max(0, -x0), max(0, -y0)
    ox1, oy1 = (x1 - x0) - max(0, x1 - w), (y1 - y0) - max(0, y1 - h)
    if ox1 <= ox0 or oy1 <= oy0:
        return
    roi = img[y0 + oy0:y0 + oy1, x0 + ox0:x0 + ox1]
    a = sprite.alpha[oy0:oy1, ox0:ox1, None]
    out = roi.astype(np.float32) * (1 - a) + sprite.colour[oy0:oy1, ox0:ox1]
    roi[:] = out.astype(np.uint8)  # premultiplied: never above 255


PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def draw_die(img: Image, centre: tuple[float, float], size: float, angle: float, value: int,
             body: BGR, pip: BGR) -> None:
    """A die lying on the board seen from above (a distractor: not a checker)."""
    box = cv2.boxPoints(((centre[0], centre[1]), (size, size), angle))
    _poly(img, np.asarray(box, float) + np.array([size * 0.06, size * 0.06]), (20, 20, 20))
    _poly(img, np.asarray(box, float), body)
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for px, py in PIPS[value]:
        dx, dy = px * size * 0.27, py * size * 0.27
        x, y = centre[0] + c * dx - s * dy, centre[1] + s * dx + c * dy
        cv2.circle(img, (round(x * _ONE), round(y * _ONE)), round(size * 0.09 * _ONE), pip, -1,
                   cv2.LINE_AA, _SHIFT)
