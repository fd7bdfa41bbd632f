"""Checker placement: the immutable position, its JSON form and its validation.

Each side's checkers are stored in that side's own numbering (home 1-6, head or start at 24),
the way players and the rules count, with index 0 for borne-off checkers and 25 for the bar.
The two numberings meet through the variant's point mapping (`opposite_point`).
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any

CHECKERS_PER_SIDE = 15
OFF = 0
BAR = 25
HOME_POINTS = range(1, 7)
BOARD_POINTS = range(1, 25)


class Side(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Side:
        return Side.BLACK if self is Side.WHITE else Side.WHITE


class Variant(enum.Enum):
    LONG = "long"
    SHORT = "short"


class PositionError(ValueError):
    """The input cannot be read as a position (malformed JSON, wrong types, bad keys)."""


class ImpossiblePositionError(ValueError):
    """The position is well formed but cannot occur in a game (checker counts, colours)."""


def mirror_table(variant: Variant) -> tuple[int, ...]:
    """`opposite_point` for every index of `Counts`, keeping off (0) and the bar (25)."""
    return (0, *(opposite_point(variant, p) for p in BOARD_POINTS), 25)


def opposite_point(variant: Variant, point: int) -> int:
    """The same board point in the other side's numbering (an involution)."""
    if variant is Variant.LONG:
        # Heads diagonally opposite (5.4.10): black's 24 is white's 12.
        return (point + 11) % 24 + 1
    return 25 - point  # short nardy, 21.2


class ResultKind(enum.Enum):
    SINGLE = "single"
    MARS = "mars"  # the loser bore off no checker
    KOKS = "koks"  # short nardy: a mars with a checker still on the bar or in the winner's home


@dataclass(frozen=True, slots=True)
class Scoring:
    """Points per kind of win; the competition's regulations set them (rule 8 of the digest)."""

    single: int = 1
    mars: int = 2
    koks: int = 3

    def points(self, kind: ResultKind) -> int:
        return {ResultKind.SINGLE: self.single, ResultKind.MARS: self.mars}.get(kind, self.koks)


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: Side
    kind: ResultKind
    points: int


Counts = tuple[int, ...]
"""26 checker counts in a side's own numbering: [off, point 1 .. point 24, bar]."""

# JSON keys of the points, from the head down, made once: to_json is on the hot path of
# `legal --batch`.
# JSON keys of points 24..1, in the order FORMATS.md writes them.
_POINT_KEYS = [str(p) for p in range(24, 0, -1)]


