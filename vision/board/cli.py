"""`nardy-referee read-board` (FORMATS.md): the checkers on the board, image-relative.

    nardy-referee read-board IMAGE (--corners X,Y X,Y X,Y X,Y | --calibration FILE)
    nardy-referee read-board --batch < requests.jsonl

Batch lines: {"image": PATH, "corners": [[x, y], ...]} or {"image": PATH, "calibration":
FILE}. Bad input: exit 2 and one line on stderr; in batch mode an {"image", "error"} line and
the run goes on. With a calibration the camera is first checked: a moved camera is an error
("camera moved ..."), never a reading.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from calibration.board import BoardCalibration
    from vision.board.reader import BoardReader
    from vision.board.warp import Image

    Subcommands = argparse._SubParsersAction[Any]


def add_command(commands: Subcommands) -> None:
    """Register `read-board` under the main command line."""
    from calibration.cli import parse_xy

    p = commands.add_parser("read-board", help="read the checkers on the board camera's frame")
    p.add_argument("image", type=Path, nargs="?")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--corners", type=parse_xy, nargs=4, metavar="X,Y",
                       help="field corners: top-left top-right bottom-right bottom-left")
    where.add_argument("--calibration", type=Path, help="a calibration file (calibrate)")
    p.add_argument("--batch", action="store_true", help="JSON request lines on stdin")
    p.set_defaults(run=run)


def read_image(path: Path) -> Image:
    """A BGR image from a file; ValueError with a plain reason when it cannot be read."""
    import cv2

    if not Path(path).is_file():
        raise ValueError(f"no such file: {path}")
    data = np.fromfile(path, np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ValueError(f"not a readable image (corrupt or unknown format): {path}")
    return np.asarray(image, np.uint8)


class _Calibrations:
    """Calibration files, loaded once each."""

    def __init__(self) -> None:
        self.cache: dict[str, BoardCalibration] = {}

    def __call__(self, path: Path) -> BoardCalibration:
        from calibration.board import BoardCalibration

        key = str(path)
        if key not in self.cache:
            self.cache[key] = BoardCalibration.load(path)
        return self.cache[key]


def answer(reader: BoardReader, path: Path, corners: Any = None,
           calibration: BoardCalibration | None = None) -> dict[str, Any]:
    """The read-board JSON for one image; ValueError for anything that stops the reading."""
    image = read_image(path)
    bar = None
    if calibration is not None:
        from calibration.moved import check_camera

        verdict = check_camera(calibration, image)
        if verdict.moved:
            raise ValueError(f"camera moved since calibration: {verdict.reason}")
        corners, bar = calibration.corners, calibration.bar_width
    if corners is None:
        raise ValueError("read-board needs --corners or --calibration")
    return reader.read(image, corners, bar).to_json(str(path))


def run(args: argparse.Namespace) -> int:
    from vision.board.reader import BoardReader

    reader = BoardReader()
    if args.batch:
        calibrations = _Calibrations()
        for line in sys.stdin:
            if not line.strip():
                continue
            record: dict[str, Any]
            image = None
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("request must be a JSON object")
                image = request.get("image")
                if not isinstance(image, str):
                    raise ValueError("request lacks the field 'image'")
                cal = request.get("calibration")
                record = answer(reader, Path(image), request.get("corners"),
                                calibrations(Path(cal)) if cal else None)
            except json.JSONDecodeError as error:
                record = {"image": image, "error": f"request is not valid JSON: {error.msg}"}
            except (ValueError, TypeError, KeyError) as error:
                record = {"image": image, "error": str(error).splitlines()[0]}
            print(json.dumps(record), flush=True)
        return 0
    if args.image is None:
        raise ValueError("read-board needs an IMAGE (or --batch)")
    from calibration.board import BoardCalibration

    cal = BoardCalibration.load(args.calibration) if args.calibration else None
    print(json.dumps(answer(reader, args.image, args.corners, cal)))
    return 0
