"""Milliseconds per 1280x720 frame of the board reader on one core.

    python bench/read_board.py [--frames 60] [--seed 5]

Renders synthetic frames (synth/board), JPEG-encodes them, then times, with OpenCV and ONNX
Runtime held to one thread: decoding the JPEG, and `BoardReader.read` with given corners
(bar width estimated per frame, as `read-board --corners` does) and with a calibration's bar
width (as `read-board --calibration` does, without the moved-camera check).
"""

from __future__ import annotations

import argparse
import json
import time

import cv2
import numpy as np

from bench.machine import processor
from referee.position import Variant
from synth.board.render import BoardRenderer
from vision.board.reader import BoardReader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    renderer = BoardRenderer(args.seed, (1280, 720), (Variant.LONG, Variant.SHORT), 0.3)
    frames = []
    for _ in range(args.frames):
        scene = renderer.next_scene()
        ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        frames.append((buf, np.array(scene.label["corners"]),
                       scene.label["board"]["geometry"]["bar_width"]))
    reader = BoardReader(threads=1)
    image = np.asarray(cv2.imdecode(frames[0][0], cv2.IMREAD_COLOR), np.uint8)
    for _ in range(5):
        reader.read(image, frames[0][1])
    decode, estimated, calibrated = [], [], []
    for buf, corners, bar in frames:
        t0 = time.perf_counter()
        image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        t1 = time.perf_counter()
        reader.read(image, corners)
        t2 = time.perf_counter()
        reader.read(image, corners, bar)
        t3 = time.perf_counter()
        decode.append(t1 - t0)
        estimated.append(t2 - t1)
        calibrated.append(t3 - t2)

    def ms(values: list[float]) -> float:
        return round(1000 * float(np.median(values)), 2)

    print(json.dumps({"frames": args.frames, "size": "1280x720", "threads": 1,
                      "ms_decode_jpeg": ms(decode), "ms_read_corners": ms(estimated),
                      "ms_read_calibrated": ms(calibrated), "cpu": processor()}))


if __name__ == "__main__":
    main()
