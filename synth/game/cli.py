"""`nardy-referee synth game`: a whole game on video, with its ground-truth events."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.position import Variant
from synth.cli import parse_size
from synth.game.script import KINDS
from synth.game.video import generate


def add_command(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `game` under `nardy-referee synth`."""
    p = kinds.add_parser("game", help="a whole game on video: game.mp4, events.jsonl, "
                                      "calibration.json")
    p.add_argument("--variant", choices=[v.value for v in Variant], default="long")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", type=parse_size, default=(1280, 720), help="WIDTHxHEIGHT")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--inject", nargs="+", default=[], choices=[*KINDS, "random"],
                   help="cases to show: each kind at least twice (both of its outcomes), "
                        "or 'random' for each kind by chance")
    p.add_argument("--max-turns", type=int, default=20, help="turns to play; 0: the whole game")
    p.add_argument("--tempo", type=float, default=1.0,
                   help="duration factor of hand motions (the 3-second counts stay 3 s)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.fps <= 0 or args.tempo <= 0 or args.max_turns < 0:
        print("--fps and --tempo must be positive, --max-turns not negative", file=sys.stderr)
        return 2
    stats = generate(args.out, Variant(args.variant), args.seed, args.size, args.fps,
                     tuple(args.inject), args.max_turns, args.tempo)
    print(json.dumps({"out": str(args.out), **stats.to_json()}))
    return 0
