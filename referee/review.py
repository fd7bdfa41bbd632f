"""Review a recorded match: the video in, the evidence out.

`review(video, calibration, out)` runs every frame through a table session
(referee/session.py: the observer, the tracker, the evidence) and writes, as it goes (so a
crash or a damaged file loses nothing already seen):

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
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import IO, Any

from referee.evidence import EventLog
from referee.position import Variant
from referee.report import write_report
from referee.session import TableSession
from referee.tracker import RefereeEvent
from vision.dice.reader import DiceReader
from vision.dice.zones import TrayCalibration
from vision.sources import SourceEvent, VideoSource
from vision.table import TableSetup, Watcher
from vision.tray import TrayVideo


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
    tray: tuple[Path, Path] | None = None,
) -> ReviewSummary:
    """Review `video` into `out`. ValueError (SourceError) when the video or the calibration
    cannot be used at all, or `out` already holds a review; a video damaged part-way is
    reviewed up to the damage. `tray`: the tray camera's own video and calibration, when
    the tray has a camera of its own (the two recordings start together). `dice_watcher`
    stands in for the dice watcher (a test's ground truth)."""
    setup = TableSetup.load(calibration)
    source = VideoSource(str(video))
    if (out / "events.jsonl").exists():
        raise ValueError(f"{out} already holds a review's event log: evidence is never "
                         "overwritten, choose another --out")
    # A file with no frame that decodes is not a video: refused before anything is written.
    items = source.frames()
    first = next(items, None)
    items = chain([first] if first is not None else [], items)
    tray_camera = None if tray is None else _tray_video(*tray, board_fps=source.fps)
    out.mkdir(parents=True, exist_ok=True)
    session = TableSession(setup, variant, out / "flags", source.fps, head_exception,
                           dice_watcher, tray_camera)
    started = time.perf_counter()
    frames, last_time, count = 0, 0.0, 0
    problem: str | None = None
    with EventLog(out / "events.jsonl") as log:
        def write(events: list[dict[str, Any]]) -> None:
            nonlocal count
            for event in events:
                log.append(event)
                count += 1

        write([RefereeEvent("review_start", 0, 0.0, {
            "video": str(video), "variant": variant.value, "fps": source.fps,
            "frames": source.frame_count, "size": list(setup.board.image_size)}).to_json()])
        try:
            for item in items:
                if isinstance(item, SourceEvent):
                    problem = item.detail
                else:
                    frames, last_time = frames + 1, item.time
                    if tray_camera is not None:
                        tray_camera.catch_up(item.time)
                        tray_problem = tray_camera.new_problem()
                        if tray_problem is not None:
                            write([RefereeEvent("source", item.index, item.time, {
                                "kind": "tray_camera", "detail": tray_problem}).to_json()])
                write(session.feed(item))
                if progress is not None:
                    progress(frames, source.frame_count)
        except ValueError as error:  # a frame the observer cannot use: stop, keep the rest
            problem = str(error)
            write([RefereeEvent("source", frames, last_time, {"kind": "error",
                                                               "detail": problem}).to_json()])
        session.close()
    summary = ReviewSummary(frames, last_time + 1 / source.fps, time.perf_counter() - started,
                            count, session.flags, problem is None, problem)
    (out / "summary.json").write_text(json.dumps(summary.to_json(), indent=1) + "\n")
    write_report(out)
    return summary


def _tray_video(video: Path, calibration: Path, board_fps: float) -> TrayVideo:
    return TrayVideo(VideoSource(str(video)), TrayCalibration.load(calibration), board_fps,
                     DiceReader())


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