@dataclass(frozen=True, slots=True)
class Position:
    """Where every checker stands, and whose turn it is.

    `white` and `black` are `Counts` in their own side's numbering. A Position may hold an
    impossible placement (a camera or a player can produce one); `problems()` lists what is
    wrong with it and `validate()` raises on the first.
    """

    variant: Variant
    turn: Side
    white: Counts
    black: Counts

    def __post_init__(self) -> None:
        for side in (self.white, self.black):
            if len(side) != 26:
                raise PositionError(f"checker counts must have 26 entries, got {len(side)}")
            if min(side) < 0:
                raise PositionError("checker counts must not be negative")

    # -- access ----------------------------------------------------------------------------

    def counts(self, side: Side) -> Counts:
        return self.white if side is Side.WHITE else self.black

    def with_turn(self, turn: Side) -> Position:
        return Position(self.variant, turn, self.white, self.black)

    def opponent_on(self, side: Side, point: int) -> int:
        """Checkers of `side`'s opponent on `point` of `side`'s numbering."""
        return self.counts(side.other)[opposite_point(self.variant, point)]

    def total(self, side: Side) -> int:
        return sum(self.counts(side))

    def pip_count(self, side: Side) -> int:
        """Points `side` still has to travel to bear everything off (bar counts as 25)."""
        return sum(point * n for point, n in enumerate(self.counts(side)))

    def checkers_home(self, side: Side) -> int:
        """Checkers on `side`'s home points 1-6 (not counting those already off)."""
        counts = self.counts(side)
        return sum(counts[p] for p in HOME_POINTS)

    def all_home(self, side: Side) -> bool:
        counts = self.counts(side)
        return not any(counts[7:])

    def winner(self) -> Side | None:
        for side in Side:
            if self.counts(side)[OFF] == CHECKERS_PER_SIDE:
                return side
        return None

    def result(self, scoring: Scoring | None = None) -> GameResult | None:
        """The finished game's result (5.4.39), or None while it goes on."""
        winner = self.winner()
        if winner is None:
            return None
        scoring = scoring or Scoring()
        loser = self.counts(winner.other)
        kind = ResultKind.SINGLE
        if loser[OFF] == 0:
            kind = ResultKind.MARS
            # Short nardy's backgammon: the loser still has a checker on the bar or in the
            # winner's home (the loser's points 19-24).
            if self.variant is Variant.SHORT and any(loser[19:]):
                kind = ResultKind.KOKS
        return GameResult(winner, kind, scoring.points(kind))

    # -- validity --------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Everything that makes this placement impossible in a game, in plain words."""
        found = []
        for side in Side:
            total = self.total(side)
            if total != CHECKERS_PER_SIDE:
                found.append(f"{side.value} has {total} checkers, not {CHECKERS_PER_SIDE}")
            if self.variant is Variant.LONG and self.counts(side)[BAR]:
                found.append(f"{side.value} has checkers on the bar, which long nardy has not")
        for point in BOARD_POINTS:
            if self.white[point] and self.opponent_on(Side.WHITE, point):
                black_point = opposite_point(self.variant, point)
                found.append(
                    f"white's point {point} (black's {black_point}) holds checkers of both colours"
                )
        return found

    def validate(self) -> Position:
        found = self.problems()
        if found:
            raise ImpossiblePositionError("; ".join(found))
        return self

    # -- JSON ------------------------------------------------------------------------------

    @classmethod
    def trusted(cls, variant: Variant, turn: Side, white: Counts, black: Counts) -> Position:
        """A position from counts the move generator made (26 non-negative entries by
        construction): skips the checks of `__init__`, which dominate bulk `legal` runs."""
        position = object.__new__(cls)
        set_field = object.__setattr__
        set_field(position, "variant", variant)
        set_field(position, "turn", turn)
        set_field(position, "white", white)
        set_field(position, "black", black)
        return position

    def to_json(self) -> dict[str, Any]:
        def points(counts: Counts) -> dict[str, int]:
            # counts[24:0:-1] lines up with _POINT_KEYS (24 down to 1).
            return {key: n for key, n in zip(_POINT_KEYS, counts[24:0:-1], strict=True) if n}

        data: dict[str, Any] = {
            # `_value_` is a plain attribute; `.value` is a descriptor, slow in bulk output.
            "variant": self.variant._value_,
            "turn": self.turn._value_,
            "white": points(self.white),
            "black": points(self.black),
        }
        if self.white[BAR] or self.black[BAR]:
            data["bar"] = {"white": self.white[BAR], "black": self.black[BAR]}
        if self.white[OFF] or self.black[OFF]:
            data["off"] = {"white": self.white[OFF], "black": self.black[OFF]}
        return data

    @classmethod
    def from_json(cls, data: Any) -> Position:
        """Read the FORMATS.md position object. Raises PositionError when malformed.

        The result is not validated: call `validate()` where an impossible placement is an
        error rather than an observation.
        """
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as error:
                raise PositionError(f"position is not valid JSON: {error.msg}") from None
        if not isinstance(data, dict):
            raise PositionError("position must be a JSON object")
        variant = _enum(Variant, data.get("variant"), "variant")
        turn = _enum(Side, data.get("turn"), "turn")
        bar = _side_numbers(data.get("bar", {}), "bar")
        off = _side_numbers(data.get("off", {}), "off")
        sides = {}
        for side in Side:
            counts = [0] * 26
            for key, count in _mapping(data.get(side.value, {}), side.value).items():
                try:
                    point = int(key)
                except ValueError:
                    raise PositionError(f"{side.value}: point {key!r} is not a number") from None
                if point not in BOARD_POINTS:
                    raise PositionError(f"{side.value}: point {key} is not between 1 and 24")
                counts[point] = _count(count, f"{side.value} point {key}")
            counts[BAR] = bar[side]
            counts[OFF] = off[side]
            sides[side] = tuple(counts)
        return cls(variant, turn, sides[Side.WHITE], sides[Side.BLACK])

    @classmethod
    def start(cls, variant: Variant, turn: Side = Side.WHITE) -> Position:
        counts = [0] * 26
        if variant is Variant.LONG:
            counts[24] = 15  # the head, 5.4.10
        else:
            counts[24], counts[13], counts[8], counts[6] = 2, 5, 3, 5
        return cls(variant, turn, tuple(counts), tuple(counts))


def _enum(kind: type[enum.Enum], value: Any, name: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(repr(member.value) for member in kind)
        raise PositionError(f"{name} must be one of {allowed}, got {value!r}") from None


def _mapping(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PositionError(f"{name} must be a JSON object")
    return value


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PositionError(f"{name}: count must be a whole number >= 0, got {value!r}")
    return value


def _side_numbers(value: Any, name: str) -> dict[Side, int]:
    mapping = _mapping(value, name)
    unknown = set(mapping) - {side.value for side in Side}
    if unknown:
        raise PositionError(f"{name}: unknown key {sorted(unknown)[0]!r}")
    return {side: _count(mapping.get(side.value, 0), f"{name} {side.value}") for side in Side}
