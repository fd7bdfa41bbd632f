"""Move generation for long and short nardy.

Like gnubg, the generator works from the mover's point of view: the mover's checkers in its
own numbering and the opponent's checkers mapped onto the same numbering. Each die is one
step (5.4.24); every rule that can forbid a step is checked on that step, so a rule that holds
"after every single step" (the six-point block, 5.4.13) needs nothing special. The plays are
generated die by die, de-duplicated by the position reached, and filtered once by the rule
for using the dice (5.4.26).

The variants are subclasses of `Rules` that set class flags and override named hooks, in the
manner of python-chess's variants. The same step generator serves the `check` command with
some rules relaxed: a relaxed rule lets the step through and reports what it broke.

`outcomes` runs the same search in C (`referee._movegen`) when that optional extension was
built and NARDY_PURE_PYTHON=1 is not set at import; the Python code is the reference.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from referee.position import BAR, OFF, Position, Side, Variant, mirror_table, opposite_point

try:
    from referee import _movegen
except ImportError:  # built without a C compiler: the pure-Python path
    _movegen = None  # type: ignore[assignment]
if os.environ.get("NARDY_PURE_PYTHON") == "1":
    _movegen = None  # type: ignore[assignment]

Dice = tuple[int, int]


class Move(NamedTuple):
    """One die's step of one checker, in the mover's numbering (25 = bar, 0 = borne off)."""

    start: int
    end: int


class Step(enum.Enum):
    """The rules a single step can break; the value is the clause in long nardy's rules."""

    CLOSED_POINT = "5.4.12"
    HEAD = "5.4.11"
    BLOCK = "5.4.13"
    BEAR_OFF_EARLY = "5.4.38"
    BEAR_OFF_OVERSHOOT = "5.4.37"
    BAR_FIRST = "21.8"


@dataclass(frozen=True, slots=True)
class Outcome:
    """A distinct position a roll can lead to, with one sequence of steps that reaches it."""

    position: Position
    moves: tuple[Move, ...]

    def to_json(self) -> dict[str, object]:
        # Moves are tuples, which JSON writes as the [from, to] pairs of FORMATS.md.
        return {"position": self.position.to_json(), "moves": self.moves}


class DiceError(ValueError):
    """Dice that no throw can show."""


class IllegalMoveError(ValueError):
    """A well-formed move sequence that the rules do not allow."""


def parse_dice(text: str | Sequence[object]) -> Dice:
    """Read dice given as "6-5" (or "65", "6,5") or as a two-item list."""
    if isinstance(text, str):
        parts: Sequence[object] = [p for p in text.replace(",", "-").split("-") if p]
        if len(parts) == 1 and len(text) == 2:
            parts = list(text)
    else:
        parts = text
    if len(parts) != 2:
        raise DiceError(f"dice must be two values such as 6-5, got {text!r}")
    values = []
    for part in parts:
        try:
            value = int(part) if isinstance(part, (int, str)) and not isinstance(part, bool) else 0
        except ValueError:
            value = 0
        if not 1 <= value <= 6:
            raise DiceError(f"each die must be a whole number from 1 to 6, got {part!r}")
        values.append(value)
    return values[0], values[1]


class _Turn:
    """The mover's view of a position for one turn.

    `own[p]`: the mover's checkers on its point p (0 = off, 25 = bar). `opp[p]` for p in 1-24:
    the opponent's checkers on the mover's point p; `opp[0]` and `opp[25]`: the opponent's
    borne-off and bar checkers.
    """

    __slots__ = ("head_moves", "opp", "own")

    def __init__(self, own: list[int], opp: list[int], head_moves: int) -> None:
        self.own = own
        self.opp = opp
        self.head_moves = head_moves

    def key(self) -> bytes:
        return bytes(self.own) + bytes(self.opp) + bytes((self.head_moves,))

    def placement_key(self) -> bytes:
        return bytes(self.own) + bytes(self.opp)


class Explained(NamedTuple):
    """A step sequence under relaxed rules: where it leads and what it broke on the way."""

    own: tuple[int, ...]
    opp: tuple[int, ...]
    moves: tuple[Move, ...]
    dice_used: tuple[int, ...]
    broken: tuple[tuple[Step, str], ...]


