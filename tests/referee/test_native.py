"""The native move generator (`referee._movegen`) against the pure-Python reference.

`Rules.outcomes` uses the C search when the extension is built; these tests run both paths on
the same positions and demand the same outcomes, and replay the native move sequences with
`Rules.play`. They are skipped where the extension was not built (no C compiler).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from referee import rules as rules_module
from referee.position import Position, Side, Variant
from referee.rules import Dice, Move, Outcome, Rules, rules_for
from referee.selfplay import random_game

movegen: ModuleType = pytest.importorskip("referee._movegen")

ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]
SETTINGS = [(variant, head) for variant in Variant for head in ("second", "both")]


def outcomes(rules: Rules, position: Position, dice: Dice, native: bool) -> list[Outcome]:
    """`rules.outcomes` on the native path or on the Python reference, whatever the env says."""
    saved = rules_module._movegen
    rules_module._movegen = movegen if native else None  # type: ignore[assignment]
    try:
        return rules.outcomes(position, dice)
    finally:
        rules_module._movegen = saved


def placements(found: list[Outcome]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(o.position.white, o.position.black) for o in found}


def assert_same(rules: Rules, position: Position, dice: Dice, replay: bool) -> None:
    native = outcomes(rules, position, dice, native=True)
    pure = outcomes(rules, position, dice, native=False)
    assert placements(native) == placements(pure), (position.to_json(), dice)
    # Stronger than asked, and what keeps `legal` output independent of the path: the same
    # outcomes in the same order, each with the same moves.
    assert native == pure, (position.to_json(), dice)
    assert all(o.position.turn is position.turn.other for o in native)
    if replay:
        for outcome in native:
            assert rules.play(position, dice, outcome.moves) == outcome.position


def game_positions(rules: Rules, seed: int, count: int) -> Iterator[tuple[Position, Dice]]:
    """`count` positions from random games, each with the game's roll and one more roll."""
    rng = random.Random(seed)
    found = 0
    while True:
        first = rng.choice(list(Side))
        for ply in random_game(rules.variant, rng, rules=rules, first=first):
            yield ply.before, ply.dice
            yield ply.before, rng.choice(ALL_ROLLS)
            found += 1
            if found == count:
                return


@pytest.mark.parametrize(("variant", "head"), SETTINGS)
def test_every_roll_from_both_starts(variant: Variant, head: str) -> None:
    rules = rules_for(variant, head)
    for first in Side:
        opening = Position.start(variant, first)
        for dice in ALL_ROLLS:
            assert_same(rules, opening, dice, replay=True)
            # A reply to each opening with every double: the second player's first throw,
            # where the head rule's exception (5.4.11) applies.
            reply = outcomes(rules, opening, dice, native=False)[0].position
            for double in range(1, 7):
                assert_same(rules, reply, (double, double), replay=False)


@pytest.mark.parametrize(("variant", "head"), SETTINGS)
def test_random_games(variant: Variant, head: str) -> None:
    rules = rules_for(variant, head)
    seed = 7 + 100 * list(Variant).index(variant) + (head == "both")
    for index, (position, dice) in enumerate(game_positions(rules, seed, 600)):
        # Replaying every outcome costs one `outcomes` call per move sequence: do a sample.
        assert_same(rules, position, dice, replay=index % 20 == 0)


def test_falls_back_or_refuses_bad_input() -> None:
    board = bytes(26)
    args = (3, 1, 1, 1, False, False, 0, b"", b"", bytes(26), Move)
    assert movegen.plays(board, board, *args) == [((0,) * 26, (0,) * 26, ())]  # nothing to move
    with pytest.raises(ValueError):
        movegen.plays(board[:25], board, *args)
    with pytest.raises(ValueError):
        movegen.plays(board, board, 7, *args[1:])
    with pytest.raises(ValueError):  # the block rule without its tables
        movegen.plays(board, board, 3, 1, 1, 1, False, True, 0, b"", b"", bytes(26), Move)
    with pytest.raises(ValueError):  # a mirror that points off the board
        movegen.plays(board, board, *args[:-2], bytes([26] * 26), Move)
    with pytest.raises(TypeError):  # moves must be tuples of some kind
        movegen.plays(board, board, *args[:-1], list)
    # More checkers than a byte holds: left to the Python reference, which handles them.
    crowded = bytes([0] * 23 + [200, 100, 0])
    assert movegen.plays(crowded, board, *args) is None
    position = Position(Variant.SHORT, Side.WHITE, tuple(crowded), tuple(board))
    assert outcomes(rules_for(Variant.SHORT), position, (3, 1), native=True)


@pytest.mark.parametrize(("setting", "native"), [("1", False), ("0", True)])
def test_environment_switch(setting: str, native: bool) -> None:
    code = "import referee.rules as r; print(r._movegen is not None)"
    env = {**os.environ, "NARDY_PURE_PYTHON": setting}
    shown = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == str(native)
