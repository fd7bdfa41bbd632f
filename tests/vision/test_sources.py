"""Video sources: files read to their end, live sources reconnected after a stall."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import Frame, SourceError, SourceEvent, VideoSource


class FakeCamera:
    """A live capture that delivers `frames` frames, then fails `stall` reads."""

    def __init__(self, frames: int, stall: int = 0, opens: bool = True) -> None:
        self.left, self.stall, self.opens = frames, stall, opens

    def isOpened(self) -> bool:
        return self.opens

    def read(self) -> tuple[bool, Any]:
        if self.left > 0:
            self.left -= 1
            return True, np.zeros((4, 4, 3), np.uint8)
        return False, None

    def get(self, prop: int) -> float:
        return 0.0

    def release(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def write_video(path: Path, frames: int, fourcc: str = "MJPG") -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), 30.0, (64, 48))
    for index in range(frames):
        writer.write(np.full((48, 64, 3), index * 5 % 255, np.uint8))
    writer.release()


def test_a_file_gives_every_frame_with_its_time(tmp_path: Path) -> None:
    write_video(tmp_path / "clip.avi", 12)
    items = list(VideoSource(str(tmp_path / "clip.avi")).frames())
    assert all(isinstance(item, Frame) for item in items)
    frames = [item for item in items if isinstance(item, Frame)]
    assert [f.index for f in frames] == list(range(12))
    assert [round(f.time, 3) for f in frames] == [round(i / 30, 3) for i in range(12)]


def test_a_truncated_file_is_reviewed_to_the_damage_and_says_so(tmp_path: Path) -> None:
    write_video(tmp_path / "clip.avi", 60)
    data = (tmp_path / "clip.avi").read_bytes()
    (tmp_path / "cut.avi").write_bytes(data[: len(data) // 2])
    items = list(VideoSource(str(tmp_path / "cut.avi")).frames())
    frames = [item for item in items if isinstance(item, Frame)]
    assert 10 < len(frames) < 60
    assert isinstance(items[-1], SourceEvent) and items[-1].kind == "truncated"


@pytest.mark.parametrize("content", [b"", b"not a video at all"])
def test_a_file_that_is_no_video_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "bad.mp4").write_bytes(content)
    with pytest.raises(SourceError, match=r"bad\.mp4"):
        list(VideoSource(str(tmp_path / "bad.mp4")).frames())


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such video file"):
        VideoSource(str(tmp_path / "missing.mp4"))


def test_a_stalled_camera_is_reported_and_reconnected_without_losing_frames() -> None:
    clock = Clock()
    cameras = iter([FakeCamera(5), FakeCamera(0, opens=False), FakeCamera(3)])
    source = VideoSource(0, open_capture=lambda spec: next(cameras), retry_every=1.0,
                         give_up_after=10.0, sleep=clock.sleep, clock=clock)
    items = []
    for item in source.frames():
        items.append(item)
        if isinstance(item, SourceEvent) and item.kind == "stalled" and len(items) > 6:
            break
    kinds = [i.kind if isinstance(i, SourceEvent) else "frame" for i in items]
    assert kinds == ["frame"] * 5 + ["stalled", "reconnected"] + ["frame"] * 3 + ["stalled"]
    frames = [i for i in items if isinstance(i, Frame)]
    assert [f.index for f in frames] == list(range(8))  # the count goes on after the gap
    assert frames[5].time >= 2.0  # and so does the time: two retries of a second each


def test_a_camera_that_never_comes_back_is_given_up() -> None:
    clock = Clock()
    cameras = iter([FakeCamera(2)] + [FakeCamera(0, opens=False)] * 20)
    source = VideoSource(0, open_capture=lambda spec: next(cameras), retry_every=1.0,
                         give_up_after=5.0, sleep=clock.sleep, clock=clock)
    items = list(source.frames())
    assert isinstance(items[-1], SourceEvent) and items[-1].kind == "lost"


def test_a_camera_that_cannot_be_opened_is_a_clear_error() -> None:
    with pytest.raises(SourceError, match="cannot open 3"):
        VideoSource(3, open_capture=lambda spec: FakeCamera(0, opens=False))


def test_a_paced_file_is_delivered_at_its_own_frame_rate(tmp_path: Path) -> None:
    write_video(tmp_path / "clip.avi", 10)
    clock = Clock()
    source = VideoSource(str(tmp_path / "clip.avi"), sleep=clock.sleep, clock=clock,
                         paced=True)
    delivered = [(item.time, clock.now) for item in source.frames() if isinstance(item, Frame)]
    assert all(abs(wall - stamp) < 1e-6 for stamp, wall in delivered)
    assert round(delivered[-1][1], 3) == round(9 / 30, 3)
