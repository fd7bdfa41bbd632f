"""The game record: every throw and move of a game, its flags and result, and a match's games
with the running score, in a plain notation for people and in JSON for programs.

One `Turn` is one throw of the dice and the move that play went on from, in the mover's own
numbering (25 = the bar, 0 = borne off, as in `referee.rules`). The notation writes one line
per turn, with the bar and borne-off checkers named as in backgammon and hits (short nardy)
marked with `*`:

    12. white 6-4: 24/18 18/14
    13. black 5-5: bar/20 13/8* 13/8 6/1 [illegal: accepted]
    14. white 6-?: [void throw 5.4.33]

Flags are plain strings; the ones other code acts on are the constants below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.position import (
    BAR,
    OFF,
    GameResult,
    Position,
    ResultKind,
    Side,
    Variant,
    opposite_point,
)
from referee.rules import Dice

# The move was illegal and the opponent let it stand (5.5.1), or had it corrected (5.4.47).
_ILLEGAL = "illegal"
ILLEGAL_ACCEPTED = f"{_ILLEGAL}: accepted"
ILLEGAL_CORRECTED = f"{_ILLEGAL}: corrected"
# A throw that does not count (cocked die 5.4.33, die stalled in the box 5.4.32); the clause
# follows, as in "void throw 5.4.33". The same player throws again.
VOID_THROW = "void throw"
# The value of a die that was never read (a cocked die); only a void throw may have one.
UNREAD_DIE = 0

_KIND_WORDS = {
    ResultKind.SINGLE: "a single game",
    ResultKind.MARS: "a mars",
    ResultKind.KOKS: "a koks",
}


class RecordError(ValueError):
    """A record that cannot be read (malformed JSON, missing fields, wrong types)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One throw and the move play went on from.

    `moves`, `position_after` and `legal` describe that move: after a correction (5.4.47) the
    corrected move, flagged ILLEGAL_CORRECTED; an illegal move the opponent accepted keeps
    `legal` False. A void throw moves nothing and leaves the position as it was. `frame` and
    `time` (seconds, the frame's timestamp) say when the dice came to rest.
    """

    player: Side
    dice: Dice
    moves: tuple[tuple[int, int], ...]
    position_after: Position
    legal: bool = True
    flags: tuple[str, ...] = ()
    frame: int | None = None
    time: float | None = None

    def __post_init__(self) -> None:
        # Callers may hand in lists or `rules.Move`s; stored as plain tuples, records compare
        # equal to their JSON round trip.
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "moves", tuple((start, end) for start, end in self.moves))
        object.__setattr__(self, "flags", tuple(self.flags))
        if len(self.dice) != 2:
            raise RecordError(f"a throw has two dice, got {self.dice!r}")
        lowest = UNREAD_DIE if self.void else 1
        if not all(lowest <= die <= 6 for die in self.dice):
            raise RecordError(f"dice must be 1-6 (0 only in a void throw), got {self.dice!r}")
        for start, end in self.moves:
            if not (OFF <= start <= BAR and OFF <= end <= BAR):
                raise RecordError(f"move {start}/{end} leaves the points 0-25")

    @property
    def void(self) -> bool:
        return any(flag.startswith(VOID_THROW) for flag in self.flags)

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player.value,
            "dice": list(self.dice),
            "moves": [list(move) for move in self.moves],
            "position_after": self.position_after.to_json(),
            "legal": self.legal,
            "flags": list(self.flags),
            "frame": self.frame,
            "time": self.time,
        }

    @classmethod
    def from_json(cls, data: Any) -> Turn:
        data = _object(data, "turn")
        moves = _list(data.get("moves"), "turn moves")
        if not all(isinstance(m, list) and len(m) == 2 for m in moves):
            raise RecordError("turn moves must be [from, to] pairs")
        time = data.get("time")
        if time is not None and (isinstance(time, bool) or not isinstance(time, int | float)):
            raise RecordError(f"turn time must be a number of seconds, got {time!r}")
        return cls(
            player=_side(data.get("player"), "turn player"),
            dice=_dice(data.get("dice")),
            moves=tuple((_int(a, "move"), _int(b, "move")) for a, b in moves),
            position_after=Position.from_json(data.get("position_after")),
            legal=_bool(data.get("legal", True), "turn legal"),
            flags=tuple(_strings(data.get("flags", []), "turn flags")),
            frame=None if data.get("frame") is None else _int(data["frame"], "turn frame"),
            time=None if time is None else float(time),
        )


@dataclass(slots=True)
class GameRecord:
    """A game as it was played: the start position (its `turn` moved first), the turns in
    order, and the result once the game is over.

    `white_player` is the index, in the match's `players`, of the player with the light
    checkers, so a match can swap colours between games.
    """

    start: Position
    turns: list[Turn] = field(default_factory=list)
    result: GameResult | None = None
    white_player: int = 0

    def __post_init__(self) -> None:
        if self.white_player not in (0, 1):
            raise RecordError(f"white_player must be 0 or 1, got {self.white_player!r}")

    @property
    def variant(self) -> Variant:
        return self.start.variant

    @property
    def first_player(self) -> Side:
        return self.start.turn

    @property
    def position(self) -> Position:
        """The position now: after the last turn, or the start."""
        return self.turns[-1].position_after if self.turns else self.start

    def player_index(self, side: Side) -> int:
        """The index in the match's `players` of the player holding `side`'s checkers."""
        return self.white_player if side is Side.WHITE else 1 - self.white_player

    def turns_with_positions(self) -> Iterator[tuple[Position, Turn]]:
        """Each turn with the position it started from."""
        before = self.start
        for turn in self.turns:
            yield before, turn
            before = turn.position_after

    def notation(self, names: tuple[str, str] | None = None) -> str:
        """One line per turn, then the result; with the match's `names`, who held which side."""
        lines = []
        if names is not None:
            white, black = (names[self.player_index(side)] for side in Side)
            lines.append(f"white {white}, black {black}; {self.variant.value} nardy")
        standard = Position.start(self.variant, self.first_player)
        if self.start != standard:
            lines.append(f"start: {json.dumps(self.start.to_json())}")
        for number, (before, turn) in enumerate(self.turns_with_positions(), 1):
            lines.append(_turn_line(number, before, turn))
        if self.result is not None:
            lines.append(result_text(self.result))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.to_json(),
            "turns": [turn.to_json() for turn in self.turns],
            "result": None if self.result is None else _result_json(self.result),
            "white_player": self.white_player,
        }

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        data = _object(data, "game")
        result = data.get("result")
        return cls(
            start=Position.from_json(data.get("start")),
            turns=[Turn.from_json(turn) for turn in _list(data.get("turns", []), "game turns")],
            result=None if result is None else _result_from_json(result),
            white_player=_int(data.get("white_player", 0), "game white_player"),
        )


