"""Game videos agree with their events and the rules engine (synth/game)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.board import BoardCalibration
from calibration.layout import BoardGeometry
from calibration.numbering import Layout
from referee.check import check
from referee.cli import main
from referee.position import Position, Side, Variant
from referee.rules import Move, rules_for
from synth.board.scene import place
from synth.game.scene import make_scene
from synth.game.script import script_game
from vision.dice.zones import TrayCalibration

SIZE = (640, 360)
FPS = 30.0
KINDS = ("illegal", "cocked", "stalled", "premature")


def _load(out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = (out / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines], json.loads((out / "calibration.json").read_text())


def _frames(path: Path, wanted: set[int]) -> tuple[int, dict[int, np.ndarray[Any, Any]]]:
    cap = cv2.VideoCapture(str(path))
    assert cap.isOpened()
    count, kept = 0, {}
    while True:
        ok, img = cap.read()
        if not ok:
            break
        assert img.shape == (SIZE[1], SIZE[0], 3)
        if count in wanted:
            kept[count] = img
        count += 1
    cap.release()
    return count, kept


@pytest.fixture(scope="module", params=[("short", 3, KINDS, 5), ("long", 1, (), 3)],
                ids=["short-injected", "long-plain"])
def game(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]],
                                                            dict[str, Any]]:
    variant, seed, inject, turns = request.param
    out = tmp_path_factory.mktemp(f"game-{variant}")
    args = ["synth", "game", "--variant", variant, "--out", str(out), "--seed", str(seed),
            "--size", f"{SIZE[0]}x{SIZE[1]}", "--max-turns", str(turns), "--tempo", "0.5"]
    if inject:
        args += ["--inject", *inject]
    assert main(args) == 0
    events, calibration = _load(out)
    return out, events, calibration


def test_video_decodes_with_every_frame(game: Any) -> None:
    out, events, _ = game
    count, _ = _frames(out / "game.mp4", set())
    last = events[-1]
    assert last["event"] == "game_end"
    assert last["frame"] < count <= last["frame"] + FPS
    frames = [e["frame"] for e in events]
    assert frames == sorted(frames)
    assert all(abs(e["time"] - e["frame"] / FPS) < 1e-3 for e in events)


def test_moves_follow_the_rules_engine(game: Any) -> None:
    _, events, calibration = game
    start = events[0]
    assert start["event"] == "game_start"
    position = Position.from_json(start["position"])
    rules = rules_for(position.variant)
    layout = Layout(position.variant, calibration["layout"]["white_point1"])
    roll: list[int] | None = None
    completed = 0
    for e in events:
        if e["event"] == "roll":
            assert e["player"] == position.turn.value
            roll = e["dice"]
        elif e["event"] == "checker_move":
            side = Side(e["player"])
            for own, image in ((e["from"], e["from_image"]), (e["to"], e["to_image"])):
                expected = {0: "off", 25: "bar"}.get(own) or layout.to_image(side, own)
                assert image == expected
        elif e["event"] in ("move_complete", "illegal_move"):
            assert roll is not None and e["dice"] == roll
            dice = (roll[0], roll[1])
            after = Position.from_json(e["position"])
            if e["event"] == "illegal_move" or not e["legal"]:
                assert not check(rules, position, dice, after).legal
            else:
                moves = [Move(*m) for m in e["moves"]]
                assert rules.play(position, dice, moves) == after
            if e["event"] == "move_complete":
                position, roll, completed = after, None, completed + 1
    assert completed >= 3
    presses = [e["player"] for e in events if e["event"] == "clock_press"]
    assert all(a != b for a, b in itertools.pairwise(presses))


def test_hands_come_and_go(game: Any) -> None:
    _, events, _ = game
    visit: dict[str, Any] | None = None
    for e in events:
        if e["event"] == "hand_enter":
            assert visit is None
            visit = e
        elif e["event"] == "hand_leave":
            assert visit is not None and visit["player"] == e["player"]
            assert set(visit["hidden"]) <= set(e["hidden"]) <= set(range(1, 25))
            visit = None
        elif e["event"] in ("checker_move", "checker_hit", "clock_press", "throw_start"):
            assert visit is not None and visit["player"] == e["player"]
            assert set(e.get("hidden", [])) <= set(range(1, 25))
    assert visit is None
    moving = [e for e in events if e["event"] == "hand_leave" and e["hidden"]]
    assert moving  # a hand over the board hides points


def test_drawn_checkers_match_the_position(game: Any) -> None:
    out, events, cal = game
    done = [e for e in events if e["event"] == "move_complete"]
    _, frames = _frames(out / "game.mp4", {e["frame"] for e in done})
    g = BoardGeometry(**cal["geometry"])
    h = cv2.getPerspectiveTransform(g.field_corners().astype(np.float32),
                                    np.array(cal["corners"], np.float32))
    colours = {k: np.array(v, float) for k, v in cal["checker_colours"].items()}
    limit = max(60.0, 0.4 * float(np.linalg.norm(colours["light"] - colours["dark"])))
    checked = wrong = 0
    for e in done:
        position = Position.from_json(e["position"])
        layout = Layout(position.variant, cal["layout"]["white_point1"])
        placements = place(position, layout, g, cal["white_bar_half"])
        img = frames[e["frame"]]
        for i, p in enumerate(placements):
            later = [q.centre for q in placements[i + 1:] if q.where == p.where]
            if any(np.hypot(p.centre[0] - q[0], p.centre[1] - q[1]) < 0.9 * g.checker_diameter
                   for q in later):
                continue  # covered by a checker above it
            x, y = cv2.perspectiveTransform(np.array([[p.centre]], np.float32), h)[0, 0]
            patch = img[round(y) - 1:round(y) + 2, round(x) - 1:round(x) + 2].reshape(-1, 3)
            seen = patch.mean(0)
            nearest = min(colours, key=lambda c: float(np.linalg.norm(seen - colours[c])))
            checked += 1  # its own colour, and not the bare board (a missing checker)
            wrong += nearest != p.colour or np.linalg.norm(seen - colours[p.colour]) > limit
    assert checked >= 10 * len(done)
    assert wrong <= checked // 50


def test_injected_cases_are_logged(game: Any) -> None:
    _, events, cal = game
    inject = events[0]["inject"]
    kinds = [e["event"] for e in events]
    counts = [e for e in events if e["event"] == "count_start"]
    for start in counts:
        end = next(e for e in events if e["frame"] > start["frame"]
                   and e["event"] in ("throw_void", "count_cancelled"))
        assert end["rule"] == start["rule"] and end["player"] == start["player"]
        if end["event"] == "throw_void":
            assert abs(end["frame"] - start["frame"] - 3 * FPS) <= 2
        else:
            assert end["frame"] - start["frame"] < 3 * FPS
    box = np.array(cal["dice_zones"]["box"], np.float32)
    for e in (e for e in events if e["event"] == "dice_at_rest"):
        for die in e["dice"]:
            inside = cv2.pointPolygonTest(box, tuple(die["centre"]), False) >= 0
            assert die["in_box"] == inside
            assert (die["value"] is None) == die["cocked"]
    if not inject:
        assert not counts and "illegal_move" not in kinds and "premature_throw" not in kinds
        return
    outcomes = {(e["event"], e.get("rule")) for e in events}
    for rule in ("5.4.32", "5.4.33"):
        assert ("throw_void", rule) in outcomes and ("count_cancelled", rule) in outcomes
    illegal = [e for e in events if e["event"] == "illegal_move"]
    assert {e["corrected"] for e in illegal} == {True, False}
    assert all(e["violations"] for e in illegal)
    assert "correction" in kinds and "move_accepted" in kinds
    premature = [e for e in events if e["event"] == "premature_throw"]
    assert {e["counted"] for e in premature} == {True, False}
    for e in premature:  # thrown before the opponent pressed the clock
        press = next(p for p in events if p["event"] == "clock_press" and p["frame"] > e["frame"])
        assert press["player"] == e["opponent"]


def test_calibration_reads_back(game: Any) -> None:
    out, _, cal = game
    board = BoardCalibration.from_json(cal)
    assert board.image_size == SIZE and board.white_corner == cal["layout"]["white_point1"]
    zones = TrayCalibration.load(out / "calibration.json").zones
    assert set(cal["dice_zones"]) == {"tray", "box"} and len(zones.tray) == 4
    for side in ("white", "black"):
        assert len(cal["clock"]["buttons"][side]) == 4


def test_same_seed_same_game() -> None:
    def events(seed: int) -> list[dict[str, Any]]:
        rng = np.random.default_rng(seed)
        scene = make_scene(rng, Variant.SHORT, SIZE)
        return script_game(scene, rng, FPS, 3, ("random",), 0.5).events

    first = events(7)
    assert first == events(7)
    assert first != events(8)
