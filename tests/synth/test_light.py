"""Light that changes while the tray camera watches."""

from __future__ import annotations

import numpy as np

from synth.light import RAMP_BACK, RAMP_FROM, RAMP_SECONDS, Light, clip_light


def test_mains_flicker_beats_at_10_hz_against_30_fps_and_not_against_25() -> None:
    light = Light(flicker=0.05, phase=0.3)
    at_30 = [light.gain(n / 30, 30.0) for n in range(9)]
    assert np.allclose(at_30[:3], at_30[3:6]) and np.allclose(at_30[:3], at_30[6:9])
    assert np.ptp(at_30) > 0.05  # a three-frame period, two-fifths of the amplitude or more
    assert np.allclose([light.gain(n / 25, 25.0) for n in range(10)], light.gain(0.0, 25.0))


def test_the_exposure_steps_up_as_the_dice_come_in_and_back() -> None:
    light = Light(ramp=0.15)
    assert light.gain(0.0, 30.0) == 1.0
    assert light.gain(RAMP_FROM + RAMP_SECONDS, 30.0) == 1.15
    assert light.gain(RAMP_BACK + RAMP_SECONDS, 30.0) == 1.0


def test_a_frame_is_lit_by_the_gain_at_its_time() -> None:
    image = np.full((4, 4, 3), 100, np.uint8)
    assert Light().lit(image, 1.0, 30.0) is image
    lit = Light(ramp=0.15).lit(image, RAMP_FROM + RAMP_SECONDS, 30.0)
    assert (lit == 115).all()


def test_each_clip_has_its_own_phase_the_same_every_time() -> None:
    assert clip_light(1, 0.04, 0.0) == clip_light(1, 0.04, 0.0)
    assert clip_light(1, 0.04, 0.0).phase != clip_light(2, 0.04, 0.0).phase
