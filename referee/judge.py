"""Judge a settled board from uncertain readings: take the legal explanation the frames
support, and flag an illegal move only when the frames confidently show something no legal
play is.

The board reader gives, for each point, a probability over what stands there (no checker,
or n checkers of one colour). A position's likelihood is the product of its points'
probabilities. The legal explanations of a board are the roll's outcomes, the partial plays
on the way to one, and the position before. A flag needs every one of them to contradict a
point read with confidence, and the reading's own best guess to be far likelier: a misread
point (a hand's shadow, glare, a checker half in the next triangle) is never called an
illegal move.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from referee.check import Verdict, check
from referee.position import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    Counts,
    Position,
    Side,
    Variant,
    opposite_point,
)
from referee.rules import Dice, Move, Outcome, Rules

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
        checker count, which is what an illegal move or a misread looks like. Borne-off
        checkers are `variant_of`'s: the camera does not judge the trays."""
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
            counts[OFF] = variant_of.counts(side)[OFF]
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
            readings = belief.points[point]
            probability = max(readings.get(content, 0.0) for content in seen_as(position, point))
            total += math.log(max(probability, FLOOR))
    for side, beliefs in belief.bar.items():
        total += math.log(max(beliefs.get(position.counts(side)[BAR], 0.0), FLOOR))
    return total


def seen_as(position: Position, point: int) -> list[Content]:
    """What the reader may show on white's `point`: its content, or for a stack of both
    colours (a checker put on the opponent's point), either colour alone, the top ones or
    all of them, since the reader has no class for it."""
    white = position.white[point]
    black = position.opponent_on(Side.WHITE, point)
    if white and black:
        return [(Side.WHITE, white), (Side.BLACK, black), (Side.WHITE, white + black),
                (Side.BLACK, white + black)]
    return [content_of(position, point)]


MIN_MARGIN = 4.0  # nats by which a reading must beat every legal explanation to be flagged
MIN_POINT_CONFIDENCE = 0.97  # a point read at least this sure is taken as seen
# Evidence spread over several points, none sure on its own, that still outweighs every legal
# explanation this much (e^9: about 8000 to 1) is a flag too.
STRONG_MARGIN = 9.0
# The most a recount may cost (nats) to keep fifteen checkers a side: cheaper than a flag,
# so that a checker gone from a sure point is not hidden in a doubtful stack elsewhere.
MAX_RECOUNT = 3.0
HEAD = 24  # each side's first point, where the judge adds or removes checkers (5.4.44-45)


@dataclass(frozen=True)
class Explanation:
    """What a settled board shows, judged against the roll.

    `kind`: "outcome" (a complete legal play, `outcome`), "partial" (some of its steps
    played, the move goes on), "unchanged" (the position before), or "observed" when no
    legal explanation fits and the reading is sure enough to flag (`flag`; `verdict` holds
    the `check` of `observed`, the reading's best guess). `score`: the log-likelihood of
    `position`, the explanation taken.
    """

    kind: str
    position: Position
    outcome: Outcome | None
    observed: Position
    score: float
    verdict: Verdict | None = None

    @property
    def flag(self) -> bool:
        return self.kind == "observed"


def explain(rules: Rules, before: Position, dice: Dice | None, belief: BoardBelief,
            final: bool = False) -> Explanation:
    """The legal explanation the frames support, or a flag with the `check` verdict.

    A flag needs two things: every legal explanation contradicts a point read with
    confidence (>= MIN_POINT_CONFIDENCE), and the reading's best guess is MIN_MARGIN nats
    likelier than the best of them. Without `dice` the only explanation is `before` (a
    start position, a board between turns). Occluded points are left out of the judgement.
    `final`: the turn is over, so a partial play no longer explains the board.
    """
    outcomes = rules.outcomes(before, dice) if dice is not None else []
    candidates: list[tuple[str, Position, Outcome | None]] = [
        *(("outcome", o.position, o) for o in outcomes),
        *(("partial", p, None) for p in (() if final else partial_plays(outcomes, before))),
        ("unchanged", before, None),
    ]
    sure = sure_points(belief)
    fitting = [c for c in candidates
               if all(content_of(c[1], p) == content for p, content in sure.items())]
    kind, explained, outcome = max(fitting or candidates,
                                   key=lambda c: log_likelihood(belief, c[1]))
    score = log_likelihood(belief, explained)
    turn = before.turn.other if dice is not None else before.turn
    guess = belief.best_guess(before)
    # The mover's checker read as one more of the opponent's: no legal play makes an
    # opponent's stack grow, so that reading needs no sure point to be flagged.
    stacked = stacked_on_enemy(guess, before) if dice is not None else guess
    observed = likeliest_count(belief, stacked).with_turn(turn)
    margin = log_likelihood(belief, observed) - score
    if margin < MIN_MARGIN or (fitting and margin < STRONG_MARGIN and stacked == guess):
        return Explanation(kind, explained, outcome, observed, score)
    verdict = check(rules, before, dice, observed) if dice is not None else None
    if verdict is not None and verdict.legal:  # the change is legal after all: take it
        return Explanation(kind, explained, outcome, observed, score)
    return Explanation("observed", observed, None, observed, log_likelihood(belief, observed),
                       verdict)


