"""`nardy-referee review VIDEO --out DIR`: a recorded match in, a timeline of evidence out.

Exit status: 0 reviewed to the end; 1 the video is damaged part-way (everything before the
damage is reviewed and kept, the log says where it stopped); 2 nothing could be reviewed (no
such video, not a video, no usable calibration, DIR already holds a review).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.position import Variant
from referee.review import progress_bar, review

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]

EXIT_DAMAGED = 1


def add_command(commands: Subcommands) -> None:
    parser = commands.add_parser("review", help="review a recorded match into evidence")
    parser.add_argument("video", type=Path, help="the recorded match (any video OpenCV reads)")
    parser.add_argument("--out", type=Path, required=True, help="a new folder for the evidence")
    parser.add_argument("--calibration", type=Path,
                        help="the table's calibration (default: calibration.json beside VIDEO)")
    parser.add_argument("--variant", choices=[v.value for v in Variant],
                        help="long or short (default: the calibration's, else long)")
    parser.add_argument("--head-exception", choices=("second", "both"), default="second",
                        help="whose first throw of 3-3, 4-4 or 6-6 may take two checkers off "
                        "the head (5.4.11)")
    parser.add_argument("--tray-video", type=Path,
                        help="the tray's own camera, if it has one (recorded from the same start)")
    parser.add_argument("--tray-calibration", type=Path,
                        help="that camera's calibration, with its dice_zones")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.video.is_file() and not str(args.video).isdigit() and "://" not in str(args.video):
        raise ValueError(f"{args.video}: no such video file")
    calibration: Path = args.calibration or args.video.parent / "calibration.json"
    if not calibration.is_file():
        raise ValueError(f"no calibration at {calibration}: calibrate the table first "
                         "(nardy-referee calibrate) or pass --calibration")
    variant = Variant(args.variant or _calibrated_variant(calibration))
    if (args.tray_video is None) != (args.tray_calibration is None):
        raise ValueError("--tray-video and --tray-calibration go together")
    tray = None if args.tray_video is None else (args.tray_video, args.tray_calibration)
    summary = review(args.video, calibration, args.out, variant, args.head_exception,
                     None if args.quiet else progress_bar(), tray=tray)
    print(json.dumps({"out": str(args.out), **summary.to_json()}))
    if not summary.complete:
        print(f"nardy-referee review: {summary.problem}; the review stops there, what came "
              "before is kept", file=sys.stderr)
        return EXIT_DAMAGED
    return 0


def _calibrated_variant(calibration: Path) -> str:
    try:
        data = json.loads(calibration.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"cannot read calibration {calibration}: {error}") from None
    variant = data.get("variant", "long") if isinstance(data, dict) else "long"
    return str(variant)
