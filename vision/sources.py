"""Frames from a camera or a recording, each with the timestamp that drives every timer.

A source is a video file, a camera index or a stream address (RTSP, HTTP). Files are read
to their end; a file that stops early (truncated, corrupt) reports it. A live source that
stops delivering frames is reported as stalled and reopened until it comes back or the
patience runs out; frames already delivered are never taken back, and timestamps go on
from where they were, so a reconnect never rewinds a count.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np


class SourceError(ValueError):
    """The source cannot be opened at all, or is not a video."""


class Capture(Protocol):
    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, Any]: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Frame:
    index: int
    time: float  # seconds since the source started
    image: np.ndarray


@dataclass(frozen=True, slots=True)
class SourceEvent:
    """Something that happened to the source itself: `stalled`, `reconnected`, `lost` (gave
    up), `truncated` (a file ended before the frame count it announced)."""

    kind: str
    index: int  # frames delivered so far
    time: float
    detail: str


def _opencv_capture(spec: str | int) -> Capture:
    capture: Capture = cv2.VideoCapture(spec)
    return capture


def parse_spec(spec: str) -> str | int:
    """A camera index ("0"), a stream address ("rtsp://...", "http://...") or a file path."""
    if spec.isdigit():
        return int(spec)
    if "://" in spec:
        return spec
    if not Path(spec).is_file():
        raise SourceError(f"{spec}: no such video file")
    return spec


def is_live(spec: str | int) -> bool:
    return isinstance(spec, int) or "://" in spec


class VideoSource:
    """Iterate `frames()` for Frame and SourceEvent items, in order.

    `open_capture` builds the capture (cv2.VideoCapture by default; tests give fakes).
    `retry_every` and `give_up_after` (seconds of wall time) apply to live sources only.
    `paced`: a file is delivered at its own pace, as a camera would (a replayed table).
    `epoch`: the `clock` reading a live source's frame times count from (default: when its
    first frame is asked for); the cameras of one table share one, so their times agree.
    """

    def __init__(
        self,
        spec: str | int,
        open_capture: Callable[[str | int], Capture] | None = None,
        retry_every: float = 1.0,
        give_up_after: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        paced: bool = False,
        epoch: float | None = None,
    ) -> None:
        self.spec = parse_spec(spec) if isinstance(spec, str) else spec
        self.live = is_live(self.spec)
        self.open_capture: Callable[[str | int], Capture] = open_capture or _opencv_capture
        self.retry_every = retry_every
        self.give_up_after = give_up_after
        self.sleep = sleep
        self.clock = clock
        self.paced = paced
        self.epoch = epoch
        self.capture = self._open()
        # The nominal rate sizes evidence clips; a camera that does not say is taken at 30.
        fps = self.capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and np.isfinite(fps) and 0 < fps <= 240 else 30.0
        count = 0 if self.live else self.capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count = int(count) if count and np.isfinite(count) and count > 0 else 0

    def _open(self) -> Capture:
        capture = self.open_capture(self.spec)
        if not capture.isOpened():
            raise SourceError(f"cannot open {self.spec}: not a video or camera that OpenCV reads")
        return capture

    def frames(self) -> Iterator[Frame | SourceEvent]:
        return self._live_frames() if self.live else self._file_frames()

    def _file_frames(self) -> Iterator[Frame | SourceEvent]:
        index, last, started = 0, 0.0, 0.0
        while True:
            ok, image = self.capture.read()
            if not ok or image is None:
                break
            # The frame's own time stamp (files may have a variable frame rate); a stamp that
            # is missing or goes backwards falls back to the nominal rate.
            stamp = self.capture.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            if not np.isfinite(stamp) or (index and stamp <= last):
                stamp = index / self.fps
            last = stamp
            if self.paced:
                started = started if index else self.clock() - stamp
                self.sleep(max(0.0, started + stamp - self.clock()))
            yield Frame(index, stamp, image)
            index += 1
        self.capture.release()
        if index == 0:
            raise SourceError(f"{self.spec}: no frame could be decoded (corrupt or not a video)")
        if self.frame_count and index < self.frame_count - 1:
            yield SourceEvent("truncated", index, index / self.fps,
                              f"the file ends at frame {index} of {self.frame_count} announced")

    def _live_frames(self) -> Iterator[Frame | SourceEvent]:
        start = self.clock() if self.epoch is None else self.epoch
        index = 0
        while True:
            ok, image = self.capture.read()
            if ok and image is not None:
                yield Frame(index, self.clock() - start, image)
                index += 1
                continue
            stalled_at = self.clock()
            yield SourceEvent("stalled", index, stalled_at - start, "no frame from the source")
            self.capture.release()
            while True:
                if self.clock() - stalled_at >= self.give_up_after:
                    yield SourceEvent("lost", index, self.clock() - start,
                                      f"no frame for {self.give_up_after:.0f} s; giving up")
                    return
                self.sleep(self.retry_every)
                try:
                    self.capture = self._open()
                except SourceError:
                    continue
                yield SourceEvent("reconnected", index, self.clock() - start,
                                  f"back after {self.clock() - stalled_at:.1f} s")
                break
