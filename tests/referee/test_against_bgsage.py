"""Short nardy against an independent engine: bgsage's compiled move generator."""

from __future__ import annotations

import random

import pytest

from referee.position import Position, Variant
from referee.rules import ShortNardy
from referee.selfplay import random_game

pytest.importorskip("bgbot_cpp")
from bench import bgsage_reference

RULES = ShortNardy()


def placements(positions: list[Position]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(p.white, p.black) for p in positions}


def test_every_opening_roll_matches() -> None:
    start = Position.start(Variant.SHORT)
    for a in range(1, 7):
        for b in range(1, a + 1):
            ours = [o.position for o in RULES.outcomes(start, (a, b))]
            assert placements(ours) == placements(bgsage_reference.outcomes(start, (a, b)))


def test_thousands_of_positions_from_random_games_match() -> None:
    rng = random.Random(20261129)
    compared = passes = 0
    while compared < 3000:
        for ply in random_game(Variant.SHORT, rng, RULES):
            outcomes = RULES.outcomes(ply.before, ply.dice)
            ours = [o.position for o in outcomes]
            theirs = bgsage_reference.outcomes(ply.before, ply.dice)
            assert len(ours) == len(placements(ours)), "outcomes must be distinct"
            assert placements(ours) == placements(theirs), (ply.before.to_json(), ply.dice)
            compared += 1
            passes += outcomes[0].moves == ()
    assert passes > 0, "the sample should include turns that pass (a closed board)"
