"""Vision commands of `nardy-referee`: read-dice (read-board comes with the board reader)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]


def add_commands(commands: Subcommands) -> None:
    dice = commands.add_parser("read-dice", help="read the dice in photographs or tray frames")
    dice.add_argument("images", nargs="+", type=Path)
    dice.add_argument("--calibration", type=Path, help="tray calibration (dice zones)")
    dice.set_defaults(run=cmd_read_dice)


def read_image(path: Path) -> np.ndarray:
    """A BGR image from a file; ValueError with a plain reason when it cannot be read."""
    import cv2

    if not path.is_file():
        raise ValueError("no such file")
    data = np.fromfile(path, np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ValueError("not a readable image (corrupt or unknown format)")
    return image


def cmd_read_dice(args: argparse.Namespace) -> int:
    from vision.dice.closer import look_closer
    from vision.dice.reader import DiceReader
    from vision.dice.stream import DICE_PER_THROW
    from vision.dice.zones import TrayCalibration

    calibration = TrayCalibration.load(args.calibration) if args.calibration else None
    zones = calibration.zones if calibration else None
    # A tray camera's frame is read as the tray camera reads it; anything else is a photograph.
    reader = DiceReader() if zones else DiceReader.for_photographs()
    for path in args.images:
        record: dict[str, Any] = {"image": str(path)}
        try:
            image = read_image(path)
            if calibration is not None:  # its zones are in the pixels of its frames
                calibration.check_size(image, "the image")
            if zones is None:
                record["dice"] = [die.to_json() for die in reader.read(image)]
            else:
                # As the tray camera reads a frame (vision/tray.py): the dice in the zones, a
                # box too wide for one die read again closer, a die cocked in the open flat.
                dice, too_wide = zones.sort(reader.read(image, zones.view, zones))
                if too_wide:
                    dice, _ = zones.sort(look_closer(reader, image, dice, [], zones, too_wide))
                dice = zones.flat_where_unpropped(dice, DICE_PER_THROW)
                record["dice"] = [{**die.to_json(), **zones.describe(die)} for die in dice]
        except ValueError as error:
            record = {"image": str(path), "error": str(error)}
        print(json.dumps(record), flush=True)
    return 0


