"""Offscreen rendering through MuJoCo's camera: the colour picture, the per-die index mask from
the segmentation pass, and the image-space effects (blur, noise, gain, JPEG happens on save).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from synth.dice._mujoco import mujoco
from synth.dice.physics import DiceWorld
from synth.dice.scene import DIE_TEXTURE_SIZE
from synth.dice.style import Style, make_texture, marble_texture

Image = NDArray[np.uint8]
RGB_ROLE = 1  # mjtTextureRole.mjTEXROLE_RGB: the material's colour texture


class SceneRenderer:
    """Applies a `Style` to a `DiceWorld`'s model and renders it (RGB, dice index mask)."""

    def __init__(self, world: DiceWorld) -> None:
        self.world = world
        m = world.model
        self.width, self.height = world.params.width, world.params.height
        self.renderer = mujoco.Renderer(m, self.height, self.width)
        self.camera = m.camera("view").id
        self.key, self.fill = m.light("key").id, m.light("fill").id
        # geom id -> die index + 1 (0: not a die)
        self.geom_die = np.zeros(m.ngeom + 1, dtype=np.uint8)
        for i, body in enumerate(world.die_bodies):
            self.geom_die[:-1][m.geom_bodyid == body] = i + 1
        self.pips = [np.flatnonzero((m.geom_bodyid == body) & (m.geom_type == 4))
                     for body in world.die_bodies]  # 4: mjGEOM_ELLIPSOID
        self._pip_size = m.geom_size.copy()
        self._pip_pos = m.geom_pos.copy()
        self._textures = {name: m.texture(name).id for name in ("traytex", "woodtex", "tabletex")}
        self._textures |= {f"dietex{i}": m.texture(f"dietex{i}").id for i in range(world.dice)}

    def close(self) -> None:
        self.renderer.close()

    # --- style -------------------------------------------------------------------------
    def apply(self, style: Style) -> None:
        """Colours, pips, textures, lights and camera of `style`; a following camera aims
        between its `lookat` and the dice where they lie now (so apply after the throw)."""
        m = self.world.model
        for i, look in enumerate(style.dice):
            material = m.material(f"die{i}").id
            m.mat_rgba[material] = look.body
            if look.veins is None:
                m.mat_texid[material, RGB_ROLE] = -1
            else:  # the texture holds the colours; the material's alpha stays
                self._texture(f"dietex{i}", marble_texture(look, DIE_TEXTURE_SIZE))
                m.mat_texid[material, RGB_ROLE] = self._textures[f"dietex{i}"]
                m.mat_rgba[material, :3] = 1.0
            m.mat_specular[material] = look.specular
            m.mat_shininess[material] = look.shininess
            m.mat_rgba[m.material(f"pip{i}").id] = look.pip
            m.mat_rgba[m.material(f"pipaccent{i}").id] = look.accent
            for g in self.pips[i]:
                m.geom_size[g] = self._pip_size[g] * np.array([style.pip_scale,
                                                               style.pip_scale, 1.0])
        self._texture("traytex", make_texture(style.tray_kind, style.tray_colour,
                                              style.texture_seed))
        self._texture("woodtex", make_texture("wood", style.wood_colour, style.texture_seed + 1))
        self._texture("tabletex", make_texture(style.table_kind, style.table_colour,
                                               style.texture_seed + 2))
        self._lights(style)
        focus = np.mean([self.world.state(i).position[:2] for i in range(self.world.dice)],
                        axis=0)
        pos, rot = style.camera.aimed((float(focus[0]), float(focus[1]))).pose()
        m.cam_pos[self.camera] = pos
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, rot.ravel())
        m.cam_quat[self.camera] = quat
        m.cam_fovy[self.camera] = style.camera.fovy_deg

    def _texture(self, name: str, image: Image) -> None:
        m = self.world.model
        tex = self._textures[name]
        adr, n = int(m.tex_adr[tex]), image.size
        m.tex_data[adr:adr + n] = image.ravel()
        # the renderer's GL context holds its own copy; refresh it
        mujoco.mjr_uploadTexture(m, self.renderer._mjr_context, tex)

    def _lights(self, style: Style) -> None:
        m, light = self.world.model, style.light
        el, az = math.radians(light.elevation_deg), math.radians(light.azimuth_deg)
        towards = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
                            math.sin(el)])
        m.light_dir[self.key] = -towards
        m.light_pos[self.key] = np.array([0.1, 0.0, 0.0]) + towards * 1.0
        m.light_diffuse[self.key] = np.array(light.colour) * light.intensity
        m.light_specular[self.key] = 0.3 * light.intensity
        m.light_castshadow[self.key] = light.shadows
        m.light_diffuse[self.fill] = light.fill
        m.vis.headlight.ambient[:] = light.ambient
        m.vis.headlight.diffuse[:] = 0.15

    # --- pictures ----------------------------------------------------------------------
    def render(self) -> tuple[Image, Image]:
        """RGB picture (H, W, 3, RGB order) and index mask (H, W): 0 background, k+1 die k."""
        m, d = self.world.model, self.world.data
        mujoco.mj_forward(m, d)
        r = self.renderer
        r.update_scene(d, self.camera)
        rgb = r.render().copy()
        r.enable_segmentation_rendering()
        try:
            r.update_scene(d, self.camera)
            seg = r.render()
        finally:
            r.disable_segmentation_rendering()
        ids = seg[..., 0].astype(np.int64)
        is_geom = seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)
        mask = np.where(is_geom & (ids >= 0), self.geom_die[np.clip(ids, 0, m.ngeom)], 0)
        return rgb, mask.astype(np.uint8)


def apply_effects(rgb: Image, style: Style, rng: np.random.Generator) -> Image:
    """Blur, motion blur, gain/gamma and sensor noise on an RGB picture (uint8 throughout)."""
    e = style.effects
    out: Image = rgb
    if e.blur_sigma > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), e.blur_sigma), dtype=np.uint8)
    if e.motion_px > 1:
        kernel = np.zeros((e.motion_px, e.motion_px), np.float32)
        kernel[e.motion_px // 2, :] = 1.0
        centre = ((e.motion_px - 1) / 2, (e.motion_px - 1) / 2)
        rotation = cv2.getRotationMatrix2D(centre, e.motion_deg, 1.0)
        kernel = np.asarray(cv2.warpAffine(kernel, rotation, kernel.shape[::-1]), np.float32)
        kernel /= max(float(kernel.sum()), 1e-6)
        out = np.asarray(cv2.filter2D(out, -1, kernel), dtype=np.uint8)
    levels = np.arange(256, dtype=np.float64) / 255.0
    lut = np.clip(255.0 * np.power(np.clip(levels * e.gain, 0.0, 1.0), e.gamma) + 0.5, 0, 255)
    out = np.asarray(cv2.LUT(out, lut.astype(np.uint8)), dtype=np.uint8)
    if e.noise_sigma > 0:
        noise = rng.standard_normal(out.shape, dtype=np.float32) * e.noise_sigma
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return out
