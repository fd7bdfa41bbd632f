"""How surely the board camera's watch tells a knocked camera from checkers on the field's edges.

    python -m bench.camera_watch [--games 20] [--keep DIR] [--every 10]

The review bench's games (seeds 5000 on, long and short in turn, as `bench.review_accuracy`;
games already in `--keep` from either bench are read again, not generated). Every `--every`th
frame is checked against the first frame's edges as `CameraWatch` checks a stream, with its
tolerance: as filmed, where a verdict of moved is a false alarm, and every hundredth frame
moved as a knocked camera moves it, by one of SHIFTS in turn (those past the tolerance),
where a verdict of not moved is a miss. A single frame's verdict: over a stream a verdict
must hold for CONFIRM_SECONDS. Also prints how often a side's shift is measured within 1.5 px
of the truth, by how well its profile matched (what `SURE_MATCH` rests on). One JSON line per
game, then the totals.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from bench.review_accuracy import FIRST_SEED, bench_game
from calibration.board import BoardCalibration
from calibration.moved import CameraWatch, border_profiles, check_camera
from vision.board.warp import Image

# Knocks of 3 to 12 px (the board reader misreads from 6 px of a 611 px field), every way.
SHIFTS = [(6, 0), (0, 6), (-5, 3), (0, -8), (12, 0), (0, 12), (4, 4), (-3, -5)]
MATCH_BANDS = (0.6, 0.8, 0.9, 0.95)


def moved(image: Image, dx: float, dy: float) -> Image:
    aside = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.asarray(cv2.warpAffine(image, aside, image.shape[1::-1],
                                     borderMode=cv2.BORDER_REPLICATE), np.uint8)


def true_shifts(dx: float, dy: float) -> list[float]:
    """Each side's shift along its inward normal (top, right, bottom, left), the field's sides
    lying about along the frame's."""
    return [dy, -dx, -dy, dx]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--turns", type=int, default=16, help="turns per game (0: to the end)")
    parser.add_argument("--every", type=int, default=10, help="check every this many frames")
    parser.add_argument("--keep", type=Path, help="keep the videos here (or read them again)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="camera-watch-"))
    checked = false_alarms = knocked = missed = 0
    sides: list[tuple[bool, float]] = []  # (measured right, match) per side of a moved frame
    for index in range(args.games):
        seed = FIRST_SEED + index
        game = root / f"game-{seed}"
        if not (game / "game.mp4").exists():
            bench_game(root, index, args.turns)
        calibration = BoardCalibration.load(game / "calibration.json")
        shift_px = CameraWatch(calibration).shift_px
        game_alarms: Counter[int] = Counter()
        game_missed: list[list[int]] = []
        capture = cv2.VideoCapture(str(game / "game.mp4"))
        frame = -1
        while True:
            ok, read = capture.read()
            if not ok:
                break
            image = np.asarray(read, np.uint8)
            frame += 1
            if frame % args.every:
                continue
            if frame == 0:  # the stream's first frame, as a watch without edges takes it
                calibration = replace(calibration,
                                      border=border_profiles(image, calibration.corners))
                continue
            checked += 1
            if check_camera(calibration, image, shift_px).moved:
                false_alarms += 1
                game_alarms[frame] += 1
            dx, dy = SHIFTS[(frame // 100) % len(SHIFTS)]
            # A knock within the watch's tolerance (0.6 % of the field) is read through.
            if frame % 100 == 0 and max(abs(dx), abs(dy)) >= shift_px:
                verdict = check_camera(calibration, moved(image, dx, dy), shift_px)
                knocked += 1
                if not verdict.moved:
                    missed += 1
                    game_missed.append([frame, dx, dy])
                sides += [(shift is not None and abs(shift - truth) <= 1.5, match)
                          for shift, match, truth in zip(verdict.shifts, verdict.matches,
                                                         true_shifts(dx, dy), strict=True)]
        print(json.dumps({"seed": seed, "false_alarms": sorted(game_alarms),
                          "knocks_missed": game_missed}), flush=True)
    measured = {f">={band}": {"sides": sum(match >= band for _, match in sides),
                              "right": round(float(np.mean([right for right, match in sides
                                                            if match >= band] or [False])), 4)}
                for band in MATCH_BANDS}
    print(json.dumps({"games": args.games, "frames_checked": checked,
                      "false_alarms": false_alarms, "knocked_frames": knocked,
                      "knocks_noticed": knocked - missed, "side_shift_by_match": measured}))


if __name__ == "__main__":
    main()
