"""Judging a settled board from uncertain readings: legal explanations win unless the frames
are sure."""

from __future__ import annotations

import pytest

from referee.judge import (
    BoardBelief,
    Content,
    content_of,
    explain,
    likeliest_count,
    restore_count,
)
from referee.position import Position, Side, Variant
from referee.rules import LongNardy
from tests.builders import position

RULES = LongNardy()
START = Position.start(Variant.LONG)
LEGAL_AFTER = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
TWO_OFF_HEAD = position("long", "black", white={24: 13, 18: 1, 19: 1}, black={24: 15})


def blurred(target: Position, point: int, wrong: Content, p_wrong: float) -> BoardBelief:
    """Sure of `target` except on `point`, which might also hold `wrong`."""
    certain = BoardBelief.certain(target)
    points = list(certain.points)
    points[point] = {content_of(target, point): 1 - p_wrong, wrong: p_wrong}
    return BoardBelief(tuple(points), certain.bar)


def test_a_clear_legal_move_is_taken() -> None:
    found = explain(RULES, START, (6, 5), BoardBelief.certain(LEGAL_AFTER))
    assert not found.flag and found.kind == "outcome"
    assert found.outcome is not None and found.outcome.position == LEGAL_AFTER


def test_a_clear_illegal_move_is_flagged_with_the_check_verdict() -> None:
    found = explain(RULES, START, (6, 5), BoardBelief.certain(TWO_OFF_HEAD))
    assert found.flag and found.verdict is not None
    assert [v.rule for v in found.verdict.violations] == ["5.4.11"]
    assert found.verdict.nearest_legal[0] == LEGAL_AFTER


def test_half_a_move_is_a_partial_play_not_a_flag() -> None:
    half = position("long", "white", white={24: 14, 18: 1}, black={24: 15})
    found = explain(RULES, START, (6, 5), BoardBelief.certain(half))
    assert not found.flag and found.kind == "partial" and found.outcome is None


def test_an_untouched_board_is_unchanged() -> None:
    found = explain(RULES, START, (6, 5), BoardBelief.certain(START))
    assert found.kind == "unchanged" and found.position == START


@pytest.mark.parametrize("p_wrong", [0.3, 0.6, 0.9])
def test_a_doubtful_point_is_never_called_an_illegal_move(p_wrong: float) -> None:
    # The legal position, with point 17 possibly showing a white checker (a misread).
    belief = blurred(LEGAL_AFTER, 17, (Side.WHITE, 1), p_wrong)
    found = explain(RULES, START, (6, 5), belief)
    assert not found.flag


def test_the_most_likely_legal_outcome_is_chosen() -> None:
    after_white = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
    outcomes = RULES.outcomes(after_white, (3, 1))
    target = outcomes[-1].position
    found = explain(RULES, after_white, (3, 1), blurred(target, 5, (None, 0), 0.2))
    assert found.outcome is not None and found.outcome.position == target


def test_hidden_points_do_not_count() -> None:
    # Sure but hidden points cannot make a flag: a hand hides both checkers off the head.
    certain = BoardBelief.certain(TWO_OFF_HEAD)
    hidden = BoardBelief(certain.points, certain.bar, frozenset({18, 19, 24}))
    assert not explain(RULES, START, (6, 5), hidden).flag


def test_a_tall_stack_misread_by_one_does_not_add_a_checker() -> None:
    # The head read as 15 (doubtfully) after a checker left it: 14 is the count to take.
    belief = blurred(LEGAL_AFTER, 24, (Side.WHITE, 15), 0.8)
    guess = likeliest_count(belief, belief.best_guess(START))
    assert guess.total(Side.WHITE) == 15 and guess.white[24] == 14


def test_an_accepted_wrong_count_is_mended_on_the_head() -> None:
    extra = position("long", "black", white={24: 15, 13: 1}, black={24: 15})
    assert restore_count(extra).white[24] == 14 and restore_count(extra).total(Side.WHITE) == 15


def test_a_flagged_position_accounts_for_every_checker() -> None:
    # Two checkers off the head (sure), the head itself read as 10 (a doubtful tall stack):
    # the flag reports 13 on the head, not a board with checkers gone missing.
    belief = blurred(TWO_OFF_HEAD, 24, (Side.WHITE, 10), 0.6)
    found = explain(RULES, START, (6, 5), belief)
    assert found.flag and found.observed.white == TWO_OFF_HEAD.white


def test_a_checker_the_reader_is_sure_is_gone_stays_gone() -> None:
    missing = position("long", "black", white={24: 13, 13: 1}, black={24: 15})
    found = explain(RULES, START, (6, 5), BoardBelief.certain(missing))
    assert found.flag and found.observed.total(Side.WHITE) == 14
    assert "5.4.47" in [v.rule for v in found.verdict.violations] if found.verdict else False


def test_checkers_borne_off_this_turn_are_counted_off() -> None:
    home = position("long", "white", white={6: 3, 5: 12}, black={24: 15})
    after = position("long", "black", white={6: 2, 5: 11}, black={24: 15}, off=(2, 0))
    belief = BoardBelief.certain(after)
    guess = likeliest_count(belief, belief.best_guess(home))
    assert guess.white == after.white


def test_a_checker_on_the_opponents_point_is_flagged_as_a_closed_point() -> None:
    # White plays 13/7 onto black's point: the reader sees black's two checkers there as
    # three, and white's 13 point empty; neither is sure on its own, together they are.
    # (Black's point 19 is white's 7.)
    before = position("long", "white", white={24: 14, 13: 1}, black={24: 13, 19: 2})
    onto = position("long", "black", white={24: 14, 7: 1}, black={24: 13, 19: 2})
    seen = position("long", "black", white={24: 14}, black={24: 13, 19: 3})
    certain = BoardBelief.certain(seen)
    points = list(certain.points)
    points[13] = {(None, 0): 0.966, (Side.WHITE, 1): 0.034}
    points[7] = {(Side.BLACK, 3): 0.95, (Side.BLACK, 2): 0.001, (Side.WHITE, 1): 0.049}
    found = explain(RULES, before, (6, 1), BoardBelief(tuple(points), certain.bar))
    assert found.flag and found.observed.white == onto.white
    assert "5.4.12" in [v.rule for v in found.verdict.violations] if found.verdict else False


def test_a_checker_read_as_the_opponents_on_his_point_is_flagged_without_a_sure_point() -> None:
    # White 24/21 onto black's lone checker (long nardy: any enemy checker closes a point):
    # the reader shows black 2 there (0.77) and the head one short (0.62), neither sure.
    before = position("long", "white", white={24: 13, 20: 1, 4: 1},
                      black={24: 13, 9: 1, 13: 1})
    seen = position("long", "black", white={24: 12, 18: 1, 4: 1},
                    black={24: 13, 9: 2, 13: 1})
    certain = BoardBelief.certain(seen)
    points = list(certain.points)
    points[21] = {(Side.BLACK, 2): 0.77, (Side.BLACK, 1): 0.005, (Side.WHITE, 1): 0.075,
                  (Side.WHITE, 2): 0.15}
    points[24] = {(Side.WHITE, 12): 0.62, (Side.WHITE, 13): 0.05, (Side.WHITE, 11): 0.33}
    found = explain(RULES, before, (1, 2), BoardBelief(tuple(points), certain.bar))
    assert found.flag and found.observed.white[21] == 1 and found.observed.black[9] == 1
    assert "5.4.12" in [v.rule for v in found.verdict.violations] if found.verdict else False
