"""Rendered board scenes agree with their labels (synth/board)."""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.numbering import Layout
from referee.position import Position, Side, Variant
from synth.board.camera import project
from synth.board.cli import add_command
from synth.board.render import BoardRenderer, Scene

SIZE = (640, 480)


def _scenes(seed: int, n: int, **kwargs: Any) -> list[tuple[Scene, BoardRenderer]]:
    renderer = BoardRenderer(seed, SIZE, **kwargs)
    return [(renderer.next_scene(), renderer) for _ in range(n)]


@pytest.fixture(scope="module")
def clean() -> list[tuple[Scene, BoardRenderer]]:
    """Scenes without lighting, noise or hands, one board design each."""
    out = []
    for seed in range(12):
        out.extend(_scenes(seed, 1, hand_rate=0.0, effects=False))
    return out


def _patch(img: np.ndarray[Any, Any], xy: np.ndarray[Any, Any], r: int = 1) -> Any:
    x, y = round(float(xy[0])), round(float(xy[1]))
    return np.asarray(img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3).mean(0), float)


def test_counts_add_up_and_match_the_position() -> None:
    for scene, _ in _scenes(11, 12, hand_rate=0.5):
        label = scene.label
        position = Position.from_json(label["position"])
        layout = Layout(Variant(label["variant"]), label["layout"]["white_point1"])
        for colour, side in (("light", Side.WHITE), ("dark", Side.BLACK)):
            on_points = sum(v["count"] for v in label["points"].values() if v["colour"] == colour)
            assert on_points + label["bar"][colour] + label["off"][colour] == 15
            counts = position.counts(side)
            for own in range(1, 25):
                entry = label["points"].get(str(layout.to_image(side, own)))
                if counts[own]:
                    assert entry == {"colour": colour, "count": counts[own]}
        assert len(label["checkers"]) == 30
        assert set(label["occluded"]) <= set(range(1, 25))


def test_corners_land_on_the_field_edges(clean: list[tuple[Scene, BoardRenderer]]) -> None:
    checked = 0
    for scene, renderer in clean:
        ses = renderer.session
        assert ses is not None
        style, img = ses.style, scene.image
        corners = np.array(scene.label["corners"])
        assert corners.shape == (4, 2)
        tl, tr, br, bl = corners
        assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]
        frame = np.array(style.frame, float)
        # Just inside a corner: a triangle's base, the field, or a checker standing there.
        inside_colours = [np.array(c, float) for c in (*style.triangles, style.field,
                                                       style.light.colour, style.dark.colour)]
        checkers = np.array([c["centre"] for c in scene.label["checkers"]])
        radius = 0.6 * scene.label["checker_diameter_px"]
        centre = corners.mean(0)
        step = 0.015 * np.linalg.norm(corners[1] - corners[0])  # inside the tray gap
        # the corners, then the middles of the left and right edges (bare field inside)
        probes = [(c, (centre - c) / np.linalg.norm(centre - c)) for c in corners]
        for a, b in ((tl, bl), (tr, br)):
            mid, along = (a + b) / 2, (b - a) / np.linalg.norm(b - a)
            normal = np.array([-along[1], along[0]])
            probes.append((mid, normal if np.dot(normal, centre - mid) > 0 else -normal))
        for corner, unit in probes:
            inside, outside = _patch(img, corner + unit * step), _patch(img, corner - unit * step)
            distinct = [c for c in inside_colours if np.linalg.norm(c - frame) >= 90]
            if not distinct:
                continue  # frame and field alike: no edge to see
            assert np.linalg.norm(outside - frame) < min(
                np.linalg.norm(outside - c) for c in distinct), (corner, outside)
            checked += 1
            if np.min(np.linalg.norm(checkers - (corner + unit * step), axis=1)) < radius:
                continue  # a checker stands there: its shading is checked elsewhere
            nearest = min(inside_colours, key=lambda c: float(np.linalg.norm(inside - c)))
            if np.linalg.norm(nearest - frame) >= 90:
                assert np.linalg.norm(inside - nearest) < np.linalg.norm(inside - frame)
    assert checked >= 12


def test_checker_centres_have_the_checker_colour(
        clean: list[tuple[Scene, BoardRenderer]]) -> None:
    checked = 0
    for scene, renderer in clean:
        ses = renderer.session
        assert ses is not None
        colours = {"light": np.array(ses.style.light.colour, float),
                   "dark": np.array(ses.style.dark.colour, float)}
        for checker in scene.label["checkers"]:
            if not checker["on_top"] or checker["hidden"]:
                continue
            seen = _patch(scene.image, np.array(checker["centre"]))
            own = colours[checker["colour"]]
            other = colours["dark" if checker["colour"] == "light" else "light"]
            assert np.linalg.norm(seen - own) < np.linalg.norm(seen - other), checker
            checked += 1
    assert checked > 60


def test_checker_centres_follow_the_homography() -> None:
    renderer = BoardRenderer(5, SIZE, hand_rate=0.0)
    scene = renderer.next_scene()
    assert renderer.session is not None
    g = renderer.session.style.geometry
    corners = np.array(scene.label["corners"])
    h = cv2.getPerspectiveTransform(g.field_corners().astype(np.float32),
                                    corners.astype(np.float32))
    for checker in scene.label["checkers"]:
        if checker["where"] == "point":
            along = project(np.asarray(np.linalg.inv(h), float), np.array([checker["centre"]]))[0]
            nearest = g.checker_centre(checker["point"], checker["index"])
            assert np.linalg.norm(along - nearest) < 0.15 * g.checker_diameter


