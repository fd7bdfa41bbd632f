"""The real dice photographs (shared data/dice-photos), read in place, and their splits.

Labels are YOLO text files (`class cx cy w h`, normalised; class k = k + 1 pips). rune55's own
splits leak: many test and valid images are near-duplicates of train images (Roboflow exports
several augmented copies of one photo), so held-out sets here drop every image whose
perceptual hash is within a few bits of any training image's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.tray_view import TrayView
from synth.dice.camera_view import rendering_view, tray_calibration
from synth.dice.scene import BoxGeometry
from vision.dice.zones import DiceZones

SHARED_DICE = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice-photos"
NEAR_DUPLICATE_CORRELATION = 0.97
MIN_DIE_PIXELS = 12  # smaller dice show no countable pips
# Of a heap picture's median die pixels in sight: a die showing less is partly hidden by
# others, and nobody can be sure of its top face
WHOLE_IN_SIGHT = 0.7


def too_small(box: np.ndarray) -> bool:
    """A labelled die (x, y, w, h) under MIN_DIE_PIXELS a side: no pips to count on it, so it
    is neither trained on nor scored with the others."""
    return bool(min(box[2], box[3]) < MIN_DIE_PIXELS)


@dataclass(frozen=True)
class LabelledImage:
    """One photograph and its dice. `boxes`: (n, 4) float x, y, w, h in pixels;
    `values`: (n,) int pips 1-6 (0: cocked); `view`: how a rendered scene's camera views
    the tray's floor, `zones`: the tray camera's calibration of that scene (the view, the
    tray and the box in its pixels, the tray's size), and `in_box`: (n,) bool, which dice
    lie inside the baffle box; all None for photographs. `readable`: (n,) bool, which dice a
    person could read from the picture, as judged by eye (`models/dice/judgements.py`); None
    where not judged, every die counted. `styles`: each die's look as rendered (white,
    translucent...: synth/dice/style.py), where the scene records it. `tilts`: (n,) float,
    each rendered die's angle in degrees from lying on a face (cocked past
    synth.dice.geometry.COCKED_DEG), where the scene records it."""

    path: Path
    boxes: np.ndarray
    values: np.ndarray
    view: TrayView | None = None
    in_box: np.ndarray | None = None
    zones: DiceZones | None = None
    readable: np.ndarray | None = None
    styles: tuple[str, ...] | None = None
    tilts: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.boxes.ndim != 2 or self.boxes.shape[1] != 4:
            raise ValueError(f"boxes must have shape (n, 4), got {self.boxes.shape}")
        if self.values.shape != (len(self.boxes),):
            raise ValueError("values must have one entry per box")
        if self.styles is not None and len(self.styles) != len(self.values):
            raise ValueError("styles must have one entry per box")
        if self.readable is not None and self.readable.shape != self.values.shape:
            raise ValueError("readable must have one entry per box")
        if self.tilts is not None and self.tilts.shape != self.values.shape:
            raise ValueError("tilts must have one entry per box")

    def readable_dice(self) -> np.ndarray:
        """Which dice a person could read, all of them where not judged."""
        if self.readable is None:
            return np.ones(len(self.values), bool)
        return self.readable


def read_yolo_split(images: Path, labels: Path) -> list[LabelledImage]:
    found = []
    for image_path in sorted(images.glob("*.jpg")):
        label_path = labels / (image_path.stem + ".txt")
        rows = []
        if label_path.exists():
            rows = [line.split() for line in label_path.read_text().splitlines() if line.strip()]
        height, width = _image_size(image_path)
        table = np.array([[float(v) for v in row[1:5]] for row in rows], np.float32).reshape(-1, 4)
        boxes = np.stack(
            [
                (table[:, 0] - table[:, 2] / 2) * width,
                (table[:, 1] - table[:, 3] / 2) * height,
                table[:, 2] * width,
                table[:, 3] * height,
            ],
            axis=1,
        )
        values = np.array([int(row[0]) + 1 for row in rows], np.int64)
        found.append(LabelledImage(image_path, boxes, values))
    return found


def _image_size(path: Path) -> tuple[int, int]:
    image = read_picture(path, cv2.IMREAD_REDUCED_GRAYSCALE_8)
    # Both sources are 640 wide; the reduced read keeps this cheap.
    return image.shape[0] * 8, image.shape[1] * 8


def rune55(split: str, root: Path = SHARED_DICE) -> list[LabelledImage]:
    base = root / "rune55" / split
    return read_yolo_split(base / "images", base / "labels")


# rune55 mixes photographs of very different difficulty; their file names tell the sources.
RUNE55_SOURCES = (
    ("grey fisheye close-ups", re.compile(r"\d+_jpg")),  # 00053_jpg.rf...: a webcam's fisheye
    ("grey phone photographs of dark dice", re.compile(r"IMG_2019")),
    ("colour phone photographs of piles", re.compile(r"PXL_")),
)


def rune55_source(item: LabelledImage) -> str:
    """Which of rune55's sources a photograph comes from ("other" for the few dozen odd ones)."""
    for name, pattern in RUNE55_SOURCES:
        if pattern.match(item.path.name):
            return name
    return "other"


