"""Milliseconds per frame of the live tray camera's path (`vision/tray.py: TrayCamera`) on one
core: the motion test every frame, the dice read only when the tray changed, a still tray
searched again while a die is missing, each die's rest dated. `read_dice.py` times its worst
case, every frame read; this is what a throw costs as it is watched.

    python bench/tray_stream.py [CLIP ...] [--flicker 0.04 --readout 0.03]

A CLIP is a folder of `nardy-referee synth dice-clip` (frames/*.jpg and calibration.json):
the model card's figures are over 80 clips X000-X004, X100-X104, X200-X204 and X300-X304
of four thousands of seeds (which ones, `models/dice/cocked.md`). The frames are decoded,
and under `--flicker`, `--ramp` or `--readout` lit as a hall's light would (`synth/light.py`),
before the clock starts. Without clips it times drawn throws: two dice slide out of the
box's mouth and stop, or one does and the other stays in the box.
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
from bench.read_dice import draw_die
from synth.light import add_light_arguments, clip_light
from vision.cli import read_image
from vision.dice.reader import DiceReader
from vision.dice.zones import DiceZones, TrayCalibration
from vision.tray import TrayCamera

# The drawn throws' zones on a 640x480 frame: the box's inside above the tray's floor.
DRAWN_ZONES = {"tray": [[80, 160], [560, 160], [560, 460], [80, 460]],
               "box": [[240, 20], [400, 20], [400, 150], [240, 150]]}


def drawn_throw(seed: int, dice: int, frames: int = 120) -> list[np.ndarray]:
    """A throw drawn frame by frame: `dice` dice come out of the box's mouth and slide to a
    stop in the tray, any other lies in the box from the first frame."""
    rng = np.random.default_rng(seed)
    ends = [(int(rng.integers(120, 480)), int(rng.integers(220, 400))) for _ in range(2)]
    faces = [int(rng.integers(1, 7)) for _ in range(2)]
    stops = [int(rng.integers(20, 50)) for _ in range(2)]
    sequence = []
    for index in range(frames):
        frame = np.full((480, 640, 3), (60, 90, 40), np.uint8)
        cv2.rectangle(frame, (240, 20), (400, 150), (40, 50, 70), -1)
        for die in range(2):
            if die < dice:
                share = min(index / stops[die], 1.0)
                x = round(300 + share * (ends[die][0] - 300))
                y = round(150 + share * (ends[die][1] - 150))
            else:
                x, y = 330, 60
            draw_die(frame, x, y, faces[die], side=40)
        sequence.append(frame)
    return sequence


def clip(folder: Path) -> tuple[DiceZones, tuple[int, int], list[np.ndarray]]:
    calibration = TrayCalibration.load(folder / "calibration.json")
    frames = [read_image(path) for path in sorted((folder / "frames").glob("*.jpg"))]
    return calibration.zones, calibration.frame_size(), frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="*", type=Path)
    add_light_arguments(parser)
    args = parser.parse_args()
    cv2.setNumThreads(1)  # one core: OpenCV's own threads would take a second
    reader = DiceReader(threads=1)
    if args.clips:
        throws = [clip(folder) for folder in args.clips]
    else:
        zones = DiceZones.from_json(DRAWN_ZONES)
        throws = [(zones, (640, 480), drawn_throw(seed, 2 - seed % 2)) for seed in range(8)]
    # A steady light leaves the frames as they are.
    throws = [(zones, size, [clip_light(seed, args.flicker, args.ramp, args.readout)
                             .lit(image, index / 30) for index, image in enumerate(images)])
              for seed, (zones, size, images) in enumerate(throws)]
    reader.read(throws[0][2][0])  # warm up the sessions
    spent, worst, frames = 0.0, 0.0, 0
    for zones, size, images in throws:
        camera = TrayCamera(zones, reader, size)
        for index, image in enumerate(images):
            started = time.perf_counter()
            camera.observe(index, index / 30, image)
            took = time.perf_counter() - started
            spent, worst, frames = spent + took, max(worst, took), frames + 1
    source = f"{len(throws)} clips" if args.clips else f"{len(throws)} drawn throws"
    print(f"{spent / frames * 1000:.2f} ms per frame on one core over {frames} frames of "
          f"{source} (the slowest frame {worst * 1000:.1f} ms; goal < 10 ms a frame; "
          f"{processor()})")


if __name__ == "__main__":
    main()
