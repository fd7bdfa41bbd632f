"""Judge a move from uncertain board readings: pick the legal outcome the frames support, and
flag an illegal move only when the frames confidently show something no legal outcome is.

The board reader gives, for each point, a probability over what stands there (no checker,
or n checkers of one colour). A legal outcome's likelihood is the product of its points'
probabilities. The best legal outcome wins unless the reading's own best guess is far more
likely AND every point where the two differ is read with high confidence: a misread point
(a hand's shadow, glare, a checker half in the next triangle) is never called an illegal move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from referee.check import Verdict, check
from referee.position import BAR, OFF, Position, Side, opposite_point
from referee.rules import Dice, Outcome, Rules

# What one point holds: the side (None when empty) and the number of checkers.
Content = tuple[Side | None, int]
FLOOR = 1e-6  # no reading is ever taken as impossible


@dataclass(frozen=True)
class BoardBelief:
    """The board reader's beliefs in white's numbering.

    `points[p]` (p = 1..24; index 0 unused) maps a Content to its probability; `bar[side]`
    maps a count to its probability (short nardy; empty when not read). Occluded points must
    not be judged: `occluded` lists them.
    """

    points: tuple[dict[Content, float], ...]
    bar: dict[Side, dict[int, float]] = field(default_factory=dict)
    occluded: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if len(self.points) != 25:
            raise ValueError(f"points must have 25 entries (0 unused), got {len(self.points)}")

    @classmethod
    def certain(cls, position: Position) -> BoardBelief:
        """A belief that is sure of `position` (for tests and for judges' overrides)."""
        empty: dict[Content, float] = {(None, 0): 1.0}
        points = [empty] + [{content_of(position, p): 1.0} for p in range(1, 25)]
        bar = {side: {position.counts(side)[BAR]: 1.0} for side in Side}
        return cls(tuple(points), bar)

    def best_guess(self, variant_of: Position) -> Position:
        """The most likely content of each point on its own: may break every rule, even the
        checker count, which is what an illegal move or a misread looks like."""
        white, black = [0] * 26, [0] * 26
        for point in range(1, 25):
            side, count = max(self.points[point].items(), key=lambda item: item[1])[0]
            if side is Side.WHITE:
                white[point] = count
            elif side is Side.BLACK:
                black[opposite_point(variant_of.variant, point)] = count
        for side, counts in ((Side.WHITE, white), (Side.BLACK, black)):
            beliefs = self.bar.get(side)
            counts[BAR] = (max(beliefs.items(), key=lambda item: item[1])[0] if beliefs
                           else variant_of.counts(side)[BAR])
            # Borne-off checkers may be out of view: take whatever completes fifteen.
            counts[OFF] = max(0, 15 - sum(counts[1:]))
        return Position(variant_of.variant, variant_of.turn, tuple(white), tuple(black))


def content_of(position: Position, point: int) -> Content:
    """What stands on white's point `point`."""
    if position.white[point]:
        return Side.WHITE, position.white[point]
    black = position.opponent_on(Side.WHITE, point)
    return (Side.BLACK, black) if black else (None, 0)


def log_likelihood(belief: BoardBelief, position: Position) -> float:
    total = 0.0
    for point in range(1, 25):
        if point not in belief.occluded:
            probability = belief.points[point].get(content_of(position, point), 0.0)
            total += math.log(max(probability, FLOOR))
    for side, beliefs in belief.bar.items():
        total += math.log(max(beliefs.get(position.counts(side)[BAR], 0.0), FLOOR))
    return total


@dataclass(frozen=True)
class Judgement:
    """`outcome`: the legal outcome taken (None when the move is flagged). `verdict`: the check
    of the observed position when flagged. `margin`: log-likelihood of the best guess over the
    best legal outcome (how strongly the frames contradict the rules)."""

    outcome: Outcome | None
    verdict: Verdict | None
    observed: Position
    margin: float
    doubtful_points: tuple[int, ...]

    @property
    def flagged(self) -> bool:
        return self.verdict is not None


def judge(
    rules: Rules,
    before: Position,
    dice: Dice,
    belief: BoardBelief,
    min_margin: float = 6.0,
    min_point_confidence: float = 0.97,
) -> Judgement:
    """The legal outcome the frames support, or a flag with the `check` verdict."""
    if belief.occluded:
        raise ValueError(f"points {sorted(belief.occluded)} are hidden: judge a clear view")
    outcomes = rules.outcomes(before, dice)
    scored = max(outcomes, key=lambda o: log_likelihood(belief, o.position))
    best_legal = log_likelihood(belief, scored.position)
    observed = belief.best_guess(before).with_turn(before.turn.other)
    margin = log_likelihood(belief, observed) - best_legal
    differing = [p for p in range(1, 25)
                 if content_of(observed, p) != content_of(scored.position, p)]
    doubtful = tuple(p for p in differing
                     if belief.points[p].get(content_of(observed, p), 0.0) < min_point_confidence)
    if margin < min_margin or doubtful:
        return Judgement(scored, None, scored.position, margin, doubtful)
    return Judgement(None, check(rules, before, dice, observed), observed, margin, doubtful)
