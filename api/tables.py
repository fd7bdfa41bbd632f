"""The live tables: a worker per running table, and the manager that owns them.

A worker runs its table's refereeing loop (api/pipeline.py) in a process of its own (or in
its thread) and hands every event to the manager, which stores it (committed), folds it
into the table's live state and publishes it to the WebSocket clients, in that order, so a
client never sees an event a crash could lose.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from copy import deepcopy
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from api.hub import Hub
from api.live import LiveState
from api.pipeline import Outcome, Override, TableJob, process_context, process_main
from api.pipeline import run as run_table
from api.resume import ResumePoint, resume_point
from api.settings import Settings
from api.store import Store, StoredEvent, TableRow
from referee.position import Variant

RUNNING_STATES = ("starting", "running")
HALT_GRACE = 10.0  # seconds a stopped table's process has to finish before it is terminated


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
        if worker is not None:
            worker.send((kind, value))
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
    """Runs a table's loop (api/pipeline.py) in a process of its own, or in this thread
    (`Settings.table_processes`), and carries its events to the manager."""

    def __init__(self, manager: TableManager, row: TableRow, resume: ResumePoint) -> None:
        super().__init__(name=f"table-{row.id}", daemon=True)
        self.manager, self.row = manager, row
        self.job = TableJob(row.id, row.source, row.calibration, row.variant, row.paced,
                            manager.folder(row.id), resume, manager.settings.replay_speed,
                            row.tray_source, row.tray_calibration)
        self.opened = threading.Event()  # the source opened, or failed to
        self.halt = threading.Event()
        self.latest: np.ndarray | None = None
        # Judges' overrides for the loop: a queue the table process reads, or one for the
        # loop in this thread. Made here, so that none sent as the table starts is lost.
        processes = manager.settings.table_processes
        self._overrides: Any = process_context().Queue() if processes else queue.Queue()

    def send(self, override: Override) -> None:
        """A judge's override for the running loop."""
        self._overrides.put(override)

    def run(self) -> None:
        if self.manager.settings.table_processes:
            outcome = self._run_process()
        else:
            outcome = run_table(self.job, _ThreadLink(self))
        if outcome is not None and not self.halt.is_set():
            state, problem = outcome
            self.manager.store.set_state(self.row.id, state, problem)
            self.manager.append(self.row.id, {"event": "table_stop", "state": state,
                                              "detail": problem})

    def on_opened(self, error: str | None) -> None:
        self.manager.store.set_state(self.row.id, "error" if error else "running", error)
        self.opened.set()

    def _run_process(self) -> Outcome | None:
        context = process_context()
        to_service, halt = context.Queue(), context.Event()
        process = context.Process(target=process_main, name=f"table-{self.row.id}",
                                  args=(self.job, to_service, self._overrides, halt,
                                        os.getpid()),
                                  daemon=True)
        process.start()
        # The service never writes to this queue. Closing its copy of the writing end makes a
        # read end in EOFError when the process dies in the middle of a message (a frame),
        # where it would otherwise wait for the rest of it for ever.
        to_service._writer.close()
        outcome: Outcome | None = None
        done = False
        halted_at: float | None = None
        while not done:
            if self.halt.is_set():
                halt.set()
                halted_at = halted_at or time.monotonic()
                if time.monotonic() - halted_at > HALT_GRACE:  # stuck in a camera's read
                    process.terminate()
            try:
                kind, value = to_service.get(timeout=0.2)
            except (queue.Empty, EOFError, OSError):
                if process.is_alive():
                    continue
                process.join(timeout=1)  # died without a word: killed, or a crash
                ended = f"the table's process ended (exit code {process.exitcode})"
                if not self.opened.is_set():
                    self.on_opened(ended)
                    return None
                return "error", ended
            if kind == "opened":
                self.on_opened(value)
            elif kind == "event":
                self.manager.append(self.row.id, value)
            elif kind == "frame":
                self.latest = cv2.imdecode(np.frombuffer(value, np.uint8), cv2.IMREAD_COLOR)
            else:  # "done"
                outcome, done = value, True
        process.join(timeout=10)
        return outcome


class _ThreadLink:
    """The loop's link when it runs in the table's thread: straight to the manager."""

    def __init__(self, worker: TableWorker) -> None:
        self.worker = worker

    def opened(self, error: str | None) -> None:
        self.worker.on_opened(error)

    def emit(self, event: dict[str, Any]) -> None:
        self.worker.manager.append(self.worker.row.id, event)

    def show(self, image: np.ndarray) -> None:
        self.worker.latest = image

    def overrides(self) -> list[Override]:
        found = []
        while not self.worker._overrides.empty():
            found.append(self.worker._overrides.get_nowait())
        return found

    def halted(self) -> bool:
        return self.worker.halt.is_set()

    def wait(self, seconds: float) -> None:
        self.worker.halt.wait(seconds)
