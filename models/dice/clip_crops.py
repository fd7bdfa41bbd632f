"""The straight-down crops the tray pipeline cuts from physics clips, with what a joint network
is taught on each: what `train_joint --clip-crops` learns from.

    python -m models.dice.clip_crops --clips DIR ... --out CROPS.npz [--models DIR]

Each clip is read as `evaluate_clips` reads it (the tray camera's pipeline, frame by frame),
and every fourth frame once more as one still frame with the calibration's view: the crops
the cocked network is given are kept as they are given (not its mirrored second looks), with
its probabilities (n, 2) and the faces' (n, 7) on them (a joint network's second output, or
faces.onnx's). Where a crop frames one die lying at rest out of the box in the clip's truth
(`states.jsonl`), the cocked target is the truth instead: the network learns the clips' own
frames from what they show, not from a teacher's calls alone (2026-12-07, sixteenth session:
before it, every crop kept the teacher's call, and its mirrored looks were kept too:
`git show b3c9593:models/dice/clip_crops.py`). In the box a die lies on the ramp, and which
rule counts it is not the cocked call's (vision/dice/stream.py): those keep the network's call.
Writes `crops` (n, 2, 48, 48, float16), `cocked` and `faces` (float32).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.dice.data import read_picture
from models.dice.evaluate_clips import HIDDEN_PX, clip_states, run_clip
from vision.dice.boxes import as_box, overlap
from vision.dice.reader import MODEL_DIR, DiceReader, softmax
from vision.dice.zones import TrayCalibration

STILL_EVERY = 4  # frames between the still reads
TRUTH_OVERLAP = 0.4  # intersection over union of a crop's box with the die it frames
TRUTH_SURE = 0.98  # the cocked target of a die the truth has cocked (flat: 1 - this)


class Recorded:
    """An onnxruntime session that keeps what it was given and answered on each first look
    (a mirrored second look asks for the logits alone)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.crops: list[np.ndarray] = []
        self.answers: list[list[np.ndarray]] = []

    def run(self, names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        answers: list[np.ndarray] = self.session.run(names, feeds)
        if names is None:
            self.crops.append(feeds["crops"].astype(np.float16))
            self.answers.append([softmax(answer) for answer in answers])
        return answers


class Looks:
    """Where each first look's dice lie in the clip: the clip frame shown and the boxes, in
    that frame's pixels, of the crops the cocked network is given."""

    def __init__(self) -> None:
        self.frame, self.offset = -1, (0.0, 0.0)
        self.boxes: list[tuple[int, np.ndarray]] = []

    def show(self, frame: int, offset: tuple[float, float]) -> None:
        """The clip frame read next (-1: the empty tray) and where its crop begins."""
        self.frame, self.offset = frame, offset

    def watching(self, straight_down: Callable[..., Any]) -> Callable[..., Any]:
        def looked(grey: np.ndarray, boxes: np.ndarray, *args: Any) -> Any:
            shift = np.array([*self.offset, 0.0, 0.0], np.float32)
            self.boxes.append((self.frame, np.array(boxes, np.float32).reshape(-1, 4) + shift))
            return straight_down(grey, boxes, *args)
        return looked


def clip_crops(reader: DiceReader, clips: Sequence[Path]) -> dict[str, np.ndarray]:
    """The crops `reader`'s cocked network is given over `clips`, each with its calls, the
    truth's lie as the cocked target where the crop frames a die at rest out of the box."""
    if reader.cocked_model is None:
        raise ValueError("the models must hold cocked.onnx")
    if not reader.faces_in_cocked and reader.faces_model is None:
        raise ValueError("the models must read the faces: cocked.onnx's second output or "
                         "faces.onnx")
    recorded, looks = Recorded(reader.cocked_model), Looks()
    reader.cocked_model = recorded
    reader._straight_down = looks.watching(reader._straight_down)  # type: ignore[method-assign]
    cocked: list[np.ndarray] = []
    try:
        for clip in clips:
            states = clip_states(clip)
            looks.boxes.clear()
            answered = len(recorded.answers)
            run_clip(clip, reader, True, on_frame=looks.show)
            view = TrayCalibration.load(clip / "calibration.json").zones.view
            paths = sorted((clip / "frames").glob("*.jpg"))
            for index in range(0, len(paths), STILL_EVERY):
                image = read_picture(paths[index])
                looks.show(index, (0.0, 0.0))
                reader.read(image, view)
            for (frame, boxes), answers in zip(looks.boxes, recorded.answers[answered:],
                                               strict=True):
                dice = states[frame]["dice"] if frame >= 0 else []
                cocked.append(truth_targets(answers[0], boxes, dice))
    finally:
        reader.cocked_model = recorded.session
        del reader._straight_down
    crops = np.concatenate(recorded.crops)
    if reader.faces_in_cocked:
        faces = np.concatenate([answers[1] for answers in recorded.answers])
    else:
        assert reader.faces_model is not None
        faces = np.concatenate([softmax(reader.faces_model.run(None, {"crops": crops[i:i + 512]
                                .astype(np.float32)})[0]) for i in range(0, len(crops), 512)])
    return {"crops": crops, "cocked": np.concatenate(cocked).astype(np.float32),
            "faces": faces.astype(np.float32)}


def truth_targets(called: np.ndarray, boxes: np.ndarray,
                  dice: Sequence[dict[str, Any]]) -> np.ndarray:
    """The cocked targets (n, 2) of crops at `boxes` (x, y, w, h in the clip frame's pixels):
    the truth's where a box frames one die of `dice` (the frame's states) at rest out of the
    box and in sight, the network's own call (`called`) elsewhere."""
    targets = called.copy()
    for index, box in enumerate(boxes):
        framed = [die for die in dice if die["box"] is not None
                  and overlap(as_box(box), as_box(die["box"])) >= TRUTH_OVERLAP]
        if len(framed) != 1:
            continue
        die = framed[0]
        if die["state"] in ("cocked", "at_rest") and not die["in_box"] \
                and die["visible_px"] >= HIDDEN_PX:
            sure = TRUTH_SURE if die["state"] == "cocked" else 1.0 - TRUTH_SURE
            targets[index] = (1.0 - sure, sure)
    return targets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=Path, nargs="+", required=True,
                        help="clip folders (nardy-referee synth dice-clip)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", type=Path, default=MODEL_DIR,
                        help="the networks that read the clips (cocked.onnx reading the faces, "
                             "or faces.onnx beside it)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    found = clip_crops(DiceReader(args.models), args.clips)
    np.savez(args.out, crops=found["crops"], cocked=found["cocked"], faces=found["faces"])
    print(f"{len(found['crops'])} crops, {int((found['cocked'][:, 1] > 0.5).sum())} "
          f"cocked")


if __name__ == "__main__":
    main()
