"""One physical board: a `synth.board` design given metric sizes, heights and materials.

The playing field's picture is drawn with OpenCV by `synth.board.draw.draw_board` (surface,
triangles, bar, hinges, logos: the same designs as the 2.5D generator) and becomes the texture
of the field's top face; frame, bar and trays are boxes with height around and beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layout import BoardGeometry
from synth.board.camera import TABLES
from synth.board.draw import board_extent, draw_board
from synth.board.style import BGR, BoardStyle, CheckerLook, Finish, Surface, random_style
from synth.board.textures import Image, surface
from synth.board3d.model import FIELD_TEXTURE, SURFACE_TEXTURE

# finish -> (specular, shininess) of MuJoCo's material
FINISHES: dict[Finish, tuple[float, float]] = {
    "plastic": (0.35, 0.55), "pearl": (0.5, 0.8), "metal": (0.8, 0.9), "wood": (0.12, 0.25)}
TABLE_SURFACES: tuple[Surface, ...] = ("wood", "felt", "leather", "plain")


@dataclass(frozen=True, slots=True)
class Board:
    """A design with metric sizes (metres); field units as in `calibration.layout`."""

    style: BoardStyle
    metres: float  # metres per field unit
    base: float  # height of the board's body below the field surface
    frame: float  # height of the frame's rim above the field
    bar: float  # height of the bar above the field
    tray: float  # the trays' floor (<= 0: sunk below the field)
    thickness: float  # one checker
    inlay: float  # radius of the checker's top inlay over its radius
    per_stack: int  # borne-off checkers per stack in the tray
    tray_colour: BGR
    table: BGR
    table_surface: Surface

    @property
    def geometry(self) -> BoardGeometry:
        return self.style.geometry

    def world(self, u: float, v: float, z: float) -> np.ndarray[tuple[int], np.dtype[np.float64]]:
        """Field units (u right, v down) and a height to world metres (field centred at 0)."""
        g = self.geometry
        return np.array([(u - g.width / 2) * self.metres, (g.height / 2 - v) * self.metres, z])

    def boxes(self) -> dict[str, tuple[float, float, float, float, float, float]]:
        """Geom name -> (u0, v0, u1, v1, z0, z1) of the board's boxes."""
        g = self.geometry
        x0, y0, x1, y1 = board_extent(self.style)
        lx0, _, lx1, _ = g.tray_rect("left")
        rx0, _, rx1, _ = g.tray_rect("right")
        w, h, low, top = g.width, g.height, -self.base, self.frame
        bx0, _, bx1, _ = g.bar_rect()
        return {
            "field": (0.0, 0.0, w, h, low, 0.0),
            "bar": (bx0, 0.0, bx1, h, low, self.bar),
            "tray_l": (lx0, 0.0, lx1, h, low, self.tray),
            "tray_r": (rx0, 0.0, rx1, h, low, self.tray),
            "frame_top": (x0, y0, x1, 0.0, low, top),
            "frame_bottom": (x0, h, x1, y1, low, top),
            "frame_left": (x0, 0.0, lx0, h, low, top),
            "frame_right": (rx1, 0.0, x1, h, low, top),
            "frame_mid_l": (lx1, 0.0, 0.0, h, low, top),
            "frame_mid_r": (w, 0.0, rx0, h, low, top),
        }

    def outline(self) -> np.ndarray[tuple[int, int], np.dtype[np.float64]]:
        """The board's eight outer corners (top of the rim, bottom of the body), (8, 3)."""
        x0, y0, x1, y1 = board_extent(self.style)
        return np.array([self.world(u, v, z) for z in (self.frame, -self.base)
                         for u, v in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])


def random_board(rng: np.random.Generator) -> Board:
    style = random_style(rng)
    g = style.geometry
    metres = float(rng.uniform(0.40, 0.60)) / g.width  # the field is 40-60 cm wide
    d = g.checker_diameter * metres
    table = TABLES[int(rng.integers(len(TABLES)))]
    tb, tg, tr = style.field if rng.random() < 0.5 else style.frame
    return Board(
        style=style, metres=metres, base=float(rng.uniform(0.012, 0.035)),
        frame=float(rng.uniform(0.003, 0.014)),
        bar=float(rng.choice([rng.uniform(0.0005, 0.002), rng.uniform(0.002, 0.008)])),
        tray=-float(rng.uniform(0.0, 0.004)), thickness=d * float(rng.uniform(0.17, 0.23)),
        inlay=float(rng.uniform(0.55, 0.85)), per_stack=int(rng.integers(3, 6)),
        tray_colour=(int(tb * 0.8), int(tg * 0.8), int(tr * 0.8)),
        table=table, table_surface=TABLE_SURFACES[int(rng.integers(len(TABLE_SURFACES)))],
    )


def field_texture(board: Board, rng: np.random.Generator) -> Image:
    """The field (both halves and the bar) drawn top-down, stretched to the square texture.
    RGB; row 0 is the field's top edge, column 0 its left edge."""
    g = board.geometry
    canvas = draw_board(board.style, FIELD_TEXTURE / g.width, rng)
    (c0, r0), (c1, r1) = canvas.px(np.array([[0.0, 0.0], [g.width, g.height]]))
    crop = canvas.image[round(r0):round(r1), round(c0):round(c1)]
    square = cv2.resize(crop, (FIELD_TEXTURE, FIELD_TEXTURE), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(square[..., ::-1])


def surface_texture(rng: np.random.Generator, colour: BGR, kind: Surface) -> Image:
    """A repeated surface (frame, table), RGB."""
    return np.ascontiguousarray(surface(rng, SURFACE_TEXTURE, SURFACE_TEXTURE, colour, kind)[
        ..., ::-1])


def rgba(colour: BGR, alpha: float = 1.0) -> tuple[float, float, float, float]:
    """BGR 0-255 to MuJoCo's RGBA 0-1."""
    b, g, r = colour
    return (r / 255, g / 255, b / 255, alpha)


def inlay_colour(look: CheckerLook, rng: np.random.Generator) -> BGR:
    """The top inlay: lighter pearl, a darker ring on metal and wood, nearly the body on plastic."""
    f = {"pearl": rng.uniform(1.02, 1.12), "metal": rng.uniform(0.75, 0.92),
         "wood": rng.uniform(0.8, 0.95), "plastic": rng.uniform(0.9, 1.05)}[look.finish]
    c = np.clip(np.array(look.colour, float) * float(f), 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))
