"""`review` end to end: a generated match video in, the evidence out, checked against the
generator's ground truth; and damaged or missing input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.evidence import verify
from synth.game.score import score
from synth.light import Light, relight_video
from tests.knocked import knock_camera


def read_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("game")
    assert main(["synth", "game", "--variant", "long", "--out", str(folder), "--seed", "3",
                 "--max-turns", "3", "--size", "960x540"]) == 0
    return folder


def test_a_generated_game_is_reviewed_turn_by_turn(game: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "review"
    assert main(["review", str(game / "game.mp4"), "--out", str(out), "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["complete"] and summary["frames"] == 532
    assert verify(out / "events.jsonl") is None  # the chain is intact
    seen = read_log(out / "events.jsonl")
    truth = read_log(game / "events.jsonl")
    result = score(truth, seen)
    assert (result.turns, result.turns_right) == (3, 3), (result.missed, result.false_flags)
    # A press is seen once the hand has left the clock: a few frames after the lamp changes.
    presses = [e["frame"] for e in truth if e["event"] == "clock_press"]
    seen_presses = [e["frame"] for e in seen if e["event"] == "clock_press"]
    assert len(seen_presses) == len(presses)
    assert all(0 <= s - t <= 12 for s, t in zip(seen_presses, presses, strict=True))


def test_a_damaged_video_keeps_what_came_before(game: Path, tmp_path: Path) -> None:
    # MJPG in AVI stays readable up to a cut, as a recording cut off by a crash would.
    capture = cv2.VideoCapture(str(game / "game.mp4"))
    whole = tmp_path / "whole.avi"
    writer = cv2.VideoWriter(str(whole), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (960, 540))
    while True:
        ok, image = capture.read()
        if not ok:
            break
        writer.write(image)
    writer.release()
    folder = tmp_path / "cut"
    folder.mkdir()
    data = whole.read_bytes()
    (folder / "game.avi").write_bytes(data[: len(data) * 2 // 3])
    shutil.copy(game / "calibration.json", folder / "calibration.json")
    out = tmp_path / "review"
    assert main(["review", str(folder / "game.avi"), "--out", str(out), "--quiet"]) == 1
    seen = read_log(out / "events.jsonl")
    assert seen[-1]["event"] == "source" and seen[-1]["kind"] == "truncated"
    assert any(e["event"] == "move" for e in seen)  # the first turns were reviewed
    assert verify(out / "events.jsonl") is None


def test_a_missing_calibration_is_a_one_line_error(game: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    video = tmp_path / "game.mp4"
    shutil.copy(game / "game.mp4", video)
    assert main(["review", str(video), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "no calibration" in error


def test_a_review_never_overwrites_evidence(game: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "review"
    out.mkdir()
    (out / "events.jsonl").write_text("{}\n")
    assert main(["review", str(game / "game.mp4"), "--out", str(out), "--quiet"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert (out / "events.jsonl").read_text() == "{}\n"


def test_a_file_that_is_no_video_is_a_one_line_error(game: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "game.mp4").write_bytes(b"\x00" * 1000)
    shutil.copy(game / "calibration.json", tmp_path / "calibration.json")
    assert main(["review", str(tmp_path / "game.mp4"), "--out", str(tmp_path / "out"),
                 "--quiet"]) == 2
    assert "not a video" in capsys.readouterr().err
    # One that OpenCV opens (as a picture sequence) but where no frame decodes: the same,
    # and nothing is written.
    (tmp_path / "frame.jpg").write_text("not a picture")
    assert main(["review", str(tmp_path / "frame.jpg"), "--calibration",
                 str(tmp_path / "calibration.json"), "--out", str(tmp_path / "out"),
                 "--quiet"]) == 2
    assert "no frame could be decoded" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_video_of_another_size_than_its_calibration_is_refused(
        game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The field's corners are in the calibrated frame's pixels: a recording of another
    camera mode is not read against them."""
    video = tmp_path / "small.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    for _ in range(3):
        writer.write(np.full((240, 320, 3), 90, np.uint8))
    writer.release()
    assert main(["review", str(video), "--calibration", str(game / "calibration.json"),
                 "--out", str(tmp_path / "out"), "--quiet"]) == 1
    width, height = json.loads((game / "calibration.json").read_text())["image_size"]
    error = capsys.readouterr().err
    assert f"frame 0 is 320x240, the calibration is for {width}x{height}" in error


