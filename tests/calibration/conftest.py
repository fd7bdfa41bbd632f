"""Rendered boards for the calibration tests (synth/board, no lighting effects or hands)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from synth.board.render import BoardRenderer

SIZE = (1280, 720)


@pytest.fixture(scope="package")
def boards() -> list[tuple[np.ndarray[Any, Any], dict[str, Any]]]:
    """Three scenes, each from its own board design: (BGR image, label)."""
    out = []
    for seed in (3, 4, 5):
        scene = BoardRenderer(seed, SIZE, hand_rate=0.0, effects=False).next_scene()
        out.append((scene.image, scene.label))
    return out
