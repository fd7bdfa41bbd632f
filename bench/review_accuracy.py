"""How many turns the review gets right on generated whole-game videos, and how fast.

    python -m bench.review_accuracy [--games 20] [--turns 16] [--true-dice] [--keep DIR]
        [--flicker SHARE] [--ramp SHARE] [--readout SECONDS]

Generates `--games` games (long and short in turn, every irregularity injected at random,
seeds 5000 on: games the models never saw), reviews each video and scores the event log
against the ground truth (synth/game/score.py): a turn is right when its roll, its move and
every flag, count and decision in it match within a few frames, and no false flag was
raised. `--true-dice` feeds the true dice events instead of the dice reader, which measures
the board reading and the tracking on their own; `--flicker`, `--ramp` and `--readout` show
the videos under a light that changes while the camera watches (`synth.light`). Prints one JSON line
per game, then the totals.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from pathlib import Path

from referee.position import Variant
from referee.review import review
from synth.cli import parse_size
from synth.game.score import COUNTED, TruthDice, score
from synth.game.video import generate
from synth.light import add_light_arguments, clip_light, relight_video

FIRST_SEED = 5000


def bench_game(root: Path, index: int, turns: int, size: str = "1280x720",
               tempo: float = 1.0, flicker: float = 0.0, ramp: float = 0.0,
               readout: float = 0.0) -> tuple[int, Variant, Path]:
    """(seed, variant, folder) of the bench's `index`th game, generated into `root`: long
    and short in turn, every irregularity injected at random; under a changing light where
    `flicker` or `ramp` is given (`synth.light.relight_video`)."""
    seed = FIRST_SEED + index
    variant = Variant.LONG if index % 2 == 0 else Variant.SHORT
    game = root / f"game-{seed}"
    generate(game, variant, seed, parse_size(size), inject=("random",), max_turns=turns,
             tempo=tempo)
    relight_video(game / "game.mp4", clip_light(seed, flicker, ramp, readout))
    return seed, variant, game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--turns", type=int, default=16, help="turns per game (0: to the end)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--tempo", type=float, default=1.0,
                        help="the players' pace (0.5: twice as fast; synth game --tempo)")
    parser.add_argument("--true-dice", action="store_true")
    add_light_arguments(parser)
    parser.add_argument("--keep", type=Path, help="keep the videos and reviews here")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="review-accuracy-"))
    turns = right = false_flags = 0
    video_seconds = seconds = 0.0
    missed: Counter[str] = Counter()
    offsets: list[tuple[str, int]] = []  # 3-second decisions: frames late (+) or early (-)
    for index in range(args.games):
        seed, variant, game = bench_game(root, index, args.turns, args.size, args.tempo,
                                         args.flicker, args.ramp, args.readout)
        truth = [json.loads(line) for line in (game / "events.jsonl").open()]
        summary = review(game / "game.mp4", game / "calibration.json", game / "review", variant,
                         dice_watcher=TruthDice(truth) if args.true_dice else None)
        seen = [json.loads(line) for line in (game / "review" / "events.jsonl").open()]
        result = score(truth, seen)
        turns, right = turns + result.turns, right + result.turns_right
        false_flags += len(result.false_flags)
        missed.update(event["event"] for event in result.missed)
        offsets += result.count_offsets
        video_seconds, seconds = video_seconds + summary.video_seconds, seconds + summary.seconds
        print(json.dumps({"seed": seed, "variant": variant.value, "turns": result.turns,
                          "right": result.turns_right, "false_flags": len(result.false_flags),
                          "missed": Counter(e["event"] for e in result.missed),
                          "speed": round(summary.video_seconds / summary.seconds, 2)}),
              flush=True)
    print(json.dumps({"games": args.games, "turns": turns, "turns_right": right,
                      "share_right": round(right / max(turns, 1), 4),
                      "false_flags": false_flags, "missed": dict(missed),
                      "true_dice": args.true_dice, "tempo": args.tempo,
                      "light": {"flicker": args.flicker, "ramp": args.ramp,
                                "readout": args.readout},
                      "speed_vs_real_time": round(video_seconds / max(seconds, 1e-9), 2),
                      "three_second_decisions": {
                          kind: {"matched": len(found),
                                 "within_2_frames": sum(abs(o) <= 2 for o in found),
                                 "offsets": dict(sorted(Counter(found).items()))}
                          for kind in COUNTED
                          for found in [[o for k, o in offsets if k == kind]]}}))


if __name__ == "__main__":
    main()
