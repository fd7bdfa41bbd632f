"""Measure the dice pipeline's 3-second decisions on physics clips (`synth dice-clip`).

    python -m models.dice.evaluate_clips --clips DIR [DIR ...]
        [--out models/dice/clip_evaluation.json] [--no-view] [--models DIR]
        [--flicker SHARE] [--ramp SHARE] [--readout SECONDS]

Each clip runs through the live tray pipeline as a table's tray camera runs it: its
calibration.json's dice zones (with the camera's view of the tray floor, unless --no-view:
then the crop classifier alone calls dice cocked), `vision.tray.TrayCamera` with the dice
reader, frame times from the frame index at 30 fps, the clip's empty tray shown first for
half a second where it has one (a live camera sees the tray empty before each throw; the
cocked scenarios begin with the dice already in it), and the last frame held 3.5 s more (dice
left lying stay: a count started near the end runs out). Its events are compared with the
clip's true ones (events.json), throw by throw as the referee decides: the count started (a die
cocked in the tray, 5.4.33, or stopped in the box, 5.4.32), the count cancelled (the die fell
or moved on), the throw void, the roll read with its values (or read again as changed, when a
die moved after a first reading). A decision is right when the pipeline emits it within
TOLERANCE frames of the truth, with the same rule or values; a decision the truth does not
have is extra, and a void in a clip with no true void is false. A count started on a die the
truth has lying flat in the tray (its event's box on it), or on no die at all, reports no
true count however well it is timed: it is listed apart, as a count on the wrong die. A
decision no frame can show (both dice stopped deep in the box, the tray empty to the end)
is no vision decision: it is listed apart as unobservable, neither right nor wrong. The
decisions missed are counted by kind, per true event: none of its kind reported, reported
early or late, or on time but saying otherwise (the other rule, other values).
`--flicker`, `--ramp` and `--readout` show the frames under a light that changes while the
camera watches (`synth.light`): mains flicker beating against the frame rate (in bands across
the frame, under a rolling shutter), an exposure stepping.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from synth.light import Light
    from vision.dice.closer import DiceReading

FPS = 30
TOLERANCE = 2  # frames: the bar for the 3-second decisions
COUNT_FRAMES = 3 * FPS
EMPTY_FRAMES = 15  # the empty tray's frames before a clip's first (empty.jpg)
# Frames the last one is held after a clip ends, as dice left lying stay: a count started
# near the end (a flat die called cocked, say) runs out, and a false void shows.
HOLD_FRAMES = COUNT_FRAMES + FPS // 2
DEFAULT_OUT = Path(__file__).resolve().parent / "clip_evaluation.json"

# The pipeline's event (vision/dice/stream.py Kind values) that reports each true decision.
START = {"cocked": "die_cocked", "in_box": "die_in_box"}
END = {"cocked_fell": "count_cancelled", "in_box_moved_on": "count_cancelled"}
VOID_RULE = {"cocked_void": "5.4.33", "in_box_void": "5.4.32"}
HIDDEN_PX = 100  # a die with fewer pixels in sight (a fifth of one) is out of sight
REST = 5  # frames a die stays still to be at rest (synth/dice/clip.py REST_FRAMES)
DECISIONS = ("die_cocked", "die_in_box", "count_cancelled", "throw_void", "roll_read",
             "roll_changed")
# The pipeline's events that can report a decision: the roll as the dice lie is also reported
# as changed, when a die moved after a first reading (a cocked die read as flat falls).
REPORTED_BY = {"roll_read": ("roll_read", "roll_changed")}


@dataclass(frozen=True)
class Decision:
    """One decision the referee must make: `event` the pipeline's event name, at `frame`,
    with its `rule` (voids) or sorted `values` (a roll read); `truth` the clip's event;
    `also`, other (event, rule) pairs that report it as well: two dice whose counts start at
    one moment, one cocked and one in the box, start one count under either rule;
    `rest_frame`, where `frame` is dated from when the camera surely sees the die (it lay
    out of sight, or all but: `observable`), the frame the die's true rest or move dates it
    by, right too: a camera that sees a sliver of it may count from then."""

    truth: str
    event: str
    frame: int
    rule: str | None = None
    values: tuple[int, ...] = ()
    also: tuple[tuple[str, str | None], ...] = ()
    rest_frame: int | None = None


def observable(truth: Sequence[dict[str, Any]],
               states: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The clip's true events as the tray camera can see them (`states`: states.jsonl's
    frames). A die that stops out of the camera's sight, deep in the box, is known to have
    stayed there only once the throw is over: the visible dice at rest (a die in sight:
    while both are in the box an empty tray shows nothing over) and the hidden one not out.
    Its count is dated from then, and its void 3 s later, as a player counts (5.4.32): a die
    rolling on out of sight after the throw looks over is counted from the moment it looks
    over, not from its unseen stop. Its moving on is seen when it comes into sight, and a
    move that ends out of sight again is not seen at all: the count seen runs on from its
    first start. A die out of sight that no frame after shows the throw over (no die ever in
    sight and still) is marked `unseen`, with every event of it after: nothing the camera
    sees tells that throw from no throw at all."""
    def hidden(die: int, frame: int) -> bool:
        return int(states[frame]["dice"][die]["visible_px"]) < HIDDEN_PX

    def throw_over(frame: int) -> int | None:
        """The first frame from `frame` on with every visible die still for REST frames, and
        one in sight: while every die is out of sight nothing is seen to be over."""
        for start in range(frame, len(states)):
            window = states[start:start + REST]
            if all(d["state"] != "moving" or d["visible_px"] < HIDDEN_PX
                   for f in window for d in f["dice"]) and all(
                    any(d["visible_px"] >= HIDDEN_PX for d in f["dice"]) for f in window):
                return start
        return None

    def out_of_sight_since(die: int, frame: int) -> int:
        """The first frame of the stretch out of sight that `frame` ends."""
        while frame > 0 and hidden(die, frame - 1):
            frame -= 1
        return frame

    def seen_again(die: int, frame: int) -> int:
        return next((f for f in range(frame, len(states)) if not hidden(die, f)),
                    len(states) - 1)

    def next_stop(die: int, frame: int) -> int:
        return min((int(e["frame"]) for e in truth if e["event"] in START
                    and int(e.get("die", -1)) == die and int(e["frame"]) > frame),
                   default=len(states))

    shifted: dict[int, int] = {}  # die: frames its count starts late
    started: dict[int, int] = {}  # die: the frame its count, as seen, started
    unseen_move: set[int] = set()  # dice that moved on and stopped again out of sight
    never_seen: set[int] = set()  # dice whose stop no frame shows
    found = []
    for event in truth:
        kind, frame = event["event"], int(event["frame"])
        true_frame = frame
        die = int(event.get("die", -1))
        if die in never_seen:
            found.append({**event, "unseen": True})
            continue
        if kind in START and die in unseen_move:
            unseen_move.discard(die)
            continue  # nothing seen moved: the count seen runs on
        if kind in START:
            if hidden(die, frame):
                over = throw_over(out_of_sight_since(die, frame))
                if over is None:
                    never_seen.add(die)
                    found.append({**event, "unseen": True})
                    continue
                shifted[die] = over - frame
                frame += shifted[die]
            started[die] = frame
        elif kind in VOID_RULE:
            frame = started.get(die, frame - COUNT_FRAMES) + COUNT_FRAMES
        elif kind in END and die in shifted:
            if hidden(die, frame) and seen_again(die, frame) >= next_stop(die, frame):
                unseen_move.add(die)
                continue
            frame = max(seen_again(die, frame), frame)
            shifted.pop(die)
        found.append({**event, "frame": frame,
                      **({"rest_frame": true_frame} if frame != true_frame else {})})
    return sorted(found, key=lambda e: (e["frame"], e.get("die", 2)))


