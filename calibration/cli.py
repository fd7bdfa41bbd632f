"""`nardy-referee calibrate`: make a board-camera calibration file.

    nardy-referee calibrate IMAGE --corners X,Y X,Y X,Y X,Y [--white-home CORNER] --out FILE
    nardy-referee calibrate IMAGE --aruco --out FILE      # markers 0-3 at the field corners
    nardy-referee calibrate IMAGE --auto --out FILE       # from the board's own lines
    nardy-referee calibrate IMAGE --check FILE            # has the camera moved since?
    nardy-referee calibrate --print-markers OUT.png       # a printable marker sheet
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]

CORNER_NAMES = ("bottom-right", "bottom-left", "top-left", "top-right")


def parse_xy(text: str) -> tuple[float, float]:
    """'X,Y' as a pair of floats."""
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a point must look like X,Y, got {text!r}") from None
    return (x, y)


def add_command(commands: Subcommands) -> None:
    """Register `calibrate` under the main command line."""
    p = commands.add_parser("calibrate", help="calibrate the board camera (field corners, "
                            "layout, colours)")
    p.add_argument("image", type=Path, nargs="?", help="a frame of the board camera")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--corners", type=parse_xy, nargs=4, metavar="X,Y",
                     help="field corners: top-left top-right bottom-right bottom-left")
    how.add_argument("--aruco", action="store_true",
                     help="find ArUco markers 0-3 (DICT_4X4_50) at the field's corners")
    how.add_argument("--auto", action="store_true", help="find the field from its lines")
    how.add_argument("--check", type=Path, metavar="CALIBRATION",
                     help="say whether the camera moved since this calibration")
    how.add_argument("--print-markers", type=Path, metavar="OUT.png",
                     help="write a printable sheet of the four markers")
    p.add_argument("--white-home", choices=CORNER_NAMES, default="bottom-right",
                   help="image corner holding white's point 1 (default bottom-right)")
    p.add_argument("--tray", type=parse_xy, nargs="+", metavar="X,Y",
                   help="dice exit-tray polygon (tray camera pixels)")
    p.add_argument("--box", type=parse_xy, nargs="+", metavar="X,Y",
                   help="inside of the baffle box polygon (tray camera pixels)")
    p.add_argument("--tray-mm", type=float, nargs=2, metavar=("LENGTH", "WIDTH"),
                   help="the exit tray floor's inner size, when --tray gives its 4 corners "
                        "(the first two along LENGTH): the camera's view of the floor is "
                        "then measured, for the cocked-die call, and how big a die can "
                        "look where it lies")
    p.add_argument("--out", type=Path, help="calibration file to write")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    if args.print_markers is not None:
        from calibration.aruco import marker_sheet

        if not cv2.imwrite(str(args.print_markers), marker_sheet()):
            raise ValueError(f"cannot write {args.print_markers}")
        print(json.dumps({"markers": str(args.print_markers), "ids": [0, 1, 2, 3],
                          "dictionary": "DICT_4X4_50"}))
        return 0
    if args.image is None:
        raise ValueError("calibrate needs an IMAGE (or --print-markers OUT.png)")
    from vision.board.cli import read_image

    image = read_image(args.image)
    if args.check is not None:
        from calibration.board import BoardCalibration
        from calibration.moved import check_camera

        verdict = check_camera(BoardCalibration.load(args.check), image)
        print(json.dumps({"image": str(args.image), **verdict.to_json()}))
        return 0
    if args.out is None:
        raise ValueError("calibrate needs --out FILE")
    if args.corners is not None:
        corners = args.corners
        markers = None
    elif args.aruco:
        from calibration.aruco import field_corners

        corners, markers = field_corners(image)
    elif args.auto:
        from calibration.auto import find_field

        corners, markers = find_field(image).corners, None
    else:
        raise ValueError("calibrate needs --corners, --aruco, --auto, --check or "
                         "--print-markers")
    zones: dict[str, Any] | None = None
    warnings: list[str] = []
    if args.tray or args.box:
        if not (args.tray and args.box) or len(args.tray) < 3 or len(args.box) < 3:
            raise ValueError("dice zones need both --tray and --box, 3 points or more each")
        zones = {"tray": [list(p) for p in args.tray], "box": [list(p) for p in args.box]}
        if args.tray_mm:
            if len(args.tray) != 4:
                raise ValueError("--tray-mm needs --tray to give the tray floor's 4 corners")
            from calibration.tray_view import TrayView, too_low

            height, width = image.shape[:2]
            view = TrayView.from_tray(args.tray, tuple(args.tray_mm), (width, height))
            zones["view"] = view.to_json()
            zones["tray_mm"] = list(args.tray_mm)  # how big a die can look where it lies
            warning = too_low(view, args.tray)
            warnings += [warning] if warning else []
    elif args.tray_mm:
        raise ValueError("--tray-mm needs --tray and --box")
    from calibration.make import calibrate

    calibration = calibrate(image, corners, args.white_home, markers=markers, dice_zones=zones)
    calibration.save(args.out)
    summary = calibration.to_json()
    summary.pop("border", None)
    print(json.dumps({"out": str(args.out), **summary,
                      **({"warnings": warnings} if warnings else {})}))
    return 0