def desk_webcam(split: str, root: Path = SHARED_DICE) -> list[LabelledImage]:
    base = root / "desk-webcam" / split
    return read_yolo_split(base, base)


def read_picture(path: Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """A picture of the training or test data as OpenCV reads it with `flags`; OSError when
    it cannot be read (data that should be there: the run stops rather than skip it)."""
    image = cv2.imread(str(path), flags)
    if image is None:
        raise OSError(f"cannot read {path}")
    return np.asarray(image)


def read_grey(path: Path) -> np.ndarray:
    return read_picture(path, cv2.IMREAD_GRAYSCALE)


def thumbnail(grey: np.ndarray) -> np.ndarray:
    """A 32x32 thumbnail as a unit vector with zero mean, for correlating two images."""
    small = cv2.resize(grey, (32, 32), interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
    small -= small.mean()
    return small / (np.linalg.norm(small) + 1e-6)


def symmetric_thumbnails(path: Path) -> np.ndarray:
    """Thumbnails of the image under the eight flips and quarter turns: (8, 1024)."""
    grey = read_grey(path)
    views = []
    for turn in range(4):
        rotated = np.rot90(grey, turn)
        views += [rotated, rotated[:, ::-1]]
    return np.stack([thumbnail(np.ascontiguousarray(view)) for view in views])


def drop_near_duplicates(
    held_out: Sequence[LabelledImage], training: Iterable[LabelledImage]
) -> list[LabelledImage]:
    """The held-out images that are not near-duplicates of a training image.

    A near-duplicate shows the same dice values and correlates above NEAR_DUPLICATE_CORRELATION
    with a training image under some flip or quarter turn (Roboflow's augmentations). Many
    rune55 photos repeat one setup, so this removes most of its test split; what remains was
    never seen in training in any form.
    """
    by_values: dict[tuple[int, ...], list[np.ndarray]] = {}
    for item in training:
        by_values.setdefault(_dice_key(item), []).append(thumbnail(read_grey(item.path)))
    tables = {key: np.stack(rows) for key, rows in by_values.items()}
    kept = []
    for item in held_out:
        table = tables.get(_dice_key(item))
        if table is not None:
            similarity = table @ symmetric_thumbnails(item.path).T
            if similarity.max() >= NEAR_DUPLICATE_CORRELATION:
                continue
        kept.append(item)
    return kept


def _dice_key(item: LabelledImage) -> tuple[int, ...]:
    return tuple(sorted(int(v) for v in item.values))


def synthetic(directory: Path, min_visible_pixels: int = 100) -> list[LabelledImage]:
    """Rendered tray scenes from `nardy-referee synth dice` (labels.jsonl beside the images).

    Cocked dice get value 0; dice hidden behind the box (no box, or few visible pixels) are
    left out, as a camera could not see them either. Scenes rendered before 2026-11-29 21:22
    called a die lying flat on the box's slanted ramp cocked: render them again.
    """
    found = []
    for line in (directory / "labels.jsonl").read_text().splitlines():
        record = json.loads(line)
        shown = [_in_sight(d, min_visible_pixels) for d in record["dice"]]
        dice = [d for d, seen in zip(record["dice"], shown, strict=True) if seen]
        rendered = record.get("style", {}).get("dice")
        styles = None if rendered is None else tuple(
            style for style, seen in zip(rendered, shown, strict=True) if seen)
        boxes = np.array([d["box"] for d in dice], np.float32).reshape(-1, 4)
        values = np.array([0 if d["cocked"] else d["value"] for d in dice], np.int64)
        in_box = np.array([bool(d.get("in_box", False)) for d in dice], bool)
        tilts = (np.array([float(d["tilt_deg"]) for d in dice])
                 if all("tilt_deg" in d for d in dice) else None)
        camera = record.get("camera")
        zones = None if camera is None else _zones(camera)
        # The view as the scene's calibration gives it, where it has one.
        view = zones.view if zones is not None else _view(camera)
        found.append(LabelledImage(directory / record["image"], boxes, values, view, in_box,
                                   zones, styles=styles, tilts=tilts))
    return found


def heaps(directory: Path, min_visible_pixels: int = 100) -> list[LabelledImage]:
    """Rendered heaps of dice (`synth dice --scenario pile`) read as photographs: every die in
    sight as `synthetic` gives it, those partly hidden by others (under WHOLE_IN_SIGHT of
    the picture's median pixels in sight) marked unreadable, as a judged photograph's are;
    a die leaning on another is cocked, as the generator labels it."""
    records = [json.loads(line) for line in (directory / "labels.jsonl").read_text().splitlines()]
    found = []
    for record, item in zip(records, synthetic(directory, min_visible_pixels), strict=True):
        shown = np.array([d["visible_px"] for d in record["dice"]
                          if _in_sight(d, min_visible_pixels)])
        readable = shown >= WHOLE_IN_SIGHT * np.median(shown) if len(shown) else shown > 0
        found.append(replace(item, readable=readable))
    return found


def _in_sight(die: dict[str, Any], min_visible_pixels: int) -> bool:
    """Whether a rendered die's label shows enough of it for a camera to see it (labels
    written before `visible_px` was recorded count every die with a box)."""
    return die["box"] is not None and die.get("visible_px", 1 << 30) >= min_visible_pixels


def _zones(camera: dict[str, Any]) -> DiceZones | None:
    """A rendered scene's tray camera calibration; None where its camera does not see the
    box's exit, as no table's tray camera may stand."""
    try:
        return DiceZones.from_json(tray_calibration(camera, BoxGeometry())["dice_zones"])
    except ValueError:
        return None


def _view(camera: dict[str, Any] | None) -> TrayView | None:
    """How a scene's camera views the tray, found as a calibration finds it; None for the game
    videos' flat tray pictures (no camera to speak of) and for a camera that sees the tray's
    corners as no calibration could (one that followed a die flown far off the tray)."""
    if camera is None:
        return None
    try:
        return rendering_view(camera)
    except ValueError:
        return None


@dataclass(frozen=True)
class GameDie:
    """A die at rest in a game video (events.jsonl `dice_at_rest`), `centre` in crop pixels."""

    centre: tuple[float, float]
    value: int | None
    cocked: bool
    in_box: bool


def dice_region(calibration: dict[str, Any]) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1: the bounding box of the tray and box zones, the live referee's crop."""
    zones = calibration["dice_zones"]
    points = np.array(zones["tray"] + zones["box"], np.float32)
    x0, y0 = points.min(axis=0).astype(int)
    x1, y1 = points.max(axis=0).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


def game_frames(directory: Path, delay: int = 3) -> list[tuple[np.ndarray, list[GameDie]]]:
    """The dice region of a `synth game` video, `delay` frames after every `dice_at_rest`,
    with its dice (the dice stay put for at least half a second after coming to rest)."""
    calibration = json.loads((directory / "calibration.json").read_text())
    x0, y0, x1, y1 = dice_region(calibration)
    wanted: dict[int, list[GameDie]] = {}
    for line in (directory / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "dice_at_rest":
            wanted[event["frame"] + delay] = [
                GameDie((d["centre"][0] - x0, d["centre"][1] - y0), d["value"], d["cocked"],
                        d["in_box"]) for d in event["dice"]]
    found = []
    video = cv2.VideoCapture(str(directory / "game.mp4"))
    try:
        for index in range(max(wanted, default=-1) + 1):
            if not video.grab():
                break
            if index in wanted:
                frame = video.retrieve()[1]
                found.append((np.ascontiguousarray(frame[y0:y1, x0:x1]), wanted[index]))
    finally:
        video.release()
    return found
