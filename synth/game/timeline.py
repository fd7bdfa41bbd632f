"""Frames and events: the low-level recorder the game script writes into.

A `Frame` is everything that changes in the picture (the checkers lying on the board, the
dice, the hand and what it carries, the clock); the video renders one per frame index.
Events carry the index of the first frame that shows them and its time (frame / fps).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from referee.position import Side
from synth.board.hand import covered_share
from synth.game.draw import DieState, HandLook, draw_hand
from synth.game.moves import Board
from synth.game.scene import GameScene

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Frame:
    board: Board
    dice: tuple[DieState, ...] = ()
    hand: tuple[Side, Point] | None = None  # whose hand, fingertips in pixels
    carried: tuple[Side, Point] | None = None  # a checker in the hand: its colour, centre
    lit: Side | None = None  # the clock side running
    pressed: Side | None = None  # a clock button held down
    clock: tuple[int, int] = (0, 0)  # seconds left: white, black


def ease(t: float) -> float:
    return t * t * (3 - 2 * t)


class Recorder:
    """Appends frames and events; holds the state that the next frame shows."""

    def __init__(self, scene: GameScene, fps: float, tempo: float, looks: dict[Side, HandLook],
                 board: Board, clock_seconds: float = 900.0) -> None:
        self.scene = scene
        self.fps = fps
        self.tempo = tempo
        self.looks = looks
        self.frames: list[Frame] = []
        self.events: list[dict[str, Any]] = []
        self.state = Frame(board)
        self.left = {Side.WHITE: clock_seconds, Side.BLACK: clock_seconds}
        self.stop_hidden: tuple[list[int], bool] = ([], False)  # at the hand's last stop
        self.visit_hidden: tuple[set[int], bool] = (set(), False)  # since it entered

    # -- time ------------------------------------------------------------------------------

    def n(self, seconds: float, scaled: bool = True) -> int:
        """Frames for a duration; `scaled` durations follow the tempo (hand motions)."""
        return max(1, round(seconds * self.fps * (self.tempo if scaled else 1.0)))

    @property
    def now(self) -> int:
        """Index of the next frame to be recorded."""
        return len(self.frames)

    def emit(self, name: str, /, **data: Any) -> dict[str, Any]:
        event = {"event": name, "frame": self.now, "time": round(self.now / self.fps, 4), **data}
        self.events.append(event)
        return event

    def set(self, **changes: Any) -> None:
        self.state = replace(self.state, **changes)

    def hold(self, frames: int) -> None:
        for _ in range(frames):
            if self.state.lit is not None and self.state.pressed is None:
                self.left[self.state.lit] -= 1 / self.fps
            w, b = (math.ceil(self.left[s]) for s in (Side.WHITE, Side.BLACK))
            if (w, b) != self.state.clock:
                self.state = replace(self.state, clock=(w, b))
            self.frames.append(self.state)

    def animate(self, frames: int, step: Callable[[float], dict[str, Any]]) -> None:
        """Record `frames` frames, each after `step(t)` (t in (0, 1]) changed the state."""
        for i in range(frames):
            self.set(**step((i + 1) / frames))
            self.hold(1)

    # -- the hand --------------------------------------------------------------------------

    def outside(self, side: Side, x: float) -> Point:
        """Just beyond the player's edge of the frame, where the hand comes from."""
        h = self.scene.size[1]
        return (x, -0.1 * h if self.scene.player_edge[side] == "top" else 1.1 * h)

    def hidden(self, side: Side, target: Point) -> tuple[list[int], bool]:
        """Image-relative points (and whether the bar) a hand at `target` covers by 25 %."""
        w, h = self.scene.size
        mask = np.zeros((h, w), np.uint8)
        draw_hand(mask, target, self.scene.player_edge[side], self.looks[side], mask=True)
        g = self.scene.geometry
        points = [p for p in range(1, 25)
                  if covered_share(mask, self.scene.to_image(g.point_area(p))) >= 0.25]
        bx0, by0, bx1, by1 = g.bar_rect()
        bar = self.scene.to_image(np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]))
        return points, covered_share(mask, bar) >= 0.25

    def reach(self, side: Side, target: Point, seconds: float, purpose: str,
              carry: Side | None = None) -> None:
        """Move the hand to `target` (entering from the player's edge if it is away).

        What the hand hides at each stop is kept for the events (`stop_hidden`, and their
        union over the visit for `hand_leave`).
        """
        points: list[int] = []
        bar = False
        if purpose != "leave":
            points, bar = self.hidden(side, target)
            self.stop_hidden = (points, bar)
        if self.state.hand is None:
            self.visit_hidden = (set(points), bar)
            self.emit("hand_enter", player=side.value, purpose=purpose, hidden=points,
                      bar_hidden=bar)
            start = self.outside(side, target[0])
        else:
            self.visit_hidden = (self.visit_hidden[0] | set(points), self.visit_hidden[1] or bar)
            start = self.state.hand[1]

        def step(t: float) -> dict[str, Any]:
            e = ease(t)
            at = (start[0] + (target[0] - start[0]) * e, start[1] + (target[1] - start[1]) * e)
            return {"hand": (side, at), "carried": None if carry is None else (carry, at)}

        self.animate(self.n(seconds), step)

    def leave(self, side: Side, seconds: float = 0.3) -> None:
        if self.state.hand is None:
            return
        x = self.state.hand[1][0]
        self.reach(side, self.outside(side, x), seconds, "leave")
        self.set(hand=None, carried=None)
        points, bar = self.visit_hidden
        self.emit("hand_leave", player=side.value, hidden=sorted(points), bar_hidden=bar)
