"""Throwing and settling the dice in MuJoCo: a throw down the baffle box, dice placed leaning
against a wall or the other die, a throw meant to stall inside the box, and a handful of dice
dropped in a heap on the tray floor.

Every function takes its randomness from the `numpy.random.Generator` it is given, and MuJoCo is
deterministic for a given model and start state, so a seed fixes the outcome.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from synth.dice._mujoco import mujoco
from synth.dice.geometry import (
    FloatArray,
    axis_angle_quat,
    quat_mul,
    quat_to_mat,
    random_quat,
    rounded_cube_vertices,
    top_face,
)
from synth.dice.scene import SceneParams, build_xml

REST_SPEED = 0.004  # m/s
REST_SPIN = 0.25  # rad/s
REST_HOLD = 0.15  # s a die must stay slow to count as at rest


class Scenario(StrEnum):
    THROW = "throw"  # down the baffle box into the tray
    LEAN = "lean"  # placed leaning against a tray wall or the other die
    STALL = "stall"  # down a box whose ramp grips, so dice often stop inside it
    PILE = "pile"  # every die of the model dropped close together: touching, leaning, stacked


@dataclass(frozen=True)
class DieState:
    position: FloatArray  # (3,) metres, world frame
    quat: FloatArray  # (4,) w, x, y, z, die frame to world
    speed: float  # m/s
    spin: float  # rad/s

    @property
    def rotation(self) -> FloatArray:
        return quat_to_mat(self.quat)

    def top(self, up: FloatArray | None = None) -> tuple[int, float]:
        """The face nearest to `up` (default straight up) and its angle from it, degrees."""
        return top_face(self.rotation, up)


class DiceWorld:
    """A MuJoCo model of the box and its dice, with the state that a throw sets."""

    def __init__(self, params: SceneParams) -> None:
        self.params = params
        self.model = mujoco.MjModel.from_xml_string(build_xml(params))
        self.data = mujoco.MjData(self.model)
        self.half = params.die.half
        self.dice = params.dice
        self._hull = rounded_cube_vertices(params.die.half, params.die.edge_radius)
        m = self.model
        self.die_bodies = [m.body(f"die{i}").id for i in range(self.dice)]
        joints = [m.joint(f"die{i}_joint").id for i in range(self.dice)]
        self._qpos = [int(m.jnt_qposadr[j]) for j in joints]
        self._qvel = [int(m.jnt_dofadr[j]) for j in joints]
        self.ramp = m.geom("ramp_low").id
        self.floor = m.geom("floor").id
        self._ramp_friction = m.geom_friction[self.ramp].copy()
        self._ramp_solref = m.geom_solref[self.ramp].copy()
        self.leaner = 0  # set by `lean`: which die leans, and the way it leans
        self.lean_toward = np.array([1.0, 0.0, 0.0])

    # --- state -------------------------------------------------------------------------
    def reset(self, ramp_grip: float = 1.0, floor_friction: float = 0.6) -> None:
        """Back to the start, with the lower ramp's grip (x its usual friction) and the tray's
        sliding friction for this throw."""
        mujoco.mj_resetData(self.model, self.data)
        # a gripping pad: more sliding, spinning and rolling friction, and a dead (overdamped)
        # contact, so a die that lands there tends to stay
        pad = max(ramp_grip - 1.0, 0.0)
        self.model.geom_friction[self.ramp] = self._ramp_friction * np.array(
            [ramp_grip, 1.0 + pad, 1.0 + 40.0 * pad])
        self.model.geom_solref[self.ramp] = self._ramp_solref if pad == 0 else (0.01, 2.0)
        self.model.geom_friction[self.floor, 0] = floor_friction
        self.data.xfrc_applied[:] = 0.0

    def place(self, die: int, position: FloatArray, quat: FloatArray,
              velocity: FloatArray | None = None, spin: FloatArray | None = None) -> None:
        a, v = self._qpos[die], self._qvel[die]
        self.data.qpos[a:a + 3] = position
        self.data.qpos[a + 3:a + 7] = quat / np.linalg.norm(quat)
        self.data.qvel[v:v + 3] = np.zeros(3) if velocity is None else velocity
        self.data.qvel[v + 3:v + 6] = np.zeros(3) if spin is None else spin

    def state(self, die: int) -> DieState:
        a, v = self._qpos[die], self._qvel[die]
        return DieState(position=self.data.qpos[a:a + 3].copy(),
                        quat=self.data.qpos[a + 3:a + 7].copy(),
                        speed=float(np.linalg.norm(self.data.qvel[v:v + 3])),
                        spin=float(np.linalg.norm(self.data.qvel[v + 3:v + 6])))

    def support_normal(self, die: int) -> FloatArray:
        """The normal of the surface the die rests on: of its contacts, the one whose normal
        (from the surface to the die) points most nearly up; straight up when it touches
        nothing. A die flat on the box's slanted ramp lies flat on it, and is not cocked; one
        leaning on a wall or on the other die still rests on the floor."""
        body = self.die_bodies[die]
        best, best_up = np.array([0.0, 0.0, 1.0]), -2.0
        for contact in self.data.contact[:self.data.ncon]:
            first = self.model.geom_bodyid[contact.geom1] == body
            second = self.model.geom_bodyid[contact.geom2] == body
            if first == second:
                continue
            # MuJoCo's contact normal points from geom1 to geom2.
            normal = np.asarray(contact.frame[:3], float) * (-1.0 if first else 1.0)
            if normal[2] > best_up:
                best, best_up = normal, float(normal[2])
        return best

    def in_box(self, die: int) -> bool:
        """Stopped inside the baffle box: the die's centre is behind the exit plane x = 0."""
        return bool(self.data.qpos[self._qpos[die]] < 0.0)

    def push(self, die: int, force: FloatArray, torque: FloatArray) -> None:
        body = self.die_bodies[die]
        self.data.xfrc_applied[body, :3] = force
        self.data.xfrc_applied[body, 3:] = torque

    # --- stepping ----------------------------------------------------------------------
    def step(self, seconds: float) -> None:
        n = max(1, round(seconds / self.model.opt.timestep))
        mujoco.mj_step(self.model, self.data, nstep=n)

    def at_rest(self, die: int) -> bool:
        s = self.state(die)
        return s.speed < REST_SPEED and s.spin < REST_SPIN

    def settle(self, max_seconds: float = 5.0) -> float:
        """Step until every die stays at rest for REST_HOLD seconds; the time it took."""
        dt = self.model.opt.timestep
        chunk = max(1, round(0.01 / dt))
        held = 0.0
        while self.data.time < max_seconds:
            mujoco.mj_step(self.model, self.data, nstep=chunk)
            if all(self.at_rest(i) for i in range(self.dice)):
                held += chunk * dt
                if held >= REST_HOLD:
                    break
            else:
                held = 0.0
        return float(self.data.time)

    # --- set-ups -----------------------------------------------------------------------
    def throw(self, rng: np.random.Generator) -> None:
        """Both dice dropped together into the funnel, tumbling."""
        box = self.params.box
        top = box.tower_height + 0.03
        for i in range(2):
            pos = np.array([rng.uniform(-0.8, -0.2) * box.tower_depth,
                            rng.uniform(-0.3, 0.3) * box.tower_width, top + 0.02 * i])
            vel = np.array([rng.uniform(-0.2, 0.3), rng.uniform(-0.2, 0.2),
                            rng.uniform(-1.5, -0.3)])
            self.place(i, pos, random_quat(rng), vel, rng.normal(size=3) * 15.0)

    def pile(self, rng: np.random.Generator) -> None:
        """Every die dropped from a few centimetres over one spot of the tray floor, tumbling
        little, so they come to rest touching, leaning on and lying on each other: the heaps
        of dice that photographs show. Each starts clear of the others (their bounding spheres
        apart), higher the more dice already crowd the spot."""
        box, h = self.params.box, self.half
        clear = 2 * h * math.sqrt(3.0) + 0.001
        spread = h * (1.0 + 0.9 * math.sqrt(self.dice))
        centre = np.array([rng.uniform(0.35, 0.65) * box.tray_length,
                           rng.uniform(-0.2, 0.2) * box.tray_width])
        placed: list[FloatArray] = []
        for i in range(self.dice):
            radius, angle = spread * math.sqrt(rng.random()), rng.uniform(0, 2 * math.pi)
            pos = np.array([centre[0] + radius * math.cos(angle),
                            centre[1] + radius * math.sin(angle), clear / 2 + rng.uniform(0, 0.01)])
            while any(np.linalg.norm(pos - other) < clear for other in placed):
                pos[2] += 0.25 * clear
            placed.append(pos)
            self.place(i, pos, random_quat(rng), rng.normal(size=3) * 0.05,
                       rng.normal(size=3) * 3.0)

    def resting_quat(self, rng: np.random.Generator) -> FloatArray:
        """A random flat pose: one face up, any yaw."""
        faces = [np.array([1.0, 0, 0, 0]), axis_angle_quat(np.array([1.0, 0, 0]), math.pi),
                 axis_angle_quat(np.array([0, 1.0, 0]), math.pi / 2),
                 axis_angle_quat(np.array([0, 1.0, 0]), -math.pi / 2),
                 axis_angle_quat(np.array([1.0, 0, 0]), math.pi / 2),
                 axis_angle_quat(np.array([1.0, 0, 0]), -math.pi / 2)]
        yaw = axis_angle_quat(np.array([0, 0, 1.0]), rng.uniform(0, 2 * math.pi))
        return quat_mul(yaw, faces[int(rng.integers(6))])

    def lean(self, rng: np.random.Generator, against: str | None = None,
             drop: float = 0.0005, back: float = 0.0) -> None:
        """One die flat, the other set down leaning on a tray wall or on the first die
        (`against`: "wall", "die", or None for either), touching it; then left to settle.
        The leaner starts `drop` metres up and `back` metres short of its support, moving so
        that it falls onto its leaning pose (a lead-in for clips)."""
        box, h = self.params.box, self.half
        ty = box.tray_width / 2
        against = against or ("die" if rng.random() < 0.45 else "wall")
        leaner = int(rng.integers(2))
        flat = 1 - leaner
        if against == "wall":
            walls = [(np.array([1.0, 0, 0]), box.tray_length), (np.array([0, 1.0, 0]), ty),
                     (np.array([0, -1.0, 0]), ty)]
            toward, plane = walls[int(rng.integers(len(walls)))]
            centre = np.array([box.tray_length / 2, 0.0, 0.0])
            along = np.cross([0, 0, 1.0], toward)
            spot = centre + along * rng.uniform(-0.06, 0.06)
            near_wall = spot + toward * (plane - 2 * h - float(np.dot(spot, toward)))
            for _ in range(20):  # the flat die somewhere clear of the leaner
                flat_pos = np.array([rng.uniform(0.02 + 3 * h, box.tray_length - 3 * h),
                                     rng.uniform(-ty + 3 * h, ty - 3 * h), h])
                if np.linalg.norm(flat_pos[:2] - near_wall[:2]) > 6 * h:
                    break
            flat_q = self.resting_quat(rng)
        else:
            angle = rng.uniform(0, 2 * math.pi)
            toward = np.array([math.cos(angle), math.sin(angle), 0.0])
            flat_pos = np.array([rng.uniform(0.02 + 7 * h, box.tray_length - 7 * h),
                                 rng.uniform(-ty + 7 * h, ty - 7 * h), h])
            flat_q = quat_mul(axis_angle_quat(np.array([0, 0, 1.0]), angle),
                              square_flat(self.resting_quat(rng)))
            plane = float(np.dot(flat_pos, toward)) - h
            spot = flat_pos.copy()
        spot = spot - toward * float(np.dot(spot, toward))  # the plane fixes that coordinate
        spot[2] = 0.0
        yaw = axis_angle_quat(np.array([0, 0, 1.0]), math.atan2(toward[1], toward[0]))
        base = quat_mul(yaw, square_flat(self.resting_quat(rng)))
        tilt = math.radians(rng.uniform(28.0, 62.0))
        q = quat_mul(axis_angle_quat(np.cross([0, 0, 1.0], toward), tilt), base)
        verts = self._hull @ quat_to_mat(q).T
        pos = spot + toward * (plane - float(np.max(verts @ toward)) - 0.0003)
        pos[2] = drop - float(np.min(verts[:, 2]))
        fall = math.sqrt(2 * max(drop, 1e-6) / 9.81)
        self.place(flat, flat_pos, flat_q)
        self.place(leaner, pos - toward * back, q, velocity=toward * back / fall)
        self.leaner, self.lean_toward = leaner, toward


