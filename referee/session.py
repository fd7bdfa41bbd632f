"""One table's referee pipeline: frames in, the events of the game out, with evidence.

`TableSession.feed` takes each frame (or source event) in order and returns the events it
completed as JSON objects, ready for the evidence log; a flag's object names the still and
the clip of it that the session cuts into its evidence folder. The review of a recorded
match and the service's live tables both run their frames through a session.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.position import Variant
from referee.rules import rules_for
from referee.tracker import GameTracker, RefereeEvent
from vision.board.reader import BoardReader
from vision.dice.reader import DiceReader
from vision.sources import Frame, SourceEvent
from vision.table import TableObserver, TableSetup, Watcher

FLAG_EVENTS = ("illegal_move", "premature_throw", "wrong_start", "throw_void")
ROLL_EVENTS = ("roll", "roll_reread", "roll_changed")  # each gives the roll of the turn
CLIP_SECONDS = 1.5  # each side of a flag's frame
EVIDENCE_WIDTH = 640  # stills and clips are kept at this width


class TableSession:
    """The observer, the tracker and the evidence recorder of one table."""

    def __init__(self, setup: TableSetup, variant: Variant, evidence: Path, fps: float,
                 head_exception: str = "second", dice_watcher: Watcher | None = None) -> None:
        self.observer = TableObserver(setup, variant, BoardReader(), DiceReader(),
                                      watcher=dice_watcher)
        self.tracker = GameTracker(rules_for(variant, head_exception), variant)
        self.evidence = EvidenceRecorder(evidence, fps)
        self.flags = 0
        self.camera_moved: str | None = None  # why, while the camera has moved

    def feed(self, item: Frame | SourceEvent) -> list[dict[str, Any]]:
        """The events `item` completed. ValueError for a frame the camera's calibration
        does not fit (another size)."""
        if isinstance(item, SourceEvent):
            return [RefereeEvent("source", item.index, item.time,
                                 {"kind": item.kind, "detail": item.detail}).to_json()]
        seen = self.observer.observe(item.index, item.time, item.image)
        events = self.tracker.update(seen)
        if (seen.camera_moved is None) != (self.camera_moved is None):
            self.camera_moved = seen.camera_moved
            events.append(RefereeEvent("camera_moved", item.index, item.time,
                                       {"detail": seen.camera_moved})
                          if seen.camera_moved is not None else
                          RefereeEvent("camera_back", item.index, item.time))
        self.evidence.add(item.index, item.image if seen.preview is None else seen.preview)
        out = []
        for event in events:
            # `time` is when the video shows it; `decided` is the video time of the frame
            # that settled it (a move shown when the board settled is decided at the press).
            data = {**event.to_json(), "decided": round(item.time, 3)}
            if event.event in FLAG_EVENTS:
                self.flags += 1
                data["evidence"] = self.evidence.flag(f"{self.flags:03d}-{event.event}",
                                                      event.frame)
            out.append(data)
        return out

    def close(self) -> None:
        self.evidence.close()


@dataclass
class _Clip:
    name: str
    centre: int
    last: int
    frames: list[np.ndarray]


@dataclass
class EvidenceRecorder:
    """Keeps the last seconds of video small, and cuts a still and a clip for each flag."""

    folder: Path
    fps: float
    history: deque[tuple[int, np.ndarray]] = field(default_factory=deque)
    open_clips: list[_Clip] = field(default_factory=list)

    def add(self, index: int, image: np.ndarray) -> None:
        small = image
        if image.shape[1] != EVIDENCE_WIDTH:
            scale = EVIDENCE_WIDTH / image.shape[1]
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        span = round(CLIP_SECONDS * self.fps)
        self.history.append((index, small))
        while self.history and self.history[0][0] < index - 2 * span:
            self.history.popleft()
        for clip in list(self.open_clips):
            clip.frames.append(small)
            if index >= clip.last:
                self._write(clip)

    def flag(self, name: str, frame: int) -> dict[str, str]:
        """Start the evidence for a flag shown at `frame`; returns the files' names."""
        self.folder.mkdir(parents=True, exist_ok=True)
        span = round(CLIP_SECONDS * self.fps)
        kept = [(i, image) for i, image in self.history if i >= frame - span]
        still = next((image for i, image in kept if i >= frame), kept[-1][1] if kept else None)
        files = {}
        if still is not None:
            cv2.imwrite(str(self.folder / f"{name}.jpg"), still)
            files["still"] = f"flags/{name}.jpg"
        self.open_clips.append(_Clip(name, frame, frame + span, [image for _, image in kept]))
        files["clip"] = f"flags/{name}.mp4"
        return files

    def close(self) -> None:
        for clip in list(self.open_clips):
            self._write(clip)

    def _write(self, clip: _Clip) -> None:
        self.open_clips.remove(clip)
        if not clip.frames:
            return
        height, width = clip.frames[0].shape[:2]
        fourcc = cv2.VideoWriter.fourcc(*"mp4v")
        writer = cv2.VideoWriter(str(self.folder / f"{clip.name}.mp4"), fourcc, self.fps,
                                 (width, height))
        for image in clip.frames:
            writer.write(image)
        writer.release()
