"""Checker bookkeeping for the game script: single steps with hits, stacking, illegal plays.

A board state is the pair of `Counts` (white, black), each in its side's own numbering, that
may be incomplete while a checker is in a hand, or mixed after an illegal landing on an enemy
point (which a player can do and the referee must flag).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from referee.check import Verdict, check
from referee.position import BAR, Counts, Position, Side, Variant, opposite_point
from referee.rules import Dice, Move, Rules

Board = tuple[Counts, Counts]  # (white, black)


def counts_of(board: Board, side: Side) -> Counts:
    return board[0] if side is Side.WHITE else board[1]


def with_counts(board: Board, side: Side, counts: Counts) -> Board:
    return (counts, board[1]) if side is Side.WHITE else (board[0], counts)


def add(board: Board, side: Side, point: int, delta: int) -> Board:
    counts = list(counts_of(board, side))
    counts[point] += delta
    if counts[point] < 0:
        raise ValueError(f"no {side.value} checker on {point} to take")
    return with_counts(board, side, tuple(counts))


def hit_target(variant: Variant, board: Board, side: Side, end: int) -> bool:
    """Whether `side` landing on its own point `end` hits a lone enemy checker (short nardy)."""
    if variant is not Variant.SHORT or not 1 <= end <= 24:
        return False
    return counts_of(board, side.other)[opposite_point(variant, end)] == 1


def stack_index(variant: Variant, board: Board, side: Side, own: int, k: int) -> int:
    """Slot of `side`'s k-th checker on its point `own`: after the other colour's checkers
    when an illegal landing has mixed the point (white first, then black)."""
    if side is Side.WHITE or not 1 <= own <= 24:
        return k
    return k + board[0][opposite_point(variant, own)]


@dataclass(frozen=True, slots=True)
class IllegalPlay:
    moves: tuple[Move, ...]
    after: Position
    verdict: Verdict
    kind: str  # "distance" | "closed"


def apply_moves(variant: Variant, board: Board, side: Side,
                moves: tuple[Move, ...]) -> tuple[Board, bool]:
    """The board after the steps, hitting lone enemy checkers; also whether any step hit."""
    hit = False
    for m in moves:
        if hit_target(variant, board, side, m.end):
            board = add(board, side.other, opposite_point(variant, m.end), -1)
            board = add(board, side.other, BAR, 1)
            hit = True
        board = add(add(board, side, m.start, -1), side, m.end, 1)
    return board, hit


def illegal_play(rules: Rules, variant: Variant, before: Position, dice: Dice,
                 legal: tuple[Move, ...], rng: np.random.Generator,
                 closed_allowed: bool) -> IllegalPlay | None:
    """Spoil the last step of a legal play: a wrong distance onto an empty point, or (when
    `closed_allowed`) a landing on an enemy point. None when nothing suitable exists (no
    steps, a hit in the play, or every spoilt play happens to be legal)."""
    if not legal:
        return None
    side = before.turn
    board: Board = (before.white, before.black)
    _, hit = apply_moves(variant, board, side, legal)
    last = legal[-1]
    if hit or not 1 <= last.start <= 24:
        return None
    kinds = ["distance", "closed"] if closed_allowed else ["distance"]
    rng.shuffle(kinds)
    enemy_needed = 2 if variant is Variant.SHORT else 1
    for kind in kinds:
        ends = []
        for end in range(max(1, last.start - 7), last.start):
            enemy = counts_of(board, side.other)[opposite_point(variant, end)]
            fits = (enemy == 0 and end != last.end) if kind == "distance" else (
                enemy >= enemy_needed)
            if fits:
                ends.append(end)
        rng.shuffle(ends)
        for end in ends:
            moves = (*legal[:-1], Move(last.start, end))
            try:
                after_board, hit = apply_moves(variant, board, side, moves)
            except ValueError:
                continue
            if hit:
                continue
            after = Position(variant, side.other, *after_board)
            if kind == "distance" and after.problems():
                continue
            verdict = check(rules, before, dice, after)
            if not verdict.legal:
                return IllegalPlay(moves, after, verdict, kind)
    return None
