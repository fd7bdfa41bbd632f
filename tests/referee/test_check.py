"""`check`: the verdict a judge reads, one row per kind of violation."""

from __future__ import annotations

import pytest

from referee.check import check
from referee.position import Position, PositionError, Variant
from referee.rules import Move, rules_for
from tests.builders import position

START_LONG = Position.start(Variant.LONG)
# White to move after both sides' first throws.
EARLY_LONG = position("long", white={24: 14, 13: 1}, black={24: 14, 13: 1})


def verdict_rules(before: Position, dice: tuple[int, int], after: Position) -> list[str]:
    verdict = check(rules_for(before.variant), before, dice, after)
    assert not verdict.legal
    assert verdict.moves is None
    assert verdict.nearest_legal, "an illegal move always comes with the nearest legal plays"
    assert all(v.message for v in verdict.violations)
    return [v.rule for v in verdict.violations]


def test_a_legal_move_is_explained() -> None:
    after = position("long", "black", white={24: 14, 13: 1}, black={24: 15})
    verdict = check(rules_for(Variant.LONG), START_LONG, (6, 5), after)
    assert verdict.legal and verdict.violations == []
    assert verdict.moves in ((Move(24, 18), Move(18, 13)), (Move(24, 19), Move(19, 13)))


@pytest.mark.parametrize(
    ("before", "dice", "after", "rules"),
    [
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 13, 18: 1, 19: 1}, black={24: 15}),
            ["5.4.11"], id="second checker off the head",
        ),
        pytest.param(
            position("long", white={24: 14, 20: 1}, black={24: 14, 3: 1}), (5, 4),
            position("long", white={24: 13, 20: 1, 15: 1}, black={24: 14, 3: 1}),
            ["5.4.12"], id="onto a closed point",
        ),
        pytest.param(
            position("long", white={24: 9, 13: 1, 11: 1, 9: 1, 8: 1, 7: 1, 6: 1}, black={24: 15}),
            (3, 1),
            position("long", white={24: 8, 23: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1},
                     black={24: 15}),
            ["5.4.13"], id="forbidden six-point block",
        ),
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 14, 18: 1}, black={24: 15}),
            ["5.4.26"], id="a die left unplayed",
        ),
        pytest.param(
            START_LONG, (6, 5), START_LONG, ["5.4.26"], id="no move at all",
        ),
        pytest.param(
            position("long", white={24: 14, 14: 1}, black={24: 12, 6: 1, 7: 1, 15: 1}), (6, 5),
            position("long", white={24: 14, 9: 1}, black={24: 12, 6: 1, 7: 1, 15: 1}),
            ["5.4.26"], id="the smaller die played",
        ),
        pytest.param(
            position("long", white={10: 1, 1: 13}, black={24: 15}, fill_off=True), (2, 1),
            position("long", white={8: 1, 1: 12}, black={24: 15}, fill_off=True),
            ["5.4.38"], id="bearing off too early",
        ),
        pytest.param(
            EARLY_LONG, (6, 5),
            position("long", white={24: 13, 18: 1, 15: 1}, black={24: 14, 13: 1}),
            ["5.4.23"], id="a checker moved backwards",
        ),
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 14, 10: 1}, black={24: 15}),
            ["5.4.23"], id="moved too far",
        ),
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 14, 17: 1}, black={24: 15}),
            ["5.4.24"], id="a distance no die shows",
        ),
        pytest.param(
            START_LONG, (6, 5),
            position("long", white={24: 14, 13: 1}, black={24: 14, 23: 1}),
            ["5.4.21"], id="an enemy checker moved",
        ),
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 13, 13: 1}, black={24: 15}),
            ["5.4.47"], id="a checker removed",
        ),
        pytest.param(
            START_LONG, (6, 5), position("long", white={24: 15, 13: 1}, black={24: 15}),
            ["5.4.45"], id="a checker added",
        ),
        pytest.param(
            position("short", white={6: 14}, black={1: 15}, bar=(1, 0)), (3, 1),
            position("short", white={6: 12, 3: 1, 5: 1}, black={1: 15}, bar=(1, 0)),
            ["21.8"], id="moving while a checker waits on the bar",
        ),
        pytest.param(
            position("short", white={8: 1, 6: 14}, black={20: 2, 1: 13}), (3, 2),
            position("short", white={5: 1, 4: 1, 6: 13}, black={20: 2, 1: 13}),
            ["21.4"], id="short: onto a closed point",
        ),
    ],
)
def test_each_violation_cites_its_clause(
    before: Position, dice: tuple[int, int], after: Position, rules: list[str]
) -> None:
    assert sorted(set(verdict_rules(before, dice, after))) == sorted(set(rules))


def test_closed_point_in_long_nardy_also_reports_both_colours() -> None:
    before = position("long", white={24: 14, 20: 1}, black={24: 14, 3: 1})
    after = position("long", white={24: 13, 20: 1, 15: 1}, black={24: 14, 3: 1})
    verdict = check(rules_for(Variant.LONG), before, (5, 4), after)
    messages = " ".join(v.message for v in verdict.violations)
    assert "onto point 15, which the opponent holds" in messages
    assert "both colours" in messages
    assert verdict.observed_moves is not None


def test_nearest_legal_outcome_is_the_closest() -> None:
    # One checker 24 -> 18 with 6-5: the nearest legal plays finish the move.
    after = position("long", white={24: 14, 18: 1}, black={24: 15})
    verdict = check(rules_for(Variant.LONG), START_LONG, (6, 5), after)
    assert verdict.nearest_legal[0].white[13] == 1


def test_variants_must_agree() -> None:
    with pytest.raises(PositionError, match="different variants"):
        check(rules_for(Variant.LONG), START_LONG, (6, 5), Position.start(Variant.SHORT))
