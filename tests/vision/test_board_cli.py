"""`read-board` and `calibrate` on the command line: output shape, bad input, batch mode."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.cli import add_command as add_calibrate
from referee.cli import EXIT_BAD_INPUT, InputError, PositionError, _message
from synth.board.render import BoardRenderer
from vision.board.cli import add_command as add_read_board


def _main(argv: list[str]) -> int:
    """The main command's error handling around just these two commands."""
    parser = argparse.ArgumentParser(prog="nardy-referee")
    commands = parser.add_subparsers(dest="command", required=True)
    add_read_board(commands)
    add_calibrate(commands)
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except (InputError, PositionError, ValueError) as error:
        print(f"nardy-referee {args.command}: {_message(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    scene = BoardRenderer(9201, (1280, 720), hand_rate=0.0).next_scene()
    path = tmp_path_factory.mktemp("board") / "board.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, scene.label


def _corner_args(label: dict[str, Any]) -> list[str]:
    return [f"{x},{y}" for x, y in label["corners"]]


def test_read_board_with_corners(board: tuple[Path, dict[str, Any]],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    path, label = board
    assert _main(["read-board", str(path), "--corners", *_corner_args(label)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["image"] == str(path)
    assert set(out) >= {"points", "bar", "occluded", "confidence"}
    assert out["points"] == label["points"]
    assert out["bar"] == label["bar"]


def test_calibrate_then_read(board: tuple[Path, dict[str, Any]], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    path, label = board
    cal = tmp_path / "cal.json"
    assert _main(["calibrate", str(path), "--corners", *_corner_args(label),
                  "--white-home", "top-left", "--out", str(cal)]) == 0
    saved = json.loads(cal.read_text())
    assert saved["layout"] == {"white_point1": "top-left", "direction": "clockwise"}
    capsys.readouterr()
    assert _main(["read-board", str(path), "--calibration", str(cal)]) == 0
    assert json.loads(capsys.readouterr().out)["points"] == label["points"]
    assert _main(["calibrate", str(path), "--check", str(cal)]) == 0
    assert json.loads(capsys.readouterr().out)["moved"] is False
    moved = tmp_path / "moved.jpg"
    image = cv2.imread(str(path))
    cv2.imwrite(str(moved), np.roll(image, 8, axis=1))
    assert _main(["read-board", str(moved), "--calibration", str(cal)]) == EXIT_BAD_INPUT
    assert "camera moved" in capsys.readouterr().err


def test_calibrate_measures_the_tray_view_from_its_corners(
        board: tuple[Path, dict[str, Any]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path, label = board
    cal = tmp_path / "cal.json"
    tray = ["120,500", "380,500", "400,700", "100,700"]  # narrower far away: seen from the front
    zones = ["--tray", *tray, "--box", "100,300", "400,300", "400,480", "100,480"]
    assert _main(["calibrate", str(path), "--corners", *_corner_args(label), *zones,
                  "--tray-mm", "260", "220", "--out", str(cal)]) == 0
    from vision.dice.zones import TrayCalibration

    view = TrayCalibration.load(cal).zones.view
    assert view is not None
    assert TrayCalibration.load(cal).zones.tray_mm == (260.0, 220.0)
    # Up is towards the top of the picture and back towards the camera.
    assert view.up[1] < 0 and view.up[2] < 0
    assert view.elevation_deg((250.0, 600.0)) > 50
    assert "warnings" not in json.loads(capsys.readouterr().out)
    # A tray seen from 31 degrees above: too low a camera for cocked dice, and said so.
    low = ["140,580", "360,580", "400,700", "100,700"]
    assert _main(["calibrate", str(path), "--corners", *_corner_args(label), "--tray", *low,
                  "--box", *zones[-4:], "--tray-mm", "260", "220", "--out", str(cal)]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert len(warnings) == 1 and "31 degrees" in warnings[0]
    assert _main(["calibrate", str(path), "--corners", *_corner_args(label), "--tray", *tray[:3],
                  "--box", "1,1", "2,1", "2,2", "--tray-mm", "260", "220",
                  "--out", str(cal)]) == EXIT_BAD_INPUT


def test_print_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "markers.png"
    assert _main(["calibrate", "--print-markers", str(out)]) == 0
    assert cv2.imread(str(out)) is not None


@pytest.mark.parametrize(("make", "corners", "message"), [
    (None, None, "no such file"),
    (b"not an image", None, "not a readable image"),
    (b"jpg", "0,0 2600,0 600,400 0,400", "outside"),
    (b"blank", "10,10 600,10 600,450 10,450", "no board"),
    (b"jpg", "nan,0 600,0 600,400 0,400", "finite"),
])
def test_single_mode_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                            make: bytes | None, corners: str | None, message: str) -> None:
    path = tmp_path / "x.jpg"
    if make == b"not an image":
        path.write_bytes(make)
    elif make is not None:
        cv2.imwrite(str(path), np.full((480, 640, 3), 128, np.uint8))
    args = ["read-board", str(path), "--corners", *(corners or "0,0 600,0 600,400 0,400").split()]
    assert _main(args) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_batch_goes_on_after_bad_lines(board: tuple[Path, dict[str, Any]],
                                       monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path, label = board
    lines = [
        json.dumps({"image": str(path), "corners": label["corners"]}),
        json.dumps({"image": "/no/such.jpg", "corners": label["corners"]}),
        "{broken",
        json.dumps({"image": str(path), "corners": [[0, 0]]}),
        json.dumps({"image": str(path)}),
        json.dumps({"image": str(path), "corners": label["corners"]}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert _main(["read-board", "--batch"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(out) == 6
    assert out[0]["points"] == label["points"] and out[5] == out[0]
    assert [("error" in o) for o in out] == [False, True, True, True, True, False]
    assert out[1]["image"] == "/no/such.jpg"


def test_calibrate_from_markers(board: tuple[Path, dict[str, Any]], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from calibration.aruco import draw_markers

    path, label = board
    marked = tmp_path / "marked.png"
    cv2.imwrite(str(marked), draw_markers(cv2.imread(str(path)), np.array(label["corners"])))
    cal = tmp_path / "cal.json"
    assert _main(["calibrate", str(marked), "--aruco", "--out", str(cal)]) == 0
    saved = json.loads(cal.read_text())
    assert np.abs(np.array(saved["corners"]) - np.array(label["corners"])).max() < 2
    assert saved["markers"]["ids"] == [0, 1, 2, 3]
    capsys.readouterr()
    assert _main(["calibrate", str(path), "--aruco", "--out", str(cal)]) == EXIT_BAD_INPUT
    assert "not found" in capsys.readouterr().err
