"""One table's referee pipeline: frames in, the events of the game out, with evidence.

`TableSession.feed` takes each frame (or source event) in order and returns the events it
completed as JSON objects, ready for the evidence log; a flag's object names the still and
the clip of it that the session cuts into its evidence folder. The review of a recorded
match and the service's live tables both run their frames through a session.
"""

from __future__ import annotations

import threading
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
from vision.tray import TrayVideo

FLAG_EVENTS = ("illegal_move", "premature_throw", "wrong_start", "throw_void")
# Flags a tray camera of its own shows, where there is one: the board camera may not see the
# dice a throw was voided for.
TRAY_FLAGS = ("throw_void",)
ROLL_EVENTS = ("roll", "roll_reread", "roll_changed")  # each gives the roll of the turn
CLIP_SECONDS = 1.5  # each side of a flag's frame
EVIDENCE_WIDTH = 640  # stills and clips are kept at this width


class TableSession:
    """The observer, the tracker and the evidence recorder of one table."""

    def __init__(self, setup: TableSetup, variant: Variant, evidence: Path, fps: float,
                 head_exception: str = "second", dice_watcher: Watcher | None = None,
                 tray: TrayVideo | None = None) -> None:
        """`tray`: the tray's own camera, whose dice events the session follows (unless a
        `dice_watcher` stands in) and whose frames are the evidence of a throw voided."""
        self.observer = TableObserver(setup, variant, BoardReader(), DiceReader(),
                                      watcher=dice_watcher or (tray.feed if tray else None))
        self.tracker = GameTracker(rules_for(variant, head_exception), variant)
        self.evidence = EvidenceRecorder(evidence, fps)
        self.tray_evidence: EvidenceRecorder | None = None
        if tray is not None:
            self.tray_evidence = EvidenceRecorder(evidence, tray.source.fps)
            tray.on_frame = self.tray_evidence.add
        self.flags = 0
        self.camera_moved: str | None = None  # why, while the camera has moved
        self.flicker_told = False  # the operator told of the light's bands, once

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
        if seen.flicker is not None and not self.flicker_told:
            self.flicker_told = True
            events.append(RefereeEvent("camera_flicker", item.index, item.time,
                                       {"detail": seen.flicker}))
        self.evidence.add(item.time, item.image if seen.preview is None else seen.preview)
        out = []
        for event in events:
            # `time` is when the video shows it; `decided` is the video time of the frame
            # that settled it (a move shown when the board settled is decided at the press).
            data = {**event.to_json(), "decided": round(item.time, 3)}
            if event.event in FLAG_EVENTS:
                self.flags += 1
                recorder = self.evidence
                if event.event in TRAY_FLAGS and self.tray_evidence is not None:
                    recorder = self.tray_evidence
                data["evidence"] = recorder.flag(f"{self.flags:03d}-{event.event}", event.time)
            out.append(data)
        return out

    def close(self) -> None:
        self.evidence.close()
        if self.tray_evidence is not None:
            self.tray_evidence.close()


@dataclass
class _Clip:
    name: str
    last: float  # the time of its last frame
    frames: list[np.ndarray]


@dataclass
class EvidenceRecorder:
    """Keeps the last seconds of video small, and cuts a still and a clip for each flag. A
    camera read in a thread of its own (a live tray camera) adds its frames there."""

    folder: Path
    fps: float
    history: deque[tuple[float, np.ndarray]] = field(default_factory=deque)
    open_clips: list[_Clip] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, time: float, image: np.ndarray) -> None:
        small = image
        if image.shape[1] != EVIDENCE_WIDTH:
            scale = EVIDENCE_WIDTH / image.shape[1]
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        with self._lock:
            self.history.append((time, small))
            while self.history and self.history[0][0] < time - 2 * CLIP_SECONDS:
                self.history.popleft()
            for clip in list(self.open_clips):
                clip.frames.append(small)
                if time >= clip.last:
                    self._write(clip)

    def flag(self, name: str, time: float) -> dict[str, str]:
        """Start the evidence for a flag shown at `time`; returns the files' names."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            kept = [(t, image) for t, image in self.history if t >= time - CLIP_SECONDS]
            # The frame of that time: times from another source may differ by a rounding.
            still = next((image for t, image in kept if t >= time - 0.5 / self.fps),
                         kept[-1][1] if kept else None)
            files = {}
            if still is not None:
                cv2.imwrite(str(self.folder / f"{name}.jpg"), still)
                files["still"] = f"flags/{name}.jpg"
            self.open_clips.append(_Clip(name, time + CLIP_SECONDS,
                                         [image for _, image in kept]))
            files["clip"] = f"flags/{name}.mp4"
            return files

    def close(self) -> None:
        with self._lock:
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
