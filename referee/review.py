"""Review a recorded match: the video in, the evidence out.

`review(video, calibration, out)` runs the table observer and the game tracker over every
frame and writes, as it goes (so a crash or a damaged file loses nothing already seen):

- `events.jsonl`: the referee's events, one per line, in the order they were decided, in
  the hash-chained evidence log of referee/evidence.py;
- `flags/`: for each flag a still of the frame that shows it and a short clip around it;

and at the end `summary.json` and the human outputs of referee/report.py: the game record
(`record.json`, `record.txt`, `match.mat` for short nardy) and `report.html`. A damaged
video ends the review early with a `source` event saying where; everything before it stays.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np

from referee.evidence import EventLog
from referee.position import Variant
from referee.report import write_report
from referee.rules import rules_for
from referee.tracker import GameTracker, RefereeEvent
from vision.board.reader import BoardReader
from vision.dice.reader import DiceReader
from vision.sources import Frame, SourceEvent, VideoSource
from vision.table import TableObserver, TableSetup, Watcher

FLAG_EVENTS = ("illegal_move", "premature_throw", "wrong_start", "throw_void")
CLIP_SECONDS = 1.5  # each side of a flag's frame
EVIDENCE_WIDTH = 640  # stills and clips are kept at this width


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


@dataclass(frozen=True)
class ReviewSummary:
    frames: int
    video_seconds: float
    seconds: float
    events: int
    flags: int
    complete: bool
    problem: str | None

    def to_json(self) -> dict[str, Any]:
        return {"frames": self.frames, "video_seconds": round(self.video_seconds, 2),
                "seconds": round(self.seconds, 2),
                "speed": round(self.video_seconds / max(self.seconds, 1e-9), 2),
                "events": self.events, "flags": self.flags, "complete": self.complete,
                "problem": self.problem}


def review(
    video: Path,
    calibration: Path,
    out: Path,
    variant: Variant,
    head_exception: str = "second",
    progress: Callable[[int, int], None] | None = None,
    dice_watcher: Watcher | None = None,
) -> ReviewSummary:
    """Review `video` into `out`. ValueError (SourceError) when the video or the calibration
    cannot be used at all, or `out` already holds a review; a video damaged part-way is
    reviewed up to the damage. `dice_watcher` stands in for the dice watcher on this video's
    tray (a separate tray camera's events)."""
    setup = TableSetup.load(calibration)
    source = VideoSource(str(video))
    if (out / "events.jsonl").exists():
        raise ValueError(f"{out} already holds a review's event log: evidence is never "
                         "overwritten, choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    observer = TableObserver(setup, variant, BoardReader(), DiceReader(), watcher=dice_watcher)
    tracker = GameTracker(rules_for(variant, head_exception), variant)
    evidence = EvidenceRecorder(out / "flags", source.fps)
    started = time.perf_counter()
    frames, last_time, flags, count = 0, 0.0, 0, 0
    problem: str | None = None
    with EventLog(out / "events.jsonl") as log:
        def write(event: RefereeEvent, extra: dict[str, Any] | None = None) -> None:
            nonlocal count
            log.append({**event.to_json(), **(extra or {})})
            count += 1

        write(RefereeEvent("review_start", 0, 0.0, {
            "video": str(video), "variant": variant.value, "fps": source.fps,
            "frames": source.frame_count, "size": list(setup.board.image_size)}))
        try:
            for item in source.frames():
                if isinstance(item, SourceEvent):
                    problem = item.detail
                    write(RefereeEvent("source", item.index, item.time,
                                       {"kind": item.kind, "detail": item.detail}))
                    continue
                frames, last_time = frames + 1, item.time
                events = _observe(observer, tracker, item)
                evidence.add(item.index, item.image)
                for event in events:
                    extra = None
                    if event.event in FLAG_EVENTS:
                        flags += 1
                        extra = {"evidence": evidence.flag(f"{flags:03d}-{event.event}",
                                                           event.frame)}
                    write(event, extra)
                if progress is not None:
                    progress(frames, source.frame_count)
        except ValueError as error:  # a frame the observer cannot use: stop, keep the rest
            problem = str(error)
            write(RefereeEvent("source", frames, last_time, {"kind": "error",
                                                              "detail": problem}))
        evidence.close()
    summary = ReviewSummary(frames, last_time + 1 / source.fps, time.perf_counter() - started,
                            count, flags, problem is None, problem)
    (out / "summary.json").write_text(json.dumps(summary.to_json(), indent=1) + "\n")
    write_report(out)
    return summary


def _observe(observer: TableObserver, tracker: GameTracker, frame: Frame) -> list[RefereeEvent]:
    return tracker.update(observer.observe(frame.index, frame.time, frame.image))


def progress_bar(stream: IO[str] = sys.stderr) -> Callable[[int, int], None]:
    """A one-line progress bar, redrawn at each whole percent."""
    shown = -1

    def show(done: int, total: int) -> None:
        nonlocal shown
        if total <= 0:
            return
        percent = min(100, done * 100 // total)
        if percent != shown:
            shown = percent
            bar = "#" * (percent // 4)
            stream.write(f"\rreview [{bar:<25}] {percent:3d}% ({done}/{total} frames)")
            if percent == 100:
                stream.write("\n")
            stream.flush()

    return show