def decisions(truth: Sequence[dict[str, Any]]) -> list[Decision]:
    """The throw's decisions from a clip's per-die true events. The referee keeps one count
    per throw: a second die's count that starts while one runs, or ends while another still
    runs, is no decision of its own, and the throw is void once, at the first die's void. A
    second die whose count starts within TOLERANCE frames of the first may report the start
    and the void under its own rule: the bar cannot tell which of the two came first.
    The clip's last frame is held for longer than a count (`run_clip`), so a count still
    running when the clip ends runs out there: the throw is void 3 s after it started.
    Events `observable` marks unseen are left out (`unobservable` has their decisions)."""
    found: list[Decision] = []
    running: set[int] = set()  # dice whose 3-second count runs
    counted: tuple[int, Decision] | None = None  # the die whose start was the decision
    together: dict[int, str] = {}  # dice counted from the counted die's moment: their start
    for event in sorted(truth, key=lambda e: e["frame"]):
        if event.get("unseen"):
            continue
        kind, die, frame = event["event"], int(event.get("die", -1)), int(event["frame"])
        rest_frame = event.get("rest_frame")
        if kind in START:
            if not running:
                counted = (die, Decision(kind, START[kind], frame, rest_frame=rest_frame))
                found.append(counted[1])
            elif (counted is not None and frame - counted[1].frame <= TOLERANCE
                  and kind != counted[1].truth):
                both = dataclasses.replace(counted[1], also=((START[kind], None),))
                found[found.index(counted[1])] = both
                counted = (counted[0], both)
                together[die] = kind
            running.add(die)
        elif kind in END:
            running.discard(die)
            together.pop(die, None)
            if counted is not None and counted[0] == die:
                if not running:
                    found.append(Decision(kind, END[kind], frame, rest_frame=rest_frame))
                counted = None
        elif kind in VOID_RULE:
            found.append(_void(kind, frame, together, die, rest_frame))
            return found  # the throw is over
        elif kind == "settled":
            found.append(Decision(kind, "roll_read", frame,
                                  values=tuple(sorted(event["values"]))))
    if counted is not None:
        start = counted[1]
        found.append(_void(f"{start.truth}_void", start.frame + COUNT_FRAMES, together,
                           counted[0], None if start.rest_frame is None
                           else start.rest_frame + COUNT_FRAMES))
    return found


