"""The live tables: one worker thread per running table, and the manager that owns them.

A worker reads its source (a camera, a stream, or a file replayed at its own pace), runs
each frame through the table's TableSession, and hands every event to the manager, which
stores it (committed), folds it into the table's live state and publishes it to the
WebSocket clients, in that order, so a client never sees an event a crash could lose.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from copy import deepcopy
from pathlib import Path
from typing import Any

import numpy as np

from api.hub import Hub
from api.live import LiveState
from api.resume import ResumePoint, resume_point
from api.settings import Settings
from api.store import Store, StoredEvent, TableRow
from referee.position import Position, Variant
from referee.session import TableSession
from vision.sources import Frame, SourceError, VideoSource
from vision.table import TableSetup

log = logging.getLogger(__name__)

RUNNING_STATES = ("starting", "running")


class TableManager:
    def __init__(self, store: Store, hub: Hub, settings: Settings) -> None:
        self.store, self.hub, self.settings = store, hub, settings
        self._lock = threading.Lock()
        self._live: dict[int, LiveState] = {}
        self._workers: dict[int, TableWorker] = {}

    def folder(self, table_id: int) -> Path:
        return self.settings.data_dir / "tables" / str(table_id)

    # -- the event stream ---------------------------------------------------------------------

    def append(self, table_id: int, event: dict[str, Any]) -> StoredEvent:
        with self._lock:
            return self._publish(self.store.append_event(table_id, event))

    def decide(self, table_id: int, flag_seq: int, decision: str, judge: str, note: str,
               event: dict[str, Any]) -> StoredEvent:
        with self._lock:
            return self._publish(self.store.decide(table_id, flag_seq, decision, judge, note,
                                                   event))

    def override(self, table_id: int, kind: str, value: Any, judge: str, note: str,
                 event: dict[str, Any]) -> StoredEvent:
        with self._lock:
            stored = self._publish(self.store.override(table_id, kind, value, judge, note,
                                                       event))
            worker = self._workers.get(table_id)
        if worker is not None and kind == "position":
            worker.positions.put(Position.from_json(value))
        elif worker is not None and kind == "dice":
            worker.rolls.put((int(value[0]), int(value[1])))
        return stored

    def _publish(self, stored: StoredEvent) -> StoredEvent:
        self._state(stored.table_id).apply(stored.record)
        self.hub.publish({"table_id": stored.table_id, "seq": stored.seq,
                          "received_at": stored.received_at, "event": stored.record})
        return stored

    def live(self, table_id: int) -> LiveState:
        """A copy of the table's live state."""
        with self._lock:
            return deepcopy(self._state(table_id))

    def _state(self, table_id: int) -> LiveState:
        if table_id not in self._live:
            state = LiveState(Variant(self.store.table(table_id).variant))
            for stored in self.store.events(table_id):
                state.apply(stored.record)
            self._live[table_id] = state
        return self._live[table_id]

    # -- workers ------------------------------------------------------------------------------

    def start(self, table_id: int) -> TableRow:
        """Start the table's pipeline; waits up to `open_wait` s to see its source open."""
        with self._lock:
            worker = self._workers.get(table_id)
            if worker is not None and worker.is_alive():
                return self.store.table(table_id)
            row = self.store.table(table_id)
            self.store.set_state(table_id, "starting")
            records = [stored.record for stored in self.store.events(table_id)]
            worker = TableWorker(self, row, resume_point(records))
            self._workers[table_id] = worker
        worker.start()
        worker.opened.wait(self.settings.open_wait)
        return self.store.table(table_id)

    def stop(self, table_id: int) -> TableRow:
        self._halt(table_id)
        if self.store.table(table_id).state in RUNNING_STATES:
            self.store.set_state(table_id, "stopped")
            self.append(table_id, {"event": "table_stop", "state": "stopped", "detail": None})
        return self.store.table(table_id)

    def latest_frame(self, table_id: int) -> np.ndarray | None:
        worker = self._workers.get(table_id)
        return worker.latest if worker is not None else None

    def resume_all(self) -> None:
        """At start-up: the tables that were running when the service stopped run again."""
        for row in self.store.tables():
            if row.state in RUNNING_STATES:
                self.start(row.id)

    def shutdown(self) -> None:
        """Stop every worker, leaving the tables' states as they are, to be resumed."""
        for table_id in list(self._workers):
            self._halt(table_id)

    def _halt(self, table_id: int) -> None:
        with self._lock:
            worker = self._workers.pop(table_id, None)
        if worker is not None:
            worker.halt.set()
            worker.join(timeout=10)


