"""The 3D board generator's labels against its own pictures (MuJoCo segmentation), on a few
small scenes. Skips when MuJoCo or an offscreen OpenGL backend (EGL) is missing."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("MUJOCO_GL", "egl")  # MuJoCo picks its GL backend on first import
if importlib.util.find_spec("mujoco") is None:
    pytest.skip("mujoco is not installed (pip install -e '.[synth]')", allow_module_level=True)
try:  # through synth.dice._mujoco, which picks the backend before MuJoCo loads
    from synth.dice._mujoco import mujoco  # noqa: F401
except Exception as error:  # installed, but its GL backend will not load (e.g. no libEGL)
    pytest.skip(f"MuJoCo will not load: {error}", allow_module_level=True)

from synth.board3d.cli import generate
from synth.board3d.render import Board3DRenderer, Scene

SIZE = (480, 270)


@pytest.fixture(scope="module")
def rendered() -> Any:
    """Three scenes (tilted up to 30 degrees), each with the geom ids of its bare board."""
    try:
        renderer = Board3DRenderer(4, SIZE, tilt_max=30.0, session_length=1)
    except Exception as error:  # no GL context: EGL/OSMesa libraries missing
        pytest.skip(f"no offscreen OpenGL for MuJoCo: {error}")
    out = []
    try:
        for _ in range(3):
            scene = renderer.next_scene()
            out.append((scene, renderer.bare()))
        yield renderer, out
    finally:
        renderer.close()


def _at(image: Any, xy: Any) -> int:
    return int(image[int(np.floor(xy[1])), int(np.floor(xy[0]))])


def test_corners_lie_on_the_field_edges(rendered: Any) -> None:
    """Just inside each labelled corner the bare board shows the field, just outside not; the
    inside point steps over the strip that the frame's rim may hide under a tilt."""
    renderer, scenes = rendered
    field = renderer.geom_id("field")
    for scene, bare in scenes:
        corners = np.array(scene.label["corners"])
        assert corners.shape == (4, 2)
        (tl, tr, br, bl), mid = corners, corners.mean(0)
        assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]
        for c in corners:
            assert _at(bare, c + (mid - c) * 0.05) == field
            assert _at(bare, c - (mid - c) * 0.015) != field


def test_visible_checker_centres_show_that_checker(rendered: Any) -> None:
    _, scenes = rendered
    for scene, _ in scenes:
        checkers = scene.label["checkers"]
        visible = [i for i, c in enumerate(checkers) if c["visible"]]
        assert len(visible) >= 5
        for i in visible:
            assert _at(scene.checkers, checkers[i]["centre"]) == i
            assert checkers[i]["pixels"] == int((scene.checkers == i).sum()) > 0
        for c in checkers:
            assert c["hidden"] == (not c["visible"])
            if c["where"] == "off" and not c["on_top"]:
                assert c["hidden"], "a checker under another in its stack is hidden"


def test_counts_add_up(rendered: Any) -> None:
    _, scenes = rendered
    for scene, _ in scenes:
        label = scene.label
        for colour, side in (("light", "white"), ("dark", "black")):
            on_points = sum(p["count"] for p in label["points"].values() if p["colour"] == colour)
            assert on_points + label["bar"][colour] + label["off"][colour] == 15
            mine = [c for c in label["checkers"] if c["colour"] == colour]
            assert len(mine) == 15 and {c["side"] for c in mine} == {side}
            assert sum(c["where"] == "off" for c in mine) == label["off"][colour]
            own = label["position"][side]
            assert sum(own.values()) == on_points
        for point, entry in label["points"].items():
            on = [c for c in label["checkers"] if c["point"] == int(point)]
            assert len(on) == entry["count"] and {c["colour"] for c in on} == {entry["colour"]}


def test_picture_is_a_board(rendered: Any) -> None:
    _, scenes = rendered
    scene: Scene
    for scene, _ in scenes:
        assert scene.image.shape == (SIZE[1], SIZE[0], 3) and scene.image.dtype == np.uint8
        assert scene.image.std() > 10
        assert scene.label["camera"]["tilt"] <= 30.0


def test_same_seed_same_labels(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        generate(out, 2, seed=3, variant="short", size=(320, 180))
    assert (a / "labels.jsonl").read_text() == (b / "labels.jsonl").read_text()
    assert len((a / "labels.jsonl").read_text().splitlines()) == 2
    assert (a / "board3d-3-000001.jpg").stat().st_size > 1000