def unobservable(truth: Sequence[dict[str, Any]]) -> list[Decision]:
    """The decisions of the events `observable` marks unseen, as their frames date them."""
    return decisions([{k: v for k, v in e.items() if k != "unseen"}
                      for e in truth if e.get("unseen")])


def _void(truth: str, frame: int, together: dict[int, str], die: int,
          rest_frame: int | None = None) -> Decision:
    """The throw void under `die`'s rule, or under that of a die counted from the same moment
    and still lying so."""
    also = tuple(("throw_void", VOID_RULE[f"{start}_void"]) for other, start in together.items()
                 if other != die and VOID_RULE[f"{start}_void"] != VOID_RULE[truth])
    return Decision(truth, "throw_void", frame, rule=VOID_RULE[truth], also=also,
                    rest_frame=rest_frame)


def _on_time(frame: int, decision: Decision, tolerance: int) -> bool:
    """Whether an event at `frame` is within `tolerance` of when the truth dates `decision`:
    as the camera surely sees it, or by the die's true rest or move."""
    return any(abs(frame - at) <= tolerance
               for at in (decision.frame, decision.rest_frame) if at is not None)


def _reported_by(decision: Decision) -> tuple[str, ...]:
    """The pipeline's events that can report `decision`."""
    return (*REPORTED_BY.get(decision.event, (decision.event,)),
            *(event for event, _ in decision.also))


def _same(decision: Decision, seen: dict[str, Any]) -> bool:
    """Whether a pipeline event of one of `_reported_by(decision)` says what it says."""
    if decision.values and tuple(sorted(seen.get("values", ()))) != decision.values:
        return False
    return any(seen["event"] in REPORTED_BY.get(event, (event,))
               and (rule is None or seen.get("rule") == rule)
               for event, rule in ((decision.event, decision.rule), *decision.also))


