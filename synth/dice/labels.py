"""Exact labels of a rendered scene, and their JSON form (one line per picture).

A label line extends the `read-dice` output of FORMATS.md (`value`, `cocked`, `box`) with what
only a simulation knows: tilt, stopped inside the box, 3D pose, visible pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from synth.dice.geometry import is_cocked
from synth.dice.physics import DiceWorld

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class DieLabel:
    """One die. `value` is None when cocked; `top_face` is the face nearest to up all the
    same. `box` is [x, y, w, h] around the die's visible pixels, None when none show."""

    value: int | None
    top_face: int
    cocked: bool
    tilt_deg: float
    in_box: bool
    at_rest: bool
    box: Box | None
    visible_px: int
    position: tuple[float, float, float]
    quat: tuple[float, float, float, float]

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "cocked": self.cocked, "tilt_deg": round(self.tilt_deg, 2),
                "in_box": self.in_box, "at_rest": self.at_rest,
                "box": list(self.box) if self.box is not None else None,
                "visible_px": self.visible_px, "top_face": self.top_face,
                "pose": {"position": [round(v, 6) for v in self.position],
                         "quat": [round(v, 6) for v in self.quat]}}


@dataclass(frozen=True)
class ImageLabel:
    image: str
    mask: str
    dice: list[DieLabel]
    scenario: str
    seed: list[int]
    camera: dict[str, Any] = field(default_factory=dict)
    style: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image, "mask": self.mask,
                "dice": [d.to_json() for d in self.dice], "scenario": self.scenario,
                "seed": self.seed, "camera": self.camera, "style": self.style}


def mask_box(mask: NDArray[np.uint8], value: int) -> tuple[Box | None, int]:
    """The [x, y, w, h] box around the pixels equal to `value`, and how many there are."""
    ys, xs = np.nonzero(mask == value)
    if xs.size == 0:
        return None, 0
    x0, y0 = int(xs.min()), int(ys.min())
    return (x0, y0, int(xs.max()) - x0 + 1, int(ys.max()) - y0 + 1), int(xs.size)


def die_labels(world: DiceWorld, mask: NDArray[np.uint8]) -> list[DieLabel]:
    labels = []
    for i in range(world.dice):
        state = world.state(i)
        # Flat or cocked on the surface it rests on: flat on the box's ramp is not cocked.
        face, tilt = state.top(world.support_normal(i))
        cocked = is_cocked(tilt)
        box, pixels = mask_box(mask, i + 1)
        labels.append(DieLabel(
            value=None if cocked else face, top_face=face, cocked=cocked, tilt_deg=tilt,
            in_box=world.in_box(i), at_rest=world.at_rest(i), box=box, visible_px=pixels,
            position=(float(state.position[0]), float(state.position[1]),
                      float(state.position[2])),
            quat=(float(state.quat[0]), float(state.quat[1]), float(state.quat[2]),
                  float(state.quat[3]))))
    return labels


def camera_json(world: DiceWorld, camera: int) -> dict[str, Any]:
    """Camera pose and pinhole intrinsics (pixels; y down) as MuJoCo renders it."""
    m, d = world.model, world.data
    width, height = world.params.width, world.params.height
    fy = height / 2 / np.tan(np.radians(m.cam_fovy[camera]) / 2)
    return {"position": [round(float(v), 6) for v in d.cam_xpos[camera]],
            "xmat": [round(float(v), 6) for v in d.cam_xmat[camera]],
            "fovy_deg": round(float(m.cam_fovy[camera]), 3),
            "intrinsics": [[round(float(fy), 3), 0.0, width / 2], [0.0, round(float(fy), 3),
                           height / 2], [0.0, 0.0, 1.0]],
            "size": [width, height]}
