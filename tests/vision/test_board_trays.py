"""Borne-off checkers in the side trays: patches, labels, readings on rendered boards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.layout import TraySide
from models.board.tray_data import cover_tray
from synth.board.render import BoardRenderer
from synth.board.style import random_geometry
from vision.board.classes import N_CLASSES, OCCLUDED, decode_class
from vision.board.cli import answer
from vision.board.reader import BoardReader
from vision.board.strips import canonical_geometry
from vision.board.trays import TRAY_NAMES, TRAY_SIZE, TrayReader, TrayReading, tray_quads
from vision.board.warp import field_homography, project

Scene = tuple[np.ndarray[Any, Any], dict[str, Any]]


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader()


@pytest.fixture(scope="module")
def scenes() -> list[Scene]:
    """First scenes of seeds never trained on with borne-off checkers, no hands: long nardy
    (one tray each side), short nardy (both on one side, both halves of it used)."""
    out = []
    for seed in (9257, 9247, 9307, 9208):
        scene = BoardRenderer(seed, (1280, 720), hand_rate=0.0).next_scene()
        out.append((scene.image, scene.label))
    return out


def test_patches_hold_the_tray_of_every_design() -> None:
    rng = np.random.default_rng(5)
    quads = tray_quads(canonical_geometry())
    sides: tuple[TraySide, ...] = ("left", "left", "right", "right")
    for _ in range(300):
        g = random_geometry(rng)
        for i, side in enumerate(sides):
            x0, _, x1, _ = g.tray_rect(side)  # the field is 1000 units wide in both frames
            xs = quads[i][:, 0]
            assert xs.min() <= x0 and x1 <= xs.max()
    top, bottom = quads[2], quads[3]
    assert np.allclose(top[0], [1025.0, 0.0]) and np.allclose(bottom[0], [1025.0, 897.0])


def test_labels_put_each_colour_in_its_tray(scenes: list[Scene]) -> None:
    for _, label in scenes:
        seen = {"light": 0, "dark": 0}
        for half in label["trays"].values():
            if half["count"]:
                seen[half["colour"]] += half["count"]
            assert half["in_picture"] and not half["hidden"]
        assert seen == label["off"]


def test_borne_off_checkers_are_counted(reader: BoardReader, scenes: list[Scene]) -> None:
    for image, label in scenes:
        out = reader.read(image, label["corners"]).to_json("x.jpg")
        assert out["off"] == label["off"]
        assert out["off_hidden"] == []
        assert set(out["off_confidence"]) == set(TRAY_NAMES)
        assert all(0 < p <= 1 for p in out["off_confidence"].values())


@pytest.mark.parametrize("where", [0.0, 0.5])  # where the image is cut across the patches
def test_a_tray_outside_the_picture_is_not_guessed(reader: BoardReader, scenes: list[Scene],
                                                   where: float) -> None:
    image, label = scenes[0]  # checkers in both trays
    corners = np.array(label["corners"])
    h = field_homography(corners, canonical_geometry())
    xs = project(h, tray_quads(canonical_geometry())[:2].reshape(-1, 2))[:, 0].reshape(2, 4)
    lo, hi = xs.min(1).max(), xs.max(1).min()  # a cut past lo leaves both left halves in part
    cut = int(lo + where * (hi - lo)) + 2
    cropped = np.ascontiguousarray(image[:, cut:])
    reading = reader.read(cropped, corners - [cut, 0])
    assert reading.trays is not None
    assert reading.trays.hidden == ["left-top", "left-bottom"]
    assert np.all(reading.trays.probs[:2, OCCLUDED] == 1.0)
    assert reading.off() is None
    out = reading.to_json("x.jpg")
    assert out["off"] is None and out["off_confidence"]["left-top"] == 1.0
    right = [label["trays"][n] for n in ("right-top", "right-bottom")]
    said = [decode_class(int(c)) for c in reading.trays.classes[2:]]
    assert said == [(t["colour"], t["count"]) for t in right]


def test_a_hand_over_a_tray_gives_no_count(reader: BoardReader) -> None:
    scene = BoardRenderer(9247, (1280, 720), hand_rate=0.0).next_scene()
    label = scene.label
    rng = np.random.default_rng(3)
    cover_tray(scene.image, label, rng)
    hidden = [n for n in TRAY_NAMES if label["trays"][n]["hidden"]]
    assert hidden
    reading = reader.read(scene.image, label["corners"])
    assert reading.trays is not None and set(hidden) <= set(reading.trays.hidden)
    assert reading.off() is None


def test_the_command_answers_off(reader: BoardReader, scenes: list[Scene],
                                 tmp_path: Path) -> None:
    image, label = scenes[1]
    path = tmp_path / "board.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    out = answer(reader, path, label["corners"])
    assert out["off"] == label["off"] and "bar_occluded" in out and "confidence" in out


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="missing"):
        TrayReader(Path("/no/such/trays.onnx"))
    with pytest.raises(ValueError, match=r"shape \(4, 32\)"):
        TrayReading(np.zeros((3, N_CLASSES)))
    probs = np.zeros((len(TRAY_NAMES), N_CLASSES))
    probs[:, 0] = 1.0
    assert TrayReading(probs).off() == {"light": 0, "dark": 0}
    probs[3] = 0.0
    probs[3, OCCLUDED] = 1.0
    assert TrayReading(probs).off() is None and TrayReading(probs).hidden == ["right-bottom"]


def test_without_the_tray_model_off_is_null(scenes: list[Scene]) -> None:
    image, label = scenes[0]
    out = BoardReader(trays=None).read(image, label["corners"]).to_json("x.jpg")
    assert out["off"] is None and out["off_confidence"] is None
    assert out["off_hidden"] == list(TRAY_NAMES)


def test_patch_shape(scenes: list[Scene]) -> None:
    from vision.board.trays import extract_trays

    image, label = scenes[0]
    patches, inside = extract_trays(image, np.array(label["corners"]), canonical_geometry())
    assert patches.shape == (4, TRAY_SIZE[1], TRAY_SIZE[0], 3) and patches.dtype == np.uint8
    assert inside.tolist() == [True] * 4