@dataclass
class ClipScore:
    """Per true decision, `matched`: the frame of the pipeline's event that reports it (None:
    missed), `nearest`: the offset of the nearest event of its kind whatever its content
    (frames after the truth; None: none), to tell a late decision from a wrong one."""

    decisions: list[Decision]
    matched: list[int | None]
    nearest: list[int | None]
    extra: list[dict[str, Any]] = field(default_factory=list)
    false_voids: int = 0
    wrong_die: list[dict[str, Any]] = field(default_factory=list)  # counts on a flat die
    unobservable: list[Decision] = field(default_factory=list)  # no frame shows them

    @property
    def right(self) -> int:
        return sum(m is not None for m in self.matched)

    def to_json(self) -> dict[str, Any]:
        return {"decisions": [{**dataclasses.asdict(d), "values": list(d.values),
                               "seen_frame": m, "right": m is not None, "nearest_offset": n}
                              for d, m, n in zip(self.decisions, self.matched, self.nearest,
                                                 strict=True)],
                "extra": self.extra, "false_voids": self.false_voids,
                "counts_on_the_wrong_die": self.wrong_die,
                "unobservable": [{**dataclasses.asdict(d), "values": list(d.values)}
                                 for d in self.unobservable]}


def score_clip(truth: Sequence[dict[str, Any]], seen: Sequence[dict[str, Any]],
               tolerance: int = TOLERANCE,
               states: Sequence[dict[str, Any]] | None = None) -> ClipScore:
    """`truth`: events.json's events; `seen`: the pipeline's events (DiceEvent.to_json);
    `states`: states.jsonl's frames, to see which die each count is for."""
    wanted = decisions(truth)
    wrong_die = [e for e in seen if states is not None and _on_the_wrong_die(e, states)]
    candidates = [e for e in seen if e["event"] in DECISIONS and e not in wrong_die]
    used: set[int] = set()
    matched: list[int | None] = []
    nearest: list[int | None] = []
    for decision in wanted:
        reported_by = _reported_by(decision)
        same_kind = [i for i, e in enumerate(candidates) if e["event"] in reported_by]
        hit = next((i for i in same_kind if i not in used
                    and _on_time(candidates[i]["frame"], decision, tolerance)
                    and _same(decision, candidates[i])), None)
        if hit is not None:
            used.add(hit)
        matched.append(None if hit is None else candidates[hit]["frame"])
        offsets = [candidates[i]["frame"] - decision.frame for i in same_kind]
        nearest.append(min(offsets, key=abs) if offsets else None)
    extra = [e for i, e in enumerate(candidates) if i not in used]
    # A void is false only of a good throw: one the truth voids, though out of the camera's
    # sight (a sliver of a die in the box, under HIDDEN_PX, read and counted), is no good throw.
    unseen = unobservable(truth)
    truly_void = any(d.event == "throw_void" for d in [*wanted, *unseen])
    false_voids = 0 if truly_void else sum(e["event"] == "throw_void" for e in extra)
    return ClipScore(wanted, matched, nearest, extra, false_voids, wrong_die, unseen)


def _on_the_wrong_die(event: dict[str, Any], states: Sequence[dict[str, Any]]) -> bool:
    """Whether a count's start names a die (its box) that the truth has lying flat in the
    tray when the count starts, or where no pixel of a die shows at all (a sliver of a die
    in the box, too little to date its rest by, is still that die)."""
    if event["event"] not in START.values() or "box" not in event:
        return False
    from vision.dice.boxes import centre_in, overlap

    frame = states[min(int(event["frame"]), len(states) - 1)]
    under = [(overlap(event["box"], die["box"]), die) for die in frame["dice"]
             if die["visible_px"] > 0 and die["box"] is not None]
    under = [(share, die) for share, die in under
             if share > 0 or centre_in(event["box"], die["box"])]
    if not under:
        return True
    return bool(max(under, key=lambda pair: pair[0])[1]["state"] == "at_rest")