def split_cameras(game: Path, folder: Path) -> tuple[Path, Path]:
    """The generated table as two cameras: the board camera with the tray blacked out, and
    a camera of the tray alone (a crop), each with its own calibration."""
    calibration = json.loads((game / "calibration.json").read_text())
    zones = np.concatenate([np.array(calibration["dice_zones"][k], np.float32)
                            for k in ("tray", "box")])
    x0, y0 = np.floor(zones.min(0)).astype(int) - 4
    x1, y1 = np.ceil(zones.max(0)).astype(int) + 4
    x1, y1 = x1 + (x1 - x0) % 2, y1 + (y1 - y0) % 2  # the writer keeps even sizes only
    capture = cv2.VideoCapture(str(game / "game.mp4"))
    fourcc = cv2.VideoWriter.fourcc(*"MJPG")
    board = cv2.VideoWriter(str(folder / "board.avi"), fourcc, 30.0,
                            tuple(calibration["image_size"]))
    tray = cv2.VideoWriter(str(folder / "tray.avi"), fourcc, 30.0, (x1 - x0, y1 - y0))
    while True:
        ok, image = capture.read()
        if not ok:
            break
        tray.write(np.ascontiguousarray(image[y0:y1, x0:x1]))
        image[y0:y1, x0:x1] = 0
        board.write(image)
    board.release()
    tray.release()
    tray_calibration = {**calibration, "image_size": [int(x1 - x0), int(y1 - y0)],
                        "dice_zones": {k: (np.array(v) - [x0, y0]).tolist()
                                       for k, v in calibration["dice_zones"].items()}}
    del calibration["dice_zones"]
    (folder / "board.json").write_text(json.dumps(calibration))
    (folder / "tray.json").write_text(json.dumps(tray_calibration))
    return folder / "board.json", folder / "tray.json"


def test_a_table_with_a_camera_for_the_tray_is_reviewed_as_one(game: Path,
                                                             tmp_path: Path) -> None:
    board_calibration, tray_calibration = split_cameras(game, tmp_path)
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "board.avi"), "--calibration", str(board_calibration),
                 "--tray-video", str(tmp_path / "tray.avi"), "--tray-calibration",
                 str(tray_calibration), "--out", str(out), "--quiet"]) == 0
    result = score(read_log(game / "events.jsonl"), read_log(out / "events.jsonl"))
    assert (result.turns, result.turns_right) == (3, 3), (result.missed, result.false_flags)

    # A tray camera whose frames its calibration does not fit: the dice stop, said in the
    # log; the board is still reviewed to the end.
    wrong = json.loads(tray_calibration.read_text())
    wrong["image_size"] = [wrong["image_size"][0] + 2, wrong["image_size"][1]]
    tray_calibration.write_text(json.dumps(wrong))
    out = tmp_path / "review-wrong-tray"
    assert main(["review", str(tmp_path / "board.avi"), "--calibration", str(board_calibration),
                 "--tray-video", str(tmp_path / "tray.avi"), "--tray-calibration",
                 str(tray_calibration), "--out", str(out), "--quiet"]) == 0
    log = read_log(out / "events.jsonl")
    assert [e["kind"] for e in log if e["event"] == "source"] == ["tray_camera"]
    assert not any(e["event"] == "roll" for e in log)


