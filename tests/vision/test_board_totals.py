"""Choosing the strips' classes so that each colour's checkers add up (vision/board/totals.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.board.classes import N_CLASSES, OCCLUDED, encode_class
from vision.board.reader import BoardReading
from vision.board.totals import decode_counts
from vision.board.trays import TrayReading

LIGHT, DARK = "light", "dark"


def reading(*rows: dict[int, float], strips: int = 26) -> np.ndarray:
    """Probabilities of `strips` strips: the given rows (class -> probability, the rest spread
    thinly), then empty strips the classifier is sure of."""
    probs = np.full((strips, N_CLASSES), 1e-7)
    probs[len(rows):, 0] = 1.0
    for i, row in enumerate(rows):
        for cls, p in row.items():
            probs[i, cls] = p
    probs /= probs.sum(1, keepdims=True)
    return probs


def test_a_reading_that_adds_up_is_left_alone() -> None:
    probs = reading({encode_class(LIGHT, 15): 0.6, encode_class(LIGHT, 14): 0.4},
                    {encode_class(DARK, 15): 0.9, 0: 0.1})
    assert list(decode_counts(probs)) == list(probs.argmax(1))
    assert list(decode_counts(probs, (15, 15), exact=True)) == list(probs.argmax(1))


def test_a_stack_read_too_tall_for_fifteen_takes_its_next_likeliest_count() -> None:
    # 14 light on one point is likelier alone, but four other light checkers are certain
    probs = reading({encode_class(LIGHT, 14): 0.45, encode_class(LIGHT, 11): 0.35,
                     encode_class(LIGHT, 12): 0.2},
                    {encode_class(LIGHT, 2): 1.0}, {encode_class(LIGHT, 2): 1.0})
    assert decode_counts(probs)[0] == encode_class(LIGHT, 11)


def test_exact_totals_pick_the_count_that_makes_fifteen() -> None:
    # a head of 13 read likelier as 9
    probs = reading({encode_class(LIGHT, 9): 0.5, encode_class(LIGHT, 13): 0.4,
                     encode_class(LIGHT, 10): 0.1},
                    {encode_class(LIGHT, 2): 1.0}, {encode_class(DARK, 15): 1.0})
    assert decode_counts(probs)[0] == encode_class(LIGHT, 9)
    assert decode_counts(probs, (15, 15), exact=True)[0] == encode_class(LIGHT, 13)
    three_borne_off = (12, 15)
    assert decode_counts(probs, three_borne_off, exact=True)[0] == encode_class(LIGHT, 10)


def test_exact_totals_pick_the_colour_that_makes_fifteen() -> None:
    probs = reading({encode_class(LIGHT, 2): 0.6, encode_class(DARK, 2): 0.4},
                    {encode_class(LIGHT, 13): 1.0}, {encode_class(DARK, 13): 1.0})
    assert decode_counts(probs, (13, 15), exact=True)[0] == encode_class(DARK, 2)
    assert decode_counts(probs, (15, 13), exact=True)[0] == encode_class(LIGHT, 2)


def test_exact_totals_out_of_reach_fall_back_to_at_most() -> None:
    # only 3 + 2 light checkers are at all possible: 15 exactly cannot be met
    probs = reading({encode_class(LIGHT, 3): 1.0}, {encode_class(LIGHT, 2): 1.0},
                    {encode_class(DARK, 15): 0.6, encode_class(DARK, 14): 0.4})
    chosen = decode_counts(probs, (15, 15), exact=True)
    assert list(chosen[:3]) == [encode_class(LIGHT, 3), encode_class(LIGHT, 2),
                                encode_class(DARK, 15)]


def test_occluded_strips_add_no_checkers() -> None:
    probs = reading({OCCLUDED: 0.9, encode_class(LIGHT, 15): 0.1},
                    {encode_class(LIGHT, 15): 1.0})
    chosen = decode_counts(probs)
    assert chosen[0] == OCCLUDED and chosen[1] == encode_class(LIGHT, 15)


def test_a_visible_point_is_not_called_occluded_to_drop_its_checkers() -> None:
    # 3 light on the first point unless it were hidden; 13 light elsewhere, nearly sure
    probs = reading({encode_class(LIGHT, 3): 0.98, OCCLUDED: 0.02},
                    {encode_class(LIGHT, 13): 0.999, encode_class(LIGHT, 12): 0.001})
    chosen = decode_counts(probs)
    assert list(chosen[:2]) == [encode_class(LIGHT, 3), encode_class(LIGHT, 12)]


@pytest.mark.parametrize("seed", range(20))
def test_the_choice_is_the_best_assignment_within_the_totals(seed: int) -> None:
    """Against brute force over four uncertain strips, each empty or one of three counts."""
    rng = np.random.default_rng(seed)
    options = [np.r_[0, rng.choice(np.arange(1, OCCLUDED), size=3, replace=False)]
               for _ in range(4)]
    rows = [dict(zip(map(int, o), rng.dirichlet(np.ones(4)), strict=True)) for o in options]
    probs = reading(*rows)
    totals = (int(rng.integers(5, 16)), int(rng.integers(5, 16)))
    light = {c: c if c <= 15 else 0 for c in range(OCCLUDED)}
    best, best_score = None, -np.inf
    for combo in itertools.product(*options):
        if (sum(light[c] for c in combo) <= totals[0]
                and sum(c - 15 if c > 15 else 0 for c in combo) <= totals[1]):
            score = sum(np.log(probs[i, c]) for i, c in enumerate(combo))
            if score > best_score:
                best, best_score = combo, score
    assert best is not None  # all four empty is always within the totals
    chosen = decode_counts(probs, totals)
    assert tuple(int(c) for c in chosen[:4]) == tuple(int(c) for c in best)


def test_a_board_reading_reports_what_adds_up_with_the_trays() -> None:
    # a head read likelier as 14 than 13, two light borne off in the left-top tray half
    probs = reading({encode_class(LIGHT, 14): 0.6, encode_class(LIGHT, 13): 0.4},
                    {encode_class(DARK, 15): 1.0})
    trays = reading({encode_class(LIGHT, 2): 0.9, encode_class(LIGHT, 1): 0.1}, strips=4)
    alone = BoardReading(probs, np.zeros((4, 2)), 40.0)
    assert alone.point(1) == (LIGHT, 14) and alone.off() is None  # at most 15: 14 is allowed
    seen = BoardReading(probs, np.zeros((4, 2)), 40.0, TrayReading(trays))
    assert seen.point(1) == (LIGHT, 13) and seen.off() == {"light": 2, "dark": 0}
    assert seen.confidence(1) == pytest.approx(probs[0, encode_class(LIGHT, 13)])
    hidden = trays.copy()
    hidden[3] = 0.0
    hidden[3, OCCLUDED] = 1.0  # a tray half not seen: nothing exact to go on
    unsure = BoardReading(probs, np.zeros((4, 2)), 40.0, TrayReading(hidden))
    assert unsure.point(1) == (LIGHT, 14) and unsure.off() is None