def miss(nearest: int | None, tolerance: int = TOLERANCE) -> str:
    """What kind of miss a decision the pipeline did not make right is, from the offset of
    its kind's nearest event (`ClipScore.nearest`): none of its kind, one too early or too
    late, or one on time that says otherwise (the other rule, other values)."""
    if nearest is None:
        return "none"
    if nearest < -tolerance:
        return "early"
    return "late" if nearest > tolerance else "said otherwise"


def summarise(scores: Sequence[ClipScore]) -> dict[str, Any]:
    """Decisions right of all, by true event, and the others by kind of miss (`miss`), the
    extra and false decisions, and the decisions no frame shows (a clip with none other is
    not wholly right: it shows nothing)."""
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    missed: dict[str, Counter[str]] = {}
    for clip in scores:
        for decision, seen, nearest in zip(clip.decisions, clip.matched, clip.nearest,
                                           strict=True):
            total[decision.truth] += 1
            right[decision.truth] += seen is not None
            if seen is None:
                missed.setdefault(decision.truth, Counter())[miss(nearest)] += 1
    # A void on time citing the other rule (a die in the box called cocked) still ends the
    # throw when it should.
    voids = [n for c in scores for d, n in zip(c.decisions, c.nearest, strict=True)
             if d.event == "throw_void"]
    return {"clips": len(scores), "clips_all_right": sum(
                bool(c.decisions) and c.right == len(c.decisions) and not c.extra
                and not c.wrong_die for c in scores),
            "right": sum(right.values()), "decisions": sum(total.values()),
            "unobservable": sum(len(c.unobservable) for c in scores),
            "by_event": {k: {"right": right[k], "of": total[k],
                             **({"missed": dict(sorted(missed[k].items()))} if k in missed
                                else {})} for k in sorted(total)},
            "voids_on_time_any_rule": {"right": sum(n is not None and abs(n) <= TOLERANCE
                                                    for n in voids), "of": len(voids)},
            "false_voids": sum(c.false_voids for c in scores),
            "counts_on_the_wrong_die": sum(len(c.wrong_die) for c in scores),
            "extra": dict(Counter(e["event"] for c in scores for e in c.extra))}


def clip_states(directory: Path) -> list[dict[str, Any]]:
    """A rendered clip's truth frame by frame (`states.jsonl`: each die's box, state, lie)."""
    return [json.loads(line) for line in
            (directory / "states.jsonl").read_text(encoding="utf-8").splitlines()]


def run_clip(directory: Path, reader: DiceReading, use_view: bool, fps: float = FPS,
             on_frame: Callable[[int, tuple[float, float]], None] | None = None,
             light: Light | None = None) -> list[dict[str, Any]]:
    """The pipeline's dice events over a clip's frames, the last one held HOLD_FRAMES more,
    as a table's tray camera emits them; first, where the clip has one, its empty tray
    (`empty.jpg`) for EMPTY_FRAMES frames, as a live camera sees it before the throw. A
    camera of another frame rate (`fps`, 25 for a PAL camera) sees the clip's frame nearest
    each of its own; its events are dated by their times in the clip's frames. `on_frame`,
    where given, is told before each frame is read which of the clip's frames it shows (-1:
    the empty tray) and where the camera's crop of it begins (x, y pixels). `light`, where
    given, changes each frame as it would the camera's picture at its time."""
    from models.dice.data import read_picture
    from vision.dice.zones import TrayCalibration
    from vision.tray import TrayCamera

    calibration = TrayCalibration.load(directory / "calibration.json")
    zones = calibration.zones if use_view else dataclasses.replace(calibration.zones, view=None)
    camera = TrayCamera(zones, reader, calibration.frame_size())
    paths = sorted((directory / "frames").glob("*.jpg"))
    if not paths:
        raise OSError(f"no frames in {directory / 'frames'}")

    def seen_at(index: int, image: np.ndarray) -> np.ndarray:
        return image if light is None else light.lit(image, index / fps)

    origin = (float(camera.box[0]), float(camera.box[1]))
    seen = []
    empty = directory / "empty.jpg"
    if empty.is_file():
        # The tray as the camera saw it before the throw, still for half a second.
        tray = read_picture(empty)
        for index in range(-round(EMPTY_FRAMES * fps / FPS), 0):
            if on_frame is not None:
                on_frame(-1, origin)
            seen += [e.to_json() for e in camera.observe(index, index / fps,
                                                         seen_at(index, tray))]
    shown, image = -1, None
    for index in range(round((len(paths) + HOLD_FRAMES) * fps / FPS)):
        wanted = min(round(index * FPS / fps), len(paths) - 1)
        if wanted != shown:
            shown, image = wanted, read_picture(paths[wanted])
        assert image is not None
        if on_frame is not None:
            on_frame(wanted, origin)
        seen += [e.to_json() for e in camera.observe(index, index / fps,
                                                     seen_at(index, image))]
    return [{**event, "frame": round(event["time"] * FPS)} for event in seen]


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else None


