"""A recorded match whose camera was knocked aside part-way, as tests of the referee see it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

Image = np.ndarray[Any, Any]


def knocked_aside(image: Image, dx: float, dy: float) -> Image:
    """`image` as the camera sees it once moved by (dx, dy) pixels, the edge it uncovers
    filled with the nearest pixels."""
    aside = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    return np.asarray(cv2.warpAffine(image, aside, image.shape[1::-1],
                                     borderMode=cv2.BORDER_REPLICATE))


def knock_camera(video: Path, out: Path, from_frame: int, dx: float, dy: float,
                 back_at: int | None = None) -> None:
    """`video` written to `out` (MJPG in AVI) with every frame from `from_frame` on (up to
    `back_at`, where the camera is put back) moved by (dx, dy) pixels: the camera knocked
    aside, its view otherwise the same."""
    capture = cv2.VideoCapture(str(video))
    size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"MJPG"),
                             capture.get(cv2.CAP_PROP_FPS), size)
    index = 0
    while True:
        ok, image = capture.read()
        if not ok:
            break
        if from_frame <= index < (back_at if back_at is not None else index + 1):
            image = knocked_aside(image, dx, dy)
        writer.write(image)
        index += 1
    writer.release()
