"""The script of one game: random legal play from the start, turn by turn, with injections.

Each turn: the dice are thrown (and thrown again after a void throw), the hand moves the
checkers one at a time, the dice are picked up and the clock is pressed. Injections: an
illegal move (corrected or accepted), a cocked die or a die stalled in the box (void after
3 s, or the count cancelled), a premature throw by the next player (counted or not).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.position import BAR, OFF, Position, Side, opposite_point
from referee.rules import Dice, Move, rules_for
from synth.board.hand import SKIN
from synth.board.render import DICE_COLOURS
from synth.game.dice import Thrower
from synth.game.draw import DieLook, HandLook
from synth.game.moves import add, counts_of, hit_target, illegal_play, stack_index
from synth.game.scene import GameScene
from synth.game.timeline import Frame, Recorder

KINDS = ("illegal", "cocked", "stalled", "premature")
OUTCOMES = {"illegal": ("corrected", "accepted"), "cocked": ("void", "cancelled"),
            "stalled": ("void", "cancelled"), "premature": ("counted", "not_counted")}
RANDOM_RATE = 0.12  # --inject random: chance per turn of each kind


@dataclass(frozen=True, slots=True)
class Script:
    frames: list[Frame]
    events: list[dict[str, Any]]
    looks: dict[Side, HandLook]
    die: DieLook
    fps: float


class _Game:
    def __init__(self, scene: GameScene, rng: np.random.Generator, fps: float,
                 tempo: float) -> None:
        self.scene, self.rng = scene, rng
        self.variant = scene.variant
        self.rules = rules_for(self.variant)
        looks = {}
        for side in Side:
            skin = SKIN[int(rng.integers(len(SKIN)))]
            sleeve = tuple(int(v) for v in rng.integers(20, 230, 3))
            looks[side] = HandLook(skin, (sleeve[0], sleeve[1], sleeve[2]),
                                   scene.checker_px * float(rng.uniform(1.5, 1.8)))
        body = DICE_COLOURS[int(rng.integers(len(DICE_COLOURS)))]
        self.die = DieLook(body, (250, 250, 250) if sum(body) < 300 else (20, 20, 20))
        self.first = Side.WHITE if rng.random() < 0.5 else Side.BLACK
        self.position = Position.start(self.variant, self.first)
        self.rec = Recorder(scene, fps, tempo, looks,
                            (self.position.white, self.position.black))
        self.thrower = Thrower(self.rec, rng)

    # -- helpers ---------------------------------------------------------------------------

    def _image_point(self, side: Side, own: int) -> int | str:
        if own == BAR:
            return "bar"
        if own == OFF:
            return "off"
        return self.scene.layout.to_image(side, own)

    def _emit_at(self, frame: int, name: str, /, **data: Any) -> None:
        self.rec.events.append({"event": name, "frame": frame,
                                "time": round(frame / self.rec.fps, 4), **data})

    def press_clock(self, side: Side) -> None:
        rec = self.rec
        x0, y0, x1, y1 = self.scene.buttons[side]
        rec.reach(side, ((x0 + x1) / 2, (y0 + y1) / 2), 0.35, "clock")
        rec.set(pressed=side)
        rec.hold(rec.n(0.12))
        rec.set(pressed=None, lit=side.other)
        rec.emit("clock_press", player=side.value)
        rec.hold(rec.n(0.1))
        rec.leave(side)

    def play_moves(self, side: Side, moves: tuple[Move, ...], undo: bool = False) -> None:
        """The hand carries each checker, one at a time; a hit checker goes to the bar."""
        rec, scene, variant = self.rec, self.scene, self.variant
        w = scene.size[0]
        for m in moves:
            board = rec.state.board
            src = scene.slot_px(side, m.start, stack_index(
                variant, board, side, m.start, counts_of(board, side)[m.start] - 1))
            rec.reach(side, src, 0.35 if rec.state.hand is None else 0.25, "move")
            rec.hold(rec.n(0.06))
            board = add(board, side, m.start, -1)
            rec.set(board=board, carried=(side, src))
            rec.hold(rec.n(0.08))
            hit = not undo and hit_target(variant, board, side, m.end)
            enemy, enemy_point = side.other, opposite_point(variant, m.end) if hit else 0
            if hit:
                board = add(board, enemy, enemy_point, -1)
            dst = scene.slot_px(side, m.end, stack_index(
                variant, board, side, m.end, counts_of(board, side)[m.end]))
            dist = math.dist(src, dst)
            rec.reach(side, dst, 0.25 + 0.5 * min(1.0, dist / (0.5 * w)), "move", carry=side)
            board = add(board, side, m.end, 1)
            rec.set(board=board, carried=(enemy, dst) if hit else None)
            points, bar = rec.stop_hidden
            rec.emit("checker_move", player=side.value, **{"from": m.start}, to=m.end,
                     from_image=self._image_point(side, m.start),
                     to_image=self._image_point(side, m.end), hit=hit, undo=undo,
                     hidden=points, bar_hidden=bar)
            rec.hold(rec.n(0.08))
            if hit:
                bar_px = scene.slot_px(enemy, BAR, counts_of(board, enemy)[BAR])
                rec.reach(side, bar_px, 0.3, "move", carry=enemy)
                board = add(board, enemy, BAR, 1)
                rec.set(board=board, carried=None)
                rec.emit("checker_hit", player=side.value, side=enemy.value,
                         **{"from": enemy_point}, to=BAR,
                         from_image=self._image_point(enemy, enemy_point), to_image="bar")
                rec.hold(rec.n(0.08))

    # -- a turn ----------------------------------------------------------------------------

    def throw_until_roll(self, side: Side, queue: list[tuple[str, str]],
                         accepts: bool) -> Dice:
        while True:
            trouble = next((q for q in queue if q[0] in ("cocked", "stalled")), None)
            if trouble is not None:
                queue.remove(trouble)
            before = len(self.rec.events)
            dice = self.thrower.throw(side, trouble)
            if accepts:  # the opponent's throw accepts a move (5.5.1)
                start = next(e for e in self.rec.events[before:] if e["event"] == "throw_start")
                self._emit_at(start["frame"], "move_accepted", player=side.value,
                              opponent=side.other.value, rule="5.5.1")
                accepts = False
            if dice is not None:
                return dice

    def turn(self, queue: list[tuple[str, str]], unpressed: Side | None,
             accepts: bool) -> tuple[Position, bool]:
        """One turn; returns the position after it and whether an illegal move stood."""
        rec, rng, side, before = self.rec, self.rng, self.position.turn, self.position
        dice: Dice | None = None
        self.thrower.count = 0
        if unpressed is not None:
            premature = next((q for q in queue if q[0] == "premature"), None)
            if premature is None:
                self.press_clock(unpressed)
            else:
                queue.remove(premature)
                counted = premature[1] == "counted"
                first_event = len(rec.events)
                roll = self.thrower.throw(side, None, premature=True, announce=False)
                start = next(e for e in rec.events[first_event:] if e["event"] == "throw_start")
                self._emit_at(start["frame"], "premature_throw", player=side.value,
                              opponent=unpressed.value, rule="5.4.18", counted=counted)
                rec.hold(rec.n(0.3))
                self.press_clock(unpressed)
                if counted and roll is not None:
                    dice = roll
                    rec.emit("roll", player=side.value, dice=list(roll), premature=True)
                else:
                    rec.emit("throw_not_counted", player=side.value, rule="5.4.18")
                    self.thrower.pick_up(side)
                if accepts:
                    self._emit_at(start["frame"], "move_accepted", player=side.value,
                                  opponent=side.other.value, rule="5.5.1")
                    accepts = False
        if dice is None:
            dice = self.throw_until_roll(side, queue, accepts)
        rec.hold(rec.n(0.3))
        outcomes = self.rules.outcomes(before, dice)
        chosen = outcomes[int(rng.integers(len(outcomes)))]
        wanted = next((q for q in queue if q[0] == "illegal"), None)
        bad = None
        if wanted is not None:
            bad = illegal_play(self.rules, self.variant, before, dice, chosen.moves, rng,
                               closed_allowed=wanted[1] == "corrected")
        stood = False
        if bad is None:
            self.play_moves(side, chosen.moves)
            rec.leave(side)
            after = chosen.position
        else:
            assert wanted is not None
            queue.remove(wanted)
            corrected = wanted[1] == "corrected"
            self.play_moves(side, bad.moves)
            rec.leave(side)
            rec.emit("illegal_move", player=side.value, dice=list(dice),
                     moves=[list(m) for m in bad.moves], position=bad.after.to_json(),
                     kind=bad.kind, violations=[v.to_json() for v in bad.verdict.violations],
                     corrected=corrected)
            if corrected:
                rec.hold(rec.n(0.8))
                rec.emit("correction", player=side.value, claimant=side.other.value,
                         rule="5.4.47", position=before.to_json())
                undo = tuple(Move(m.end, m.start) for m in reversed(bad.moves))
                self.play_moves(side, undo, undo=True)
                self.play_moves(side, chosen.moves)
                rec.leave(side)
                after = chosen.position
            else:
                after, stood = bad.after, True
        if rec.state.board != (after.white, after.black):
            raise AssertionError("the animated checkers do not end on the chosen outcome")
        legal = not stood
        rec.emit("move_complete", player=side.value, dice=list(dice),
                 moves=[list(m) for m in (bad.moves if stood and bad else chosen.moves)],
                 position=after.to_json(), legal=legal)
        rec.hold(rec.n(0.2))
        self.thrower.pick_up(side)
        return after, stood


def script_game(scene: GameScene, rng: np.random.Generator, fps: float = 30.0,
                max_turns: int = 20, inject: tuple[str, ...] = (),
                tempo: float = 1.0) -> Script:
    """Play one game (at most `max_turns` turns, 0: to the end) and record it."""
    game = _Game(scene, rng, fps, tempo)
    rec = game.rec
    kinds = set(KINDS) if "random" in inject else set()
    queue = [(k, o) for k in KINDS if k in inject for o in OUTCOMES[k]]
    rec.set(lit=game.first)
    rec.emit("game_start", variant=scene.variant.value, layout=scene.layout.to_json(),
             position=game.position.to_json(), first=game.first.value, fps=fps,
             size=list(scene.size), inject=sorted(set(inject)))
    rec.hold(rec.n(0.5))
    unpressed: Side | None = None
    accepts = False
    turn = 0
    while max_turns <= 0 or turn < max_turns:
        for kind in sorted(kinds):
            if rng.random() < RANDOM_RATE:
                queue.append((kind, OUTCOMES[kind][int(rng.integers(2))]))
        game.position, accepts = game.turn(queue, unpressed, accepts)
        unpressed = game.position.turn.other
        turn += 1
        if game.position.winner() is not None:
            break
    result = game.position.result()
    if result is None and unpressed is not None:
        game.press_clock(unpressed)
    rec.hold(rec.n(0.3))
    rec.emit("game_end", turns=turn, result=None if result is None else {
        "winner": result.winner.value, "kind": result.kind.value, "points": result.points},
        position=game.position.to_json())
    rec.hold(rec.n(0.5))
    events = sorted(rec.events, key=lambda e: int(e["frame"]))
    return Script(rec.frames, events, rec.looks, game.die, fps)