@dataclass(slots=True)
class MatchRecord:
    """A match: the two players, the points that win it (0: no fixed length), its games."""

    players: tuple[str, str]
    match_length: int = 0
    games: list[GameRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.players) != 2:
            raise RecordError(f"a match has two players, got {self.players!r}")
        if self.match_length < 0:
            raise RecordError(f"match length must be >= 0, got {self.match_length}")

    def running_score(self) -> list[tuple[int, int]]:
        """The score (points of players[0], players[1]) after each game; an unfinished game
        scores nothing."""
        scores = []
        points = [0, 0]
        for game in self.games:
            if game.result is not None:
                points[game.player_index(game.result.winner)] += game.result.points
            scores.append((points[0], points[1]))
        return scores

    @property
    def score(self) -> tuple[int, int]:
        scores = self.running_score()
        return scores[-1] if scores else (0, 0)

    def winner(self) -> int | None:
        """The index of the player who has won the match, or None while it goes on."""
        if self.match_length:
            for index, points in enumerate(self.score):
                if points >= self.match_length:
                    return index
        return None

    def notation(self) -> str:
        first, second = self.players
        length = f"match to {self.match_length} points" if self.match_length else "no fixed length"
        blocks = [f"{first} - {second}, {length}"]
        scores = self.running_score()
        for number, (game, score) in enumerate(zip(self.games, scores, strict=True), 1):
            lines = [f"Game {number}: {game.notation(self.players)}"]
            if game.result is not None:
                lines.append(f"Score: {first} {score[0]}, {second} {score[1]}")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "players": list(self.players),
            "match_length": self.match_length,
            "games": [game.to_json() for game in self.games],
            # Derived from the games, for readers of the file; from_json recomputes it.
            "score": list(self.score),
        }

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        data = _object(data, "match")
        players = _strings(data.get("players"), "match players")
        if len(players) != 2:
            raise RecordError(f"a match has two players, got {players!r}")
        return cls(
            players=(players[0], players[1]),
            match_length=_int(data.get("match_length", 0), "match_length"),
            games=[GameRecord.from_json(game) for game in _list(data.get("games", []), "games")],
        )


