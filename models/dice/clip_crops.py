"""The straight-down crops the tray pipeline cuts from physics clips, with the cocked and the
face networks' probabilities on each: what `train_joint --clip-crops` distils from.

    python -m models.dice.clip_crops --clips DIR ... --out CROPS.npz [--models DIR]

Each clip is read as `evaluate_clips` reads it (the tray camera's pipeline, frame by frame),
and every fourth frame once more as one still frame with the calibration's view: the crops
the cocked network is given (its mirrored second looks too) are kept as they are given, with
its probabilities (n, 2) and the face network's (n, 7) on them. No label is needed: the
networks' own calls on the frames the clips validated are what a joint network must keep.
Writes `crops` (n, 2, 48, 48, float16), `cocked` and `faces` (float32).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.dice.evaluate_clips import run_clip
from vision.dice.reader import MODEL_DIR, DiceReader, softmax
from vision.dice.zones import TrayCalibration

STILL_EVERY = 4  # frames between the still reads


class Recorded:
    """An onnxruntime session that keeps what it was given and what it answered."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.crops: list[np.ndarray] = []
        self.answers: list[np.ndarray] = []

    def run(self, names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        answers: list[np.ndarray] = self.session.run(names, feeds)
        self.crops.append(feeds["crops"].astype(np.float16))
        self.answers.append(softmax(answers[0]))
        return answers


def clip_crops(reader: DiceReader, clips: list[Path]) -> dict[str, np.ndarray]:
    """The crops `reader`'s cocked network is given over `clips`, with its probabilities
    and those of the face network (faces.onnx) on each."""
    if reader.cocked_model is None or reader.faces_model is None:
        raise ValueError("the models must hold cocked.onnx and faces.onnx")
    faces_model, recorded = reader.faces_model, Recorded(reader.cocked_model)
    reader.cocked_model = recorded
    try:
        for clip in clips:
            run_clip(clip, reader, True)
            view = TrayCalibration.load(clip / "calibration.json").zones.view
            for path in sorted((clip / "frames").glob("*.jpg"))[::STILL_EVERY]:
                image = cv2.imread(str(path))
                if image is None:
                    raise OSError(f"cannot read {path}")
                reader.read(image, view)
    finally:
        reader.cocked_model = recorded.session
    crops = np.concatenate(recorded.crops)
    faces = np.concatenate([softmax(faces_model.run(None, {"crops": crops[i:i + 512].astype(
        np.float32)})[0]) for i in range(0, len(crops), 512)])
    return {"crops": crops, "cocked": np.concatenate(recorded.answers).astype(np.float32),
            "faces": faces.astype(np.float32)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=Path, nargs="+", required=True,
                        help="clip folders (nardy-referee synth dice-clip)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODEL_DIR,
                        help="a folder holding cocked.onnx and faces.onnx, the teachers")
    args = parser.parse_args()
    found = clip_crops(DiceReader(args.models), args.clips)
    np.savez(args.out, crops=found["crops"], cocked=found["cocked"], faces=found["faces"])
    print(f"{len(found['crops'])} crops, {int((found['cocked'][:, 1] > 0.5).sum())} "
          f"called cocked")


if __name__ == "__main__":
    main()
