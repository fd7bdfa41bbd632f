"""Read dice from a frame: find each die, then read its top face or see that it is cocked.

Two small ONNX networks trained by models/dice: a centre-heatmap detector over the whole
frame and a classifier over a grey crop of each candidate (value 1-6, cocked, or no die).
Candidates the classifier calls "none" are dropped, so a die is never invented from a
detector false alarm. A crop the classifier is unsure of (top probability under `sure`) is
read again in `turns` quarter turns in all and the probabilities averaged: a die's face reads
the same turned, and the average corrects many misreads at little cost, as most crops are
clear at the first look.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dice.preprocess import classifier_input, letterbox
from vision.onnx import load_model

MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "dice"
SIZE_UNIT = 16.0  # the detector's size channels are log(size / SIZE_UNIT)


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: `box` (x, y, w, h) in pixels of the original image; `value` None when cocked."""

    box: tuple[float, float, float, float]
    value: int | None
    cocked: bool
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "cocked": self.cocked,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
        }


def suppress_duplicates(boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep the strongest of candidates that frame the same die: a large die can raise
    several heatmap peaks. A weaker box whose centre lies inside a kept box goes."""
    kept: list[int] = []
    for index in np.argsort(-scores):
        x, y, w, h = boxes[index]
        cx, cy = x + w / 2, y + h / 2
        if not any(
            boxes[k, 0] <= cx <= boxes[k, 0] + boxes[k, 2]
            and boxes[k, 1] <= cy <= boxes[k, 1] + boxes[k, 3]
            for k in kept
        ):
            kept.append(int(index))
    return boxes[kept], scores[kept]


class DiceReader:
    def __init__(self, model_dir: Path = MODEL_DIR, threads: int = 1,
                 detection_threshold: float = 0.3, turns: int = 4, sure: float = 0.9) -> None:
        self.detector = load_model(model_dir / "detector.onnx", threads)
        self.classifier = load_model(model_dir / "classifier.onnx", threads)
        config = json.loads((model_dir / "classifier.json").read_text())
        self.classes: list[str] = config["classes"]
        self.context_span = float(config.get("context_span", 0.0))
        self.input_size = int(json.loads((model_dir / "detector.json").read_text())["input_size"])
        self.detection_threshold = detection_threshold
        if not 1 <= turns <= 4:
            raise ValueError("turns must be 1 to 4 quarter turns")
        self.turns = turns
        self.sure = sure

    def candidates(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Die boxes (n, 4) as (x, y, w, h) in original pixels, with detector scores (n,)."""
        batch, scale = letterbox(image, self.input_size)
        maps = self.detector.run(None, {"image": batch})[0][0]
        heat = 1.0 / (1.0 + np.exp(-maps[0]))
        peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (
            heat >= self.detection_threshold
        )
        ys, xs = np.nonzero(peaks)
        stride = self.input_size / heat.shape[1]
        width = np.exp(maps[1, ys, xs]) * SIZE_UNIT
        height = np.exp(maps[2, ys, xs]) * SIZE_UNIT
        cx = (xs + maps[3, ys, xs]) * stride
        cy = (ys + maps[4, ys, xs]) * stride
        boxes = np.stack([cx - width / 2, cy - height / 2, width, height], axis=1) / scale
        return suppress_duplicates(boxes.astype(np.float32), heat[ys, xs].astype(np.float32))

    def read(self, image: np.ndarray) -> list[DieReading]:
        """Every die in a BGR frame; an empty list when there is none."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ValueError("expected a BGR colour image")
        boxes, scores = self.candidates(image)
        if not len(boxes):
            return []
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        crops = np.stack([classifier_input(grey, box, self.context_span) for box in boxes])
        probs = self._classify(crops)
        unsure = np.flatnonzero(probs.max(axis=1) < self.sure)
        if self.turns > 1 and len(unsure):
            again = crops[unsure]
            turned = np.concatenate([np.rot90(again, k, axes=(2, 3)) for k in range(1, self.turns)])
            more = self._classify(np.ascontiguousarray(turned))
            probs[unsure] = (probs[unsure] + more.reshape(self.turns - 1, len(unsure), -1).sum(
                axis=0)) / self.turns
        readings = []
        for box, score, row in zip(boxes, scores, probs, strict=True):
            label = self.classes[int(row.argmax())]
            if label == "none":
                continue
            cocked = label == "cocked"
            confidence = float(row.max()) * min(1.0, float(score) / 0.5)
            readings.append(
                DieReading(
                    tuple(float(v) for v in box),  # type: ignore[arg-type]
                    None if cocked else int(label),
                    cocked,
                    confidence,
                )
            )
        return readings

    def _classify(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities (n, classes) of (n, channels, size, size) crops."""
        logits = self.classifier.run(None, {"crops": crops})[0]
        probs: np.ndarray = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        return probs
