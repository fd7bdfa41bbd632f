"""Light that changes while a camera watches, applied to its frames: a hall's mains lighting
flickering, and the camera's automatic exposure stepping as the dice come in.

Mains light peaks twice a cycle (100 Hz on 50 Hz mains); a camera sampling it at 30 frames a
second sees a 10 Hz beat, one at 25 sees none. A camera with a rolling shutter reads its rows
one after another, so the flicker lies across the frame in bands, about three over its
height at a 30 ms readout, that move from frame to frame. The renders keep one exposure for a
whole clip or game (`synth.dice.style.Effects`): this is the change over time, for judging
the pipeline under it (`python -m models.dice.evaluate_clips --flicker 0.04 --ramp 0.15
--readout 0.03`, `python -m bench.review_accuracy --flicker 0.04`).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MAINS_PEAKS_HZ = 100.0
RAMP_FROM = 1 / 3  # seconds: the dice come into view
RAMP_SECONDS = 1.5  # how long the exposure takes to step, and to step back
RAMP_BACK = 2.2  # seconds: the exposure steps back


@dataclass(frozen=True)
class Light:
    """`flicker`: the mains light's swing as the camera sees it, a share of the light;
    `ramp`: the exposure's step, a share (0.15: 15% brighter), up from RAMP_FROM and back
    from RAMP_BACK; `phase`: the mains light's at time 0, radians; `readout`: the seconds a
    rolling shutter takes to read a frame's rows, top to bottom (0: all at once)."""

    flicker: float = 0.0
    ramp: float = 0.0
    phase: float = 0.0
    readout: float = 0.0

    @property
    def steady(self) -> bool:
        """Whether the light never changes (a rolling shutter alone changes nothing)."""
        return self.flicker == 0 and self.ramp == 0

    def gains(self, time: float, rows: int = 1) -> np.ndarray:
        """How much brighter than the clip's own exposure each of the `rows` of the frame
        taken at `time` is."""
        read_at = time + self.readout * np.arange(rows) / rows
        up = min(max((time - RAMP_FROM) / RAMP_SECONDS, 0.0), 1.0)
        back = min(max((time - RAMP_BACK) / RAMP_SECONDS, 0.0), 1.0)
        return np.asarray(1.0 + self.flicker * np.sin(2 * math.pi * MAINS_PEAKS_HZ * read_at
                                                      + self.phase)
                          + self.ramp * (up - back))

    def lit(self, image: np.ndarray, time: float) -> np.ndarray:
        """`image` (BGR, uint8) as the camera sees it when it takes the frame at `time`."""
        gains = self.gains(time, image.shape[0] if self.readout else 1)
        if np.all(gains == 1.0):
            return image
        if gains.size == 1:
            return np.asarray(cv2.convertScaleAbs(image, alpha=float(gains[0])))
        shape = (-1,) + (1,) * (image.ndim - 1)
        return np.asarray(np.clip(image * gains.reshape(shape) + 0.5, 0, 255), np.uint8)


def add_light_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that show a command's frames under a changing light: `--flicker`,
    `--ramp`, `--readout` (each 0, a steady light, unless given)."""
    parser.add_argument("--flicker", type=float, default=0.0,
                        help="mains flicker's amplitude, a share of the light (0.04)")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="the exposure's step as the dice come in, a share (0.15)")
    parser.add_argument("--readout", type=float, default=0.0,
                        help="a rolling shutter's seconds to read a frame's rows (0.03)")


def clip_light(seed: int, flicker: float, ramp: float, readout: float = 0.0) -> Light:
    """The light of one clip: the mains light's phase drawn from its seed."""
    phase = float(np.random.default_rng([seed, 7]).uniform(0.0, 2 * math.pi))
    return Light(flicker, ramp, phase, readout)


def relight_video(path: Path, light: Light) -> None:
    """Rewrite the video at `path` (mp4) as its camera would have seen it under `light`;
    under a steady light it is left as it is (not encoded again)."""
    if light.steady:
        return
    source = cv2.VideoCapture(str(path))
    fps = source.get(cv2.CAP_PROP_FPS)
    if not source.isOpened() or fps <= 0:
        raise OSError(f"cannot read the video {path}")
    size = (int(source.get(cv2.CAP_PROP_FRAME_WIDTH)), int(source.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    relit = path.with_name(f"relit-{path.name}")
    writer = cv2.VideoWriter(str(relit), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    try:
        index = 0
        while True:
            ok, frame = source.read()
            if not ok:
                break
            writer.write(light.lit(frame, index / fps))
            index += 1
    finally:
        source.release()
        writer.release()
    relit.replace(path)