def square_flat(q: FloatArray) -> FloatArray:
    """The same face up as the flat pose `q`, with the die square to the world axes."""
    r = quat_to_mat(q)
    up = int(np.argmax(np.abs(r[2])))
    local_up = np.zeros(3)
    local_up[up] = float(np.sign(r[2, up]))
    dot = float(local_up[2])
    if dot > 0.999:
        return np.array([1.0, 0, 0, 0])
    if dot < -0.999:
        return np.array([0.0, 1.0, 0, 0])
    return axis_angle_quat(np.cross(local_up, [0, 0, 1.0]), math.acos(dot))


def run_scenario(world: DiceWorld, scenario: Scenario, rng: np.random.Generator,
                 floor_friction: float = 0.6, against: str | None = None) -> float:
    """Set up `scenario`, let the dice come to rest; the simulated seconds."""
    if scenario is Scenario.LEAN:
        world.reset(floor_friction=floor_friction)
        world.lean(rng, against)
        return world.settle(max_seconds=2.0)
    if scenario is Scenario.PILE:
        world.reset(floor_friction=floor_friction)
        world.pile(rng)
        return world.settle(max_seconds=4.0)
    grip = float(rng.uniform(2.5, 5.0)) if scenario is Scenario.STALL else 1.0
    world.reset(ramp_grip=grip, floor_friction=floor_friction)
    world.throw(rng)
    return world.settle(max_seconds=5.0)
