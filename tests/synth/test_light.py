"""Light that changes while a camera watches."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from synth.light import RAMP_BACK, RAMP_FROM, RAMP_SECONDS, Light, clip_light, relight_video


def test_mains_flicker_beats_at_10_hz_against_30_fps_and_not_against_25() -> None:
    light = Light(flicker=0.05, phase=0.3)
    at_30 = np.concatenate([light.gains(n / 30) for n in range(9)])
    assert np.allclose(at_30[:3], at_30[3:6]) and np.allclose(at_30[:3], at_30[6:9])
    assert np.ptp(at_30) > 0.05  # a three-frame period, two-fifths of the amplitude or more
    assert np.allclose(np.concatenate([light.gains(n / 25) for n in range(10)]),
                       light.gains(0.0))


def test_a_rolling_shutter_sees_the_flicker_in_bands_down_the_frame() -> None:
    rows = Light(flicker=0.05, readout=0.03).gains(0.0, 300)
    # 100 Hz over a 30 ms readout: three bands, each 100 rows high
    assert np.allclose(rows[:100], rows[100:200], atol=1e-9)
    assert np.ptp(rows) > 0.09
    image = np.full((300, 4, 3), 100, np.uint8)
    lit = Light(flicker=0.05, readout=0.03).lit(image, 0.0)
    assert np.allclose(lit[:, 0, 0], 100 * rows, atol=0.5)


def test_the_exposure_steps_up_as_the_dice_come_in_and_back() -> None:
    light = Light(ramp=0.15)
    assert light.gains(0.0)[0] == 1.0
    assert light.gains(RAMP_FROM + RAMP_SECONDS)[0] == 1.15
    assert light.gains(RAMP_BACK + RAMP_SECONDS)[0] == 1.0


def test_a_frame_is_lit_by_the_gain_at_its_time() -> None:
    image = np.full((4, 4, 3), 100, np.uint8)
    assert Light().lit(image, 1.0) is image
    assert (Light(ramp=0.15).lit(image, RAMP_FROM + RAMP_SECONDS) == 115).all()


def test_each_clip_has_its_own_phase_the_same_every_time() -> None:
    assert clip_light(1, 0.04, 0.0) == clip_light(1, 0.04, 0.0)
    assert clip_light(1, 0.04, 0.0).phase != clip_light(2, 0.04, 0.0).phase


def test_a_video_under_a_steady_light_is_not_encoded_again(tmp_path: Path) -> None:
    video = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (64, 48))
    for index in range(6):
        writer.write(np.full((48, 64, 3), 100 + index, np.uint8))
    writer.release()
    made = video.read_bytes()
    assert Light(readout=0.03).steady and not Light(flicker=0.04).steady
    relight_video(video, Light(readout=0.03))
    assert video.read_bytes() == made
    relight_video(video, Light(flicker=0.04))
    assert video.read_bytes() != made
