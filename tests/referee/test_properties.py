"""Properties that hold for every position of every game, checked on random games."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.position import BAR, OFF, Position, Side, Variant, opposite_point
from referee.rules import Move, rules_for
from referee.selfplay import random_game

positions_and_dice = st.builds(
    lambda variant, seed, plies, a, b: (_position_after(variant, seed, plies), (a, b)),
    st.sampled_from(list(Variant)),
    st.integers(0, 2**32),
    st.integers(0, 120),
    st.integers(1, 6),
    st.integers(1, 6),
)


def _position_after(variant: Variant, seed: int, plies: int) -> Position:
    position = Position.start(variant)
    for ply in random_game(variant, random.Random(seed), max_plies=plies):
        position = ply.outcome.position
    return position


def _forbidden_block(variant: Variant, mover: list[int], enemy: list[int]) -> bool:
    """Brute force over the enemy's numbering: six of its consecutive points held by the
    mover with no enemy checker further along (on a lower point, or borne off)."""
    held = [False] * 25
    for point in range(1, 25):
        held[opposite_point(variant, point)] = mover[point] > 0
    for low in range(1, 20):
        if all(held[low : low + 6]) and not enemy[OFF] and not any(enemy[1:low]):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(positions_and_dice)
def test_every_outcome_is_a_legal_replayable_play(case: tuple[Position, tuple[int, int]]) -> None:
    before, dice = case
    rules = rules_for(before.variant)
    outcomes = rules.outcomes(before, dice)
    assert outcomes
    assert len({(o.position.white, o.position.black) for o in outcomes}) == len(outcomes)
    full = {len(o.moves) for o in outcomes if o.position.winner() is None}
    assert len(full) <= 1, "every play uses the same, largest number of dice"
    for outcome in outcomes:
        after = outcome.position
        assert after.turn is before.turn.other
        assert after.problems() == []  # 15 checkers a side, no shared point, no long bar
        assert rules.play(before, dice, outcome.moves) == after
        _replay_independently(before, dice, outcome.moves, after)


def _replay_independently(
    before: Position, dice: tuple[int, int], moves: tuple[Move, ...], after: Position
) -> None:
    """Apply the steps with plain list arithmetic and check the rules they must obey."""
    mover, variant = before.turn, before.variant
    own, theirs = list(before.counts(mover)), list(before.counts(mover.other))
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for start, end in moves:
        assert start > end, "checkers only move from higher to lower points"
        distance = start - end
        die = distance if distance in left else max(left)
        assert distance == die or (end == OFF and die > distance), (start, end, left)
        left.remove(die)
        if end == OFF:
            assert not any(own[7:]), "bearing off only once every checker is home"
        assert own[start] > 0
        own[start] -= 1
        own[end] += 1
        if end != OFF:
            enemy_point = opposite_point(variant, end)
            if variant is Variant.LONG:
                assert theirs[enemy_point] == 0, "long nardy: landing only on an open point"
                if own[end] == 1:
                    made = _forbidden_block(variant, own, theirs)
                    assert not made, f"block made by {start}/{end}"
            else:
                assert theirs[enemy_point] <= 1, "short nardy: a point of two is closed"
                if theirs[enemy_point] == 1:
                    theirs[enemy_point], theirs[BAR] = 0, theirs[BAR] + 1
    if variant is Variant.LONG:
        first_double = before.counts(mover)[24] == 15 and dice in ((3, 3), (4, 4), (6, 6))
        second_player = before.counts(mover.other)[24] != 15
        limit = 2 if first_double and second_player else 1
        assert sum(start == 24 for start, _ in moves) <= limit, "head rule"
    pair = (tuple(own), tuple(theirs)) if mover is Side.WHITE else (tuple(theirs), tuple(own))
    assert (after.white, after.black) == pair


@settings(max_examples=60, deadline=None)
@given(positions_and_dice)
def test_checkers_are_conserved(case: tuple[Position, tuple[int, int]]) -> None:
    before, dice = case
    for outcome in rules_for(before.variant).outcomes(before, dice):
        for side in Side:
            assert outcome.position.total(side) == 15
        travelled = before.pip_count(before.turn) - outcome.position.pip_count(before.turn)
        assert travelled <= (4 * dice[0] if dice[0] == dice[1] else sum(dice))
