"""Die geometry without MuJoCo: the rounded-cube hull, the pip layout, faces and tilt.

Die frame: +z shows 1, -z 6, +x 2, -x 5, +y 3, -y 4 (opposite faces add up to 7; 1, 2, 3
run counter-clockwise around their shared corner, as on most Western dice). World frame: z up.
Quaternions are MuJoCo's (w, x, y, z).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

COCKED_DEG = 3.0
"""A die is cocked when no face normal is within this many degrees of straight up. At rest a
die lies on a face (0.0-0.5 degrees) or is held up by something, a wall, the other die or the
box's exit lip, at 5 degrees or more: 3,300 dice of four scene sets, none between. The rules
call cocked a die "not flat", so the line lies in that gap. (It lay at 10 until 2026-12-04,
which split the dice on the exit lip, 5-16 degrees, into flat and cocked.)"""

FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0),
    6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0),
    5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0),
    4: (0.0, -1.0, 0.0),
}

# Pip centres in face coordinates (u, v), in units of the pip spacing.
_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (-1, 1), (1, -1), (1, 1)),
    5: ((-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


def rounded_cube_vertices(half: float, radius: float, steps: int = 3) -> FloatArray:
    """Points whose convex hull is a cube of half-size `half` with edges rounded by `radius`."""
    radius = min(max(radius, 1e-5), half * 0.9)
    inner = half - radius
    angles = np.linspace(0.0, math.pi / 2, steps + 1)
    octant = []
    for theta in angles:  # polar angle from +z
        for phi in angles:
            octant.append((math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi),
                           math.cos(theta)))
    unit = np.unique(np.round(np.array(octant), 9), axis=0)
    points = []
    for sx in (-1.0, 1.0):
        for sy in (-1.0, 1.0):
            for sz in (-1.0, 1.0):
                sign = np.array([sx, sy, sz])
                points.append(inner * sign + radius * unit * sign)
    return np.unique(np.round(np.concatenate(points), 9), axis=0)


def face_frame(value: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Normal n and in-face axes u, v (right-handed: u x v = n) of the face showing `value`."""
    n = np.array(FACE_NORMALS[value])
    helper = np.array([0.0, 0.0, 1.0]) if abs(n[2]) < 0.5 else np.array([1.0, 0.0, 0.0])
    u = np.cross(helper, n)
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    return n, u, v


def pip_centres(value: int, half: float, spacing: float) -> FloatArray:
    """Pip centres (k, 3) on the face showing `value`, in the die frame, on the face plane."""
    n, u, v = face_frame(value)
    return np.array([half * n + spacing * (i * u + j * v) for i, j in _LAYOUT[value]])


def quat_from_z(direction: FloatArray) -> FloatArray:
    """A quaternion turning +z onto `direction` (unit vector)."""
    z = np.array([0.0, 0.0, 1.0])
    d = direction / np.linalg.norm(direction)
    dot = float(np.dot(z, d))
    if dot < -0.999999:
        return np.array([0.0, 1.0, 0.0, 0.0])
    axis = np.cross(z, d)
    q = np.array([1.0 + dot, *axis])
    return np.asarray(q / np.linalg.norm(q), dtype=np.float64)


def quat_to_mat(q: FloatArray) -> FloatArray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def quat_mul(a: FloatArray, b: FloatArray) -> FloatArray:
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


def axis_angle_quat(axis: FloatArray, angle: float) -> FloatArray:
    axis = axis / np.linalg.norm(axis)
    return np.array([math.cos(angle / 2), *(math.sin(angle / 2) * axis)])


def random_quat(rng: np.random.Generator) -> FloatArray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def top_face(rotation: FloatArray, up: FloatArray | None = None) -> tuple[int, float]:
    """The face most nearly pointing `up` (a unit vector, default straight up) and its angle
    from it, in degrees.

    `rotation` is the die's 3x3 rotation matrix (die frame to world frame).
    """
    direction = np.array([0.0, 0.0, 1.0]) if up is None else np.asarray(up, float)
    best_value, best_up = 1, -2.0
    for value, normal in FACE_NORMALS.items():
        along = float(direction @ (rotation @ np.array(normal)))
        if along > best_up:
            best_value, best_up = value, along
    return best_value, math.degrees(math.acos(min(1.0, max(-1.0, best_up))))


def is_cocked(tilt_deg: float) -> bool:
    return tilt_deg > COCKED_DEG
