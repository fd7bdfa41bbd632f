"""What the dice generator samples, without rendering (no MuJoCo needed)."""

from __future__ import annotations

import numpy as np
import pytest

from synth.dice.style import (
    DICE_STYLES,
    luminance,
    marble_texture,
    sample_die_look,
    sample_pile_style,
)


def test_every_die_look_has_pips_a_judge_can_see() -> None:
    """A die whose pips are the colour of its body is labelled with a value nobody can read."""
    rng = np.random.default_rng(0)
    for style in DICE_STYLES:
        for _ in range(200):
            look = sample_die_look(rng, style)
            body = luminance(look.body)
            for pip in (look.pip, look.accent):
                assert abs(body - luminance(pip)) > 0.25, (style, look)


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


def test_half_a_heaps_dice_are_marbled_and_keep_their_pips_visible() -> None:
    looks = [look for seed in range(20)
             for look in sample_pile_style(np.random.default_rng(seed), 12).dice]
    marbled = [look for look in looks if look.veins is not None]
    assert 0.35 < len(marbled) / len(looks) < 0.65
    for look in marbled:  # the veins keep to the body's side of its pips
        body, pip = luminance(look.body), luminance(look.pip)
        assert abs(luminance(look.veins) - pip) > 0.5 * abs(body - pip), look


def test_a_marbled_body_is_a_cube_texture_of_two_colours() -> None:
    look = next(look for seed in range(20)
                for look in sample_pile_style(np.random.default_rng(seed), 12).dice
                if look.veins is not None)
    texture = marble_texture(look, 32)
    assert texture.shape == (6 * 32, 32, 3) and texture.dtype == np.uint8
    body = np.array(look.body[:3]) * 255
    veins = np.array(look.veins) * 255
    near_body = np.abs(texture - body).max(axis=2) < 12
    near_veins = np.abs(texture - veins).max(axis=2) < 12
    assert near_body.mean() > 0.1 and near_veins.mean() > 0.02
    with pytest.raises(ValueError):
        marble_texture(sample_die_look(np.random.default_rng(0)), 32)
