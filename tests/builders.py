"""Builders for test positions, written the way a player reads a board."""

from __future__ import annotations

from referee.position import BAR, OFF, Position, Side, Variant
from referee.rules import Outcome


def position(
    variant: str,
    turn: str = "white",
    white: dict[int, int] | None = None,
    black: dict[int, int] | None = None,
    bar: tuple[int, int] = (0, 0),
    off: tuple[int, int] = (0, 0),
    fill_off: bool = False,
) -> Position:
    """A position; with `fill_off`, each side's missing checkers are counted as borne off."""
    sides = []
    for counts, on_bar, borne in ((white or {}, bar[0], off[0]), (black or {}, bar[1], off[1])):
        row = [0] * 26
        for point, n in counts.items():
            row[point] = n
        row[BAR] = on_bar
        row[OFF] = borne
        if fill_off:
            row[OFF] += 15 - sum(row)
        sides.append(tuple(row))
    return Position(Variant(variant), Side(turn), sides[0], sides[1])


def own_points(outcome: Outcome, side: str = "white") -> dict[int, int]:
    """A side's checkers after the outcome as {point: count}, bar as 25 and off as 0."""
    counts = outcome.position.counts(Side(side))
    return {p: n for p, n in enumerate(counts) if n}
