"""Where each checker of a position goes on a board, and random legal positions to show."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from calibration.layout import BoardGeometry, Half
from calibration.numbering import Layout
from referee.position import BAR, OFF, Position, Side, Variant
from referee.rules import rules_for

Colour = Literal["light", "dark"]
Where = Literal["point", "bar", "off"]
COLOUR_OF: dict[Side, Colour] = {Side.WHITE: "light", Side.BLACK: "dark"}


@dataclass(frozen=True, slots=True)
class Placement:
    """One checker: whose, where (image-relative point, own point, index on it), its centre."""

    side: Side
    where: Where
    point: int | None  # image-relative point, None on the bar or off
    own_point: int | None  # the side's own numbering
    index: int  # 0-based order on its point / bar half / tray end
    layer: int
    centre: tuple[float, float]  # field units

    @property
    def colour(self) -> Colour:
        return COLOUR_OF[self.side]


def place(position: Position, layout: Layout, geometry: BoardGeometry,
          white_bar_half: Half = "bottom") -> list[Placement]:
    """Every checker of `position` on the board, in drawing order (lower layers first)."""
    out: list[Placement] = []
    for side in (Side.WHITE, Side.BLACK):
        counts = position.counts(side)
        for own in range(1, 25):
            image_point = layout.to_image(side, own)
            for k in range(counts[own]):
                layer, _ = geometry.checker_slot(k)
                centre = geometry.checker_centre(image_point, k)
                out.append(Placement(side, "point", image_point, own, k, layer, centre))
        half: Half = white_bar_half if side is Side.WHITE else _other(white_bar_half)
        for k in range(counts[BAR]):
            out.append(Placement(side, "bar", None, BAR, k, 0, geometry.bar_centre(half, k)))
        corner = layout.image_corner(side)
        home_half: Half = "bottom" if corner.startswith("bottom") else "top"
        tray = layout.tray_side(side)
        for k in range(counts[OFF]):
            out.append(Placement(side, "off", None, OFF, k, 0,
                                 geometry.off_centre(tray, home_half, k)))
    out.sort(key=lambda p: (p.where == "bar", p.layer))
    return out


def spread_bar(placements: list[Placement], geometry: BoardGeometry,
               rng: np.random.Generator) -> list[Placement]:
    """The bar's checkers as players leave them: anywhere along the bar, with gaps, some in
    the other half, not stacked from the middle as `place` puts them (training data only)."""
    g = geometry
    halves: dict[Half, list[int]] = {"top": [], "bottom": []}
    for i, p in enumerate(placements):
        if p.where == "bar":
            half: Half = "top" if p.centre[1] < g.height / 2 else "bottom"
            halves[_other(half) if rng.random() < 0.3 else half].append(i)
    out = list(placements)
    room = g.height / 2 - g.checker_diameter  # from the first centre to the last at most
    x = g.half_width + g.bar_width / 2
    for half, members in halves.items():
        if not members:
            continue
        # free space left beside touching checkers, shared at random among the gaps
        free = max(0.0, room - (len(members) - 1) * g.step)
        shares = rng.dirichlet(np.ones(len(members) + 1)) * free * float(rng.uniform(0.3, 1.0))
        along = g.checker_diameter / 2 + shares[0]
        for k, i in enumerate(members):
            if k:
                along += g.step + shares[k]
            y = g.height / 2 - along if half == "top" else g.height / 2 + along
            out[i] = replace(placements[i], centre=(x, y))
    return out


def _other(half: Half) -> Half:
    return "top" if half == "bottom" else "bottom"


def random_game(variant: Variant, rng: np.random.Generator, max_turns: int = 200) -> list[Position]:
    """Positions of one game played with random dice and random legal outcomes."""
    rules = rules_for(variant)
    first = Side.WHITE if rng.random() < 0.5 else Side.BLACK
    position = Position.start(variant, first)
    game = [position]
    for _ in range(max_turns):
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        outcomes = rules.outcomes(position, dice)
        position = outcomes[int(rng.integers(len(outcomes)))].position
        game.append(position)
        if position.winner() is not None:
            break
    return game


def image_counts(position: Position, layout: Layout) -> dict[int, tuple[Side, int]]:
    """Image-relative point -> (side, count) for the occupied points."""
    out: dict[int, tuple[Side, int]] = {}
    for side in (Side.WHITE, Side.BLACK):
        counts = position.counts(side)
        for own in range(1, 25):
            if counts[own]:
                out[layout.to_image(side, own)] = (side, counts[own])
    return out
