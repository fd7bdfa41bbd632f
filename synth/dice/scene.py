"""The MJCF scene: a baffle box (funnel, slanted panels, ramp, exit) over a walled tray, and the
dice (two for a throw, more for a pile).

Pure string building, no MuJoCo import. Lengths in metres; the tray floor is z = 0, the exit
plane of the box is x = 0 (the box behind it at x < 0, the tray in front at x > 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synth.dice.geometry import FACE_NORMALS, pip_centres, quat_from_z, rounded_cube_vertices

TEXTURE_SIZE = 256
DIE_TEXTURE_SIZE = 64  # a side of a die's cube texture (a marbled body); unused by plain dice
WALL = 0.006  # wall thickness


@dataclass(frozen=True)
class BoxGeometry:
    """Sizes of the baffle box and tray (metres, degrees)."""

    tower_depth: float = 0.12  # x extent of the box
    tower_width: float = 0.11  # y extent of box and exit
    tower_height: float = 0.26
    exit_height: float = 0.05
    tray_length: float = 0.26  # x extent of the tray
    tray_width: float = 0.22
    tray_wall: float = 0.035
    ramp_deg: float = 22.0  # slope of the bottom ramp that leads to the exit

    @property
    def ramp_top(self) -> float:
        return self.tower_depth * math.tan(math.radians(self.ramp_deg))


@dataclass(frozen=True)
class DieShape:
    half: float = 0.008  # half the edge length
    edge_radius: float = 0.0015
    pip_spacing: float = 0.5  # pip grid spacing, in units of `half`
    pip_radius: float = 0.16  # in units of `half`


@dataclass(frozen=True)
class SceneParams:
    box: BoxGeometry = BoxGeometry()
    die: DieShape = DieShape()
    width: int = 640
    height: int = 480
    timestep: float = 0.002
    dice: int = 2


def _fmt(values: np.ndarray | tuple[float, ...] | list[float]) -> str:
    return " ".join(f"{float(v):.6g}" for v in values)


def _plate(name: str, centre: tuple[float, float, float], half: tuple[float, float, float],
           pitch_deg: float = 0.0, material: str = "wood", extra: str = "") -> str:
    """A box geom rotated about the y axis by `pitch_deg`."""
    a = math.radians(pitch_deg) / 2
    quat = (math.cos(a), 0.0, math.sin(a), 0.0)
    return (f'<geom name="{name}" type="box" pos="{_fmt(centre)}" size="{_fmt(half)}" '
            f'quat="{_fmt(quat)}" material="{material}" {extra}/>')


def _slope(name: str, x_high: float, z_high: float, x_low: float, z_low: float,
           half_y: float) -> str:
    """A panel from (x_high, z_high) down to (x_low, z_low), its top surface on that line."""
    dx, dz = x_low - x_high, z_low - z_high
    length = math.hypot(dx, dz)
    pitch = math.degrees(math.atan2(dz, dx))  # rotation about y that takes +x onto the slope
    # the normal of the top surface, pointing up
    nx, nz = -dz / length, dx / length
    if nz < 0:
        nx, nz = -nx, -nz
    cx = (x_high + x_low) / 2 - nx * WALL / 2
    cz = (z_high + z_low) / 2 - nz * WALL / 2
    return _plate(name, (cx, 0.0, cz), (length / 2, half_y, WALL / 2), -pitch,
                  extra='class="panel"')


def box_geoms(box: BoxGeometry) -> list[str]:
    """World geoms of the tray and the baffle box."""
    d, wy, h = box.tower_depth, box.tower_width / 2, box.tower_height
    tl, ty, tw = box.tray_length, box.tray_width / 2, box.tray_wall
    t = WALL / 2
    g = [
        # tray floor, lined with the tray texture, running under the box too
        f'<geom name="floor" type="box" pos="{_fmt(((tl - d) / 2, 0, -t))}" '
        f'size="{_fmt(((tl + d) / 2 + WALL, ty + WALL, t))}" material="tray" class="panel"/>',
        _plate("tray_far", (tl + t, 0, tw / 2), (t, ty + WALL, tw / 2)),
        _plate("tray_left", (tl / 2, ty + t, tw / 2), (tl / 2, t, tw / 2)),
        _plate("tray_right", (tl / 2, -ty - t, tw / 2), (tl / 2, t, tw / 2)),
        # the tray's near wall on both sides of the exit
        _plate("tray_near_l", (t, (ty + wy) / 2 + t, tw / 2), (t, (ty - wy) / 2, tw / 2)),
        _plate("tray_near_r", (t, -(ty + wy) / 2 - t, tw / 2), (t, (ty - wy) / 2, tw / 2)),
        # the box: back, sides, front above the exit
        _plate("box_back", (-d - t, 0, h / 2), (t, wy + WALL, h / 2)),
        _plate("box_left", (-d / 2, wy + t, h / 2), (d / 2 + WALL, t, h / 2)),
        _plate("box_right", (-d / 2, -wy - t, h / 2), (d / 2 + WALL, t, h / 2)),
        _plate("box_front", (t, 0, (h + box.exit_height) / 2),
               (t, wy, (h - box.exit_height) / 2)),
        # inner panels, alternating, and the ramp to the exit
        _slope("panel_1", -d, 0.80 * h, -0.3 * d, 0.57 * h, wy),
        _slope("panel_2", 0.0, 0.50 * h, -0.72 * d, 0.28 * h, wy),
        # the ramp in two parts: the lower one, near the exit, is where a die may stall
        _slope("ramp", -d, box.ramp_top, -0.6 * d, 0.6 * box.ramp_top, wy),
        _slope("ramp_low", -0.6 * d, 0.6 * box.ramp_top, 0.0, 0.0, wy),
    ]
    # the funnel: four plates leaning out from the top rim
    flare, lean = 0.05, 40.0
    s, c = math.sin(math.radians(lean)), math.cos(math.radians(lean))
    for name, sign in (("funnel_back", -1.0), ("funnel_front", 1.0)):
        x0 = 0.0 if sign > 0 else -d
        centre = (x0 + sign * s * flare / 2, 0.0, h + c * flare / 2)
        g.append(_plate(name, centre, (t, wy + flare * s, flare / 2), sign * lean))
    for name, sign in (("funnel_left", 1.0), ("funnel_right", -1.0)):
        a = math.radians(-sign * lean) / 2
        quat = (math.cos(a), math.sin(a), 0.0, 0.0)
        centre = (-d / 2, sign * (wy + s * flare / 2), h + c * flare / 2)
        g.append(f'<geom name="{name}" type="box" pos="{_fmt(centre)}" '
                 f'size="{_fmt((d / 2 + flare * s, t, flare / 2))}" quat="{_fmt(quat)}" '
                 f'material="wood"/>')
    return g


def die_body(index: int, die: DieShape) -> str:
    """A free die body: the rounded hull that collides and renders, pips that only render."""
    parts = [f'<body name="die{index}" pos="{0.05 * index:.3f} 0 0.1">',
             f'<freejoint name="die{index}_joint"/>',
             f'<geom name="die{index}" type="mesh" mesh="die_hull" material="die{index}" '
             f'class="die"/>']
    radius = die.pip_radius * die.half
    for value in range(1, 7):
        for k, centre in enumerate(pip_centres(value, die.half, die.pip_spacing * die.half)):
            n = np.array(FACE_NORMALS[value])
            material = f"pipaccent{index}" if value in (1, 4) else f"pip{index}"
            parts.append(
                f'<geom name="die{index}_pip{value}_{k}" type="ellipsoid" class="pip" '
                f'pos="{_fmt(centre - n * radius * 0.05)}" quat="{_fmt(quat_from_z(n))}" '
                f'size="{_fmt((radius, radius, radius * 0.12))}" material="{material}"/>')
    parts.append("</body>")
    return "\n".join(parts)


def build_xml(params: SceneParams) -> str:
    die, box = params.die, params.box
    hull = rounded_cube_vertices(die.half, die.edge_radius)
    offw = max(params.width, 640)
    offh = max(params.height, 480)
    materials = "\n".join(
        f'<texture name="dietex{i}" type="cube" builtin="flat" width="{DIE_TEXTURE_SIZE}" '
        f'height="{DIE_TEXTURE_SIZE}" rgb1="1 1 1"/>'
        f'<material name="die{i}" rgba="0.95 0.95 0.92 1" specular="0.4" shininess="0.5"/>'
        f'<material name="pip{i}" rgba="0.05 0.05 0.05 1" specular="0.1"/>'
        f'<material name="pipaccent{i}" rgba="0.05 0.05 0.05 1" specular="0.1"/>'
        for i in range(params.dice))
    return f"""<mujoco model="baffle_box_dice">
