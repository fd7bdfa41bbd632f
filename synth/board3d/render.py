"""3D board scenes rendered offscreen with MuJoCo, with exact labels.

A `Board3DRenderer` draws a sequence of scenes from one seed. One compiled model and GL context
serve the whole run: each board design resizes the boxes and repaints the textures (a board
stays for a short session of 1-4 pictures, as at a real table); each picture has its own
position, camera and light. Checkers are placed by `synth.board.scene.place`, so rows, layers,
bar and tray follow the same geometry as the 2.5D generator and the board reader; a layer rests
on the one below (z = layer x thickness) and borne-off checkers stand in stacks in the tray.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from calibration.layout import Half
from calibration.numbering import CORNERS, Layout
from referee.position import BAR, OFF, Position, Side, Variant
from synth.board.scene import COLOUR_OF, Placement, image_counts, place, random_game
from synth.board.textures import Image
from synth.board3d.board import (
    FINISHES,
    Board,
    field_texture,
    inlay_colour,
    random_board,
    rgba,
    surface_texture,
)
from synth.board3d.camera import Camera, fit, look_at, random_choice
from synth.board3d.model import CHECKERS, CHECKERS_PER_SIDE, build_xml
from synth.dice._mujoco import mujoco

Array = np.ndarray[Any, Any]


@dataclass(slots=True)
class _Session:
    board: Board
    layout: Layout
    game: list[Position]
    white_bar_half: Half
    left: int


@dataclass(frozen=True, slots=True)
class Scene:
    """A picture (BGR), its label, the geom id under each pixel (-1: none, int32) and the
    checker under each pixel (its index in `label["checkers"]`, -1: none, int16)."""

    image: Image
    label: dict[str, Any]
    geoms: Array
    checkers: Array


class Board3DRenderer:
    """Deterministic scenes for one seed: `next_scene()` again and again; `close()` at the end."""

    def __init__(self, seed: int | Sequence[int], size: tuple[int, int] = (1280, 720),
                 variants: tuple[Variant, ...] = (Variant.LONG, Variant.SHORT),
                 tilt_max: float = 35.0, session_length: int = 4, effects: bool = True) -> None:
        self.rng = np.random.default_rng(seed)
        self.size = size
        self.variants = variants
        self.tilt_max = tilt_max
        self.session_length = session_length
        self.effects = effects  # gain, blur and noise (off for exact-colour tests)
        self.model = mujoco.MjModel.from_xml_string(build_xml(*size))
        self.data = mujoco.MjData(self.model)
        self.renderer = mujoco.Renderer(self.model, size[1], size[0])
        m = self.model
        self.camera_id = m.camera("view").id
        # geom id -> checker geom index (0-29), -1 for the rest of the scene
        self.geom_checker = np.full(m.ngeom, -1, np.int64)
        for i in range(CHECKERS):
            self.geom_checker[m.geom(f"ck{i}").id] = i
            self.geom_checker[m.geom(f"in{i}").id] = i
        self.session: _Session | None = None

    def close(self) -> None:
        self.renderer.close()

    def geom_id(self, name: str) -> int:
        return int(self.model.geom(name).id)

    # --- the board -------------------------------------------------------------------------
    def _new_session(self) -> _Session:
        rng = self.rng
        board = random_board(rng)
        variant = self.variants[int(rng.integers(len(self.variants)))]
        layout = Layout(variant, CORNERS[int(rng.integers(4))])
        game = random_game(variant, rng, int(rng.integers(0, 160)))
        half: Half = "bottom" if rng.random() < 0.5 else "top"
        self._apply_board(board, rng)
        return _Session(board, layout, game, half, int(rng.integers(1, self.session_length + 1)))

    def _apply_board(self, board: Board, rng: np.random.Generator) -> None:
        m = self.model
        for name, (u0, v0, u1, v1, z0, z1) in board.boxes().items():
            g = self.geom_id(name)
            lo, hi = board.world(u0, v1, z0), board.world(u1, v0, z1)
            m.geom_pos[g] = (lo + hi) / 2
            m.geom_size[g] = np.abs(hi - lo) / 2
            m.geom_rbound[g] = float(np.linalg.norm(m.geom_size[g]))
        m.geom_pos[self.geom_id("table")] = (0.0, 0.0, -board.base)
        style = board.style
        self._upload("fieldtex", field_texture(board, rng))
        self._upload("frametex", surface_texture(rng, style.frame, style.frame_surface))
        self._upload("tabletex", surface_texture(rng, board.table, board.table_surface))
        m.mat_texrepeat[m.material("table").id] = float(rng.uniform(0.8, 3.0))
        m.mat_rgba[m.material("bar").id] = rgba(style.bar)
        m.mat_rgba[m.material("tray").id] = rgba(board.tray_colour)
        for name, look in (("light", style.light), ("dark", style.dark)):
            specular, shininess = FINISHES[look.finish]
            for mat, colour in ((name, look.colour), (f"{name}_inlay", inlay_colour(look, rng))):
                k = m.material(mat).id
                m.mat_rgba[k] = rgba(colour)
                m.mat_specular[k] = specular * float(rng.uniform(0.7, 1.2))
                m.mat_shininess[k] = shininess
        r = board.geometry.checker_diameter * board.metres / 2
        for i in range(CHECKERS):
            m.geom_size[self.geom_id(f"ck{i}")] = (r, board.thickness / 2, 0.0)
            m.geom_size[self.geom_id(f"in{i}")] = (r * board.inlay, 0.0002, 0.0)

    def _upload(self, name: str, image: Image) -> None:
        m = self.model
        tex = m.texture(name).id
        adr = int(m.tex_adr[tex])
        m.tex_data[adr:adr + image.size] = image.ravel()
        mujoco.mjr_uploadTexture(m, self.renderer._mjr_context, tex)

    # --- one picture -----------------------------------------------------------------------
    def next_scene(self) -> Scene:
        rng = self.rng
        if self.session is None or self.session.left <= 0:
            self.session = self._new_session()
        ses = self.session
        ses.left -= 1
        position = ses.game[int(rng.integers(len(ses.game)))]  # openings' tall stacks too
        stand = self._stand(ses, position)
        camera = self._camera(ses.board)
        light = self._lights()
        rgb, geoms = self._render()
        image = np.ascontiguousarray(rgb[..., ::-1])
        if self.effects:
            image = _effects(image, rng)
        owner = np.where(geoms >= 0, self.geom_checker[np.clip(geoms, 0, None)], -1)
        label = self._label(ses, position, stand, camera, owner)
        label["light"] = light
        to_label = np.full(CHECKERS + 1, -1, np.int16)
        for i, (_, k, _) in enumerate(stand):
            to_label[k] = i
        return Scene(image, label, geoms, to_label[owner])

    def bare(self) -> Array:
        """The geom ids of the last scene rendered again without its checkers."""
        m = self.model
        ids = [self.geom_id(f"{kind}{i}") for i in range(CHECKERS) for kind in ("ck", "in")]
        keep = m.geom_pos[ids].copy()
        m.geom_pos[ids] = (0.0, 0.0, -5.0)
        try:
            return self._render()[1]
        finally:
            m.geom_pos[ids] = keep

    def _stand(self, ses: _Session, position: Position) -> list[tuple[Placement, int, Array]]:
        """Set every checker geom; returns (placement, checker geom index, top-face centre)."""
        board, rng, m = ses.board, self.rng, self.model
        g, t = board.geometry, board.thickness
        d = g.checker_diameter
        out: list[tuple[Placement, int, Array]] = []
        used = {Side.WHITE: 0, Side.BLACK: CHECKERS_PER_SIDE}
        for p in place(position, ses.layout, g, ses.white_bar_half):
            (u, v), z = p.centre, 0.0
            if p.where == "point":
                z = p.layer * t
            elif p.where == "bar":
                z = board.bar
            else:  # stacks in the tray, from the home end inwards
                stack, level = divmod(p.index, board.per_stack)
                along = d * 0.55 + stack * d * 1.1
                v = along if v < g.height / 2 else g.height - along
                z = board.tray + level * t
                p = replace(p, layer=level, centre=(u, v))
            u += float(rng.normal(0, d * 0.015))
            v += float(rng.normal(0, d * 0.015))
            k = used[p.side]
            used[p.side] += 1
            m.geom_pos[self.geom_id(f"ck{k}")] = board.world(u, v, z + t / 2)
            m.geom_pos[self.geom_id(f"in{k}")] = board.world(u, v, z + t + 0.0002)
            out.append((p, k, board.world(u, v, z + t)))
        return out

    def _camera(self, board: Board) -> Camera:
        rng = self.rng
        c = random_choice(rng, self.tilt_max)
        g = board.geometry
        target = board.world(g.width * float(rng.uniform(0.45, 0.55)), g.height / 2, 0.0)
        cam = look_at(target, 1.0, c.tilt, c.azimuth, c.yaw, c.fovy, self.size)
        cam = fit(cam, board.outline(), c.fill, c.placement, 1.0)
        m, k = self.model, self.camera_id
        m.cam_pos[k] = cam.position
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, np.ascontiguousarray(cam.rotation).ravel())
        m.cam_quat[k] = quat
        m.cam_fovy[k] = cam.fovy
        return cam

    def _lights(self) -> dict[str, float]:
        """A key light with shadows from any side, a fill light, ambient; their colour."""
        rng, m = self.rng, self.model
        el, az = math.radians(rng.uniform(35, 85)), math.radians(rng.uniform(0, 360))
        towards = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
                            math.sin(el)])
        key, fill = m.light("key").id, m.light("fill").id
        intensity = float(rng.uniform(0.4, 0.75))
        tint = rng.uniform(0.9, 1.1, 3)
        m.light_dir[key] = -towards
        m.light_pos[key] = towards * 2.0
        m.light_diffuse[key] = intensity * tint
        m.light_specular[key] = 0.3 * intensity
        m.light_castshadow[key] = 1
        m.light_dir[fill] = -np.array([*rng.normal(0, 0.5, 2), 1.0])
        m.light_diffuse[fill] = float(rng.uniform(0.05, 0.2))
        ambient = float(rng.uniform(0.1, 0.3))
        m.vis.headlight.ambient[:] = ambient
        return {"elevation": round(math.degrees(el), 2), "azimuth": round(math.degrees(az), 2),
                "intensity": round(intensity, 3), "ambient": round(ambient, 3)}

    def _render(self) -> tuple[Image, Array]:
        """RGB picture and the geom id under each pixel (-1: nothing, or not a geom)."""
        m, d = self.model, self.data
        mujoco.mj_forward(m, d)
        # world geoms count as static: MuJoCo does not move them after a change of geom_pos
        d.geom_xpos[:] = m.geom_pos
        d.light_xpos[:] = m.light_pos
        d.light_xdir[:] = m.light_dir
        r = self.renderer
        r.update_scene(self.data, self.camera_id)
        rgb = np.asarray(r.render()).copy()
        r.enable_segmentation_rendering()
        try:
            r.update_scene(self.data, self.camera_id)
            seg = np.asarray(r.render())
        finally:
            r.disable_segmentation_rendering()
        is_geom = seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)
        return rgb, np.where(is_geom, seg[..., 0], -1).astype(np.int32)

    # --- labels ----------------------------------------------------------------------------
    def _label(self, ses: _Session, position: Position,
               stand: list[tuple[Placement, int, Array]], cam: Camera,
               owner: Array) -> dict[str, Any]:
        """`owner`: the checker geom index (0-29) under each pixel, -1 for none."""
        board, layout = ses.board, ses.layout
        g = board.geometry
        w, h = self.size
        pixels = np.bincount(owner[owner >= 0].ravel(), minlength=CHECKERS)
        tops = cam.project(np.array([top for _, _, top in stand]).reshape(-1, 3))
        checkers = []
        for i, ((p, k, _), c) in enumerate(zip(stand, tops, strict=True)):
            later = [q.centre for q, _, _ in stand[i + 1:] if q.where == p.where]
            on_top = all(math.dist(p.centre, q) > 0.9 * g.checker_diameter for q in later)
            x, y = math.floor(c[0]), math.floor(c[1])
            visible = 0 <= x < w and 0 <= y < h and int(owner[y, x]) == k
            checkers.append({
                "colour": p.colour, "side": p.side.value, "where": p.where, "point": p.point,
                "own_point": p.own_point, "index": p.index, "layer": p.layer,
                "centre": _xy(c), "on_top": on_top, "visible": visible, "hidden": not visible,
                "pixels": int(pixels[k]),
            })
        points = {str(p): {"colour": COLOUR_OF[s], "count": n}
                  for p, (s, n) in sorted(image_counts(position, layout).items())}
        wp, bp = position.white, position.black
        corners = cam.project(np.array([board.world(u, v, 0.0) for u, v in g.field_corners()]))
        ends = [board.world(g.width / 2 + s * g.checker_diameter / 2, g.height / 2, 0.0)
                for s in (-1, 1)]
        diameter_px = np.linalg.norm(np.subtract(*cam.project(np.array(ends))))
        style = board.style
        return {
            "width": w, "height": h,
            "variant": layout.variant.value, "layout": layout.to_json(),
            "corners": [_xy(c) for c in corners],
            "points": points,
            "bar": {"light": wp[BAR], "dark": bp[BAR]}, "off": {"light": wp[OFF], "dark": bp[OFF]},
            "position": position.to_json(),
            "occluded": [], "bar_occluded": False,
            "checkers": checkers,
            "checker_diameter_px": round(float(diameter_px), 2),
            "checker_colours": {"light": style.light.name, "dark": style.dark.name},
            "board": {"field": style.field_surface, "frame": style.frame_surface,
                      "geometry": {"width": g.width, "height": g.height,
                                   "bar_width": round(g.bar_width, 2),
                                   "point_length": round(g.point_length, 2),
                                   "checker_diameter": round(g.checker_diameter, 2),
                                   "per_row": g.per_row},
                      "field_width_mm": round(g.width * board.metres * 1000, 1),
                      "checker_thickness_mm": round(board.thickness * 1000, 2),
                      "frame_height_mm": round(board.frame * 1000, 2)},
            "camera": {"tilt": round(cam.tilt, 2), "azimuth": round(cam.azimuth, 2),
                       "yaw": round(cam.yaw, 2), "fovy": round(cam.fovy, 2),
                       "position": [round(float(v), 4) for v in cam.position]},
            "dice": [],
        }


def _xy(point: Any) -> list[float]:
    return [round(float(point[0]), 2), round(float(point[1]), 2)]


def _effects(img: Image, rng: np.random.Generator) -> Image:
    """Exposure and gamma, sometimes a slight blur, sensor noise. BGR uint8 in and out."""
    levels = np.arange(256, dtype=np.float64) / 255
    gain, gamma = float(rng.uniform(0.85, 1.25)), float(rng.uniform(0.8, 1.15))
    lut = np.clip(255 * np.power(np.clip(levels * gain, 0, 1), gamma) + 0.5, 0, 255)
    out = np.asarray(cv2.LUT(img, lut.astype(np.uint8)), np.uint8)
    if rng.random() < 0.3:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.4, 1.2))), np.uint8)
    sigma = float(rng.uniform(0, 5))
    if sigma > 0.5:
        noise = rng.standard_normal(out.shape, dtype=np.float32) * sigma
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return out
