"""Procedural surfaces made from value noise: wood, felt, leather, linen. BGR uint8 out."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from synth.board.style import BGR, Surface

Image = npt.NDArray[np.uint8]
Gray = npt.NDArray[np.float32]


def value_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> Gray:
    """Smooth noise in [0, 1] with features about `cell` pixels across."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    grid = rng.random((gh, gw), dtype=np.float32)
    return np.asarray(cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC), np.float32)


def _grain(rng: np.random.Generator, h: int, w: int, vertical: bool) -> Gray:
    """Wood: growth rings bent by stretched noise, plus fine fibres."""
    along, across = (h, w) if vertical else (w, h)
    warp = cv2.resize(rng.random((max(2, across // 40), max(2, along // 150)),
                                 dtype=np.float32), (along, across),
                      interpolation=cv2.INTER_CUBIC)
    pos = np.arange(across, dtype=np.float32)[:, None]
    freq = float(rng.uniform(0.04, 0.12))
    rings = np.sin(pos * freq + warp * float(rng.uniform(6, 14)))
    fibres = cv2.resize(rng.random((across, max(2, along // 60)), dtype=np.float32),
                        (along, across), interpolation=cv2.INTER_LINEAR)
    g = 0.55 * np.abs(rings) ** 0.6 + 0.45 * fibres
    g = g.T if vertical else g
    return np.ascontiguousarray(g, dtype=np.float32)


def surface(rng: np.random.Generator, h: int, w: int, colour: BGR, kind: Surface,
            vertical: bool = False) -> Image:
    """An h x w patch of a surface in the given base colour."""
    if kind == "wood":
        shade = 0.78 + 0.38 * _grain(rng, h, w, vertical)
    elif kind == "felt":
        shade = 0.93 + 0.08 * value_noise(rng, h, w, 1.5) + 0.05 * value_noise(rng, h, w, 60)
    elif kind == "leather":
        pores = value_noise(rng, h, w, 3.0)
        shade = 0.88 + 0.18 * pores**2 + 0.06 * value_noise(rng, h, w, 80)
    elif kind == "linen":
        streaks = rng.random((h, 1), dtype=np.float32)  # the weave's rows
        shade = 0.95 + 0.04 * value_noise(rng, h, w, 1.2) + 0.03 * streaks
    else:
        shade = 0.97 + 0.05 * value_noise(rng, h, w, 120)
    out = shade[..., None] * np.array(colour, np.float32)[None, None, :]
    return np.asarray(np.clip(out, 0, 255), np.uint8)
