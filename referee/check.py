"""Judge an observed move: legal, or which rules it breaks and what the legal plays were.

The observed change is explained by replaying the dice under relaxed rules: the cheapest
explanation names the rules it had to break. A change no sequence of dice steps can make
(a checker moved backwards or by a distance no die shows, an enemy checker moved, a checker
added or removed) is described from the difference between the two placements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.position import (
    BAR,
    CHECKERS_PER_SIDE,
    OFF,
    Position,
    PositionError,
    Side,
    Variant,
    opposite_point,
)
from referee.rules import Dice, Explained, Move, Outcome, Rules, Step

DICE_UNPLAYED = "5.4.26"
SMALLER_DIE = "5.4.26"
DIRECTION = "5.4.23"
DISTANCE = "5.4.24"
ENEMY_MOVED = "5.4.21"
CHECKER_REMOVED = "5.4.47"
CHECKER_ADDED = "5.4.45"


@dataclass(frozen=True, slots=True)
class Violation:
    rule: str
    message: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


@dataclass(frozen=True, slots=True)
class Verdict:
    legal: bool
    moves: tuple[Move, ...] | None
    violations: list[Violation] = field(default_factory=list)
    nearest_legal: list[Position] = field(default_factory=list)
    # The steps that best explain an illegal change, when dice steps explain it at all.
    observed_moves: tuple[Move, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "moves": None if self.moves is None else [list(m) for m in self.moves],
            "violations": [v.to_json() for v in self.violations],
            "nearest_legal": [p.to_json() for p in self.nearest_legal],
            "observed_moves": (
                None if self.observed_moves is None else [list(m) for m in self.observed_moves]
            ),
        }


def _placement(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return position.white, position.black


def check(rules: Rules, before: Position, dice: Dice, after: Position) -> Verdict:
    """Judge the change from `before` (validated, its `turn` moving) to the observed `after`."""
    before.validate()
    if after.variant is not before.variant:
        raise PositionError("before and after positions are of different variants")
    outcomes = rules.outcomes(before, dice)
    for outcome in outcomes:
        if _placement(outcome.position) == _placement(after):
            return Verdict(True, outcome.moves)
    mover = before.turn
    name = mover.value.capitalize()
    violations = _impossible_placement(rules, before, after)
    explained = _best_explanation(rules, before, dice, after, outcomes)
    if explained is not None:
        steps, enemy_matches = explained
        violations += [
            Violation(rules.clause(step), f"{name} {message}") for step, message in steps.broken
        ]
        violations += _dice_use(rules, mover, dice, steps, outcomes)
        if not enemy_matches:
            violations += _enemy_changes(rules, before, after, steps.opp)
    else:
        if after.total(mover) == before.total(mover):
            violations += _unexplained_movement(before, dice, after)
        violations += _enemy_changes(rules, before, after, None)
    if not violations:  # defensive: a change that is not legal always breaks something
        violations.append(Violation(DISTANCE, f"{name}'s change matches no legal play"))
    return Verdict(
        False,
        None,
        _dedupe(violations),
        _nearest(outcomes, after),
        None if explained is None else explained[0].moves,
    )


def _dedupe(violations: list[Violation]) -> list[Violation]:
    return list(dict.fromkeys(violations))


def _impossible_placement(rules: Rules, before: Position, after: Position) -> list[Violation]:
    found = []
    for side in Side:
        was, now = before.total(side), after.total(side)
        if now < was:
            found.append(Violation(CHECKER_REMOVED, f"{side.value.capitalize()} has {now} "
                                   f"checkers, {was - now} fewer than before: checkers were "
                                   "removed from the game"))
        elif now > was:
            found.append(Violation(CHECKER_ADDED, f"{side.value.capitalize()} has {now} "
                                   f"checkers, {now - was} more than the {CHECKERS_PER_SIDE} "
                                   "in play: checkers were added"))
    for point in range(1, 25):
        if after.white[point] and after.opponent_on(Side.WHITE, point):
            found.append(Violation(rules.clause(Step.CLOSED_POINT), f"White's point {point} "
                                   f"(black's {opposite_point(after.variant, point)}) holds "
                                   "checkers of both colours"))
    if after.variant is Variant.LONG:
        for side in Side:
            if after.counts(side)[BAR]:
                found.append(Violation(CHECKER_ADDED, f"{side.value.capitalize()} has "
                                       "checkers on the bar, which long nardy has not"))
    return found


def _relaxable(rules: Rules) -> frozenset[Step]:
    if rules.variant is Variant.LONG:
        return frozenset(Step) - {Step.BAR_FIRST}
    return frozenset(Step) - {Step.HEAD, Step.BLOCK}


def _best_explanation(
    rules: Rules, before: Position, dice: Dice, after: Position, outcomes: list[Outcome]
) -> tuple[Explained, bool] | None:
    """The explanation of the mover's change that breaks the fewest rules.

    Returns it with whether it also explains the opponent's checkers; None when no sequence of
    dice steps gives the mover's observed placement.
    """
    mover = before.turn
    own_after = after.counts(mover)
    theirs = after.counts(mover.other)
    opp_after = [0] * 26
    opp_after[OFF], opp_after[BAR] = theirs[OFF], theirs[BAR]
    for point in range(1, 25):
        opp_after[opposite_point(rules.variant, point)] = theirs[point]
    target_opp = tuple(opp_after)
    best: tuple[int, Explained, bool] | None = None
    for steps in rules.explanations(before, dice, _relaxable(rules)):
        if steps.own != own_after:
            continue
        enemy_matches = steps.opp == target_opp
        cost = (
            len(steps.broken)
            + len(_dice_use(rules, mover, dice, steps, outcomes))
            + (0 if enemy_matches else 1)
        )
        if best is None or cost < best[0]:
            best = (cost, steps, enemy_matches)
    return None if best is None else (best[1], best[2])


def _dice_use(
    rules: Rules, mover: Side, dice: Dice, steps: Explained, outcomes: list[Outcome]
) -> list[Violation]:
    playable = max(len(outcome.moves) for outcome in outcomes)
    name = mover.value.capitalize()
    if steps.own[OFF] == CHECKERS_PER_SIDE:
        return []  # the game is won; no die is left to play
    if len(steps.dice_used) < playable:
        unplayed = playable - len(steps.dice_used)
        return [Violation(DICE_UNPLAYED, f"{name} played {len(steps.dice_used)} of the dice "
                          f"{dice[0]}-{dice[1]} where {playable} could be played: "
                          f"{unplayed} left unplayed")]
    big, small = max(dice), min(dice)
    if playable == 1 and big != small and steps.dice_used == (small,):
        return [Violation(SMALLER_DIE, f"{name} played the smaller die {small}; when only one "
                          f"die can be played, the larger ({big}) must be")]
    return []


def _enemy_changes(
    rules: Rules, before: Position, after: Position, explained_opp: tuple[int, ...] | None
) -> list[Violation]:
    """Changes to the opponent's checkers that the mover's steps do not account for."""
    enemy = before.turn.other
    if explained_opp is None:
        expected = list(before.counts(enemy))
    else:
        expected = [0] * 26
        expected[OFF], expected[BAR] = explained_opp[OFF], explained_opp[BAR]
        for point in range(1, 25):
            expected[opposite_point(rules.variant, point)] = explained_opp[point]
    observed = after.counts(enemy)
    changed = [
        f"{_point_name(p)} {expected[p]}->{observed[p]}"
        for p in range(25, -1, -1)
        if expected[p] != observed[p]
    ]
    if not changed:
        return []
    return [Violation(ENEMY_MOVED, f"{enemy.value.capitalize()}'s checkers changed on "
                      f"{before.turn.value}'s turn ({', '.join(changed)} in {enemy.value}'s "
                      "numbering): a player may move only his own checkers")]


def _point_name(point: int) -> str:
    return {BAR: "bar", OFF: "off"}.get(point, f"point {point}")


def _unexplained_movement(before: Position, dice: Dice, after: Position) -> list[Violation]:
    """Describe a change of the mover's checkers that no sequence of dice steps makes."""
    mover = before.turn
    name = mover.value.capitalize()
    was, now = before.counts(mover), after.counts(mover)
    sources = sorted((p for p in range(26) for _ in range(max(was[p] - now[p], 0))), reverse=True)
    targets = sorted((p for p in range(26) for _ in range(max(now[p] - was[p], 0))), reverse=True)
    found = []
    backwards = [(s, t) for s, t in zip(sources, targets, strict=True) if t > s]
    for start, end in backwards:
        found.append(Violation(DIRECTION, f"{name} moved a checker backwards, from "
                               f"{_point_name(start)} to {_point_name(end)}: checkers move only "
                               "from higher to lower points"))
    travelled = sum(sources) - sum(targets)
    pips = 4 * dice[0] if dice[0] == dice[1] else dice[0] + dice[1]
    if travelled > pips:
        found.append(Violation(DIRECTION, f"{name} moved {travelled} points in all; "
                               f"the dice {dice[0]}-{dice[1]} allow at most {pips}"))
    elif not backwards:
        pairs = zip(sources, targets, strict=True)
        paths = ", ".join(f"{_point_name(s)}->{_point_name(t)}" for s, t in pairs)
        found.append(Violation(DISTANCE, f"{name}'s change ({paths}) cannot be made with steps "
                               f"of the dice {dice[0]}-{dice[1]}"))
    return found


def _nearest(outcomes: list[Outcome], after: Position, keep: int = 3) -> list[Position]:
    def distance(outcome: Outcome) -> int:
        position = outcome.position
        return sum(abs(a - b) for a, b in zip(position.white, after.white, strict=True)) + sum(
            abs(a - b) for a, b in zip(position.black, after.black, strict=True)
        )

    ranked = sorted(outcomes, key=distance)
    if not ranked:
        return []
    closest = distance(ranked[0])
    return [o.position for o in ranked[:keep] if distance(o) <= closest + 2]