def test_a_tray_camera_seeing_the_light_flicker_in_bands_is_told_once(game: Path,
                                                                      tmp_path: Path) -> None:
    board_calibration, tray_calibration = split_cameras(game, tmp_path)
    relight_video(tmp_path / "tray.avi", Light(flicker=0.08, phase=1.0, readout=0.03))
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "board.avi"), "--calibration", str(board_calibration),
                 "--tray-video", str(tmp_path / "tray.avi"), "--tray-calibration",
                 str(tray_calibration), "--out", str(out), "--quiet"]) == 0
    log = read_log(out / "events.jsonl")
    said = [e["detail"] for e in log if e["event"] == "source"]
    assert len(said) == 1 and said[0].startswith("the tray camera sees"), said
    assert "anti-flicker" in said[0]
    result = score(read_log(game / "events.jsonl"), log)
    assert (result.turns, result.turns_right) == (3, 3), (result.missed, result.false_flags)


def test_a_throw_voided_on_the_tray_cameras_reading_is_shown_by_that_camera(
        tmp_path: Path) -> None:
    """The board camera does not see the tray: the still and the clip of a throw voided for a
    cocked die are the tray camera's, whose frames show the die."""
    game = tmp_path / "game"
    assert main(["synth", "game", "--variant", "long", "--out", str(game), "--seed", "3",
                 "--inject", "cocked", "--max-turns", "3", "--size", "960x540"]) == 0
    board_calibration, tray_calibration = split_cameras(game, tmp_path)
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "board.avi"), "--calibration", str(board_calibration),
                 "--tray-video", str(tmp_path / "tray.avi"), "--tray-calibration",
                 str(tray_calibration), "--out", str(out), "--quiet"]) == 0
    voids = [e for e in read_log(out / "events.jsonl") if e["event"] == "throw_void"]
    assert len(voids) == 1 and voids[0]["rule"] == "5.4.33"
    still = cv2.imread(str(out / voids[0]["evidence"]["still"]))
    width, height = json.loads(tray_calibration.read_text())["image_size"]
    assert still is not None and abs(still.shape[0] / still.shape[1] - height / width) < 0.01
    clip = cv2.VideoCapture(str(out / voids[0]["evidence"]["clip"]))
    frames = int(clip.get(cv2.CAP_PROP_FRAME_COUNT))
    clip.release()
    assert frames >= 80  # 1.5 s each side of the void at the tray camera's 30 fps


def test_a_camera_knocked_mid_game_is_reported_not_refereed(game: Path, tmp_path: Path) -> None:
    """The camera knocked 30 px aside between two turns: every calibrated region (the field,
    the clock, the tray) now lies elsewhere in its frames. The log says so once, soon after,
    and nothing is read from the camera from then on: no move, no throw, no flag on a board
    or a clock seen where they are not."""
    truth = read_log(game / "events.jsonl")
    # After the second turn's press, before the third throw.
    knocked = [e["frame"] for e in truth if e["event"] == "clock_press"][1] + 10
    knock_camera(game / "game.mp4", tmp_path / "game.avi", knocked, 30, 12)
    shutil.copy(game / "calibration.json", tmp_path / "calibration.json")
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "game.avi"), "--out", str(out), "--quiet"]) == 0
    seen = read_log(out / "events.jsonl")
    moved = [e for e in seen if e["event"] == "camera_moved"]
    assert len(moved) == 1 and knocked < moved[0]["frame"] <= knocked + 30, moved
    assert "no longer where" in moved[0]["detail"] or "moved by" in moved[0]["detail"]
    after = [e["event"] for e in seen if e["frame"] > moved[0]["frame"]]
    assert after == [], after
    assert [e["event"] for e in seen].count("move") == 2  # the turns before were refereed


