"""The camera's exposure followed against its first frame."""

from __future__ import annotations

import numpy as np

from synth.light import Light
from vision.exposure import Exposure, levelled


def felt(seed: int = 0) -> np.ndarray:
    """A grey tray with some texture and sensor noise (160x120)."""
    rng = np.random.default_rng(seed)
    return np.clip(90 + 20 * np.sin(np.arange(160) / 9)[None, :]
                   + rng.normal(0, 3, (120, 160)), 0, 255).astype(np.uint8)


def test_a_brighter_view_is_measured_and_levelled_back() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    first = felt()
    assert exposure.factor(first) == 1.0
    brighter = np.clip(first * 1.06, 0, 255).astype(np.uint8)
    factor = exposure.factor(brighter)
    assert abs(factor - 1.06) < 0.01
    assert np.abs(levelled(brighter, factor).astype(int) - first).mean() < 1.0


def test_dice_coming_into_view_are_no_change_of_light() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    exposure.factor(felt())
    with_dice = felt(1)
    with_dice[40:60, 30:50] = 240  # two white dice: a few percent of the view
    with_dice[70:90, 100:120] = 240
    assert exposure.factor(with_dice) == 1.0


def test_a_steady_light_leaves_the_frames_as_they_are() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    exposure.factor(felt())
    again = felt(2)
    assert exposure.factor(again) == 1.0
    assert levelled(again, 1.0) is again


def test_only_the_masked_view_tells_the_light() -> None:
    mask = np.zeros((120, 160), bool)
    mask[:, :80] = True
    exposure = Exposure(mask)
    first = felt()
    exposure.factor(first)
    later = first.copy()
    later[:, 80:] = 255  # a hand over the board half, outside the tray's mask
    assert exposure.factor(later) == 1.0


def test_a_view_of_another_size_than_the_masks_is_left_as_it_is() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    exposure.factor(felt())
    assert exposure.factor(np.full((60, 80), 200, np.uint8)) == 1.0
    assert abs(exposure.factor(np.clip(felt() * 1.1, 0, 255).astype(np.uint8)) - 1.1) < 0.01


def test_a_camera_whose_first_frames_were_dark_is_followed_from_its_settled_view() -> None:
    # A webcam's first frames, taken before its exposure settled, at a third of the light:
    # divided by 3, every change would look a third of itself. After a second of the settled
    # view it is the one followed from.
    exposure = Exposure(np.ones((120, 160), bool))
    settled = felt()
    exposure.factor((settled / 3).astype(np.uint8))
    factors = [exposure.factor(settled) for _ in range(31)]
    assert all(f > 2.5 for f in factors[:29]) and factors[29:] == [1.0, 1.0]
    brighter = np.clip(settled * 1.06, 0, 255).astype(np.uint8)
    assert abs(exposure.factor(brighter) - 1.06) < 0.01


def test_a_flicker_never_moves_the_view_followed_from() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    first = felt()
    exposure.factor(first)
    for index in range(90):  # three seconds of an 8% beat and a 20% exposure step
        gain = 1.2 + 0.08 * np.sin(2 * np.pi * index / 3)
        lit = np.clip(first * gain, 0, 255).astype(np.uint8)
        assert abs(exposure.factor(lit) - gain) < 0.015


def test_a_rolling_shutters_bands_are_levelled_row_by_row_across_a_dark_box() -> None:
    # A 30 ms readout over 480 rows puts the 100 Hz flicker's bands 160 rows apart; the
    # bottom rows, the box's dark inside, tell no light of their own.
    rng = np.random.default_rng(3)
    view = np.clip(90 + 20 * np.sin(np.arange(640) / 9)[None, :] + rng.normal(0, 3, (480, 640)),
                   0, 255)
    view[300:] = 10
    light = Light(flicker=0.06, phase=1.0, readout=0.03)
    exposure = Exposure(np.ones((480, 640), bool))
    first = light.lit(view.astype(np.uint8), 0.0)
    exposure.factor(first)
    for index in range(1, 30):
        frame = light.lit(view.astype(np.uint8), index / 30)
        rows = exposure.factor(frame)
    assert isinstance(rows, np.ndarray) and rows.shape == (480,)
    truth = light.gains(29 / 30, 480) / light.gains(0.0, 480)
    assert np.abs(rows - truth).max() < 0.01  # the dark rows too, carried by the wave
    assert np.abs(levelled(frame, rows)[:300].astype(int) - first[:300]).mean() < 1.0


def test_a_steady_or_flickering_light_shows_no_bands() -> None:
    exposure = Exposure(np.ones((120, 160), bool))
    first = felt()
    exposure.factor(first)
    for index in range(60):
        gain = 1 + 0.08 * np.sin(2 * np.pi * index / 3)
        factor = exposure.factor(np.clip(felt(index) * gain, 0, 255).astype(np.uint8))
        assert not isinstance(factor, np.ndarray)
