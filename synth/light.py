"""Light that changes while a camera watches, applied to its frames: a hall's mains lighting
flickering, and the camera's automatic exposure stepping as the dice come in.

Mains light peaks twice a cycle (100 Hz on 50 Hz mains); a camera sampling it at 30 frames a
second sees a 10 Hz beat, one at 25 sees none. The renders keep one exposure for a whole
clip or game (`synth.dice.style.Effects`): this is the change over time, for judging the
pipeline under it (`python -m models.dice.evaluate_clips --flicker 0.04 --ramp 0.15`,
`python -m bench.review_accuracy --flicker 0.04`).
"""

from __future__ import annotations

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
    """`flicker`: the beat's amplitude, a share of the light; `ramp`: the exposure's step, a
    share (0.15: 15% brighter), up from RAMP_FROM and back from RAMP_BACK; `phase`: the
    beat's at time 0, radians."""

    flicker: float = 0.0
    ramp: float = 0.0
    phase: float = 0.0

    def gain(self, time: float, fps: float) -> float:
        """How much brighter than the clip's own exposure the frame at `time` is, seen by a
        camera at `fps` frames a second."""
        beat = abs(MAINS_PEAKS_HZ - fps * round(MAINS_PEAKS_HZ / fps))
        up = min(max((time - RAMP_FROM) / RAMP_SECONDS, 0.0), 1.0)
        back = min(max((time - RAMP_BACK) / RAMP_SECONDS, 0.0), 1.0)
        return (1.0 + self.flicker * math.sin(2 * math.pi * beat * time + self.phase)
                + self.ramp * (up - back))

    def lit(self, image: np.ndarray, time: float, fps: float) -> np.ndarray:
        """`image` (BGR, uint8) as the camera sees it at `time` under this light."""
        gain = self.gain(time, fps)
        if gain == 1.0:
            return image
        return np.asarray(cv2.convertScaleAbs(image, alpha=gain))


def clip_light(seed: int, flicker: float, ramp: float) -> Light:
    """The light of one clip: the beat's phase drawn from its seed."""
    phase = float(np.random.default_rng([seed, 7]).uniform(0.0, 2 * math.pi))
    return Light(flicker, ramp, phase)


def relight_video(path: Path, light: Light) -> None:
    """Rewrite the video at `path` (mp4) as its camera would have seen it under `light`."""
    source = cv2.VideoCapture(str(path))
    fps = source.get(cv2.CAP_PROP_FPS)
    size = (int(source.get(cv2.CAP_PROP_FRAME_WIDTH)), int(source.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    if not source.isOpened() or fps <= 0:
        raise OSError(f"cannot read the video {path}")
    relit = path.with_name(f"relit-{path.name}")
    writer = cv2.VideoWriter(str(relit), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    try:
        index = 0
        while True:
            ok, frame = source.read()
            if not ok:
                break
            writer.write(light.lit(frame, index / fps, fps))
            index += 1
    finally:
        source.release()
        writer.release()
    relit.replace(path)
