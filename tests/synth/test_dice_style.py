"""What the dice generator samples, without rendering (no MuJoCo needed)."""

from __future__ import annotations

import numpy as np

from synth.dice.style import DICE_STYLES, sample_die_look, sample_pile_style


def _luminance(rgba: tuple[float, ...]) -> float:
    return 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]


def test_every_die_look_has_pips_a_judge_can_see() -> None:
    """A die whose pips are the colour of its body is labelled with a value nobody can read."""
    rng = np.random.default_rng(0)
    for style in DICE_STYLES:
        for _ in range(200):
            look = sample_die_look(rng, style)
            body = _luminance(look.body)
            for pip in (look.pip, look.accent):
                assert abs(body - _luminance(pip)) > 0.25, (style, look)


def test_a_pile_style_dresses_every_die_and_looks_at_the_heap_from_the_tray_side() -> None:
    styles = [sample_pile_style(np.random.default_rng(seed), 12) for seed in range(40)]
    assert all(len(style.dice) == 12 for style in styles)
    # some heaps are of one style of dice, some mixed
    kinds = [len({look.style for look in style.dice}) for style in styles]
    assert min(kinds) == 1 and max(kinds) > 1
    for style in styles:
        camera = style.camera
        assert camera.follow == 1.0  # aimed at the dice, wherever the heap lies
        assert 30.0 <= camera.elevation_deg <= 90.0
        assert abs(camera.azimuth_deg) <= 110.0  # never from behind the box's tower
