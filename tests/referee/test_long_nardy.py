"""Long nardy, clause by clause (rules digest, long nardy items 1-8)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from referee.position import Position, Side, Variant
from referee.rules import LongNardy, Move
from tests.builders import own_points, position

RULES = LongNardy()
CLUB_RULES = LongNardy(head_exception="both")


def white_plays(p: Position, dice: tuple[int, int], rules: LongNardy = RULES) -> list[dict]:
    return [own_points(o) for o in rules.outcomes(p, dice)]


def test_first_throw_6_5_runs_one_checker_to_13() -> None:
    outcomes = RULES.outcomes(Position.start(Variant.LONG), (6, 5))
    assert [own_points(o) for o in outcomes] == [{24: 14, 13: 1}]
    assert outcomes[0].moves in ((Move(24, 18), Move(18, 13)), (Move(24, 19), Move(19, 13)))
    assert outcomes[0].position.turn is Side.BLACK


def test_head_rule_lets_one_checker_off_per_turn() -> None:
    p = position("long", white={24: 14, 20: 1}, black={24: 15})
    for dice in [(5, 3), (2, 1), (5, 5), (2, 2)]:
        assert all(play[24] >= 13 for play in white_plays(p, dice)), dice


def test_first_players_6_6_moves_one_checker_under_the_text_reading() -> None:
    # 18 -> 12 runs into black's head; a second head checker is not allowed.
    outcomes = RULES.outcomes(Position.start(Variant.LONG), (6, 6))
    assert [own_points(o) for o in outcomes] == [{24: 14, 18: 1}]
    assert outcomes[0].moves == (Move(24, 18),)


def test_club_reading_lets_the_first_player_take_two_with_6_6() -> None:
    assert white_plays(Position.start(Variant.LONG), (6, 6), CLUB_RULES) == [{24: 13, 18: 2}]


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        ((6, 6), [{24: 13, 18: 2}]),
        ((4, 4), [{24: 13, 16: 2}]),
        ((3, 3), [{24: 13, 18: 2}, {24: 13, 21: 1, 15: 1}]),
    ],
)
def test_second_players_first_double_may_take_two_off_the_head(
    dice: tuple[int, int], expected: list[dict[int, int]]
) -> None:
    after_white = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
    plays = [own_points(o, "black") for o in RULES.outcomes(after_white, dice)]
    assert sorted(plays, key=sorted) == sorted(expected, key=sorted)


@pytest.mark.parametrize("dice", [(5, 5), (2, 2), (1, 1)])
def test_other_first_doubles_take_one_checker_off_the_head(dice: tuple[int, int]) -> None:
    after_white = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
    for outcome in CLUB_RULES.outcomes(after_white, dice):
        assert outcome.position.black[24] == 14


def test_a_point_with_any_enemy_checker_is_closed() -> None:
    # One black checker on its point 3 is on white's point 15.
    p = position("long", white={24: 14, 20: 1}, black={24: 14, 3: 1})
    assert all(15 not in play for play in white_plays(p, (5, 4)))


def test_one_checker_takes_both_dice_only_over_an_open_point() -> None:
    # Black on white's 18 (black's 6): 24 -> 13 must go through 19.
    p = position("long", white={24: 15}, black={24: 14, 6: 1})
    outcomes = RULES.outcomes(p, (6, 5))
    assert [own_points(o) for o in outcomes] == [{24: 14, 13: 1}]
    assert outcomes[0].moves == (Move(24, 19), Move(19, 13))
    # With 19 closed too, nothing can move: the turn passes with the position unchanged.
    blocked = position("long", white={24: 15}, black={24: 13, 6: 1, 7: 1})
    (passed,) = RULES.outcomes(blocked, (6, 5))
    assert passed.moves == ()
    assert passed.position == blocked.with_turn(Side.BLACK)


@pytest.mark.parametrize("black_ahead", [False, True])
def test_six_point_block_needs_an_enemy_checker_ahead(black_ahead: bool) -> None:
    # 13 -> 10 would close 11..6. Black's checker on its 15 (white's 3) has passed it.
    black = {24: 14, 15: 1} if black_ahead else {24: 15}
    p = position("long", white={24: 9, 13: 1, 11: 1, 9: 1, 8: 1, 7: 1, 6: 1}, black=black)
    blocks = [all(play.get(q) for q in range(11, 5, -1)) for play in white_plays(p, (3, 1))]
    assert any(blocks) is black_ahead


def test_a_block_made_and_broken_within_the_turn_is_still_forbidden() -> None:
    # 16 -> 10 makes 10..5 with no black checker ahead; 10 -> 5 would break it again. The
    # other order, 16 -> 11, runs into black's checker on white's 11 (black's 23).
    p = position(
        "long",
        white={24: 9, 16: 1, 9: 1, 8: 1, 7: 1, 6: 1, 5: 1},
        black={24: 14, 23: 1},
    )
    for outcome in RULES.outcomes(p, (6, 5)):
        assert not (Move(16, 10) in outcome.moves and Move(10, 5) in outcome.moves)
        play = own_points(outcome)
        assert not (16 not in play and play.get(5) == 2 and 10 not in play), outcome.moves


@pytest.mark.parametrize("black_ahead", [False, True])
def test_six_point_block_across_the_1_24_seam(black_ahead: bool) -> None:
    # White on 22, 23, 24, 1, 2 and a checker on 4: 4 -> 3 would close six in black's way.
    black = {24: 14, 8: 1} if black_ahead else {24: 15}  # black's 8 is white's 20
    p = position("long", white={24: 10, 23: 1, 22: 1, 2: 1, 1: 1, 4: 1}, black=black)
    seam = (22, 23, 24, 1, 2, 3)
    blocked = [all(play.get(q) for q in seam) for play in white_plays(p, (1, 1))]
    assert any(blocked) is black_ahead


def test_only_playable_die_is_played() -> None:
    # Only 24 -> 18 can move; after it no 5 can be played (head, 13 and 9 are closed).
    p = position("long", white={24: 14, 14: 1}, black={24: 11, 7: 1, 20: 1, 21: 1, 1: 1})
    outcomes = RULES.outcomes(p, (6, 5))
    assert [o.moves for o in outcomes] == [(Move(24, 18),)]


def test_either_die_but_not_both_plays_the_larger() -> None:
    # The head cannot move (18, 19 closed); 14 -> 8 or 14 -> 9, then 3 is closed.
    p = position("long", white={24: 14, 14: 1}, black={24: 12, 6: 1, 7: 1, 15: 1})
    outcomes = RULES.outcomes(p, (6, 5))
    assert [o.moves for o in outcomes] == [(Move(14, 8),)]


def test_bearing_off_exact_and_from_the_highest_point() -> None:
    exact = position("long", white={6: 1, 1: 14}, black={24: 15}, fill_off=True)
    assert any(o.position.white[0] == 2 for o in RULES.outcomes(exact, (6, 1)))
    highest = position("long", white={3: 2, 1: 11}, black={24: 15}, fill_off=True)
    assert white_plays(highest, (6, 5)) == [{1: 11, 0: 4}]


def test_a_die_above_a_higher_checker_must_move_inside_the_home() -> None:
    p = position("long", white={6: 1, 2: 12}, black={24: 15}, fill_off=True)
    (outcome,) = RULES.outcomes(p, (4, 4))
    assert outcome.moves[0] == Move(6, 2)
    assert own_points(outcome) == {2: 10, 0: 5}


def test_no_bearing_off_until_every_checker_is_home() -> None:
    p = position("long", white={10: 1, 1: 13}, black={24: 15}, fill_off=True)
    assert all(play[0] == 1 for play in white_plays(p, (2, 1)))
    # Once the first die brings the last checker home, the second may bear off.
    p = position("long", white={8: 1, 1: 13}, black={24: 15}, fill_off=True)
    assert {play[0] for play in white_plays(p, (2, 1))} == {1, 2}


def test_a_checker_can_come_home_and_a_checker_bear_off_in_one_turn() -> None:
    p = position("long", white={7: 1, 1: 13}, black={24: 15}, fill_off=True)
    assert any(play[0] == 2 for play in white_plays(p, (6, 1)))


def test_moving_inside_the_home_instead_of_bearing_off_is_allowed() -> None:
    p = position("long", white={4: 1, 3: 13}, black={24: 15}, fill_off=True)
    plays = white_plays(p, (3, 1))
    assert any(play[0] == 1 for play in plays)  # 3 off
    assert any(play.get(1) == 1 and play[0] == 1 for play in plays)  # 4 -> 1
    assert {1: 1, 3: 12, 2: 1, 0: 1} in plays


def test_double_plays_as_many_as_possible_and_the_game_ends() -> None:
    p = position("long", white={2: 1}, black={24: 15}, fill_off=True)
    (outcome,) = RULES.outcomes(p, (1, 1))
    assert outcome.moves == (Move(2, 1), Move(1, 0))
    result = outcome.position.result()
    assert result is not None and result.winner is Side.WHITE and result.kind.value == "mars"


def test_moves_replay_to_the_outcome() -> None:
    p = position("long", white={24: 10, 11: 1, 9: 1, 8: 1, 7: 1, 6: 1}, black={24: 14, 15: 1})
    for dice in [(1, 1), (6, 5), (4, 2)]:
        for outcome in RULES.outcomes(p, dice):
            assert RULES.play(p, dice, outcome.moves) == outcome.position


def test_steps_are_counted_one_die_at_a_time() -> None:
    outcomes = RULES.outcomes(Position.start(Variant.LONG), (6, 5))
    for first, second in pairwise(outcomes[0].moves):
        assert first.end == second.start
