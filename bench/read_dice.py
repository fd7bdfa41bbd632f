"""Milliseconds per 640x480 tray frame of the dice path on one core: motion, detection,
classification of the dice found, every frame read (the tray camera reads only when the tray
changed: this is its worst case). Goal: under 10 ms, so two cameras run at 30 fps on two
cores.

    python bench/read_dice.py [--frames 200] [--turns N] [--view] [--mirrors N] [--repeats N]
        [--photographs] [IMAGE ...]

Without images it uses frames of two dice drawn on a tray-coloured background.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import processor
from calibration.tray_view import TrayView
from vision.cli import read_image
from vision.dice.reader import DiceReader
from vision.dice.rest import changed_pixels, smoothed

# Pip positions of each face on a 3x3 grid (column, row).
PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)],
        4: [(0, 0), (2, 0), (0, 2), (2, 2)], 5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
        6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}


def draw_die(frame: np.ndarray, x: int, y: int, face: int, side: int = 50) -> None:
    """A white die showing `face`, its top-left corner at (x, y), `side` pixels wide."""
    cv2.rectangle(frame, (x, y), (x + side, y + side), (235, 235, 235), -1)
    margin, spacing, radius = round(0.24 * side), round(0.26 * side), round(0.08 * side)
    for column, row in PIPS[face]:
        cv2.circle(frame, (x + margin + spacing * column, y + margin + spacing * row), radius,
                   (20, 20, 20), -1)


def drawn_frame(rng: np.random.Generator) -> np.ndarray:
    frame = np.full((480, 640, 3), (60, 90, 40), np.uint8)
    for _ in range(2):
        x, y = int(rng.integers(100, 500)), int(rng.integers(100, 380))
        draw_die(frame, x, y, int(rng.integers(1, 7)))
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--turns", type=int, default=4,
                        help="quarter turns the classifier reads of each crop")
    parser.add_argument("--view", action="store_true",
                        help="the calibration knows the camera's view of the tray (a camera 50 "
                             "degrees above it): the cocked call is made straight down")
    parser.add_argument("--mirrors", type=int, default=0,
                        help="mirror images the detector also looks at (read-dice reads "
                             "photographs with 3; the tray camera with none)")
    parser.add_argument("--photographs", action="store_true",
                        help="read as read-dice reads a photograph (DiceReader.for_photographs: "
                             "the photographs' detector, its mirrored looks, the lifted look)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="time the frames this many times and give the median: on a busy "
                             "machine one pass can be a millisecond off")
    parser.add_argument("images", nargs="*", type=Path)
    args = parser.parse_args()
    cv2.setNumThreads(1)  # one core: OpenCV's own threads would take a second
    rng = np.random.default_rng(0)
    frames = [cv2.resize(read_image(p), (640, 480)) for p in args.images] or [
        drawn_frame(rng) for _ in range(20)
    ]
    reader = (DiceReader.for_photographs(threads=1) if args.photographs
              else DiceReader(threads=1, turns=args.turns, mirrors=args.mirrors))
    view = None
    if args.view:
        elevation = np.radians(50.0)
        view = TrayView(np.array([[600.0, 0, 320], [0, 600, 240], [0, 0, 1]]),
                        np.array([0.0, -np.cos(elevation), -np.sin(elevation)]))
    reader.read(frames[0], view)  # warm up the sessions
    passes = []
    for _ in range(max(args.repeats, 1)):
        previous = None
        started, cpu = time.perf_counter(), time.process_time()
        found = 0
        for index in range(args.frames):
            frame = frames[index % len(frames)]
            grey = smoothed(frame)  # the tray camera's motion test (vision/tray.py)
            if previous is not None:
                changed_pixels(previous, grey)
            previous = grey
            found += len(reader.read(frame, view))
        passes.append(((time.perf_counter() - started) / args.frames,
                       (time.process_time() - cpu) / args.frames))
    elapsed = float(np.median([wall for wall, _ in passes]))
    cpu = float(np.median([used for _, used in passes]))
    median = f", the median of {len(passes)} passes" if len(passes) > 1 else ""
    print(f"{elapsed * 1000:.2f} ms per 640x480 frame on one core, {cpu * 1000:.2f} ms of CPU "
          f"({1 / elapsed:.0f} frames/s; {found / args.frames:.1f} dice per frame; goal < 10 ms"
          f"{median}; {processor()})")


if __name__ == "__main__":
    main()