def main(argv: Sequence[str] | None = None) -> int:
    from synth.light import add_light_arguments, clip_light

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=Path, nargs="+", required=True,
                        help="clip folders (synth dice-clip --out), or folders of them")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-view", action="store_true",
                        help="drop the calibration's view: the crop classifier calls cocked")
    parser.add_argument("--fps", type=float, default=FPS,
                        help=f"the tray camera's frame rate: the clips' {FPS} fps frames taken "
                             "at it (25: a PAL camera); decisions are still judged in them")
    parser.add_argument("--models", type=Path, default=None,
                        help="the reader's networks (default models/dice; cocked.onnx, "
                             "faces.onnx and framer.onnx are used where they are present)")
    add_light_arguments(parser)
    args = parser.parse_args(argv)
    import cv2

    from vision.dice.reader import MODEL_DIR, DiceReader

    models = args.models or MODEL_DIR
    cv2.setNumThreads(1)  # as a table's process reads its cameras
    folders = sorted({p.parent for d in args.clips for p in [*d.glob("events.json"),
                                                             *d.glob("*/events.json")]})
    if not folders:
        print("evaluate_clips: no clip (events.json) under --clips", file=sys.stderr)
        return 2
    reader = DiceReader(models)
    clips: list[dict[str, Any]] = []
    by_scenario: dict[str, list[ClipScore]] = {}
    for folder in folders:
        summary = json.loads((folder / "events.json").read_text())
        light = clip_light(summary["seed"], args.flicker, args.ramp, args.readout)
        seen = run_clip(folder, reader, not args.no_view, args.fps, light=light)
        states = clip_states(folder)
        result = score_clip(observable(summary["events"], states), seen, states=states)
        by_scenario.setdefault(summary["scenario"], []).append(result)
        clips.append({"clip": str(folder), "scenario": summary["scenario"],
                      "seed": summary["seed"], **result.to_json(), "seen": seen})
        print(f"{folder}: {result.right}/{len(result.decisions)} right, "
              f"{len(result.extra)} extra, {result.false_voids} false voids, "
              f"{len(result.wrong_die)} counts on the wrong die", file=sys.stderr)
    report: dict[str, Any] = {
        "tolerance_frames": TOLERANCE, "fps": FPS, "camera_fps": args.fps,
        "view": not args.no_view, "light": {"flicker": args.flicker, "ramp": args.ramp,
                                               "readout": args.readout},
        # Which networks read: the cocked one only with a view, and where it is present.
        "cocked_network": reader.cocked_model is not None and not args.no_view,
        "models": {name: _digest(models / name)
                   for name in ("detector.onnx", "classifier.onnx", "cocked.onnx", "faces.onnx",
                                "framer.onnx")},
        "total": summarise([s for group in by_scenario.values() for s in group]),
        "scenarios": {name: summarise(group) for name, group in sorted(by_scenario.items())},
        "clips": clips}
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for name, figures in [*report["scenarios"].items(), ("total", report["total"])]:
        print(f"{name}: {figures['right']}/{figures['decisions']} decisions right, "
              f"false voids {figures['false_voids']}, counts on the wrong die "
              f"{figures['counts_on_the_wrong_die']}, extra {figures['extra']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
