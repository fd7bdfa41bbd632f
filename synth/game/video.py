"""Rendering a game script to frames and writing the video, the events and the calibration.

The board with its resting checkers is warped into the frame once per board state and cached
(a state lasts from one checker's lift or drop to the next); each frame then copies that
background and draws the clock, the dice, the hand and a carried checker over it. A frame
equal to the previous one is written again without drawing.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.position import Position, Side, Variant
from synth.board.camera import project
from synth.board.draw import board_extent, paste
from synth.board.render import warp_into
from synth.board.scene import Placement, place
from synth.board.textures import Image
from synth.game.draw import draw_clock, draw_die, draw_hand
from synth.game.moves import Board, stack_index
from synth.game.scene import GameScene, draw_static, make_scene
from synth.game.script import Script, script_game

CACHE = 8  # board states kept warped


def placements(scene: GameScene, board: Board) -> list[Placement]:
    """`place` for a board state; a point mixed by an illegal landing stacks black after
    white (as the script's carried checker lands)."""
    position = Position(scene.variant, Side.WHITE, board[0], board[1])
    out = place(position, scene.layout, scene.geometry, scene.white_bar_half)
    fixed = []
    for p in out:
        if p.side is Side.BLACK and p.point is not None and p.own_point is not None:
            k = stack_index(scene.variant, board, p.side, p.own_point, p.index)
            if k != p.index:
                layer, _ = scene.geometry.checker_slot(k)
                p = replace(p, index=k, layer=layer,
                            centre=scene.geometry.checker_centre(p.point, k))
        fixed.append(p)
    fixed.sort(key=lambda p: (p.where == "bar", p.layer))
    return fixed


class GameRenderer:
    def __init__(self, scene: GameScene, script: Script) -> None:
        self.scene, self.script = scene, script
        self.static = draw_static(scene)
        x0, y0, x1, y1 = board_extent(scene.style)
        self.outline = project(scene.h, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        w, h = scene.size
        shade = tuple(int(v) for v in self.static[0, 0] * 0.5)
        drop = np.array([0.004 * w, 0.006 * h])  # the board's shadow on the table
        cv2.fillConvexPoly(self.static, np.round(self.outline + drop).astype(np.int32), shade,
                           cv2.LINE_AA)
        self.h_canvas = scene.h @ np.linalg.inv(scene.canvas.units_to_px())
        self.cache: OrderedDict[Board, Image] = OrderedDict()
        self.warps = 0

    def background(self, board: Board) -> Image:
        if board in self.cache:
            self.cache.move_to_end(board)
            return self.cache[board]
        scene = self.scene
        canvas = scene.canvas.image.copy()
        for p in placements(scene, board):
            c = scene.canvas.px(np.array([p.centre]))[0]
            paste(canvas, scene.sprites[p.side], (float(c[0]), float(c[1])))
        img = self.static.copy()
        warp_into(img, canvas, self.h_canvas, self.outline)
        self.cache[board] = img
        self.warps += 1
        if len(self.cache) > CACHE:
            self.cache.popitem(last=False)
        return img

    def render(self, index: int) -> Image:
        frame = self.script.frames[index]
        scene = self.scene
        img = self.background(frame.board).copy()
        seconds = {Side.WHITE: frame.clock[0], Side.BLACK: frame.clock[1]}
        draw_clock(img, scene.buttons, scene.displays, frame.lit, frame.pressed, seconds)
        for die in frame.dice:
            draw_die(img, die, scene.die_px, self.script.die)
        if frame.hand is not None:
            side, target = frame.hand
            draw_hand(img, target, scene.player_edge[side], self.script.looks[side])
        if frame.carried is not None:
            side, centre = frame.carried
            paste(img, scene.carried[side], centre)
        return img


@dataclass(frozen=True, slots=True)
class Stats:
    frames: int
    seconds: float  # video length
    script_s: float
    render_s: float  # drawing, without encoding
    write_s: float  # encoding and writing
    warps: int

    def to_json(self) -> dict[str, Any]:
        total = self.script_s + self.render_s + self.write_s
        return {"frames": self.frames, "video_seconds": round(self.seconds, 2),
                "script_s": round(self.script_s, 3), "render_s": round(self.render_s, 3),
                "write_s": round(self.write_s, 3), "board_warps": self.warps,
                "render_fps": round(self.frames / max(self.render_s, 1e-9), 1),
                "total_fps": round(self.frames / max(total, 1e-9), 1)}


def generate(out: Path, variant: Variant, seed: int, size: tuple[int, int] = (1280, 720),
             fps: float = 30.0, inject: tuple[str, ...] = (), max_turns: int = 20,
             tempo: float = 1.0) -> Stats:
    """Write game.mp4, events.jsonl and calibration.json into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    scene = make_scene(rng, variant, size)
    script = script_game(scene, rng, fps, max_turns, inject, tempo)
    t1 = time.perf_counter()
    (out / "calibration.json").write_text(json.dumps(scene.calibration(), indent=1) + "\n",
                                          encoding="utf-8")
    with (out / "events.jsonl").open("w", encoding="utf-8") as f:
        for event in script.events:
            f.write(json.dumps(event, separators=(",", ":")) + "\n")
    writer = cv2.VideoWriter(str(out / "game.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise RuntimeError(f"cannot open a video writer for {out / 'game.mp4'}")
    renderer = GameRenderer(scene, script)
    render_s = write_s = 0.0
    last: Image | None = None
    try:
        for i, frame in enumerate(script.frames):
            a = time.perf_counter()
            if last is None or frame != script.frames[i - 1]:
                last = renderer.render(i)
            b = time.perf_counter()
            writer.write(last)
            render_s += b - a
            write_s += time.perf_counter() - b
    finally:
        writer.release()
    return Stats(len(script.frames), len(script.frames) / fps, t1 - t0, render_s, write_s,
                 renderer.warps)
