"""Read dice from a frame: find each die, then read its top face or see that it is cocked.

Two small ONNX networks trained by models/dice: a centre-heatmap detector over the whole
frame and a classifier over a grey crop of each candidate (value 1-6, cocked, or no die).
Candidates the classifier calls "none" are dropped, so a die is never invented from a
detector false alarm. A crop the classifier is unsure of (top probability under `sure`) is
read again in `turns` quarter turns in all and the probabilities averaged: a die's face reads
the same turned, and the average corrects many misreads at little cost, as most crops are
clear at the first look. A photograph's unsure crop is also read moved up towards the top
face (`lift`): a camera at a slant sees the front face below it.

When the calibration says how the tray camera views the tray's floor (`TrayView`), a third
network makes the cocked call: it sees each die as a camera looking straight down would, where
a flat die's top face is a square (models/dice/train_cocked.py). The crop alone cannot tell a
flat die seen obliquely from a tilted one seen from above. The classifier then answers only
whether a crop shows a die and which face, and is judged unsure on that alone. A fourth
network reads the top face in the same straight-down crop, where an oblique camera's squashed
face is square again; the face read is the one both views make most probable together, the
crop's say weighed down (it reads an oblique die's front face for its top). Both
read the die where a fifth network, the framer, puts it: the detector's box centres sit a few
pixels off at its stride, and the straight-down calls read better on a die framed as its
label frames it (models/dice/framer.md).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.tray_view import TrayView
from vision.dice.boxes import Box, as_box, box_area, centre_in, overlap, within
from vision.dice.preprocess import (
    FRAMER_SIZE,
    FRAMER_SPAN,
    box_nearness,
    classifier_inputs,
    framer_inputs,
    letterbox,
    normalise_crops,
    reframed,
    straight_down_crop,
    view_slope,
)
from vision.onnx import load_model

MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "dice"
SIZE_UNIT = 16.0  # the detector's size channels are log(size / SIZE_UNIT)
# The mirror images the detector also looks at, by how many (axes of its (1, 3, rows,
# columns) input): none, left-right, or left-right, up-down and both.
MIRRORED_AXES: dict[int, tuple[tuple[int, ...], ...]] = {
    0: (), 1: ((3,),), 3: ((3,), (2,), (2, 3))}
# The map channel of the centre's offset within its cell along each input axis.
OFFSET_CHANNEL = {3: 3, 2: 4}
# A photograph is read once, with no later frame to confirm a die, so the detector looks at
# it and its three mirror images (on held-out photographs: a third to a half fewer invented
# dice, models/dice/README.md). The tray camera reads one look a frame: its dice are followed
# over many frames, and four looks cost the decisions of the clips (models/dice/experiments.md).
PHOTOGRAPH_MIRRORS = 3
# A photograph is mostly taken at a slant, the top face above the front one: an unsure crop is
# read again from its box moved up by a quarter of its height (held-out photographs: six of
# desk-webcam's ten misread dice were their front face read, models/dice/experiments.md).
PHOTOGRAPH_LIFT = 0.25
# Photographs have a detector of their own: two runs trained longer, one with dice-free desk
# pictures and one weighted to the photographs, their maps averaged (models/dice/README.md).
# The tray camera's detector is the first of them continued with the game videos' pictures:
# each camera keeps the detector judged best on its own frames (models/dice/experiments.md).
PHOTOGRAPH_DETECTOR = "photo_detector"
UNSURE_COCKED = 0.3  # a cocked probability within this of 0.5 gets a second look
PEAK_KERNEL = np.ones((3, 3), np.uint8)  # a heatmap peak is the highest of its 3x3
# Two readings the framer puts on one die (their framed boxes' intersection over union at
# least this) are one die read twice: its top face and its front face framed apart (0.5-0.9
# in the clips that read a die twice; a die leaning on another, 0.0-0.1). Of the nearby
# pairs of readings over the clips, whole views and closer looks, 332 of 1,117 of one die
# reach it and 5 of 19,544 of two.
FRAMED_ALIKE = 0.4
# Nor is a reading unsure that it is a die (presence under FACE_PRESENCE) whose framed box lies
# this much within another's: a die's front face read apart, which the framer puts on the
# die's lower part (105301: the front of a 3 read as a 2, 0.53 a die, taken for the throw's
# second die while that one lay in the box). Over 331 clips, every sixth frame: 59 of the 108
# pairs of one die's readings FRAMED_ALIKE leaves, none of 1,385 pairs of two dice (two dice
# overlapping deep in the box reach 0.67 within, but each is 0.86 a die or more).
FRAMED_WITHIN = 0.55
FACE_PRESENCE = 0.8
# However sure it is a die, a reading whose framed box lies this much within another's, and
# is under PART_OF_DIE of its size, is a part of that die: two dice framed alike in size
# cannot nest (383301: a black 6's front face, 0.85 a die and wholly inside the 6's framed
# box, was taken for the die stopped in the box come out, and its count was cancelled).
WHOLLY_WITHIN = 0.9
# Two candidate boxes overlapping this much (intersection over union) frame one die.
SAME_DIE_OVERLAP = 0.3
# A box this much smaller than another framing the same die frames a part of it (a pip, a
# face framed alone), not the die again: among the detector's candidates, and among the
# readings of a die at rest (vision/dice/rest.py).
PART_OF_DIE = 0.5
# A candidate the detector proposes with this heat or more is surely a thing to read.
SURELY_PROPOSED = 0.5


class TrayFloor(Protocol):
    """Where on the tray's floor a die framed by a box lies (vision/dice/zones.py:
    DiceZones), as a cocked network told it reads it."""

    def mm_from_box(self, box: Box) -> float | None: ...


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die: `box` (x, y, w, h) in pixels of the original image; `value` None when cocked;
    `confidence` in the reading as a whole; `presence` that it is a die at all, whatever its
    face or tilt (a die on the edge between flat and cocked is read with little confidence,
    yet it is surely a die); `framed_box`, with a tray view, the box the framer moved onto
    the die, where the straight-down calls were made: where the die lies, more closely than
    the detector's box says (whether it is still in the box's exit, say); `if_flat`, for a
    die called cocked from the tray view, the value and confidence it is read with should it
    lie flat after all (where nothing could hold it on an edge: vision/dice/zones.py)."""

    box: tuple[float, float, float, float]
    value: int | None
    cocked: bool
    confidence: float
    presence: float = 1.0
    framed_box: tuple[float, float, float, float] | None = None
    if_flat: tuple[int, float] | None = None

    @property
    def where(self) -> tuple[float, float, float, float]:
        """The box that says where the die lies: the framer's where there is one."""
        return self.framed_box or self.box

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "cocked": self.cocked,
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 4),
        }