def test_hands_hide_points() -> None:
    occluded = hidden = partly = 0
    for scene, _ in _scenes(3, 10, hand_rate=1.0):
        label = scene.label
        occluded += len(label["occluded"])
        for checker in label["checkers"]:
            hidden += checker["hidden"]
            if checker["hidden"] and checker["where"] == "point":
                assert checker["point"] in label["occluded"]
        # a point is hidden when a hand covers a quarter of it (or one of its checkers)
        assert {int(p) for p, share in label["cover"].items() if share >= 0.25} <= set(
            label["occluded"]) <= {int(p) for p in label["cover"]}
        partly += sum(0 < share < 0.25 for share in label["cover"].values())
    assert occluded > 0 and hidden > 0 and partly > 0


def test_same_seed_same_scenes() -> None:
    a = [s for s, _ in _scenes(7, 3)]
    b = [s for s, _ in _scenes(7, 3)]
    c = [s for s, _ in _scenes(8, 3)]
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x.image, y.image) and x.label == y.label
    assert not all(np.array_equal(x.image, z.image) for x, z in zip(a, c, strict=True))


def test_command_writes_images_and_labels(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_command(parser.add_subparsers(dest="kind"))
    args = parser.parse_args(["board", "--out", str(tmp_path), "--count", "3", "--seed", "4",
                              "--variant", "short", "--size", "320x240"])
    assert args.run(args) == 0
    lines = (tmp_path / "labels.jsonl").read_text().splitlines()
    assert len(lines) == 3
    for line in lines:
        label = json.loads(line)
        assert label["variant"] == "short"
        img = cv2.imread(str(tmp_path / label["image"]))
        assert img is not None and img.shape == (240, 320, 3)


def test_training_options_heads_and_real_checkers() -> None:
    """`head_rate` shows openings' tall heads; `real_look` swaps in real sets' checkers (still
    seen in their own colour at the centre) and narrower triangles; labels still add up."""
    renderer = BoardRenderer(21, SIZE, (Variant.LONG,), hand_rate=0.0, effects=False,
                             head_rate=1.0, real_look=1.0, narrow_points=1.0)
    tallest, checked = 0, 0
    for _ in range(6):
        scene = renderer.next_scene()
        ses = renderer.session
        assert ses is not None
        assert ses.style.base_width < 1.0
        label = scene.label
        tallest = max(tallest, *(v["count"] for v in label["points"].values()))
        for colour in ("light", "dark"):
            on_points = sum(v["count"] for v in label["points"].values()
                            if v["colour"] == colour)
            assert on_points + label["bar"][colour] + label["off"][colour] == 15
        colours = {"light": np.array(ses.style.light.colour, float),
                   "dark": np.array(ses.style.dark.colour, float)}
        for checker in label["checkers"]:
            if checker["on_top"] and checker["where"] == "point":
                seen = _patch(scene.image, np.array(checker["centre"]))
                other = "dark" if checker["colour"] == "light" else "light"
                checked += (np.linalg.norm(seen - colours[checker["colour"]])
                            < np.linalg.norm(seen - colours[other]))
    assert tallest >= 10 and checked > 0


def test_training_options_off_keep_the_default_scenes() -> None:
    a = [s for s, _ in _scenes(9, 2)]
    b = [s for s, _ in _scenes(9, 2, head_rate=0.0, real_look=0.0, narrow_points=0.0,
                               bar_spread=0.0)]
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x.image, y.image) and x.label == y.label


def test_bar_spread_leaves_the_bar_checkers_apart_along_the_bar() -> None:
    """`bar_spread`: checkers on the bar lie along it in either half, apart, not stacked
    from the middle; the strips' labels count them in the half they lie in."""
    from calibration.layout import BoardGeometry
    from models.board.data import strip_labels
    from synth.board.scene import place, spread_bar
    from vision.board.classes import decode_class

    renderer = BoardRenderer(7, SIZE, (Variant.SHORT,), hand_rate=0.0, bar_spread=1.0)
    seen = 0
    for _ in range(200):
        if seen == 3:
            break
        scene = renderer.next_scene()
        bar = [c for c in scene.label["checkers"] if c["where"] == "bar"]
        if len(bar) < 2:
            continue
        seen += 1
        strips = strip_labels(scene.label)
        counted = sum(decode_class(int(c))[1] for c in strips[24:] if c >= 0)
        assert counted == len(bar) or -1 in strips[24:]  # both colours in a half: left out
    assert seen >= 3
    g = BoardGeometry()
    gaps: list[float] = []
    halves_used = set()
    position = Position.from_json({"variant": "short", "turn": "white",
                                   "white": {"6": 12}, "black": {"24": 15},
                                   "bar": {"white": 3}})
    for seed in range(20):
        placed = spread_bar(place(position, Layout(Variant.SHORT, "bottom-right"), g),
                            g, np.random.default_rng(seed))
        ys = sorted(p.centre[1] for p in placed if p.where == "bar")
        assert len(ys) == 3
        for a, b in itertools.pairwise(ys):
            if not a < g.height / 2 < b:  # two in one half never overlap
                assert b - a >= g.step - 1e-9
                gaps.append(b - a - g.step)
        assert g.checker_diameter / 2 <= min(ys) and max(ys) <= g.height - g.checker_diameter / 2
        halves_used |= {y < g.height / 2 for y in ys}
    assert halves_used == {True, False} and max(gaps) > g.checker_diameter / 2