class Rules:
    """The rules common to both variants; subclasses fill in the hooks."""

    variant: ClassVar[Variant]
    # Enemy checkers that make a point closed to the mover.
    closed_from: ClassVar[int]
    # Whether landing on a lone enemy checker sends it to the bar.
    hits: ClassVar[bool] = False
    # Clause numbers where this variant's text differs from long nardy's.
    clauses: ClassVar[dict[Step, str]] = {}
    # LongNardy's block tables (`_route`, `_at_route`) as bytes, for the native generator.
    native_route: ClassVar[tuple[bytes, bytes]] = (b"", b"")

    def __init__(self, head_exception: str = "second") -> None:
        if head_exception not in ("second", "both"):
            raise ValueError("head_exception must be 'second' or 'both'")
        self.head_exception = head_exception
        self.mirror = mirror_table(self.variant)
        self.mirror_bytes = bytes(self.mirror)

    # -- hooks -----------------------------------------------------------------------------

    def head_limit(self, position: Position, dice: Dice) -> int:
        """How many checkers may leave the head this turn (99: no head rule)."""
        return 99

    def block_front(self, turn: _Turn) -> int | None:
        """The opponent's most advanced checker as a route index (None: no block rule)."""
        return None

    def makes_block(self, own: list[int], landing: int, front: int) -> bool:
        return False

    def clause(self, step: Step) -> str:
        return self.clauses.get(step, step.value)

    # -- conversion between the board and the mover's view ---------------------------------

    def _view(self, position: Position) -> _Turn:
        mover = position.turn
        theirs = position.counts(mover.other)
        opp = [theirs[p] for p in self.mirror]
        return _Turn(list(position.counts(mover)), opp, 0)

    def _board(self, position: Position, own: Sequence[int], opp: Sequence[int]) -> Position:
        theirs = [opp[p] for p in self.mirror]
        mover = position.turn
        pair = (tuple(own), tuple(theirs)) if mover is Side.WHITE else (tuple(theirs), tuple(own))
        return Position.trusted(self.variant, mover.other, *pair)

    # -- single steps ----------------------------------------------------------------------

    def _steps(
        self,
        turn: _Turn,
        die: int,
        head_limit: int,
        front: int | None,
        relaxed: frozenset[Step] = frozenset(),
    ) -> Iterator[tuple[Move, _Turn, tuple[tuple[Step, str], ...]]]:
        """Every step of `die` from `turn`; with `relaxed` rules, the steps that break them too."""
        own, opp = turn.own, turn.opp
        closed_from = self.closed_from
        on_bar = own[BAR] > 0
        outside_home = sum(own[7:])
        for start in range(25, 0, -1):
            if not own[start]:
                continue
            broken: tuple[tuple[Step, str], ...] = ()
            if on_bar and start != BAR:
                if Step.BAR_FIRST not in relaxed:
                    continue
                broken += ((Step.BAR_FIRST, f"moved {start}->{max(start - die, 0)} while a "
                            "checker waited on the bar; the bar must be entered first"),)
            end = start - die
            if start == 24 and turn.head_moves >= head_limit:
                if Step.HEAD not in relaxed:
                    continue
                broken += ((Step.HEAD, f"took another checker off the head (24->{max(end, 0)}); "
                            f"only {head_limit} may leave the head this turn"),)
            if end >= 1:
                if opp[end] >= closed_from:
                    if Step.CLOSED_POINT not in relaxed:
                        continue
                    broken += ((Step.CLOSED_POINT, f"moved {start}->{end} onto point {end}, "
                                "which the opponent holds"),)
            else:
                if outside_home:
                    if Step.BEAR_OFF_EARLY not in relaxed:
                        continue
                    broken += ((Step.BEAR_OFF_EARLY, f"bore off from {start} before all "
                                "checkers were home"),)
                if end < 0 and any(own[start + 1 : 7]):
                    if Step.BEAR_OFF_OVERSHOOT not in relaxed:
                        continue
                    broken += ((Step.BEAR_OFF_OVERSHOOT, f"bore off from {start} with a {die} "
                                "while a checker stood on a higher point"),)
                end = OFF
            new_own = own.copy()
            new_own[start] -= 1
            new_own[end] += 1
            new_opp = opp
            if self.hits and end != OFF and opp[end] == 1:
                # Short nardy: a blot is hit and goes to the opponent's bar (21.6-21.7).
                new_opp = opp.copy()
                new_opp[end] = 0
                new_opp[BAR] += 1
            if (
                front is not None
                and end != OFF
                and not own[end]
                and self.makes_block(new_own, end, front)
            ):
                if Step.BLOCK not in relaxed:
                    continue
                broken += ((Step.BLOCK, f"moved {start}->{end}, making six points in a row "
                            "with no opponent checker ahead of them"),)
            yield (
                Move(start, end),
                _Turn(new_own, new_opp, turn.head_moves + (start == 24)),
                broken,
            )

    # -- whole plays -----------------------------------------------------------------------

    def outcomes(self, position: Position, dice: Dice) -> list[Outcome]:
        """All legal outcomes of `dice`, one per distinct resulting position."""
        start = self._view(position)
        head_limit = self.head_limit(position, dice)
        front = self.block_front(start)
        native = self._native_plays(start, dice, head_limit, front) if _movegen else None
        if native is not None:
            next_turn, variant = position.turn.other, self.variant
            white_moves = position.turn is Side.WHITE
            return [
                Outcome(
                    Position.trusted(variant, next_turn, own, theirs)
                    if white_moves
                    else Position.trusted(variant, next_turn, theirs, own),
                    moves,
                )
                for own, theirs, moves in native
            ]
        big, small = max(dice), min(dice)
        orders = [(big,) * 4] if big == small else [(big, small), (small, big)]
        deepest: list[tuple[int, list[tuple[_Turn, tuple[Move, ...]]]]] = []
        # Bearing off the last checker ends the game, so it counts as a full use of the dice
        # even when dice remain (gnubg's convention too).
        finished: list[tuple[_Turn, tuple[Move, ...]]] = []
        for order in orders:
            frontier: dict[bytes, tuple[_Turn, tuple[Move, ...]]] = {
                start.key(): (start, ())
            }
            depth = 0
            for die in order:
                reached: dict[bytes, tuple[_Turn, tuple[Move, ...]]] = {}
                for turn, moves in frontier.values():
                    for move, after, _ in self._steps(turn, die, head_limit, front):
                        key = after.key()
                        if key not in reached:
                            reached[key] = (after, (*moves, move))
                if not reached:
                    break
                frontier, depth = reached, depth + 1
                finished += [play for play in reached.values() if play[0].own[OFF] == 15]
            deepest.append((depth, list(frontier.values())))
        most = max(depth for depth, _ in deepest)
        if most == 0:
            return [Outcome(position.with_turn(position.turn.other), ())]
        # Play as many dice as possible; if only one of two can be played, the larger (5.4.26).
        plays = [play for depth, found in deepest if depth == most for play in found]
        if most == 1 and big != small and deepest[0][0] == 1:
            plays = deepest[0][1]
        plays += finished
        distinct: dict[bytes, Outcome] = {}
        for turn, moves in plays:
            key = turn.placement_key()
            if key not in distinct:
                distinct[key] = Outcome(self._board(position, turn.own, turn.opp), moves)
        return list(distinct.values())

    def _native_plays(
        self, start: _Turn, dice: Dice, head_limit: int, front: int | None
    ) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[Move, ...]]] | None:
        """`outcomes`' search in C: (own, theirs, moves) per outcome, theirs in the opponent's
        numbering, in the same order with the same moves as the Python search; None where the
        extension leaves the input to it."""
        assert _movegen is not None
        route, at_route = self.native_route
        return _movegen.plays(
            bytes(start.own), bytes(start.opp), *dice, head_limit, self.closed_from,
            self.hits, front is not None, front or 0, route, at_route, self.mirror_bytes, Move,
        )

    def play(self, position: Position, dice: Dice, moves: Sequence[Move]) -> Position:
        """The position after `moves`; raises IllegalMoveError unless they are a legal play.

        Each move must be a legal step with a die not yet used, and the whole must use the
        dice as 5.4.26 requires (as many as possible, the larger one if only one).
        """
        head_limit = self.head_limit(position, dice)
        start = self._view(position)
        front = self.block_front(start)
        pool = (dice[0],) * 4 if dice[0] == dice[1] else dice

        def replay(turn: _Turn, left: tuple[int, ...], index: int) -> _Turn | None:
            if index == len(moves):
                return turn
            wanted = Move(*moves[index])
            for die in dict.fromkeys(left):
                rest = list(left)
                rest.remove(die)
                for move, after, _ in self._steps(turn, die, head_limit, front):
                    if move == wanted:
                        done = replay(after, tuple(rest), index + 1)
                        if done is not None:
                            return done
            return None

        end = replay(start, pool, 0)
        if end is None:
            shown = " ".join(f"{a}/{b}" for a, b in moves)
            raise IllegalMoveError(f"{shown} is not a sequence of legal steps with {dice}")
        result = self._board(position, end.own, end.opp)
        if all(o.position != result for o in self.outcomes(position, dice)):
            raise IllegalMoveError(
                "the moves leave dice unplayed or play the smaller die where the rules (5.4.26) "
                "require more"
            )
        return result

    def explanations(
        self, position: Position, dice: Dice, relaxed: frozenset[Step]
    ) -> Iterator[Explained]:
        """Every step sequence, in any order of any subset of the dice, under relaxed rules."""
        start = self._view(position)
        head_limit = self.head_limit(position, dice)
        front = self.block_front(start)
        pool = (dice[0],) * 4 if dice[0] == dice[1] else dice
        Broken = tuple[tuple[Step, str], ...]
        frontier: list[tuple[_Turn, tuple[int, ...], tuple[Move, ...], tuple[int, ...], Broken]]
        frontier = [(start, pool, (), (), ())]
        seen: set[tuple[object, ...]] = set()
        while frontier:
            deeper = []
            for turn, left, moves, used, broken in frontier:
                yield Explained(tuple(turn.own), tuple(turn.opp), moves, used, broken)
                for index, die in enumerate(left):
                    if die in left[:index]:
                        continue  # the same value twice gives the same steps
                    rest = left[:index] + left[index + 1 :]
                    for move, after, more in self._steps(turn, die, head_limit, front, relaxed):
                        key = (after.key(), rest, tuple(step for step, _ in broken + more))
                        if key in seen:
                            continue
                        seen.add(key)
                        deeper.append((after, rest, (*moves, move), (*used, die), broken + more))
            frontier = deeper


