"""Judging a move from uncertain readings: legal outcomes win unless the frames are sure."""

from __future__ import annotations

import pytest

from referee.judge import BoardBelief, Content, content_of, judge
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
    judgement = judge(RULES, START, (6, 5), BoardBelief.certain(LEGAL_AFTER))
    assert not judgement.flagged
    assert judgement.outcome is not None and judgement.outcome.position == LEGAL_AFTER


def test_a_clear_illegal_move_is_flagged_with_the_check_verdict() -> None:
    judgement = judge(RULES, START, (6, 5), BoardBelief.certain(TWO_OFF_HEAD))
    assert judgement.flagged and judgement.verdict is not None
    assert [v.rule for v in judgement.verdict.violations] == ["5.4.11"]
    assert judgement.verdict.nearest_legal[0] == LEGAL_AFTER


@pytest.mark.parametrize("p_wrong", [0.3, 0.6, 0.9])
def test_a_doubtful_point_is_never_called_an_illegal_move(p_wrong: float) -> None:
    # The legal position, with point 17 possibly showing a white checker (a misread).
    belief = blurred(LEGAL_AFTER, 17, (Side.WHITE, 1), p_wrong)
    judgement = judge(RULES, START, (6, 5), belief)
    assert not judgement.flagged
    assert judgement.outcome is not None and judgement.outcome.position == LEGAL_AFTER


def test_the_most_likely_legal_outcome_is_chosen() -> None:
    after_white = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
    outcomes = RULES.outcomes(after_white, (3, 1))
    target = outcomes[-1].position
    judgement = judge(RULES, after_white, (3, 1), blurred(target, 5, (None, 0), 0.2))
    assert judgement.outcome is not None and judgement.outcome.position == target


def test_hidden_points_are_not_judged() -> None:
    belief = BoardBelief.certain(LEGAL_AFTER)
    hidden = BoardBelief(belief.points, belief.bar, frozenset({13}))
    with pytest.raises(ValueError, match="hidden"):
        judge(RULES, START, (6, 5), hidden)