def result_text(result: GameResult) -> str:
    """Such as "white wins a mars (2 points)"."""
    unit = "point" if result.points == 1 else "points"
    return f"{result.winner.value} wins {_KIND_WORDS[result.kind]} ({result.points} {unit})"


def move_text(
    before: Position,
    player: Side,
    moves: tuple[tuple[int, int], ...],
    bar: str = "bar",
    off: str = "off",
) -> str:
    """Moves as "bar/22 13/9* 6/off", the bar and borne off named by `bar` and `off`; a hit
    (short nardy) is a landing on a lone enemy checker, found by following the moves from
    `before`."""
    names = {BAR: bar, OFF: off}
    hits = before.variant is Variant.SHORT
    theirs = before.counts(player.other)
    enemy = {p: theirs[opposite_point(before.variant, p)] for p in range(1, 25)}
    steps = []
    for start, end in moves:
        hit = hits and enemy.get(end) == 1
        if hit:
            enemy[end] = 0
        mark = "*" if hit else ""
        steps.append(f"{names.get(start, str(start))}/{names.get(end, str(end))}{mark}")
    return " ".join(steps)


def _turn_line(number: int, before: Position, turn: Turn) -> str:
    dice = "-".join(str(die) if die != UNREAD_DIE else "?" for die in turn.dice)
    parts = [f"{number}.", turn.player.value, f"{dice}:"]
    if turn.moves:
        parts.append(move_text(before, turn.player, turn.moves))
    elif not turn.void:
        # A legal empty move is a dance; an illegal one changed the board in a way no dice
        # steps explain.
        parts.append("no move" if turn.legal else "?")
    if not turn.legal and not any(flag.startswith(_ILLEGAL) for flag in turn.flags):
        parts.append("[illegal]")
    parts += [f"[{flag}]" for flag in turn.flags]
    return " ".join(parts)


def _result_json(result: GameResult) -> dict[str, Any]:
    return {"winner": result.winner.value, "kind": result.kind.value, "points": result.points}


def _result_from_json(data: Any) -> GameResult:
    data = _object(data, "result")
    try:
        kind = ResultKind(data.get("kind"))
    except ValueError:
        kinds = ", ".join(kind.value for kind in ResultKind)
        raise RecordError(f"result kind must be one of {kinds}, got {data.get('kind')!r}") from None
    return GameResult(
        _side(data.get("winner"), "result winner"), kind, _int(data.get("points"), "points")
    )


# -- reading JSON ----------------------------------------------------------------------------


def _object(data: Any, name: str) -> dict[str, Any]:
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise RecordError(f"{name} is not valid JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{name} must be a JSON object")
    return data


def _list(value: Any, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"{name} must be a list, got {value!r}")
    return value


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{name} must be a whole number, got {value!r}")
    return value


def _ints(value: Any, name: str) -> list[int]:
    return [_int(item, name) for item in _list(value, name)]


def _dice(value: Any) -> Dice:
    dice = _ints(value, "turn dice")
    if len(dice) != 2:
        raise RecordError(f"a throw has two dice, got {dice!r}")
    return dice[0], dice[1]


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise RecordError(f"{name} must be true or false, got {value!r}")
    return value


def _strings(value: Any, name: str) -> list[str]:
    items = _list(value, name)
    if not all(isinstance(item, str) for item in items):
        raise RecordError(f"{name} must be strings, got {items!r}")
    return items


def _side(value: Any, name: str) -> Side:
    try:
        return Side(value)
    except ValueError:
        raise RecordError(f"{name} must be 'white' or 'black', got {value!r}") from None
