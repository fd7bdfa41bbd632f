"""bgsage (module bgbot_cpp), a compiled backgammon engine, behind our position JSON.

The independent reference for short nardy: the cross-check tests compare our outcomes with
its, and the benchmark times it on the same JSON requests as `legal --batch`.
"""

from __future__ import annotations

from typing import Any

import bgbot_cpp

from referee.position import BAR, OFF, Position, Side, Variant


def to_board(position: Position) -> list[int]:
    """bgsage's 26 integers from the mover's view: own checkers positive on their own points,
    the opponent's negative on 25 - q, the mover's bar at 25 and the opponent's at 0."""
    own, theirs = position.counts(position.turn), position.counts(position.turn.other)
    board = [0] * 26
    for point in range(1, 25):
        board[point] += own[point]
        board[25 - point] -= theirs[point]
    board[25], board[0] = own[BAR], theirs[BAR]
    return board


def from_board(board: list[int], mover: Side) -> Position:
    """The position after the mover's play, with the turn passed."""
    own, theirs = [0] * 26, [0] * 26
    for point in range(1, 25):
        if board[point] > 0:
            own[point] = board[point]
        elif board[point] < 0:
            theirs[25 - point] = -board[point]
    own[BAR], theirs[BAR] = board[25], board[0]
    own[OFF] = 15 - sum(own)
    theirs[OFF] = 15 - sum(theirs)
    pair = (tuple(own), tuple(theirs)) if mover is Side.WHITE else (tuple(theirs), tuple(own))
    return Position(Variant.SHORT, mover.other, *pair)


def outcomes(position: Position, dice: tuple[int, int]) -> list[Position]:
    boards = bgbot_cpp.possible_moves(to_board(position), dice[0], dice[1])
    return [from_board(board, position.turn) for board in boards]


def legal_json(request: dict[str, Any]) -> dict[str, Any]:
    """Answer a `legal --batch` request line with bgsage (positions only: it gives no moves)."""
    position = Position.from_json(request["position"]).validate()
    dice = request["dice"]
    found = outcomes(position, (dice[0], dice[1]))
    return {"outcomes": [{"position": p.to_json()} for p in found]}
