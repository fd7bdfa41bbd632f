"""Short nardy matches as Jellyfish `.mat` files, the text format GNU Backgammon imports
(`gnubg -t`, then `import mat FILE`).

Short nardy is backgammon without the doubling cube: the same start (2 on 24, 5 on 13, 3 on 8,
5 on 6 in each side's own numbering), the same movement and the same mirrored numbering
(black's point b is white's 25 - b), so a game maps onto backgammon one to one:

- The left column is `players[0]` of the match, the right `players[1]`, whichever colour each
  holds in a game (`GameRecord.white_player`).
- Moves are in the mover's own numbering, as the format wants: one step per die, the bar as
  25 and borne off as 0 (what Jellyfish and gnubg write), a hit marked with `*`. A throw
  with no legal move is the dice alone (`55:`).
- A void throw is left out: the same player throws again and only that throw counts.
- Each game ends with `Wins N points` in the winner's column (`and the match` when it
  decides the match); the score line at the start of each game carries the running score,
  so a competition's own scoring of mars and koks (`Scoring`) reaches gnubg as it was.
- Names lose colons and line breaks and have spaces turned into `_` (gnubg's reader stops a
  name at `:` and makes the same replacement), and are cut to 30 characters.

What the format cannot say is an error (`MatExportError`): long nardy, a start other than the
standard one, an illegal move that the opponent accepted (gnubg refuses moves that break the
rules), and two counted turns in a row by one player.

The reader is gnubg's `ImportMat` (import.c): a game is the lines after ` Game N` up to a
blank line; a move line splits into its two columns at the second `NN:`, or, with one, at the
first double space after column 15, so move text keeps single spaces.
"""

from __future__ import annotations

from pathlib import Path

from referee.position import BAR, OFF, Position, Variant
from referee.record import GameRecord, MatchRecord, Turn, move_text

_LEFT_WIDTH = 30  # the left column's width, as gnubg writes it
_RIGHT_COLUMN = 5 + _LEFT_WIDTH + 1  # after "NNN) " and the left column
_NAME_LENGTH = 30  # gnubg reads a name with "%31[^:]", which includes the space before ":"


class MatExportError(ValueError):
    """A record that a .mat file cannot express."""


def to_mat(match: MatchRecord) -> str:
    """The match as the text of a .mat file."""
    names = [_mat_name(name, index) for index, name in enumerate(match.players)]
    scores_after = match.running_score()
    scores_before = [(0, 0), *scores_after[:-1]]
    lines = [f" {match.match_length} point match", ""]
    for number, game in enumerate(match.games, 1):
        where = f"game {number}"
        if game.variant is not Variant.SHORT:
            raise MatExportError(
                f"{where} is long nardy, which has no .mat form: the format and gnubg know "
                "only backgammon, that is short nardy"
            )
        if game.start != Position.start(Variant.SHORT, game.first_player):
            raise MatExportError(
                f"{where} starts from a set position; .mat games start from the standard one"
            )
        score = scores_before[number - 1]
        left = f" {names[0]} : {score[0]}"
        lines += [f" Game {number}", f"{left:<{_RIGHT_COLUMN}}{names[1]} : {score[1]}"]
        lines += _move_lines(game, where)
        if game.result is not None:
            winner = game.player_index(game.result.winner)
            unit = "point" if game.result.points == 1 else "points"
            wins = f"Wins {game.result.points} {unit}"
            if score[winner] < match.match_length <= scores_after[number - 1][winner]:
                wins += " and the match"
            lines.append(" " * (5 if winner == 0 else _RIGHT_COLUMN) + wins)
        lines.append("")
    return "\n".join(lines) + "\n"


def write_mat(match: MatchRecord, path: Path | str) -> None:
    Path(path).write_text(to_mat(match), encoding="utf-8")


def _move_lines(game: GameRecord, where: str) -> list[str]:
    """The numbered lines of a game: each holds the left player's turn, then the right's."""
    rows: list[list[str]] = []
    previous: int | None = None
    for number, (before, turn) in enumerate(game.turns_with_positions(), 1):
        if turn.void:
            continue
        if not turn.legal:
            raise MatExportError(
                f"{where}, turn {number}: an illegal move that was let stand cannot be "
                "written in .mat; gnubg would refuse it"
            )
        column = game.player_index(turn.player)
        if column == previous:
            raise MatExportError(
                f"{where}, turn {number}: {turn.player.value} moves twice in a row"
            )
        if column == 0 or not rows:
            rows.append(["", ""])
        rows[-1][column] = _cell(before, turn)
        previous = column
    return [
        f"{index:3d}) {left:<{_LEFT_WIDTH}} {right}".rstrip()
        for index, (left, right) in enumerate(rows, 1)
    ]


def _cell(before: Position, turn: Turn) -> str:
    dice = f"{turn.dice[0]}{turn.dice[1]}:"
    if not turn.moves:
        return dice
    return f"{dice} {move_text(before, turn.player, turn.moves, bar=str(BAR), off=str(OFF))}"


def _mat_name(name: str, index: int) -> str:
    cleaned = "_".join(name.replace(":", " ").split())[:_NAME_LENGTH]
    return cleaned or f"Player_{index + 1}"
