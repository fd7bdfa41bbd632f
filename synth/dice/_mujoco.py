"""Import MuJoCo with an offscreen GL backend chosen (EGL unless MUJOCO_GL says otherwise).

MuJoCo picks its GL backend when first imported, so every module here imports it through this
one. EGL needs the Debian packages libegl1 and libgl1-mesa-dri; MUJOCO_GL=osmesa needs
libosmesa6.
"""

from __future__ import annotations

import os

os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco

__all__ = ["mujoco"]