class LongNardy(Rules):
    variant = Variant.LONG
    closed_from = 1  # any enemy checker closes a point (5.4.12)

    # Route index along the opponent's way: its point 24 (the mover's 12) is 0, its point 1
    # (the mover's 13) is 23. Six consecutive indices form a block (5.4.13).
    _route = [0] + [24 - opposite_point(Variant.LONG, p) for p in range(1, 25)]
    _at_route = [0] * 24
    for _point in range(1, 25):
        _at_route[_route[_point]] = _point
    del _point
    native_route = (bytes(_route), bytes(_at_route))

    def head_limit(self, position: Position, dice: Dice) -> int:
        mover = position.turn
        first_throw = position.counts(mover)[24] == 15
        if not first_throw or dice not in ((3, 3), (4, 4), (6, 6)):
            return 1
        if self.head_exception == "second" and position.counts(mover.other)[24] == 15:
            return 1  # the first player's first throw
        return 2  # 5.4.11

    def block_front(self, turn: _Turn) -> int | None:
        if turn.opp[OFF]:
            return 99  # a checker borne off is not locked in
        ahead = [self._route[p] for p in range(1, 25) if turn.opp[p]]
        return max(ahead, default=-1)

    def makes_block(self, own: list[int], landing: int, front: int) -> bool:
        index = self._route[landing]
        at = self._at_route
        low = index
        while low > 0 and index - low < 5 and own[at[low - 1]]:
            low -= 1
        high = index
        while high < 23 and high - index < 5 and own[at[high + 1]]:
            high += 1
        if high - low < 5:
            return False
        # Of the six-point windows holding the landing point, the one reaching furthest along
        # the opponent's way has the fewest opponent checkers beyond it.
        return front <= high


class ShortNardy(Rules):
    variant = Variant.SHORT
    closed_from = 2  # a point is closed by two or more enemy checkers (21.4)
    hits = True
    clauses: ClassVar[dict[Step, str]] = {Step.CLOSED_POINT: "21.4"}


def rules_for(variant: Variant, head_exception: str = "second") -> Rules:
    cls = LongNardy if variant is Variant.LONG else ShortNardy
    return cls(head_exception)
