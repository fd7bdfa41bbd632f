"""One table's refereeing loop, run in a process of its own or in a thread of the service.

The loop reads the table's source (a camera, a stream, or a file replayed at its own pace),
runs each frame through the table's TableSession and hands every event it completes to the
service. It talks to the service only through a `Link`: the service stores and publishes
what the loop emits, and passes the judges' overrides back. A process per table spreads the
tables over every core, leaves the service's own process to storing and publishing (half
the latency tail with sixteen tables, docs/service.md) and keeps a table's crash away from
the others.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import queue
import time
from dataclasses import dataclass
from multiprocessing.synchronize import Event as ProcessEvent
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from api.resume import ResumePoint
from referee.position import Position, Variant
from referee.session import TableSession
from vision.dice.reader import DiceReader
from vision.dice.zones import TrayCalibration
from vision.sources import Frame, SourceError, VideoSource
from vision.table import TableSetup
from vision.tray import TrayVideo

log = logging.getLogger(__name__)

FRAME_EVERY = 1.0  # seconds between the frames a table process shows the service
# Judges' overrides passed to a running loop: ("position", position JSON) or ("dice", [a, b]).
Override = tuple[str, Any]
Outcome = tuple[str, str | None]  # the table's state when the loop ends, and why


@dataclass(frozen=True)
class TableJob:
    """What a table's loop needs, all of it plain data (it crosses to another process)."""

    table_id: int
    source: str
    calibration: dict[str, Any]
    variant: str
    paced: bool
    folder: Path
    resume: ResumePoint
    replay_speed: float
    tray_source: str | None = None  # a camera of the tray's own, and its calibration
    tray_calibration: dict[str, Any] | None = None


class Link(Protocol):
    """The loop's side of its connection to the service."""

    def opened(self, error: str | None) -> None:
        """The source and the calibration are ready (None), or cannot be (why)."""

    def emit(self, event: dict[str, Any]) -> None:
        """An event for the table's stream (stored, then published)."""

    def show(self, image: np.ndarray) -> None:
        """The latest frame (for calibrating by clicks)."""

    def overrides(self) -> list[Override]:
        """The judges' overrides that arrived since the last call."""

    def halted(self) -> bool:
        """Whether the service asked the loop to stop."""

    def wait(self, seconds: float) -> None:
        """Sleep, cut short by a halt."""


def run(job: TableJob, link: Link) -> Outcome | None:
    """Referee the table until its source ends or fails, or the link halts it. The table's
    state after ("finished", "error", ...), or None when halted or when it did not open
    (`link.opened` said why)."""
    source: VideoSource | None = None
    tray: TrayVideo | None = None
    epoch = time.monotonic()  # live cameras of one table time their frames from one instant
    try:
        job.folder.mkdir(parents=True, exist_ok=True)
        calibration = job.folder / "calibration.json"
        calibration.write_text(json.dumps(job.calibration), encoding="utf-8")
        setup = TableSetup.load(calibration)
        source = VideoSource(job.source, sleep=link.wait, epoch=epoch)
        if job.tray_source is not None:
            tray = TrayVideo(VideoSource(job.tray_source, sleep=link.wait, epoch=epoch),
                             TrayCalibration.from_json(job.tray_calibration), source.fps,
                             DiceReader())
        # Checks that the calibration can watch the dice, before the table counts as running.
        session = TableSession(setup, Variant(job.variant), job.folder / "flags", source.fps,
                               tray=tray)
    except (SourceError, ValueError, OSError) as failure:
        for opened in (source, tray.source if tray else None):
            if opened is not None:  # a camera is not held by a table that cannot run
                opened.capture.release()
        link.opened(str(failure))
        return None
    link.opened(None)
    try:
        outcome = _referee(job, link, source, session, tray)
    except Exception as failure:  # a bug must not take the service down with it
        log.exception("table %s stopped by an error", job.table_id)
        outcome = "error", f"{type(failure).__name__}: {failure}"
    finally:
        session.close()
    return None if link.halted() else outcome


