"""Short nardy: hitting, the bar and entering (art. 21), on top of the shared dice rules."""

from __future__ import annotations

import pytest

from referee.position import Position, Side, Variant
from referee.rules import Move, ShortNardy
from tests.builders import own_points, position

RULES = ShortNardy()


@pytest.mark.parametrize(("dice", "count"), [((3, 1), 16)])
def test_opening_play_counts(dice: tuple[int, int], count: int) -> None:
    assert len(RULES.outcomes(Position.start(Variant.SHORT), dice)) == count


def test_landing_on_a_blot_hits_it_to_the_bar() -> None:
    # Black's blot on its 20 is white's 5.
    p = position("short", white={8: 1, 6: 14}, black={20: 1, 1: 14})
    hits = [o for o in RULES.outcomes(p, (3, 2)) if Move(8, 5) in o.moves]
    assert hits
    for outcome in hits:
        assert outcome.position.black[25] == 1 and outcome.position.black[20] == 0
    assert Position.validate(hits[0].position)


def test_two_enemy_checkers_close_a_point() -> None:
    p = position("short", white={8: 1, 6: 14}, black={20: 2, 1: 13})
    for outcome in RULES.outcomes(p, (3, 2)):
        assert outcome.position.white[5] == 0
        assert outcome.position.black[25] == 0


def test_a_checker_on_the_bar_enters_before_anything_else_moves() -> None:
    p = position("short", white={6: 14}, black={1: 15}, bar=(1, 0))
    outcomes = RULES.outcomes(p, (3, 1))
    assert outcomes
    for outcome in outcomes:
        assert outcome.moves[0] == Move(25, 22)  # 25 - 3; point 24 (for the 1) is closed


def test_after_entering_the_other_die_moves_any_checker() -> None:
    p = position("short", white={6: 14}, black={1: 15}, bar=(1, 0))
    plays = [own_points(o) for o in RULES.outcomes(p, (3, 1))]
    assert {22: 1, 6: 13, 5: 1} in plays and {21: 1, 6: 14} in plays


@pytest.mark.parametrize("dice", [(6, 5), (1, 1), (4, 2)])
def test_no_entry_passes_the_turn(dice: tuple[int, int]) -> None:
    closed_home = {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 2}
    p = position("short", white={6: 14}, black=closed_home, bar=(1, 0))
    (outcome,) = RULES.outcomes(p, dice)
    assert outcome.moves == ()
    assert outcome.position == p.with_turn(Side.BLACK)


def test_enter_what_can_be_entered_and_lose_the_rest() -> None:
    # White's 20 (black's 5) is closed, 19 is open; two checkers wait on the bar.
    p = position("short", white={6: 13}, black={5: 2, 1: 13}, bar=(2, 0))
    (outcome,) = RULES.outcomes(p, (6, 5))
    assert outcome.moves == (Move(25, 19),)
    assert outcome.position.white[25] == 1


def test_entering_can_hit() -> None:
    p = position("short", white={6: 14}, black={4: 1, 1: 14}, bar=(1, 0))  # black 4 = white 21
    assert any(o.position.black[25] == 1 for o in RULES.outcomes(p, (4, 1)))


def test_hits_during_bear_off() -> None:
    # Black's blot on its 22 is white's 3.
    p = position("short", white={6: 1, 1: 4}, black={22: 1, 1: 14}, fill_off=True)
    plays = RULES.outcomes(p, (3, 1))
    assert any(o.position.black[25] == 1 and Move(6, 3) in o.moves for o in plays)


def test_no_head_rule_and_no_block_rule_in_short_nardy() -> None:
    p = Position.start(Variant.SHORT)
    plays = [own_points(o) for o in RULES.outcomes(p, (1, 1))]
    assert any(play.get(24, 0) == 0 for play in plays)  # both back checkers may move
    prime = position("short", white={13: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 10}, black={1: 15})
    assert any(all(play.get(q) for q in range(12, 6, -1)) for play in
               (own_points(o) for o in RULES.outcomes(prime, (1, 1))))