def stacked_on_enemy(observed: Position, before: Position) -> Position:
    """A checker put on a point the opponent holds stands on his stack, and the reader sees
    one more of his checkers there: when the mover is short of checkers and the opponent
    has that many too many, give the extra checkers on the opponent's grown points back to
    the mover, standing on those points (a closed point, 5.4.12)."""
    mover, opponent = before.turn, before.turn.other
    own, other = list(observed.counts(mover)), list(observed.counts(opponent))
    short = CHECKERS_PER_SIDE - sum(own)
    grown = [p for p in range(1, 25) if other[p] > before.counts(opponent)[p]]
    given = 0
    for point in grown:
        extra = min(other[point] - before.counts(opponent)[point],
                    short - given, sum(other) - CHECKERS_PER_SIDE)
        if extra <= 0:
            break
        other[point] -= extra
        own[opposite_point(observed.variant, point)] += extra
        given += extra
    if not given:
        return observed
    white, black = (own, other) if mover is Side.WHITE else (other, own)
    return Position(observed.variant, observed.turn, tuple(white), tuple(black))


def sure_points(belief: BoardBelief) -> dict[int, Content]:
    """The visible points read with confidence, and what stands on each."""
    sure = {}
    for point in range(1, 25):
        if point in belief.occluded:
            continue
        content, probability = max(belief.points[point].items(), key=lambda item: item[1])
        if probability >= MIN_POINT_CONFIDENCE:
            sure[point] = content
    return sure


def partial_plays(outcomes: Iterable[Outcome], before: Position) -> list[Position]:
    """Positions on the way to a legal outcome: some of its steps played, in any order."""
    seen: dict[tuple[Counts, Counts], Position] = {}
    for outcome in outcomes:
        for order in set(itertools.permutations(outcome.moves)):
            position = before
            for move in order[:-1]:
                stepped = apply_step(position, move)
                if stepped is None:
                    break
                position = stepped
                seen.setdefault((position.white, position.black), position)
    return list(seen.values())


def apply_step(position: Position, move: Move) -> Position | None:
    """One checker of the side on turn moved (hitting a lone enemy checker in short nardy);
    None when no checker stands on the start point."""
    mover = position.turn
    own = list(position.counts(mover))
    other = list(position.counts(mover.other))
    if own[move.start] == 0:
        return None
    own[move.start] -= 1
    own[move.end] += 1
    if move.end != OFF and position.variant is Variant.SHORT:
        enemy_point = opposite_point(position.variant, move.end)
        if other[enemy_point] == 1:
            other[enemy_point], other[BAR] = 0, other[BAR] + 1
    white, black = (own, other) if mover is Side.WHITE else (other, own)
    return Position(position.variant, mover, tuple(white), tuple(black))


def likeliest_count(belief: BoardBelief, guess: Position) -> Position:
    """The reading's guess with each side's fifteen checkers accounted for: a stack of 13
    read as 10 or as 14 is likelier than checkers gone or added. Borne-off checkers stay as
    the guess has them (the position before); a side with all its checkers home may have
    borne off up to four more. Counts
    change where the reading least supports them, and only while the change costs under
    MAX_RECOUNT: what the reading is sure of stands, even if impossible (a real removal)."""
    counts = {side: list(guess.counts(side)) for side in Side}
    for side, own in counts.items():
        missing = CHECKERS_PER_SIDE - sum(own)
        if missing > 0 and all(n == 0 for n in own[7:]):
            own[OFF] += min(missing, 4)  # bearing off this turn
        _account(belief, side, own, guess.variant)
    return Position(guess.variant, guess.turn, tuple(counts[Side.WHITE]),
                    tuple(counts[Side.BLACK]))


def _account(belief: BoardBelief, side: Side, own: list[int], variant: Variant) -> None:
    def probability(point: int, count: int) -> float:
        white_point = point if side is Side.WHITE else opposite_point(variant, point)
        content: Content = (side, count) if count else (None, 0)
        return max(belief.points[white_point].get(content, 0.0), FLOOR)

    while (gap := CHECKERS_PER_SIDE - sum(own)) != 0:
        step = 1 if gap > 0 else -1
        options = []  # (cost per checker, point, new count)
        for point in range(1, 25):
            if not own[point]:
                continue
            for k in range(1, abs(gap) + 1):
                new = own[point] + step * k
                if new < 0:
                    break
                cost = math.log(probability(point, own[point]) / probability(point, new))
                options.append((cost / k, point, new))
        if not options:
            return
        per_checker, point, new = min(options)
        if per_checker * abs(new - own[point]) >= MAX_RECOUNT:
            return
        own[point] = new


def restore_count(position: Position) -> Position:
    """A position with a wrong checker count as the judge leaves it: checkers added to or
    taken off the head while it has enough (5.4.44-5.4.45); else unchanged."""
    counts = {side: list(position.counts(side)) for side in Side}
    for own in counts.values():
        surplus = sum(own) - CHECKERS_PER_SIDE
        if surplus < 0 or own[HEAD] >= surplus:
            own[HEAD] -= surplus
    return Position(position.variant, position.turn, tuple(counts[Side.WHITE]),
                    tuple(counts[Side.BLACK]))


def differs(belief: BoardBelief, position: Position) -> bool:
    """Whether the reading's best guess differs from `position` on any point."""
    return not same_placement(belief.best_guess(position), position)


def same_placement(a: Position, b: Position) -> bool:
    return all(content_of(a, p) == content_of(b, p) for p in range(1, 25))