<compiler angle="degree" autolimits="true"/>
<option timestep="{params.timestep}" cone="elliptic" impratio="3" noslip_iterations="0"/>
<visual>
  <global offwidth="{offw}" offheight="{offh}"/>
  <quality shadowsize="1024" offsamples="2"/>
  <headlight ambient="0.25 0.25 0.25" diffuse="0.3 0.3 0.3" specular="0.1 0.1 0.1"/>
  <map znear="0.01" zfar="50"/>
</visual>
<default>
  <geom friction="0.5 0.02 0.0001" solref="0.004 0.6"/>
  <default class="panel"><geom friction="0.4 0.02 0.0001"/></default>
  <default class="die"><geom density="1200" friction="0.45 0.03 0.0003"
      solref="0.004 0.5" condim="4"/></default>
  <default class="pip"><geom contype="0" conaffinity="0" density="0" group="1"/></default>
</default>
<asset>
  <mesh name="die_hull" vertex="{_fmt(hull.ravel())}"/>
  <texture name="traytex" type="2d" builtin="flat" width="{TEXTURE_SIZE}"
      height="{TEXTURE_SIZE}" rgb1="0.1 0.4 0.15"/>
  <texture name="woodtex" type="2d" builtin="flat" width="{TEXTURE_SIZE}"
      height="{TEXTURE_SIZE}" rgb1="0.5 0.3 0.15"/>
  <texture name="tabletex" type="2d" builtin="flat" width="{TEXTURE_SIZE}"
      height="{TEXTURE_SIZE}" rgb1="0.3 0.3 0.3"/>
  <material name="table" texture="tabletex" texrepeat="8 8" specular="0.1" shininess="0.2"/>
  <material name="tray" texture="traytex" texrepeat="3 3" specular="0.05" shininess="0.1"/>
  <material name="wood" texture="woodtex" texrepeat="2 2" specular="0.2" shininess="0.3"/>
  {materials}
</asset>
<worldbody>
  <light name="key" type="directional" pos="0 0 1" dir="0 0 -1" castshadow="true"
      diffuse="0.7 0.7 0.7"/>
  <light name="fill" type="spot" pos="0.1 0.3 0.6" dir="0 -0.4 -1" castshadow="false"
      diffuse="0.2 0.2 0.2" cutoff="60"/>
  <camera name="view" pos="0.13 0 0.5" xyaxes="0 -1 0 1 0 0" fovy="45"/>
  <geom name="table" type="plane" pos="0 0 {-WALL - 0.0005}" size="2 2 0.1" material="table"
      contype="0" conaffinity="0"/>
  {chr(10).join(box_geoms(box))}
  {chr(10).join(die_body(i, die) for i in range(params.dice))}
</worldbody>
</mujoco>
"""
