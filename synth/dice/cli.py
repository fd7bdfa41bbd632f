"""`nardy-referee synth dice` and `synth dice-clip`. MuJoCo is imported only when one runs."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import Any

from synth.cli import parse_size

EXIT_BAD_INPUT = 2
CLIP_SCENARIOS = ("settle", "cocked-long", "cocked-falls", "stalled")


# The dice commands keep their own limits: 32 to 4096 pixels a side.
dice_size = functools.partial(parse_size, smallest=32, largest=4096)


def add_command(kinds: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    dice = kinds.add_parser("dice", help="labelled pictures of two dice thrown into a baffle box")
    dice.add_argument("--out", type=Path, required=True, help="output folder")
    dice.add_argument("--count", type=int, default=100)
    dice.add_argument("--seed", type=int, default=0)
    dice.add_argument("--scenario", choices=("mix", "throw", "lean", "stall", "pile"),
                      default="mix",
                      help="mix (default): throws, dice leaning on a wall or die, stalls; "
                           "pile: 3-30 dice in a heap, seen close up (for photographs)")
    dice.add_argument("--against", choices=("wall", "die"), default=None,
                      help="lean scenario: what the die leans on (default either)")
    dice.add_argument("--size", type=dice_size, default=(640, 480), help="WIDTHxHEIGHT")
    dice.add_argument("--format", choices=("jpg", "png"), default="jpg")
    dice.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    dice.add_argument("--top-down", action="store_true",
                      help="straight-down camera and no image effects (for checking labels)")
    dice.set_defaults(run=run_dice)

    clip = kinds.add_parser("dice-clip", help="a 30 fps throw with per-frame states, events "
                            "and the tray camera's calibration")
    clip.add_argument("--out", type=Path, required=True, help="output folder")
    clip.add_argument("--seed", type=int, default=0)
    clip.add_argument("--scenario", choices=CLIP_SCENARIOS, default="settle")
    clip.add_argument("--size", type=dice_size, default=(640, 480), help="WIDTHxHEIGHT")
    clip.add_argument("--mp4", action="store_true", help="also write clip.mp4")
    clip.set_defaults(run=run_clip)

    relabel = kinds.add_parser("dice-relabel", help="judge rendered clips' motion states and "
                               "events again from their stored poses (clips rendered before "
                               "the rest test changed)")
    relabel.add_argument("clips", type=Path, nargs="+", help="clip folders")
    relabel.set_defaults(run=run_relabel)


def run_dice(args: argparse.Namespace) -> int:
    if args.count < 1 or args.workers < 1:
        print("synth dice: --count and --workers must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    from synth.dice.generate import Options, generate

    options = Options(out=args.out, count=args.count, seed=args.seed, scenario=args.scenario,
                      width=args.size[0], height=args.size[1], image_format=args.format,
                      workers=args.workers, top_down=args.top_down, against=args.against)
    import time

    start = time.perf_counter()
    for done, total in generate(options):
        print(f"\r{done}/{total}", end="", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    print(f"\n{args.count} pictures in {seconds:.1f} s ({args.count / seconds:.1f}/s) "
          f"-> {args.out / 'labels.jsonl'}", file=sys.stderr)
    return 0


def run_relabel(args: argparse.Namespace) -> int:
    from synth.dice.clip import relabel

    failed = 0
    for directory in args.clips:
        # A clip is read whole before it is written, so one that cannot be read is left as
        # it was, and the others are judged all the same.
        try:
            if not (directory / "states.jsonl").is_file():
                raise ValueError("no states.jsonl: no rendered clip")
            found = relabel(directory)
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"synth dice-relabel: {directory}: {error!r}, left as it was",
                  file=sys.stderr)
            failed += 1
            continue
        print(f"{directory.name}: " + ", ".join(f"{e['event']}@{e['frame']}" for e in found),
              file=sys.stderr)
    return EXIT_BAD_INPUT if failed else 0


def run_clip(args: argparse.Namespace) -> int:
    from synth.dice.clip import write_clip

    summary: dict[str, Any] = write_clip(args.out, args.seed, args.scenario,
                                         args.size[0], args.size[1], mp4=args.mp4)
    print(f"{summary['frames']} frames, events: "
          + ", ".join(f"{e['event']}@{e['frame']}" for e in summary["events"]), file=sys.stderr)
    return 0
