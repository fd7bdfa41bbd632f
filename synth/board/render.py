"""Whole scenes: a board design on a table, a camera, a position from a random game, a hand.

A `BoardRenderer` draws a sequence of scenes from one seed. Scenes come in short "sessions"
(one board, table, light and camera, as at a real table) so that the costly bare board is
painted once and reused; each scene has its own position, camera drift, hand and noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.layout import BoardGeometry, Half, TraySide
from calibration.numbering import CORNERS, Layout
from referee.position import BAR, OFF, Position, Side, Variant
from synth.board.camera import (
    CameraPose,
    homography,
    jitter_pose,
    light_and_lens,
    project,
    random_pose,
    table,
)
from synth.board.draw import (
    Canvas,
    Sprite,
    board_extent,
    checker_sprite,
    draw_board,
    draw_die,
    paste,
)
from synth.board.hand import covered_share, draw_hand
from synth.board.scene import COLOUR_OF, Placement, image_counts, place, random_game, spread_bar
from synth.board.style import BoardStyle, random_style, real_checkers
from synth.board.textures import Image

OCCLUDED_SHARE = 0.25  # a point is occluded when a hand covers this share of its checker area
HIDDEN_SHARE = 0.5  # a checker is hidden when a hand covers this share of its disc
DICE_RATE = 0.4  # share of scenes with dice lying on the field
DICE_COLOURS = [(245, 245, 245), (150, 110, 240), (120, 200, 90), (40, 40, 200), (30, 30, 30),
                (60, 200, 230)]


@dataclass(slots=True)
class _Session:
    style: BoardStyle
    layout: Layout
    pose: CameraPose
    canvas: Canvas
    sprites: dict[Side, list[Sprite]]
    background: Image
    game: list[Position]
    white_bar_half: Half
    left: int


@dataclass(frozen=True, slots=True)
class Scene:
    image: Image
    label: dict[str, Any]


class BoardRenderer:
    """Deterministic scenes for one seed: `next_scene()` again and again."""

    def __init__(self, seed: int | Sequence[int], size: tuple[int, int] = (1280, 720),
                 variants: tuple[Variant, ...] = (Variant.LONG, Variant.SHORT),
                 hand_rate: float = 0.3, session_length: int = 8, effects: bool = True,
                 head_rate: float = 0.0, real_look: float = 0.0,
                 narrow_points: float = 0.0, bar_spread: float = 0.0) -> None:
        self.rng = np.random.default_rng(seed)
        self.size = size
        self.variants = variants
        self.hand_rate = hand_rate
        self.session_length = session_length
        self.effects = effects  # lighting, glare, blur and noise (off for exact-colour tests)
        # Training data only (0 keeps the default scenes): the share of sessions showing the
        # first turns of a game (heads of 10-15 checkers in layers), and the share with real
        # sets' checkers (`real_checkers`: gold, pearl, wood; reflections, rims, thickness),
        # and the share of those with narrower triangles (a gap between their bases), and the
        # share of scenes whose bar checkers lie spread along the bar (`spread_bar`).
        self.head_rate = head_rate
        self.real_look = real_look
        self.narrow_points = narrow_points
        self.bar_spread = bar_spread
        w, h = size
        self.noise = np.clip(self.rng.normal(128, 40, (h + 64, w + 64, 3)), 0, 255).astype(np.uint8)
        self.session: _Session | None = None

    def _new_session(self) -> _Session:
        rng = self.rng
        style = random_style(rng)
        real = 0.0
        if self.real_look > 0 and rng.random() < self.real_look:
            style = real_checkers(style, rng, self.narrow_points)
            real = float(rng.uniform(0.5, 1.0))
        variant = self.variants[int(rng.integers(len(self.variants)))]
        layout = Layout(variant, CORNERS[int(rng.integers(4))])
        pose = random_pose(rng)
        extent = board_extent(style)
        g = style.geometry
        field = project(homography(pose, extent, self.size), g.field_corners())
        field_px = float(np.linalg.norm(field[1] - field[0]))
        scale = min(2.0, field_px * float(rng.uniform(1.0, 1.25)) / g.width)
        canvas = draw_board(style, scale, rng)
        d = g.checker_diameter * scale
        a = rng.uniform(0, 2 * math.pi)
        light = (math.cos(a), math.sin(a))
        shadow_len = d * float(rng.uniform(0.0, 0.12))
        shadow = (-light[0] * shadow_len, -light[1] * shadow_len)
        b = rng.uniform(0, 2 * math.pi)
        thick = d * float(rng.uniform(0.0, 0.1)) * pose.tilt / 35
        if real:  # thick checkers: the side shows even from above, off the picture's centre
            thick = max(thick, d * float(rng.uniform(0.02, 0.1)))
            shadow = (shadow[0] * 1.5, shadow[1] * 1.5)
        side = (math.cos(b) * thick, math.sin(b) * thick)
        sprites = {
            s: [checker_sprite(look, d, light, shadow, side, rng, real=real) for _ in range(2)]
            for s, look in ((Side.WHITE, style.light), (Side.BLACK, style.dark))
        }
        turns = int(rng.integers(0, 160))
        if self.head_rate > 0 and rng.random() < self.head_rate:
            turns = int(rng.integers(0, 10))
        game = random_game(variant, rng, turns)
        bar_half: Half = "bottom" if rng.random() < 0.5 else "top"
        return _Session(style, layout, pose, canvas, sprites, table(rng, self.size), game,
                        bar_half, int(rng.integers(1, self.session_length + 1)))

    def next_scene(self) -> Scene:
        rng = self.rng
        if self.session is None or self.session.left <= 0:
            self.session = self._new_session()
        ses = self.session
        ses.left -= 1
        if ses.left < self.session_length - 1 and rng.random() < 0.7:
            ses.pose = jitter_pose(ses.pose, rng)
        # The session's table plays on: positions from the last turns of its game.
        position = ses.game[max(0, len(ses.game) - 1 - int(rng.integers(0, 16)))]
        g = ses.style.geometry
        placements = place(position, ses.layout, g, ses.white_bar_half)
        if self.bar_spread > 0 and rng.random() < self.bar_spread:
            placements = spread_bar(placements, g, rng)
        board = ses.canvas.image.copy()
        drawn: list[tuple[float, float]] = []
        jit = g.checker_diameter * 0.03
        for p in placements:
            c = (p.centre[0] + float(rng.normal(0, jit)), p.centre[1] + float(rng.normal(0, jit)))
            drawn.append(c)
            sprites = ses.sprites[p.side]
            paste(board, sprites[int(rng.integers(len(sprites)))],
                  tuple(ses.canvas.px(np.array([c]))[0]))
        dice = self._dice(board, drawn)
        extent = board_extent(ses.style)
        h_units = homography(ses.pose, extent, self.size)
        h_canvas = h_units @ np.linalg.inv(ses.canvas.units_to_px())
        img = ses.background.copy()
        x0, y0, x1, y1 = extent
        outer = project(h_units, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        off = np.array([rng.uniform(-1, 1), rng.uniform(0, 1)]) * 0.01 * self.size[0]
        cv2.fillConvexPoly(img, np.round(outer + off).astype(np.int32),
                           tuple(int(v) for v in img[0, 0] * 0.5), cv2.LINE_AA)
        warp_into(img, board, h_canvas, outer)
        centres = project(h_units, np.array(drawn).reshape(-1, 2))
        mask = None
        if rng.random() < self.hand_rate:
            target = self._hand_target(rng, h_units, placements, drawn)
            d_px = self._checker_px(h_units, g.checker_diameter)
            mask = draw_hand(img, target, d_px, rng)
        if self.effects:
            img = light_and_lens(img, rng, self.noise)
        label = self._label(ses, position, placements, h_units, centres, mask)
        label["dice"] = [{"value": v, "centre": _xy(project(h_units, c)[0])} for v, c in dice]
        return Scene(img, label)

    def _dice(self, board: Image, drawn: list[tuple[float, float]]) -> list[tuple[int, Any]]:
        """Sometimes one or two dice lie on the field, away from the checkers."""
        rng, ses = self.rng, self.session
        assert ses is not None
        g, out = ses.style.geometry, []
        if rng.random() >= DICE_RATE:
            return []
        body = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))]
        pip = (250, 250, 250) if sum(body) < 300 else (20, 20, 20)
        for _ in range(int(rng.integers(1, 3))):
            for _ in range(10):
                c = np.array([rng.uniform(0.05, 0.95) * g.width, rng.uniform(0.1, 0.9) * g.height])
                if all(math.dist(c, q) > g.checker_diameter for q in drawn):
                    break
            else:
                continue
            value = int(rng.integers(1, 7))
            size = g.checker_diameter * float(rng.uniform(0.28, 0.45)) * ses.canvas.scale
            centre = ses.canvas.px(c[None])[0]
            draw_die(board, (float(centre[0]), float(centre[1])), size,
                     float(rng.uniform(0, 90)), value, body, pip)
            out.append((value, c[None]))
        return out

    def _checker_px(self, h: np.ndarray[Any, Any], diameter: float) -> float:
        """A checker's diameter in pixels at the middle of the field."""
        assert self.session is not None
        g = self.session.style.geometry
        cx, cy = g.width / 2, g.height / 2
        mid = project(h, np.array([[cx - diameter / 2, cy], [cx + diameter / 2, cy]]))
        return float(np.linalg.norm(mid[1] - mid[0]))

    def _hand_target(self, rng: np.random.Generator, h: np.ndarray[Any, Any],
                     placements: list[Placement], drawn: list[tuple[float, float]]) -> Any:
        assert self.session is not None
        g = self.session.style.geometry
        if placements and rng.random() < 0.7:
            c = drawn[int(rng.integers(len(drawn)))]
        else:
            c = (float(rng.uniform(0, g.width)), float(rng.uniform(0, g.height)))
        return project(h, np.array([c]))[0]

    def _label(self, ses: _Session, position: Position, placements: list[Placement],
               h: np.ndarray[Any, Any], centres: np.ndarray[Any, Any],
               mask: np.ndarray[Any, Any] | None) -> dict[str, Any]:
        g, layout = ses.style.geometry, ses.layout
        d_units = g.checker_diameter
        occluded: list[int] = []
        cover: dict[str, float] = {}  # share of each point's first row a hand covers, if any
        bar_occluded = False
        if mask is not None:
            for point in range(1, 25):
                share = covered_share(mask, project(h, g.point_area(point)))
                if share > 0:
                    cover[str(point)] = round(share, 3)
                if share >= OCCLUDED_SHARE:
                    occluded.append(point)
            bx0, by0, bx1, by1 = g.bar_rect()
            bar_poly = np.array([[bx0 - d_units / 2, by0], [bx1 + d_units / 2, by0],
                                 [bx1 + d_units / 2, by1], [bx0 - d_units / 2, by1]])
            bar_occluded = covered_share(mask, project(h, bar_poly)) >= OCCLUDED_SHARE
        checkers = []
        for i, (p, c) in enumerate(zip(placements, centres, strict=True)):
            later = [q.centre for q in placements[i + 1:] if q.where == p.where]
            on_top = all(math.dist(p.centre, q) > 0.9 * d_units for q in later)
            hidden = False
            if mask is not None:
                ring = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 6.28, 8)])
                disc = project(h, np.array(p.centre) + np.concatenate([[[0, 0]], ring * d_units
                                                                       * 0.35]))
                xy = np.clip(np.round(disc).astype(int), 0, [self.size[0] - 1, self.size[1] - 1])
                hidden = float(np.mean(mask[xy[:, 1], xy[:, 0]] > 127)) >= HIDDEN_SHARE
                if hidden and p.point is not None and p.point not in occluded:
                    occluded.append(p.point)  # a hidden checker makes its point unreadable
                bar_occluded |= hidden and p.where == "bar"
            checkers.append({
                "colour": p.colour, "side": p.side.value, "where": p.where, "point": p.point,
                "own_point": p.own_point, "index": p.index, "layer": p.layer,
                "centre": [round(float(c[0]), 2), round(float(c[1]), 2)],
                "on_top": on_top, "hidden": hidden,
            })
        trays = tray_halves(g, h, self.size, placements, checkers, mask)
        points = {str(p): {"colour": COLOUR_OF[s], "count": n}
                  for p, (s, n) in sorted(image_counts(position, layout).items())}
        w, b = position.white, position.black
        corners = project(h, g.field_corners())
        return {
            "width": self.size[0], "height": self.size[1],
            "variant": layout.variant.value, "layout": layout.to_json(),
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
            "points": points,
            "bar": {"light": w[BAR], "dark": b[BAR]}, "off": {"light": w[OFF], "dark": b[OFF]},
            "trays": trays,
            "position": position.to_json(),
            "occluded": sorted(occluded), "cover": cover, "bar_occluded": bar_occluded,
            "checkers": checkers,
            "checker_diameter_px": round(self._checker_px(h, d_units), 2),
            "checker_colours": {"light": ses.style.light.name, "dark": ses.style.dark.name},
            "board": {"field": ses.style.field_surface, "frame": ses.style.frame_surface,
                      "geometry": {"width": g.width, "height": g.height,
                                   "bar_width": round(g.bar_width, 2),
                                   "point_length": round(g.point_length, 2),
                                   "checker_diameter": round(d_units, 2), "per_row": g.per_row}},
            "camera": {"tilt": round(ses.pose.tilt, 2), "roll": round(ses.pose.roll, 2),
                       "azimuth": round(ses.pose.azimuth, 2)},
        }


