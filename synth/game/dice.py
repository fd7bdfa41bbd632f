"""Throws: the dice fall through the baffle box and tumble into the tray, or misbehave.

A throw ends at rest with both dice flat in the tray (a roll), or with one die cocked
(5.4.33) or stopped inside the box (5.4.32): a 3-second count starts; the die falls or moves
on within it (count cancelled, the roll stands), or the throw is void and thrown again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from referee.position import Side
from synth.game.draw import DieState
from synth.game.timeline import Point, Recorder

COUNT_SECONDS = 3.0  # 5.4.32, 5.4.33
COCKED_RULE = "5.4.33"
IN_BOX_RULE = "5.4.32"
TUMBLE_SECONDS = 0.5
# A die's face and an adjacent one (never the opposite face, which adds up to 7).
ADJACENT = {v: [u for u in range(1, 7) if u not in (v, 7 - v)] for v in range(1, 7)}


class Thrower:
    """Draws throws into a recorder; `throw()` returns the roll when one stands."""

    def __init__(self, rec: Recorder, rng: np.random.Generator) -> None:
        self.rec = rec
        self.rng = rng
        self.count = 0

    def _spot(self, zone: tuple[int, int, int, int], avoid: list[Point]) -> Point:
        size = self.rec.scene.die_px
        x0, y0, x1, y1 = zone
        m = size * 0.9
        best: Point = ((x0 + x1) / 2, (y0 + y1) / 2)
        for _ in range(30):
            p = (float(self.rng.uniform(x0 + m, x1 - m)), float(self.rng.uniform(y0 + m, y1 - m)))
            best = p
            if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 1.6 * size for q in avoid):
                break
        return best

    def _roll_to(self, starts: list[Point], finals: list[DieState], seconds: float,
                 moving: set[int] | None = None) -> None:
        """Tumble each die (of `moving`, by default all) from its start to its final state."""
        n = self.rec.n(seconds, scaled=False)
        faces = self.rng.integers(1, 7, (n, len(finals)))
        spins = self.rng.uniform(-2, 2, len(finals))
        wobble = self.rng.uniform(-0.6, 0.6, len(finals)) * self.rec.scene.die_px

        def step(t: float) -> dict[str, Any]:
            i = min(n - 1, max(0, round(t * n) - 1))
            dice = []
            e = 1 - (1 - t) ** 2
            for k, (s, f) in enumerate(zip(starts, finals, strict=True)):
                x = s[0] + (f.centre[0] - s[0]) * e - wobble[k] * np.sin(3 * np.pi * t) * (1 - t)
                y = s[1] + (f.centre[1] - s[1]) * e
                if t >= 0.999 or (moving is not None and k not in moving):
                    dice.append(f)
                else:
                    angle = f.angle + float(spins[k]) * 360 * (1 - t) ** 2
                    v = int(faces[i - i % 2, k])
                    dice.append(DieState(v, (float(x), float(y)), angle, "rolling",
                                         ADJACENT[v][k % 4]))
            return {"dice": tuple(dice)}

        self.rec.animate(n, step)

    def _pick_up(self, side: Side, purpose: str) -> None:
        dice = self.rec.state.dice
        if not dice:
            return
        mx = float(np.mean([d.centre[0] for d in dice]))
        my = float(np.mean([d.centre[1] for d in dice]))
        self.rec.reach(side, (mx, my), 0.35, purpose)
        self.rec.hold(self.rec.n(0.1))
        self.rec.set(dice=())
        self.rec.emit("dice_picked_up", player=side.value)
        self.rec.hold(self.rec.n(0.1))

    def pick_up(self, side: Side) -> None:
        """The player takes the dice out of the tray and his hand leaves."""
        self._pick_up(side, "pick_up")
        self.rec.leave(side)

    def _flat(self, value: int, centre: Point) -> DieState:
        return DieState(value, centre, float(self.rng.uniform(0, 90)))

    def _at_rest(self, side: Side) -> None:
        zones = self.rec.scene
        box = zones.box
        out = []
        for d in self.rec.state.dice:
            in_box = box[0] <= d.centre[0] <= box[2] and box[1] <= d.centre[1] <= box[3]
            cocked = d.pose == "cocked"
            out.append({"value": None if cocked else d.value, "cocked": cocked, "in_box": in_box,
                        "centre": [round(d.centre[0], 1), round(d.centre[1], 1)]})
        self.rec.emit("dice_at_rest", player=side.value, throw=self.count,
                      values=[d["value"] for d in out], dice=out)

    def throw(self, side: Side, trouble: tuple[str, str] | None = None, announce: bool = True,
              **extra: Any) -> tuple[int, int] | None:
        """One throw by `side`: the hand drops the dice into the box, they come to rest.

        `trouble` is ("cocked" | "stalled", "void" | "cancelled"). Returns the roll, or None
        when the throw is void (the dice are then picked up for a new throw). Without
        `announce` the roll event is left to the caller (a premature throw waits for the
        opponent's decision).
        """
        rec, scene, rng = self.rec, self.rec.scene, self.rng
        bx0, by0, bx1, by1 = scene.box
        self.count += 1
        rec.reach(side, ((bx0 + bx1) / 2, by0 + (by1 - by0) * 0.2), 0.35, "throw")
        rec.hold(rec.n(0.1))
        rec.emit("throw_start", player=side.value, throw=self.count, **extra)
        rec.leave(side, 0.25)
        values = [int(v) for v in rng.integers(1, 7, 2)]
        finals: list[DieState] = []
        for k in range(2):
            spot = self._spot(scene.tray, [f.centre for f in finals])
            finals.append(self._flat(values[k], spot))
        odd = int(rng.integers(2))
        if trouble is not None and trouble[0] == "cocked":
            f = finals[odd]
            finals[odd] = DieState(f.value, f.centre, f.angle, "cocked",
                                   ADJACENT[f.value][int(rng.integers(4))])
        elif trouble is not None:
            finals[odd] = self._flat(values[odd], self._spot(scene.box, []))
        starts = [(bx0 + (bx1 - bx0) * (0.3 + 0.4 * k), by0 + (by1 - by0) * 0.15)
                  for k in range(2)]
        self._roll_to(starts, finals, TUMBLE_SECONDS)
        self._at_rest(side)
        if trouble is None:
            if announce:
                rec.emit("roll", player=side.value, dice=values, throw=self.count)
            return (values[0], values[1])
        rule = COCKED_RULE if trouble[0] == "cocked" else IN_BOX_RULE
        reason = "cocked" if trouble[0] == "cocked" else "in_box"
        # The referee starts the count the moment the die comes to rest (as the dice clips do).
        count_start = rec.now
        rec.emit("count_start", player=side.value, rule=rule, reason=reason, die=odd)
        if trouble[1] == "void":
            rec.hold(count_start + rec.n(COUNT_SECONDS, scaled=False) - rec.now)
            rec.emit("throw_void", player=side.value, rule=rule, reason=reason, die=odd)
            rec.hold(rec.n(0.4))
            self._pick_up(side, "rethrow")
            rec.leave(side, 0.25)
            return None
        rec.hold(rec.n(float(rng.uniform(0.6, 2.4)), scaled=False))
        rec.emit("count_cancelled", player=side.value, rule=rule, reason=reason, die=odd)
        value = int(rng.integers(1, 7))
        values[odd] = value
        moved = list(rec.state.dice)
        if reason == "cocked":
            settled = self._flat(value, moved[odd].centre)
        else:
            settled = self._flat(value, self._spot(scene.tray, [moved[1 - odd].centre]))
        finals = list(moved)
        finals[odd] = settled
        self._roll_to([d.centre for d in moved], finals, 0.15 if reason == "cocked" else 0.35,
                      {odd})
        self._at_rest(side)
        rec.emit("roll", player=side.value, dice=values, throw=self.count)
        return (values[0], values[1])
