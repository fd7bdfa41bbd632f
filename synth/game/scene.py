"""The fixed scene of a game video: where the board, the baffle box, its tray and the clock lie.

The board (field, bar and the two borne-off trays) takes the left of the frame, seen by one
fixed camera (a homography from field units to pixels); the baffle box's exit tray, the
visible strip of the box's inside and a two-button game clock stand in a column to its right,
drawn top-down in pixels. Everything here is fixed for a game; `calibration()` writes it
out in the calibration file's terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.layout import BoardGeometry, FloatArray, Half
from calibration.numbering import CORNERS, Layout
from referee.position import BAR, OFF, Side, Variant
from synth.board.camera import CameraPose, homography, project, table
from synth.board.draw import Canvas, Sprite, board_extent, checker_sprite, draw_board
from synth.board.style import BoardStyle, random_style
from synth.board.textures import Image

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels
BOARD_SHARE = 0.76  # share of the frame's width the board's camera view takes


@dataclass(slots=True)
class GameScene:
    """One table: board design, layout, camera, side column; sprites for the checkers."""

    size: tuple[int, int]
    variant: Variant
    style: BoardStyle
    layout: Layout
    white_bar_half: Half
    pose: CameraPose
    h: FloatArray  # field units -> image pixels
    canvas: Canvas  # the bare board, top-down
    sprites: dict[Side, Sprite]  # on the canvas
    carried: dict[Side, Sprite]  # in image pixels, lifted (a longer shadow)
    checker_px: float  # a checker's diameter in pixels at the middle of the field
    box: Box  # the visible inside of the baffle box
    tray: Box  # the exit tray
    clock: Box  # the clock's body
    buttons: dict[Side, Box]
    displays: dict[Side, Box]
    die_px: float
    table: Image
    player_edge: dict[Side, Half]  # where each player sits: the image's top or bottom

    @property
    def geometry(self) -> BoardGeometry:
        return self.style.geometry

    def to_image(self, pts: FloatArray) -> FloatArray:
        return project(self.h, pts)

    def slot(self, side: Side, own: int, index: int) -> tuple[float, float]:
        """Field-unit centre of `side`'s `index`-th checker on its own point `own`, the bar
        (25) or borne off (0), exactly as `synth.board.scene.place` puts it."""
        g = self.style.geometry
        if own == BAR:
            half = self.white_bar_half if side is Side.WHITE else _other(self.white_bar_half)
            return g.bar_centre(half, index)
        if own == OFF:
            corner = self.layout.image_corner(side)
            home: Half = "bottom" if corner.startswith("bottom") else "top"
            return g.off_centre(self.layout.tray_side(side), home, index)
        centre: tuple[float, float] = g.checker_centre(self.layout.to_image(side, own), index)
        return centre

    def slot_px(self, side: Side, own: int, index: int) -> tuple[float, float]:
        x, y = self.to_image(np.array([self.slot(side, own, index)]))[0]
        return (float(x), float(y))

    def calibration(self) -> dict[str, Any]:
        """The calibration file: field corners, layout, dice zones, clock regions, geometry."""
        g = self.style.geometry
        corners = self.to_image(g.field_corners())

        def poly(b: Box) -> list[list[float]]:
            x0, y0, x1, y1 = b
            return [[float(x0), float(y0)], [float(x1), float(y0)], [float(x1), float(y1)],
                    [float(x0), float(y1)]]

        return {
            "version": 1,
            "image_size": list(self.size),
            "variant": self.variant.value,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
            "layout": self.layout.to_json(),
            "bar_width": round(g.bar_width, 2),
            "checker_colours": {"light": list(self.style.light.colour),
                                "dark": list(self.style.dark.colour)},
            "dice_zones": {"tray": poly(self.tray), "box": poly(self.box)},
            "clock": {"body": poly(self.clock),
                      "buttons": {s.value: poly(b) for s, b in self.buttons.items()},
                      "displays": {s.value: poly(b) for s, b in self.displays.items()}},
            "players": {s.value: e for s, e in self.player_edge.items()},
            "white_bar_half": self.white_bar_half,
            "geometry": {"width": g.width, "height": g.height, "bar_width": g.bar_width,
                         "point_length": g.point_length, "checker_diameter": g.checker_diameter,
                         "gap": g.gap, "row_max": g.row_max, "tray_width": g.tray_width,
                         "tray_gap": g.tray_gap},
            "homography": [[float(v) for v in row] for row in self.h],
            "checker_diameter_px": round(self.checker_px, 2),
            "die_px": round(self.die_px, 2),
        }


def _other(half: Half) -> Half:
    return "top" if half == "bottom" else "bottom"


def make_scene(rng: np.random.Generator, variant: Variant,
               size: tuple[int, int] = (1280, 720)) -> GameScene:
    """A random table for one game: board design, layout, a mild fixed camera, the column."""
    w, h = size
    style = random_style(rng)
    layout = Layout(variant, CORNERS[int(rng.integers(4))])
    pose = CameraPose(tilt=float(rng.uniform(0, 15)), azimuth=float(rng.uniform(0, 360)),
                      roll=float(rng.uniform(-3, 3)), distance=float(rng.uniform(2.5, 4.0)),
                      fill=float(rng.uniform(0.92, 0.97)), shift=(0.5, 0.5))
    board_w = int(w * BOARD_SHARE)
    extent = board_extent(style)
    hom = homography(pose, extent, (board_w, h))
    g = style.geometry
    field = project(hom, g.field_corners())
    field_px = float(np.linalg.norm(field[1] - field[0]))
    scale = min(2.0, field_px * 1.1 / g.width)
    canvas = draw_board(style, scale, rng)
    mid = project(hom, np.array([[g.width / 2 - g.checker_diameter / 2, g.height / 2],
                                 [g.width / 2 + g.checker_diameter / 2, g.height / 2]]))
    checker_px = float(np.linalg.norm(mid[1] - mid[0]))
    a = rng.uniform(0, 2 * math.pi)
    light = (math.cos(a), math.sin(a))
    d = g.checker_diameter * scale
    shadow = (-light[0] * d * 0.06, -light[1] * d * 0.06)
    sprites, carried = {}, {}
    for side, look in ((Side.WHITE, style.light), (Side.BLACK, style.dark)):
        sprites[side] = checker_sprite(look, d, light, shadow, (0.0, 0.0), rng)
        lifted = (-light[0] * checker_px * 0.3, -light[1] * checker_px * 0.3)
        carried[side] = checker_sprite(look, checker_px * 1.08, light, lifted, (0.0, 0.0), rng)
    # The side column: the box's inside on top, its exit tray below, the clock at the bottom.
    cx0, cx1 = int(w * (BOARD_SHARE + 0.015)), int(w * 0.985)
    box = (cx0 + int(w * 0.01), int(h * 0.05), cx1 - int(w * 0.01), int(h * 0.25))
    tray = (cx0, int(h * 0.27), cx1, int(h * 0.68))
    clock = (cx0 + int(w * 0.01), int(h * 0.76), cx1 - int(w * 0.01), int(h * 0.94))
    bw = (clock[2] - clock[0]) // 2
    buttons, displays = {}, {}
    left_side = Side.WHITE if rng.random() < 0.5 else Side.BLACK
    for i, side in enumerate((left_side, left_side.other)):
        x0 = clock[0] + i * bw
        buttons[side] = (x0 + bw // 5, clock[1] - int(h * 0.035), x0 + bw - bw // 5, clock[1])
        displays[side] = (x0 + bw // 8, clock[1] + int(h * 0.05), x0 + bw - bw // 8,
                          clock[3] - int(h * 0.04))
    # Each player sits at the edge by his own point 1 (the homes never share a row).
    white_row: Half = "bottom" if layout.image_corner(Side.WHITE).startswith("bottom") else "top"
    edges: dict[Side, Half] = {Side.WHITE: white_row, Side.BLACK: _other(white_row)}
    bar_half: Half = "bottom" if rng.random() < 0.5 else "top"
    die_px = min(tray[2] - tray[0], tray[3] - tray[1]) * 0.17
    return GameScene(size, variant, style, layout, bar_half, pose, hom, canvas, sprites, carried,
                     checker_px, box, tray, clock, buttons, displays, die_px, table(rng, size),
                     edges)


def draw_static(scene: GameScene) -> Image:
    """The frame without the board: table, baffle box, tray and the clock's body."""
    img = scene.table.copy()
    w = scene.size[0]
    wood = (30, 50, 80)
    bx0, by0, bx1, by1 = scene.box
    tx0, ty0, tx1, ty1 = scene.tray
    pad = int(w * 0.008)
    cv2.rectangle(img, (bx0 - pad * 2, 0), (bx1 + pad * 2, by1 + pad), wood, -1)
    cv2.rectangle(img, (bx0, by0), (bx1, by1), (22, 30, 42), -1)  # the inside, in shadow
    for k in range(1, 4):  # baffles seen through the opening
        y = by0 + (by1 - by0) * k // 4
        cv2.line(img, (bx0, y), (bx1, y - (by1 - by0) // 8), (35, 48, 66), 2, cv2.LINE_AA)
    cv2.rectangle(img, (tx0 - pad, ty0 - pad), (tx1 + pad, ty1 + pad), wood, -1)
    cv2.rectangle(img, (tx0, ty0), (tx1, ty1), (55, 95, 40), -1)  # green felt
    cv2.rectangle(img, (tx0, ty0), (tx1, ty0 + pad), (40, 70, 30), -1)  # the wall's shade
    cx0, cy0, cx1, cy1 = scene.clock
    cv2.rectangle(img, (cx0 + 4, cy0 + 4), (cx1 + 4, cy1 + 4), (20, 20, 20), -1)
    cv2.rectangle(img, (cx0, cy0), (cx1, cy1), (45, 45, 48), -1)
    for d in scene.displays.values():
        cv2.rectangle(img, d[:2], d[2:], (60, 90, 70), -1)
    return img
