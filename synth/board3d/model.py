"""The MJCF scene of a board: table, board base and frame, field, bar, trays, 30 checkers.

Pure string building, no MuJoCo import. Every geom is a static world geom that only renders
(no collisions); `Board3DRenderer` moves and resizes them per board and per position through
`model.geom_pos` / `model.geom_size`, and repaints the textures, so one compiled model and one
GL context serve a whole run. Lengths in metres; z up, the field's surface at z = 0.
"""

from __future__ import annotations

CHECKERS_PER_SIDE = 15
CHECKERS = 2 * CHECKERS_PER_SIDE  # geoms ck0..ck29: 0-14 light (white), 15-29 dark (black)
FIELD_TEXTURE = 1024  # the field's texture is square; the top face of the field box stretches it
SURFACE_TEXTURE = 512  # frame and table textures, repeated

# Boxes of the board besides the field; their sizes are set per board.
FRAME_GEOMS = ("frame_top", "frame_bottom", "frame_left", "frame_right", "frame_mid_l",
               "frame_mid_r")
TRAY_GEOMS = ("tray_l", "tray_r")


def _box(name: str, material: str) -> str:
    return (f'<geom name="{name}" type="box" size="0.01 0.01 0.01" material="{material}" '
            f'contype="0" conaffinity="0"/>')


def _checker(i: int) -> str:
    side = "light" if i < CHECKERS_PER_SIDE else "dark"
    return (f'<geom name="ck{i}" type="cylinder" size="0.015 0.0035" material="{side}" '
            f'contype="0" conaffinity="0"/>'
            f'<geom name="in{i}" type="cylinder" size="0.01 0.0002" material="{side}_inlay" '
            f'contype="0" conaffinity="0"/>')


def build_xml(width: int, height: int) -> str:
    """The scene for pictures of `width` x `height` pixels."""
    boxes = "\n  ".join([_box("field", "field"), _box("bar", "bar")]
                        + [_box(n, "frame") for n in FRAME_GEOMS]
                        + [_box(n, "tray") for n in TRAY_GEOMS])
    checkers = "\n  ".join(_checker(i) for i in range(CHECKERS))
    materials = "\n  ".join(
        f'<material name="{n}" rgba="0.8 0.8 0.8 1" specular="0.3" shininess="0.5"/>'
        for n in ("bar", "tray", "light", "dark", "light_inlay", "dark_inlay"))
    return f"""<mujoco model="nardy_board">
<compiler angle="degree"/>
<statistic extent="1" center="0 0 0"/>
<visual>
  <global offwidth="{max(width, 64)}" offheight="{max(height, 64)}"/>
  <quality shadowsize="2048" offsamples="2"/>
  <headlight ambient="0.25 0.25 0.25" diffuse="0.1 0.1 0.1" specular="0 0 0"/>
  <map znear="0.02" zfar="20" shadowclip="1.6" shadowscale="0.8"/>
</visual>
<asset>
  <texture name="fieldtex" type="2d" builtin="flat" width="{FIELD_TEXTURE}"
      height="{FIELD_TEXTURE}" rgb1="0.8 0.8 0.8"/>
  <texture name="frametex" type="2d" builtin="flat" width="{SURFACE_TEXTURE}"
      height="{SURFACE_TEXTURE}" rgb1="0.4 0.3 0.2"/>
  <texture name="tabletex" type="2d" builtin="flat" width="{SURFACE_TEXTURE}"
      height="{SURFACE_TEXTURE}" rgb1="0.3 0.3 0.3"/>
  <material name="field" texture="fieldtex" specular="0.1" shininess="0.2"/>
  <material name="frame" texture="frametex" texuniform="true" texrepeat="2 2"
      specular="0.3" shininess="0.4"/>
  <material name="table" texture="tabletex" texuniform="true" texrepeat="1 1"
      specular="0.05" shininess="0.1"/>
  {materials}
</asset>
<worldbody>
  <light name="key" type="directional" pos="0 0 2" dir="0 0 -1" castshadow="true"
      diffuse="0.7 0.7 0.7"/>
  <light name="fill" type="directional" pos="0 0 2" dir="0 0 -1" castshadow="false"
      diffuse="0.2 0.2 0.2"/>
  <camera name="view" pos="0 0 1.5" xyaxes="1 0 0 0 1 0" fovy="45"/>
  <geom name="table" type="plane" pos="0 0 -0.03" size="4 4 0.1" material="table"
      contype="0" conaffinity="0"/>
  {boxes}
  {checkers}
</worldbody>
</mujoco>
"""