class TableWorker(threading.Thread):
    def __init__(self, manager: TableManager, row: TableRow, resume: ResumePoint) -> None:
        super().__init__(name=f"table-{row.id}", daemon=True)
        self.manager, self.row, self.resume = manager, row, resume
        self.opened = threading.Event()  # the source opened, or failed to
        self.halt = threading.Event()
        self.positions: queue.Queue[Position] = queue.Queue()  # judges' overrides of the board
        self.rolls: queue.Queue[tuple[int, int]] = queue.Queue()  # and of the dice
        self.latest: np.ndarray | None = None

    def run(self) -> None:
        table_id, store = self.row.id, self.manager.store
        source: VideoSource | None = None
        try:
            folder = self.manager.folder(table_id)
            folder.mkdir(parents=True, exist_ok=True)
            calibration = folder / "calibration.json"
            calibration.write_text(json.dumps(self.row.calibration), encoding="utf-8")
            setup = TableSetup.load(calibration)
            source = VideoSource(self.row.source, sleep=self._pause)
            # Checks that the calibration can watch the dice, before the table counts as running.
            session = TableSession(setup, Variant(self.row.variant), folder / "flags", source.fps)
        except (SourceError, ValueError, OSError) as failure:
            if source is not None:  # a camera is not held by a table that cannot run
                source.capture.release()
            store.set_state(table_id, "error", str(failure))
            self.opened.set()
            return
        store.set_state(table_id, "running")
        self.opened.set()
        try:
            state, problem = self._referee(source, session)
        except Exception as failure:  # a bug must not take the service down with it
            log.exception("table %s stopped by an error", table_id)
            state, problem = "error", f"{type(failure).__name__}: {failure}"
        finally:
            session.close()
        if not self.halt.is_set():
            store.set_state(table_id, state, problem)
            self.manager.append(table_id, {"event": "table_stop", "state": state,
                                           "detail": problem})

    def _pause(self, seconds: float) -> None:
        """A camera's reconnection wait, cut short by a stop."""
        self.halt.wait(seconds)

    def _referee(self, source: VideoSource, session: TableSession) -> tuple[str, str | None]:
        """Run the source to its end or until halted; the table's state and error after."""
        resume, replay = self.resume, not source.live
        if not replay and resume.roll is not None:  # a replay reads the roll again itself
            mover, dice = resume.roll
            start = resume.position or Position.start(Variant(self.row.variant))
            session.tracker.resume(start, mover, dice)
        elif resume.position is not None and resume.mover is not None:
            session.tracker.resume(resume.position, resume.mover)
        self.manager.append(self.row.id, {
            "event": "table_start", "source": self.row.source, "variant": self.row.variant,
            "resumed_at": resume.position.to_json() if resume.position else None})
        origin: float | None = None  # wall time of a replayed file's frame time 0
        speed = self.manager.settings.replay_speed
        for item in source.frames():
            if self.halt.is_set():
                return "stopped", None
            if isinstance(item, Frame):
                if replay and item.index <= resume.after_frame:
                    continue
                if replay and self.row.paced:
                    due = item.time / speed
                    origin = origin if origin is not None else time.monotonic() - due
                    self.halt.wait(max(0.0, origin + due - time.monotonic()))
                self.latest = item.image
            while not self.positions.empty():
                position = self.positions.get_nowait()
                session.tracker.resume(position, position.turn)
            while not self.rolls.empty() and isinstance(item, Frame):
                judged = session.tracker.override_dice(self.rolls.get_nowait(), item.index,
                                                       item.time)
                for decided in judged:
                    self.manager.append(self.row.id, decided.to_json())
            try:
                events = session.feed(item)
            except ValueError as error:  # a frame the calibration does not fit
                self.manager.append(self.row.id, {"event": "source", "kind": "error",
                                                  "detail": str(error)})
                return "error", str(error)
            for event in events:
                if replay and (event["event"], event["frame"]) in resume.decided:
                    continue
                self.manager.append(self.row.id, event)
        if replay:
            return "finished", None
        return "error", "the camera was lost"