def test_a_camera_put_back_is_refereed_again(game: Path, tmp_path: Path) -> None:
    """The camera knocked aside for a second as the third throw begins, then put back: the
    log says it moved and that it is back, and the dice and the move are read after it."""
    truth = read_log(game / "events.jsonl")
    knocked = [e["frame"] for e in truth if e["event"] == "clock_press"][1] + 10
    knock_camera(game / "game.mp4", tmp_path / "game.avi", knocked, 30, 12, knocked + 33)
    shutil.copy(game / "calibration.json", tmp_path / "calibration.json")
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "game.avi"), "--out", str(out), "--quiet"]) == 0
    seen = read_log(out / "events.jsonl")
    camera = [(e["event"], e["frame"]) for e in seen if e["event"].startswith("camera")]
    assert [kind for kind, _ in camera] == ["camera_moved", "camera_back"], camera
    assert knocked + 33 <= camera[1][1] <= knocked + 33 + 30, camera
    third = [sorted(e["dice"]) for e in truth if e["event"] == "roll"][2]
    assert [sorted(e["dice"]) for e in seen
            if e["event"] == "roll" and e["frame"] >= camera[1][1]] == [third]
    assert [e["event"] for e in seen].count("move") == 3


def test_a_knocked_tray_camera_stops_the_dice_not_the_board(game: Path, tmp_path: Path) -> None:
    """The tray's own camera knocked 8 px aside between two turns: the log says its view
    moved, its dice are read no more, and the board camera is refereed to the end."""
    board_calibration, tray_calibration = split_cameras(game, tmp_path)
    truth = read_log(game / "events.jsonl")
    knocked = [e["frame"] for e in truth if e["event"] == "clock_press"][1] + 10
    knock_camera(tmp_path / "tray.avi", tmp_path / "knocked.avi", knocked, 8, 4)
    out = tmp_path / "review"
    assert main(["review", str(tmp_path / "board.avi"), "--calibration", str(board_calibration),
                 "--tray-video", str(tmp_path / "knocked.avi"), "--tray-calibration",
                 str(tray_calibration), "--out", str(out), "--quiet"]) == 0
    seen = read_log(out / "events.jsonl")
    said = [e for e in seen if e["event"] == "source"]
    assert len(said) == 1 and said[0]["kind"] == "tray_camera", said
    assert "tray's view moved by" in said[0]["detail"]
    # The view is compared on the empty, still tray: noticed once the third throw's dice
    # are picked up (an 8 px knock does not stop those dice being read), and nothing read since.
    picked = [e["frame"] for e in truth if e["event"] == "dice_picked_up" and e["frame"] > knocked]
    assert picked[0] < said[0]["frame"] <= picked[0] + 45, (picked, said)
    assert not any(e["event"] == "roll" and e["frame"] > said[0]["frame"] for e in seen)
    assert [e["event"] for e in seen].count("move") == 3
    assert any(e["event"] == "clock_press" and e["frame"] > said[0]["frame"] for e in seen)


@pytest.mark.parametrize("readout", [0.0, 0.03])
def test_a_game_under_a_flickering_light_is_reviewed_as_under_a_steady_one(
        game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], readout: float) -> None:
    # Mains light beating by 8% at 10 Hz against the camera, all at once or in a rolling
    # shutter's moving bands: the board and the dice tray are compared frame to frame
    # levelled to the first frame's light, so the flicker moves nothing, and every turn is
    # read as it is under a steady light. The bands are told to the operator, once.
    video = tmp_path / "game.mp4"
    shutil.copy(game / "game.mp4", video)
    shutil.copy(game / "calibration.json", tmp_path / "calibration.json")
    relight_video(video, Light(flicker=0.08, phase=1.0, readout=readout))
    assert main(["review", str(video), "--out", str(tmp_path / "review"), "--quiet"]) == 0
    capsys.readouterr()
    seen = read_log(tmp_path / "review" / "events.jsonl")
    result = score(read_log(game / "events.jsonl"), seen)
    assert (result.turns, result.turns_right) == (3, 3), (result.missed, result.false_flags)
    told = [e["detail"] for e in seen if e["event"] == "camera_flicker"]
    assert len(told) == (1 if readout else 0), told
    assert not told or "anti-flicker" in told[0]
