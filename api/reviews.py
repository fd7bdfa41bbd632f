"""Review jobs: uploaded videos reviewed one at a time by a background thread.

A job's folder holds the upload (`video.EXT`, `calibration.json`) and the review's output
(`out/`: events.jsonl, flags/, summary.json, record, report.html). One review at a time
keeps the live tables' share of the CPU; the others wait in the queue, and a job that was
queued when the service stopped is queued again when it starts.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from pathlib import Path

from api.store import Store
from referee.position import Variant
from referee.review import review

log = logging.getLogger(__name__)

PROGRESS_EVERY = 0.5  # seconds between progress updates in the database


class ReviewQueue:
    def __init__(self, store: Store, folder: Path) -> None:
        self.store, self.folder = store, folder
        self._jobs: queue.Queue[int | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="reviews", daemon=True)

    def job_folder(self, review_id: int) -> Path:
        return self.folder / str(review_id)

    def start(self) -> None:
        for row in self.store.reviews("running"):
            self.store.update_review(row.id, state="failed", finished_at=time.time(),
                                     error="the service stopped during the review")
        for row in self.store.reviews("queued"):
            self._jobs.put(row.id)
        self._thread.start()

    def submit(self, review_id: int) -> None:
        self._jobs.put(review_id)

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=1)  # a review in progress goes on until the process ends

    def _run(self) -> None:
        while (review_id := self._jobs.get()) is not None:
            try:
                self._review(review_id)
            except Exception as error:  # a job's failure must not stop the queue
                log.exception("review %s failed", review_id)
                self.store.update_review(review_id, state="failed", error=str(error),
                                         finished_at=time.time())

    def _review(self, review_id: int) -> None:
        row = self.store.review(review_id)
        folder = self.job_folder(review_id)
        video = next(folder.glob("video.*"))
        self.store.update_review(review_id, state="running")
        shown = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal shown
            if time.monotonic() - shown >= PROGRESS_EVERY:
                shown = time.monotonic()
                self.store.update_review(review_id, frames_done=done, frames_total=total)

        summary = review(video, folder / "calibration.json", folder / "out",
                         Variant(row.variant), progress=progress)
        self.store.update_review(review_id, state="done", summary=summary.to_json(),
                                 frames_done=summary.frames, finished_at=time.time(),
                                 error=summary.problem)