def suppress_duplicates(boxes: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep the strongest of candidates that frame the same die: a large die can raise
    several heatmap peaks, each framing the die or a part of it."""
    kept: list[Box] = []
    indices: list[int] = []
    for index in np.argsort(-scores):
        box = as_box(boxes[index])
        if not any(same_die(box, stronger) for stronger in kept):
            kept.append(box)
            indices.append(int(index))
    return boxes[indices], scores[indices]


def same_die(weaker: Box, stronger: Box) -> bool:
    """Whether a weaker candidate box (x, y, w, h) frames the die a stronger one frames: the
    two overlap by SAME_DIE_OVERLAP or more, or the weaker is a part of it (its centre inside
    the stronger box, its area under PART_OF_DIE of that box's). Dice touching in a pile
    overlap each other's boxes, a centre often inside the other's, yet each is a die of its
    own size."""
    part = centre_in(weaker, stronger) and box_area(weaker) < PART_OF_DIE * box_area(stronger)
    return part or overlap(weaker, stronger) >= SAME_DIE_OVERLAP


# A die known to be missing is proposed down to this detector heat (the classifier still
# judges each proposal): clear dice in the open tray peak at 0.24-0.30, under the usual 0.3.
HARDER_THRESHOLD = 0.15
# With the tray view, how much the camera's own crop has a say in the face beside the
# straight-down crop: its shares are raised to this power. The crop sees an oblique die's
# front face beside its top and reads it for the top; straight down the top face is a square.
CROP_FACE_WEIGHT = 0.25


class DiceReader:
    def __init__(self, model_dir: Path = MODEL_DIR, threads: int = 1,
                 detection_threshold: float = 0.3, turns: int = 4, sure: float = 0.9,
                 mirrors: int = 0, any_look: bool = False, lift: float = 0.0,
                 detector: str = "detector") -> None:
        """`mirrors`: mirror images the detector also looks at (0, 1 or 3), its maps averaged
        over the looks; `any_look`: a die is proposed where any look sees one (the highest
        heat of the looks, the sizes and offsets still averaged), to look harder for a die
        known to be missing; `lift`: without a tray view, an unsure crop is also read from
        its box moved up by this share of its height, the two readings averaged; `detector`:
        the name of the detector's network (with its .json) in `model_dir`."""
        self.detector_file = model_dir / f"{detector}.onnx"
        self.detector = load_model(self.detector_file, threads)
        self.classifier = load_model(model_dir / "classifier.onnx", threads)
        config = json.loads((model_dir / "classifier.json").read_text())
        self.classes: list[str] = config["classes"]
        self.value_columns = np.array([self.classes.index(str(v)) for v in range(1, 7)])
        self.none_column = self.classes.index("none")
        self.cocked_column = self.classes.index("cocked")
        self.context_span = float(config.get("context_span", 0.0))
        self.input_size = int(json.loads(self.detector_file.with_suffix(".json").read_text())[
            "input_size"])
        self.cocked_model = self.faces_model = self.framer = None
        self.faces_in_cocked = False
        if (model_dir / "cocked.onnx").exists():
            self.cocked_model = load_model(model_dir / "cocked.onnx", threads)
            cocked_config = json.loads((model_dir / "cocked.json").read_text())
            self.cocked_span = float(cocked_config["span"])
            self.cocked_size = int(cocked_config["crop_size"])
            self.cocked_slope = bool(cocked_config.get("slope", False))
            self.cocked_near_box = bool(cocked_config.get("near_box", False))
            # A cocked network with a `faces` output reads the top face too: one trunk for
            # both straight-down calls, and no faces.onnx beside it.
            self.faces_in_cocked = "faces" in [o.name for o in self.cocked_model.get_outputs()]
            if self.faces_in_cocked:
                self.faces_columns = np.array(
                    [cocked_config["faces_classes"].index(str(v)) for v in range(1, 7)])
            elif (model_dir / "faces.onnx").exists():
                self.faces_model = load_model(model_dir / "faces.onnx", threads)
                faces_config = json.loads((model_dir / "faces.json").read_text())
                if any(faces_config[key] != cocked_config[key]
                       for key in ("crop_size", "span", "slope")):
                    raise ValueError("faces.onnx must read the cocked network's crops")
                self.faces_columns = np.array(
                    [faces_config["classes"].index(str(v)) for v in range(1, 7)])
            if (model_dir / "framer.onnx").exists():
                self.framer = load_model(model_dir / "framer.onnx", threads)
                framing = json.loads((model_dir / "framer.json").read_text())
                if (framing["span"], framing["crop_size"]) != (FRAMER_SPAN, FRAMER_SIZE):
                    raise ValueError("framer.onnx must read vision/dice/preprocess.py's crops")
        self.detection_threshold = detection_threshold
        if not 1 <= turns <= 4:
            raise ValueError("turns must be 1 to 4 quarter turns")
        self.turns = turns
        self.sure = sure
        if mirrors not in MIRRORED_AXES:
            raise ValueError("mirrors must be 0, 1 or 3 mirrored looks")
        self.mirrored_axes = MIRRORED_AXES[mirrors]
        self.any_look = any_look
        self.lift = lift
        self.detect_in: tuple[int, int, int, int] | None = None

    @classmethod
    def for_photographs(cls, model_dir: Path = MODEL_DIR, threads: int = 1) -> DiceReader:
        """A reader of photographs, as `read-dice` reads them: the photographs' detector
        (where `model_dir` has one; folders of models made before it have not) with its
        mirrored looks, and the lifted look for dice seen at a slant."""
        detector = PHOTOGRAPH_DETECTOR if (
            model_dir / f"{PHOTOGRAPH_DETECTOR}.onnx").exists() else "detector"
        return cls(model_dir, threads, mirrors=PHOTOGRAPH_MIRRORS, lift=PHOTOGRAPH_LIFT,
                   detector=detector)

    def detecting_in(self, region: tuple[int, int, int, int]) -> DiceReader:
        """This reader, its networks shared, whose detector looks only at `region` (left,
        top, right, bottom pixels) of a picture it reads, and reads each die it finds there
        in the whole picture: what lies past the region's edge is seen round a die at it."""
        within = copy.copy(self)
        within.detect_in = region
        return within

    def looking_harder(self) -> DiceReader:
        """This reader, its networks shared, with the detector looking at the three mirror
        images too and proposing a die any look sees: for a still tray read again for a
        die of the throw missing from it (vision/tray.py), where the classifier judges
        each proposal as ever."""
        harder = copy.copy(self)
        harder.mirrored_axes, harder.any_look = MIRRORED_AXES[3], True
        harder.detection_threshold = min(self.detection_threshold, HARDER_THRESHOLD)
        return harder

    def candidates(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Die boxes (n, 4) as (x, y, w, h) in original pixels, with detector scores (n,)."""
        batch, scale = letterbox(image, self.input_size)
        maps = self._detector_maps(batch)
        # 1 / (1 + exp(-logit)) in place.
        heat = np.negative(maps[0])
        np.exp(heat, out=heat)
        heat += 1.0
        np.divide(1.0, heat, out=heat)
        peaks = (heat == cv2.dilate(heat, PEAK_KERNEL)) & (
            heat >= self.detection_threshold
        )
        ys, xs = np.nonzero(peaks)
        if not len(ys):
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
        stride = batch.shape[3] / heat.shape[1]
        width = np.exp(maps[1, ys, xs]) * SIZE_UNIT
        height = np.exp(maps[2, ys, xs]) * SIZE_UNIT
        cx = (xs + maps[3, ys, xs]) * stride
        cy = (ys + maps[4, ys, xs]) * stride
        boxes = np.stack([cx - width / 2, cy - height / 2, width, height], axis=1) / scale
        return suppress_duplicates(boxes.astype(np.float32), heat[ys, xs].astype(np.float32))

    def _detector_maps(self, batch: np.ndarray) -> np.ndarray:
        """The detector's maps (5, rows, columns), averaged over the frame and its mirror
        images: a heatmap peak raised by one look alone (a keyboard key, a pip pattern on a
        label) is weakened, and a die seen in every look stays. Each mirrored look's maps are
        mirrored back, its centre offsets within a cell with them (an offset o at the mirrored
        cell is 1 - o here). With `any_look` the heat is instead the highest of the looks'."""
        maps: np.ndarray = self.detector.run(None, {"image": batch})[0][0]
        if not self.mirrored_axes:
            return maps
        peak = maps[0].copy() if self.any_look else None
        for axes in self.mirrored_axes:
            looked = self.detector.run(None, {"image": np.ascontiguousarray(np.flip(batch, axes))})
            mirrored = np.flip(looked[0][0], tuple(axis - 1 for axis in axes))
            for axis in axes:
                channel = OFFSET_CHANNEL[axis]
                mirrored[channel] = 1.0 - mirrored[channel]
            maps = maps + mirrored
            if peak is not None:
                np.maximum(peak, mirrored[0], out=peak)
        maps /= 1 + len(self.mirrored_axes)
        if peak is not None:
            maps[0] = peak
        return maps

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: TrayFloor | None = None) -> list[DieReading]:
        """Every die in a BGR frame; an empty list when there is none. `view`: how this
        frame's camera views the tray's floor, when the calibration knows it; `floor`: where
        on it a die lies (the zones of this frame's pixels), for a cocked network told how
        near the box a die lies (without it, each is taken to lie far from the box)."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ValueError("expected a BGR colour image")
        if self.detect_in is None:
            boxes, scores = self.candidates(image)
        else:
            left, top, right, bottom = self.detect_in
            boxes, scores = self.candidates(image[top:bottom, left:right])
            boxes[:, :2] += (left, top)
        return self.read_boxes(image, boxes, scores, view, floor)

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray, scores: np.ndarray,
                   view: TrayView | None = None,
                   floor: TrayFloor | None = None) -> list[DieReading]:
        """The dice in candidate `boxes` (n, 4: x, y, w, h, in the BGR `image`'s pixels)
        proposed with `scores` (the detector's heat; SURELY_PROPOSED or more counts as sure):
        `read` with the candidates given, not the detector's."""
        if not len(boxes):
            return []
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        crops = classifier_inputs(grey, boxes, self.context_span)
        probs = self._classify(crops)
        # The view the cocked network decides by, when there is one and the network too.
        cocked_view = view if self.cocked_model is not None else None
        cocked_odds = square_faces = framed = None
        if cocked_view is not None:
            # A box surely holding no die (a hand, a ledge) goes whatever the view says: the
            # straight-down networks look only at the others.
            looked = np.flatnonzero(probs[:, self.none_column] < self.sure)
            cocked_odds = np.full(len(boxes), 0.5)
            if self.faces_model is not None or self.faces_in_cocked:
                square_faces = np.full((len(boxes), 6), 1 / 6)
            framed = boxes.copy()
            if len(looked):
                framed[looked] = self._framed(grey, boxes[looked])
                odds, faces = self._straight_down(grey, framed[looked], cocked_view, floor)
                cocked_odds[looked] = odds
                if square_faces is not None and faces is not None:
                    square_faces[looked] = faces
        unsure = np.flatnonzero(self._unsure(probs, cocked_view is not None, square_faces))
        if self.turns > 1 and len(unsure):
            probs[unsure] = (probs[unsure] + self._turned(crops[unsure], range(1, self.turns))
                             ) / self.turns
        if self.lift and cocked_view is None and len(unsure):
            # A camera looking down at a slant sees a die's front face below its top one:
            # the crop moved up towards the top face is read too, in as many turns.
            lifted = boxes[unsure].copy()
            lifted[:, 1] -= self.lift * lifted[:, 3]
            up = classifier_inputs(grey, lifted, self.context_span)
            probs[unsure] = (probs[unsure] + self._turned(up, range(self.turns)) / self.turns) / 2
        dice = probs.argmax(axis=1) != self.none_column
        boxes, scores, probs = boxes[dice], scores[dice], probs[dice]
        if cocked_odds is not None:
            cocked_odds = cocked_odds[dice]
        if square_faces is not None:
            square_faces = square_faces[dice]
        if framed is not None:
            framed = framed[dice]
        faces = self._faces(probs, square_faces)
        readings = []
        for index, (box, score, row) in enumerate(zip(boxes, scores, probs, strict=True)):
            label = self.classes[int(row.argmax())]
            certainty = float(row.max())
            detected = min(1.0, float(score) / SURELY_PROPOSED)
            if_flat = None
            if cocked_odds is not None:
                # The straight-down view decides cocked or flat; the value is the most
                # probable one among 1-6, as sure as the crop (and the straight-down view of
                # the face, where a network reads it) are of it against the others.
                cocked_probability = float(cocked_odds[index])
                face = faces[index]
                flat = (int(face.argmax()) + 1,
                        (1.0 - cocked_probability) * float(face.max() / face.sum()))
                label = "cocked" if cocked_probability >= 0.5 else str(flat[0])
                certainty = cocked_probability if label == "cocked" else flat[1]
                if label == "cocked":
                    if_flat = (flat[0], flat[1] * detected)
            elif label == "cocked" and row[self.cocked_column] < row[self.value_columns].sum():
                # Cocked or flat is one question, as with the view: a die the crop finds
                # likelier flat, whatever its face, is read flat, not cocked by the largest of
                # seven shares.
                face = row[self.value_columns]
                label, certainty = str(int(face.argmax()) + 1), float(face.max())
            cocked = label == "cocked"
            confidence = certainty * detected
            readings.append(
                DieReading(
                    as_box(box),
                    None if cocked else int(label),
                    cocked,
                    confidence,
                    (1.0 - float(row[self.none_column])) * detected,
                    None if framed is None else as_box(framed[index]),
                    if_flat,
                )
            )
        return readings if framed is None else _once_each(readings)

    def _unsure(self, probs: np.ndarray, cocked_by_view: bool,
                square_faces: np.ndarray | None = None) -> np.ndarray:
        """Which crops get the second look: those whose answer is in doubt. With the view
        deciding cocked or flat, a crop answers only whether it shows a die and which face,
        and with the straight-down faces the face is in doubt only if both views together
        leave it so, taken as equals: with the crop's say weighed down, a fifth more crops were
        read again for no face read better (`faces.md`)."""
        if not cocked_by_view:
            return np.asarray(probs.max(axis=1) < self.sure)
        none = probs[:, self.none_column]
        faces = self._faces(probs, square_faces, crop_weight=1.0)
        face_sure = faces.max(axis=1) >= self.sure * faces.sum(axis=1)
        return np.asarray(~((none >= self.sure) | ((none <= 1.0 - self.sure) & face_sure)))

    def _faces(self, probs: np.ndarray, square_faces: np.ndarray | None,
               crop_weight: float = CROP_FACE_WEIGHT) -> np.ndarray:
        """The top face's odds (n, 6, not normalised): the crop's, times the straight-down
        view's where a network reads it, the crop's weighed down (`crop_weight`)."""
        faces = probs[:, self.value_columns]
        return faces if square_faces is None else faces ** crop_weight * square_faces

    def _framed(self, grey: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The boxes moved onto their dice by the framer, where there is one: the
        straight-down networks read a die better framed as its label frames it."""
        if self.framer is None:
            return boxes
        return reframed(boxes, self.framer.run(None, {"crops": framer_inputs(grey, boxes)})[0])

    def _straight_down(self, grey: np.ndarray, boxes: np.ndarray, view: TrayView,
                       floor: TrayFloor | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """From the straight-down view: the probability that each die is cocked, and where a
        network reads the faces (the cocked network's second output, or faces.onnx beside it)
        each face's probability (n, 6) should the die lie flat."""
        assert self.cocked_model is not None
        homography, nadir = view.straight_down, view.nadir
        squares = np.stack([straight_down_crop(grey, box, homography, nadir, self.cocked_size,
                                               self.cocked_span) for box in boxes])
        crops = normalise_crops(squares)[:, None]
        if self.cocked_slope:
            focal = float(view.intrinsics[0, 0])
            slopes = np.array([view_slope(box, homography, nadir, focal) for box in boxes],
                              np.float32)
            crops = with_constant(crops, slopes)
        faces = read = None
        if self.faces_model is not None:
            read = self.faces_model.run(None, {"crops": crops})[0]
        if self.cocked_near_box:
            near = np.array([box_nearness(None if floor is None else floor.mm_from_box(
                as_box(box))) for box in boxes], np.float32)
            crops = with_constant(crops, near)
        outputs = self.cocked_model.run(None, {"crops": crops})
        if self.faces_in_cocked:
            read = outputs[1]
        if read is not None:
            shares = softmax(read)[:, self.faces_columns]
            faces = shares / shares.sum(axis=1, keepdims=True)
        cocked = softmax(outputs[0])[:, 1]
        # An unsure call is made again on the mirror image, which keeps the view's geometry
        # (the camera straight up the crop) and was part of the network's training.
        unsure = np.flatnonzero(np.abs(cocked - 0.5) < UNSURE_COCKED)
        if len(unsure):
            mirrored = np.ascontiguousarray(crops[unsure, :, :, ::-1])
            cocked[unsure] += softmax(self.cocked_model.run(["logits"], {"crops": mirrored})[0]
                                      )[:, 1]
            cocked[unsure] /= 2
        return cocked, faces

    def _turned(self, crops: np.ndarray, turns: range) -> np.ndarray:
        """The classifier's probabilities for `crops`, read in each of `turns` quarter turns,
        summed over the turns."""
        looks = np.concatenate([np.rot90(crops, k, axes=(2, 3)) for k in turns])
        summed: np.ndarray = self._classify(np.ascontiguousarray(looks)).reshape(
            len(turns), len(crops), -1).sum(axis=0)
        return summed

    def _classify(self, crops: np.ndarray) -> np.ndarray:
        """Class probabilities (n, classes) of (n, channels, size, size) crops."""
        return softmax(self.classifier.run(None, {"crops": crops})[0])


def _once_each(readings: list[DieReading]) -> list[DieReading]:
    """The readings less those of a die already read: of two the framer puts on one die, the
    one surer that it is a die stays."""
    kept: list[int] = []
    for index in sorted(range(len(readings)), key=lambda i: -readings[i].presence):
        if not any(framed_alike(readings[index], readings[k]) for k in kept):
            kept.append(index)
    return [readings[i] for i in sorted(kept)]


def framed_alike(a: DieReading, b: DieReading) -> bool:
    """Whether the framer puts two readings on one die (with a tray view)."""
    if a.framed_box is None or b.framed_box is None:
        return False
    smaller, larger = sorted((a.framed_box, b.framed_box), key=box_area)
    return (overlap(a.framed_box, b.framed_box) >= FRAMED_ALIKE
            or (min(a.presence, b.presence) < FACE_PRESENCE
                and within(a.framed_box, b.framed_box, FRAMED_WITHIN))
            or (box_area(smaller) < PART_OF_DIE * box_area(larger)
                and within(smaller, larger, WHOLLY_WITHIN)))


def with_constant(crops: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Crops (n, c, h, w) with one more channel after them, each crop's value all over it."""
    return np.concatenate([crops, np.broadcast_to(values[:, None, None, None],
                                                  crops[:, :1].shape)], axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    probs: np.ndarray = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return probs
