"""The tray camera's rendered still sets as the model cards count them: of the dice lying in
the tray (out of the box) that the reader finds, the flat dice read right, the cocked dice
caught and the flat dice called cocked, per set and by the dice's look.

    python -m models.dice.tray_stills [--models DIR] [--read DIR ...] [--still-tray DIR ...]

--read: each scene read as one frame with its calibration's view, a die called cocked where
nothing could hold it on an edge then read flat; --still-tray: as the tray camera reads a
frame of the tray at rest (both `evaluate.read_rendered`, as `evaluate.score_cocked` reads).
The cards' "nine still sets" are --read 777000, 999000 and 1111000 (`cocked.md`'s Retrain
renders them) and --still-tray 2626000 to 3131000 (`nardy-referee synth dice --count 500
--seed S`). The cards judge candidates on these counts.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from models.dice.data import MIN_DIE_PIXELS, LabelledImage, synthetic
from models.dice.evaluate import match, read_rendered
from vision.dice.reader import MODEL_DIR, DiceReader, DieReading

UNKNOWN = "unknown"  # the look of a die in a scene rendered before looks were recorded


@dataclass
class Tally:
    flat: int = 0
    flat_right: int = 0
    flat_called_cocked: int = 0
    cocked: int = 0
    cocked_caught: int = 0

    def add(self, other: Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        return (f"flat right {self.flat_right} of {self.flat}, cocked caught "
                f"{self.cocked_caught} of {self.cocked}, flat called cocked "
                f"{self.flat_called_cocked}")


def count_scene(item: LabelledImage, found: list[DieReading],
                by_look: dict[str, Tally]) -> None:
    """Adds the scene's dice in the tray that were found, big enough to judge, to the tally
    of their look: a flat die right when read flat with its value, a cocked one caught when
    read cocked."""
    looks = item.styles or (UNKNOWN,) * len(item.values)
    in_box = item.in_box if item.in_box is not None else [False] * len(item.values)
    for k, (truth, read) in enumerate(match(item, found)[:len(item.values)]):
        if read is None or in_box[k] or min(item.boxes[k][2:]) < MIN_DIE_PIXELS:
            continue
        tally = by_look.setdefault(looks[k], Tally())
        if truth == 0:
            tally.cocked += 1
            tally.cocked_caught += read == 0
        else:
            tally.flat += 1
            tally.flat_right += read == truth
            tally.flat_called_cocked += read == 0


def count_set(reader: DiceReader, directory: Path, still_tray: bool) -> dict[str, Tally]:
    by_look: dict[str, Tally] = {}
    for item in synthetic(directory):
        count_scene(item, read_rendered(reader, item, True, still_tray), by_look)
    return by_look


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=MODEL_DIR)
    parser.add_argument("--read", type=Path, nargs="+", default=[],
                        help="scene sets read as single frames with the view")
    parser.add_argument("--still-tray", type=Path, nargs="+", default=[],
                        help="scene sets read as the tray camera reads a tray at rest")
    args = parser.parse_args()
    if not args.read and not args.still_tray:
        parser.error("give scene sets to --read or --still-tray")
    reader = DiceReader(args.models)
    total: dict[str, Tally] = {}
    for directories, still_tray in ((args.read, False), (args.still_tray, True)):
        for directory in directories:
            by_look = count_set(reader, directory, still_tray)
            whole = Tally()
            for look, tally in by_look.items():
                whole.add(tally)
                total.setdefault(look, Tally()).add(tally)
            print(f"{directory.name}: {whole.line()}", flush=True)
    overall = Tally()
    for look, tally in sorted(total.items()):
        overall.add(tally)
        print(f"  {look}: {tally.line()}")
    print(f"all: {overall.line()}")


if __name__ == "__main__":
    main()
