"""Random board designs: surfaces, triangle and checker colours, sizes. Colours are BGR.

Palettes follow real sets: tournament boards (the stream frames: walnut frame, black and tan
points on light grey linen, white mother-of-pearl against gold checkers, a logo on each
half, brass hinges on a hinge-wide bar), felt and leather boards, wooden boards with inlaid
points, and cheap printed ones with low-contrast colours.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from calibration.layout import BoardGeometry

BGR = tuple[int, int, int]
Surface = Literal["wood", "felt", "leather", "linen", "plain"]
Finish = Literal["plastic", "pearl", "metal", "wood"]

# (BGR, surface)
FIELDS: list[tuple[BGR, Surface]] = [
    ((214, 220, 222), "linen"), ((200, 212, 218), "linen"), ((188, 206, 220), "leather"),
    ((60, 100, 40), "felt"), ((40, 70, 30), "felt"), ((110, 70, 30), "felt"),
    ((40, 40, 120), "felt"), ((30, 30, 35), "leather"), ((50, 70, 110), "leather"),
    ((120, 170, 210), "wood"), ((80, 120, 170), "wood"), ((50, 80, 120), "wood"),
    ((150, 190, 215), "plain"), ((225, 230, 232), "plain"), ((90, 110, 120), "felt"),
]
# Triangle pairs (a, b): contrasting and low-contrast.
TRIANGLES: list[tuple[BGR, BGR]] = [
    ((25, 25, 28), (60, 140, 200)),    # black / tan (tournament)
    ((35, 35, 170), (230, 235, 235)),  # red / white
    ((30, 30, 30), (40, 40, 180)),     # black / red
    ((40, 80, 30), (200, 225, 235)),   # green / cream
    ((30, 50, 90), (130, 170, 205)),   # brown / beige (low contrast)
    ((40, 30, 110), (190, 215, 230)),  # burgundy / ivory
    ((120, 60, 20), (230, 230, 225)),  # blue / white
    ((60, 60, 60), (150, 150, 150)),   # grey / grey (low contrast)
    ((20, 40, 70), (70, 110, 160)),    # dark / mid wood
    ((40, 30, 25), (40, 120, 170)),    # walnut / ochre
    ((80, 40, 60), (150, 160, 200)),   # purple / pink-beige
    ((25, 25, 28), (225, 228, 230)),   # black / white
]
FRAMES: list[tuple[BGR, Surface]] = [
    ((35, 45, 60), "wood"), ((25, 35, 50), "wood"), ((40, 70, 120), "wood"),
    ((90, 140, 190), "wood"), ((25, 25, 28), "leather"), ((40, 50, 90), "leather"),
    ((60, 60, 60), "plain"), ((20, 30, 70), "wood"), ((200, 205, 210), "plain"),
]
# Checker pairs (light, dark) with their finish.
CHECKERS: list[tuple[str, BGR, Finish, str, BGR, Finish]] = [
    ("white", (235, 238, 240), "pearl", "gold", (40, 150, 215), "metal"),
    ("white", (240, 240, 240), "plastic", "black", (30, 30, 32), "plastic"),
    ("ivory", (200, 228, 240), "plastic", "brown", (30, 55, 95), "plastic"),
    ("white", (235, 235, 235), "plastic", "red", (35, 35, 175), "plastic"),
    ("cream", (185, 215, 230), "wood", "dark brown", (25, 40, 70), "wood"),
    ("pearl", (225, 225, 230), "pearl", "amber", (30, 110, 190), "pearl"),
    ("beige", (170, 200, 215), "plastic", "burgundy", (40, 25, 110), "plastic"),
    ("white", (240, 238, 235), "plastic", "blue", (140, 70, 25), "plastic"),
    ("light gold", (110, 200, 235), "metal", "black", (25, 25, 25), "metal"),
    ("white", (230, 235, 235), "pearl", "green", (50, 90, 20), "plastic"),
    ("ivory", (190, 225, 235), "pearl", "gold", (50, 140, 190), "metal"),
    ("grey", (175, 178, 180), "plastic", "black", (35, 35, 40), "plastic"),
]


@dataclass(frozen=True, slots=True)
class CheckerLook:
    name: str
    colour: BGR
    finish: Finish


@dataclass(frozen=True, slots=True)
class BoardStyle:
    """Everything that stays fixed for one board on one table."""

    geometry: BoardGeometry
    field: BGR
    field_surface: Surface
    triangles: tuple[BGR, BGR]
    outline: BGR | None  # a thin line around each triangle, or none
    tip_power: float  # triangle sides: < 1 convex, > 1 concave (slim points)
    tip_round: float  # radius of a rounded tip in half point widths, 0 for a sharp tip
    frame: BGR
    frame_surface: Surface
    frame_width: float  # field units, outer frame around field and trays
    bar: BGR
    hinges: bool
    logo: bool
    light: CheckerLook
    dark: CheckerLook
    base_width: float = 1.0  # a triangle's base in point widths (real sets: a gap between)


def _jitter(rng: np.random.Generator, colour: BGR, amount: float) -> BGR:
    level = rng.uniform(1 - amount, 1 + amount)
    c = np.clip(np.array(colour, float) * level * rng.uniform(1 - amount / 3, 1 + amount / 3, 3),
                0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def random_geometry(rng: np.random.Generator) -> BoardGeometry:
    width = 1000.0
    height = width * rng.uniform(0.78, 1.0)
    bar = width * float(rng.choice([rng.uniform(0.02, 0.05), rng.uniform(0.05, 0.11)]))
    point_w = (width - bar) / 12
    diameter = point_w * float(rng.choice([rng.uniform(0.82, 1.0), rng.uniform(0.7, 0.82)]))
    return BoardGeometry(
        width=width,
        height=height,
        bar_width=bar,
        point_length=height * rng.uniform(0.34, 0.44),
        checker_diameter=diameter,
        gap=diameter * float(rng.choice([0.0, rng.uniform(0.0, 0.06)])),
        row_max=int(rng.choice([5, 5, 5, 6, 7])),
        tray_width=diameter * rng.uniform(1.2, 1.6),
        tray_gap=width * rng.uniform(0.03, 0.08),
    )


def tournament_style(rng: np.random.Generator) -> BoardStyle:
    """The board of the stream frames: walnut, light linen, black/tan points, pearl vs gold."""
    g = random_geometry(rng)
    bar = g.width * float(rng.uniform(0.025, 0.045))
    pw = (g.width - bar) / 12
    g = BoardGeometry(g.width, g.height, bar, g.height * float(rng.uniform(0.38, 0.44)),
                      pw * float(rng.uniform(0.92, 1.0)), 0.0, 5, g.tray_width, g.tray_gap)
    frame = _jitter(rng, (35, 45, 60), 0.15)
    return BoardStyle(
        geometry=g, field=_jitter(rng, (214, 220, 222), 0.06), field_surface="linen",
        triangles=(_jitter(rng, (25, 25, 28), 0.1), _jitter(rng, (60, 140, 200), 0.1)),
        outline=None, tip_power=float(rng.uniform(0.85, 1.2)),
        tip_round=float(rng.uniform(0.25, 0.45)), frame=frame,
        frame_surface="wood", frame_width=float(rng.uniform(30, 70)), bar=frame, hinges=True,
        logo=bool(rng.random() < 0.7),
        light=CheckerLook("white", _jitter(rng, (235, 238, 240), 0.05), "pearl"),
        dark=CheckerLook("gold", _jitter(rng, (40, 150, 215), 0.1), "metal"),
    )


def random_style(rng: np.random.Generator, tournament_rate: float = 0.25) -> BoardStyle:
    """A random design; `tournament_rate` of them follow the tournament board."""
    if rng.random() < tournament_rate:
        return tournament_style(rng)
    field, surface = FIELDS[int(rng.integers(len(FIELDS)))]
    tri_a, tri_b = TRIANGLES[int(rng.integers(len(TRIANGLES)))]
    frame, frame_surface = FRAMES[int(rng.integers(len(FRAMES)))]
    ln, lc, lf, dn, dc, df = CHECKERS[int(rng.integers(len(CHECKERS)))]
    if rng.random() < 0.5:
        tri_a, tri_b = tri_b, tri_a
    outline: BGR | None = None
    if rng.random() < 0.25:
        outline = _jitter(rng, ((60, 170, 210), (230, 230, 230), (20, 20, 20))[
            int(rng.integers(3))], 0.1)
    return BoardStyle(
        geometry=random_geometry(rng),
        field=_jitter(rng, field, 0.08),
        field_surface=surface,
        triangles=(_jitter(rng, tri_a, 0.1), _jitter(rng, tri_b, 0.1)),
        outline=outline,
        tip_power=float(rng.uniform(0.75, 1.5)),
        tip_round=float(rng.uniform(0.15, 0.45)) if rng.random() < 0.4 else 0.0,
        frame=_jitter(rng, frame, 0.12),
        frame_surface=frame_surface,
        frame_width=float(rng.uniform(20, 90)),
        bar=_jitter(rng, frame if rng.random() < 0.7 else field, 0.1),
        hinges=bool(rng.random() < 0.6),
        logo=bool(rng.random() < 0.35),
        light=CheckerLook(ln, _jitter(rng, lc, 0.06), lf),
        dark=CheckerLook(dn, _jitter(rng, dc, 0.1), df),
    )


# Real sets for `real_checkers`: (light, dark) pairs as the stream and wooden sets show them.
REAL_CHECKERS: list[tuple[str, BGR, Finish, str, BGR, Finish]] = [
    ("white", (235, 238, 240), "pearl", "gold", (40, 150, 215), "metal"),
    ("white", (225, 228, 232), "pearl", "brass", (35, 120, 180), "metal"),
    ("white", (230, 235, 238), "pearl", "old gold", (50, 130, 170), "metal"),
    ("silver", (200, 205, 210), "metal", "gold", (45, 155, 220), "metal"),
    ("ivory", (190, 222, 236), "wood", "dark wood", (25, 45, 80), "wood"),
    ("light wood", (120, 175, 215), "wood", "dark wood", (20, 35, 60), "wood"),
    ("white", (235, 238, 240), "pearl", "black", (28, 28, 30), "pearl"),
]


def real_checkers(style: BoardStyle, rng: np.random.Generator,
                  narrow: float = 0.0) -> BoardStyle:
    """`style` with a real set's checkers (gold and brass against pearl, turned wood) and,
    often, a darker dark triangle (the stream's points are near black) and narrower
    triangles with field showing between their bases (as on the stream's board), in `narrow`
    of the designs."""
    ln, lc, lf, dn, dc, df = REAL_CHECKERS[int(rng.integers(len(REAL_CHECKERS)))]
    tri_a, tri_b = style.triangles
    if rng.random() < 0.6:
        f = float(rng.uniform(0.35, 0.8))
        if sum(tri_a) <= sum(tri_b):
            tri_a = (int(tri_a[0] * f), int(tri_a[1] * f), int(tri_a[2] * f))
        else:
            tri_b = (int(tri_b[0] * f), int(tri_b[1] * f), int(tri_b[2] * f))
    base = 1.0
    if narrow > 0 and rng.random() < narrow:
        base = float(rng.uniform(0.65, 0.95))
    return replace(style, triangles=(tri_a, tri_b), base_width=base,
                   light=CheckerLook(ln, _jitter(rng, lc, 0.06), lf),
                   dark=CheckerLook(dn, _jitter(rng, dc, 0.15), df))
