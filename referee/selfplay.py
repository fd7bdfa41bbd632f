"""Random legal games: test data for the engine, the synthetic scenes and the benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from referee.position import Position, Side, Variant
from referee.rules import Dice, Outcome, Rules, rules_for


@dataclass(frozen=True, slots=True)
class Ply:
    """One turn of a game: the position before it, the roll, and the outcome chosen."""

    before: Position
    dice: Dice
    outcome: Outcome


def random_game(
    variant: Variant,
    rng: random.Random,
    rules: Rules | None = None,
    first: Side = Side.WHITE,
    max_plies: int = 1000,
) -> Iterator[Ply]:
    """Plies of a game with uniformly random dice and a uniformly random legal outcome."""
    rules = rules or rules_for(variant)
    position = Position.start(variant, first)
    for _ in range(max_plies):
        if position.winner() is not None:
            return
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        outcome = rng.choice(rules.outcomes(position, dice))
        yield Ply(position, dice, outcome)
        position = outcome.position