def tray_halves(g: BoardGeometry, h: np.ndarray[Any, Any], size: tuple[int, int],
                placements: list[Placement], checkers: list[dict[str, Any]],
                mask: np.ndarray[Any, Any] | None) -> dict[str, dict[str, Any]]:
    """The four tray halves ("left-top", ...): the borne-off checkers in each, its outline
    in pixels, whether all of it lies in the picture and whether a hand hides it (covers
    `OCCLUDED_SHARE` of the half, or hides one of its checkers)."""
    out: dict[str, dict[str, Any]] = {}
    sides: tuple[TraySide, ...] = ("left", "right")
    halves: tuple[Half, ...] = ("top", "bottom")
    for side in sides:
        x0, _, x1, _ = g.tray_rect(side)
        for half in halves:
            y0, y1 = (0.0, g.height / 2) if half == "top" else (g.height / 2, g.height)
            quad = project(h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
            # by the end its stack grows from: a stack of 15 may reach past the middle
            mine = [c for p, c in zip(placements, checkers, strict=True) if p.where == "off"
                    and p.centre == g.off_centre(side, half, p.index)]
            inside = bool(np.all((quad >= 0) & (quad <= np.array(size) - 1)))
            hidden = any(c["hidden"] for c in mine) or (
                mask is not None and covered_share(mask, quad) >= OCCLUDED_SHARE)
            out[f"{side}-{half}"] = {
                "colour": mine[0]["colour"] if mine else None, "count": len(mine),
                "quad": [_xy(q) for q in quad], "in_picture": inside, "hidden": hidden}
    return out


def _xy(point: Any) -> list[float]:
    return [round(float(point[0]), 2), round(float(point[1]), 2)]


def warp_into(img: Image, board: Image, h: Any, outline: Any) -> None:
    """Warp `board` onto `img` in place, only over the bounding box of its projected outline."""
    height, width = img.shape[:2]
    x0, y0 = np.clip(np.floor(outline.min(0)).astype(int) - 1, 0, [width, height])
    x1, y1 = np.clip(np.ceil(outline.max(0)).astype(int) + 2, 0, [width, height])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
    roi = np.ascontiguousarray(img[y0:y1, x0:x1])
    cv2.warpPerspective(board, shift @ h, (int(x1 - x0), int(y1 - y0)), dst=roi,
                        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    img[y0:y1, x0:x1] = roi