def _referee(job: TableJob, link: Link, source: VideoSource, session: TableSession,
             tray: TrayVideo | None) -> Outcome:
    resume, replay = job.resume, not source.live
    if not replay and resume.roll is not None:  # a replay reads the roll again itself
        mover, dice = resume.roll
        start = resume.position or Position.start(Variant(job.variant))
        session.tracker.resume(start, mover, dice)
    elif resume.position is not None and resume.mover is not None:
        session.tracker.resume(resume.position, resume.mover)
    link.emit({"event": "table_start", "source": job.source, "variant": job.variant,
               "resumed_at": resume.position.to_json() if resume.position else None})
    origin: float | None = None  # wall time of a replayed file's frame time 0
    if tray is not None and not replay:
        tray.start(link.halted)
    for item in source.frames():
        if link.halted():
            return "stopped", None
        if isinstance(item, Frame):
            if tray is not None and replay:
                tray.catch_up(item.time)
            if replay and item.index <= resume.after_frame:
                if tray is not None:  # refereed before the restart, as the board frames were
                    tray.feed.discard()
                continue
            if replay and job.paced:
                due = item.time / job.replay_speed
                origin = origin if origin is not None else time.monotonic() - due
                link.wait(max(0.0, origin + due - time.monotonic()))
            link.show(item.image)
            problem = tray.new_problem() if tray is not None else None
            if problem is not None:
                link.emit({"event": "source", "kind": "tray_camera", "frame": item.index,
                           "time": round(item.time, 3), "detail": problem})
            for kind, value in link.overrides():
                if kind == "position":
                    position = Position.from_json(value)
                    session.tracker.resume(position, position.turn)
                else:
                    for decided in session.tracker.override_dice(
                            (int(value[0]), int(value[1])), item.index, item.time):
                        link.emit(decided.to_json())
        try:
            events = session.feed(item)
        except ValueError as error:  # a frame the calibration does not fit
            link.emit({"event": "source", "kind": "error", "detail": str(error)})
            return "error", str(error)
        for event in events:
            if replay and (event["event"], event["frame"]) in resume.decided:
                continue
            link.emit(event)
    if replay:
        return "finished", None
    return "error", "the camera was lost"


# -- a table in a process of its own ----------------------------------------------------------

def process_context() -> Any:
    """Table processes start from a server process that has the referee's modules loaded
    (forkserver): quick to start, and never a fork of the service's threads."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["api.pipeline"])
    return context


class ProcessLink:
    """The loop's link in a table process: messages to the service on one queue, overrides
    from it on another, and the service's halt as a shared event."""

    def __init__(self, to_service: multiprocessing.Queue[Any],
                 from_service: multiprocessing.Queue[Override], halt: ProcessEvent,
                 service: int) -> None:
        self.to_service, self.from_service, self.halt = to_service, from_service, halt
        self.service = service  # the service's process id
        self._shown = 0.0

    def opened(self, error: str | None) -> None:
        self.to_service.put(("opened", error))

    def emit(self, event: dict[str, Any]) -> None:
        self.to_service.put(("event", event))

    def show(self, image: np.ndarray) -> None:
        # A JPEG now and then: the service needs a recent frame, not every frame.
        now = time.monotonic()
        if now - self._shown >= FRAME_EVERY:
            self._shown = now
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            if ok:
                self.to_service.put(("frame", data.tobytes()))

    def overrides(self) -> list[Override]:
        found = []
        while True:
            try:
                found.append(self.from_service.get_nowait())
            except queue.Empty:
                return found

    def orphaned(self) -> bool:
        """The service died (killed, crashed): the table stops rather than go on holding its
        camera. (The forkserver it was started from outlives the service while a table runs,
        so the parent process tells nothing.)"""
        try:
            os.kill(self.service, 0)
        except ProcessLookupError:
            return True
        return False

    def halted(self) -> bool:
        return self.halt.is_set() or self.orphaned()

    def wait(self, seconds: float) -> None:
        self.halt.wait(seconds)


def process_main(job: TableJob, to_service: multiprocessing.Queue[Any],
                 from_service: multiprocessing.Queue[Override], halt: ProcessEvent,
                 service: int) -> None:
    """A table process: run the loop, then say how it ended."""
    logging.basicConfig(level=logging.INFO)
    link = ProcessLink(to_service, from_service, halt, service)
    outcome = run(job, link)
    if link.orphaned():  # nobody left to read it: do not wait to flush
        to_service.cancel_join_thread()
        return
    to_service.put(("done", outcome))
