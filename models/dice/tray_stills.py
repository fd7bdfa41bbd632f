"""The tray camera's rendered still sets as the model cards count them: of the dice lying in
the tray (out of the box) that the reader finds, the flat dice read right, the cocked dice
caught and the flat dice called cocked, per set and by the dice's look.

    python -m models.dice.tray_stills [--models DIR] [--read DIR ...] [--still-tray DIR ...]

--read: each scene read as one frame with its calibration's view, a die called cocked where
nothing could hold it on an edge then read flat; --still-tray: as the tray camera reads a
frame of the tray at rest (both `evaluate.read_rendered`, as `evaluate.score_cocked` reads).
The cards' "nine still sets" are --read 777000, 999000 and 1111000 (`cocked.md`'s Retrain
renders them) and --still-tray 2626000 to 3131000 (`nardy-referee synth dice --count 500
--seed S`). The cards judge candidates on these counts. The same dice are counted again by
where they lie and how far the cocked ones lean: what is left to catch, and where.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from models.dice.data import MIN_DIE_PIXELS, LabelledImage, synthetic
from models.dice.evaluate import match, read_rendered
from vision.dice.reader import MODEL_DIR, DiceReader, DieReading

UNKNOWN = "unknown"  # the look of a die in a scene rendered before looks were recorded
# How far a cocked die leans, in degrees from lying on a face: the box's exit lip holds one
# at 5-16, a tray wall or the other die at 20 and more (synth/dice/geometry.py).
LEANS = ((10.0, "leaning under 10 degrees"), (20.0, "leaning 10-20 degrees"),
         (35.0, "leaning 20-35 degrees"), (float("inf"), "leaning 35 degrees or more"))


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
        """The counts, those of flat dice or of cocked ones alone where only they are."""
        flat = f"flat right {self.flat_right} of {self.flat}"
        cocked = f"cocked caught {self.cocked_caught} of {self.cocked}"
        called = f"flat called cocked {self.flat_called_cocked}"
        if not self.cocked and self.flat:
            return f"{flat}, {called}"
        return cocked if not self.flat and self.cocked else f"{flat}, {cocked}, {called}"


def count_scene(item: LabelledImage, found: list[DieReading], by_look: dict[str, Tally],
                by_place: dict[str, Tally] | None = None) -> None:
    """Adds the scene's dice in the tray that were found, big enough to judge, to the tally
    of their look: a flat die right when read flat with its value, a cocked one caught when
    read cocked; and with `by_place`, to the tally of where each lies (`place`)."""
    looks = item.styles or (UNKNOWN,) * len(item.values)
    in_box = item.in_box if item.in_box is not None else [False] * len(item.values)
    for k, (truth, read) in enumerate(match(item, found)[:len(item.values)]):
        if read is None or in_box[k] or min(item.boxes[k][2:]) < MIN_DIE_PIXELS:
            continue
        die = Tally()
        if truth == 0:
            die.cocked, die.cocked_caught = 1, int(read == 0)
        else:
            die.flat, die.flat_right, die.flat_called_cocked = 1, int(read == truth), int(read == 0)
        by_look.setdefault(looks[k], Tally()).add(die)
        if by_place is not None:
            by_place.setdefault(place(item, k), Tally()).add(die)


def place(item: LabelledImage, k: int) -> str:
    """Where the scene's die `k` lies in the tray: at the box's exit (`DiceZones.at_exit`,
    where the lip's cocked dice and the ramp toe's flat ones lie) or in the open tray, where
    the scene's calibration places the box; and for a cocked die, how far it leans (LEANS),
    where the scene records it."""
    at_exit = None if item.zones is None else item.zones.at_exit(item.boxes[k])
    where = "tray" if at_exit is None else "box's exit" if at_exit else "open tray"
    if item.values[k] != 0 or item.tilts is None:
        return where
    return f"{where}, " + next(name for below, name in LEANS if item.tilts[k] < below)


def _place_order(name: str) -> tuple[str, int]:
    """A place (`place`) before its cocked dice, those from the least lean to the most."""
    where, _, lean = name.partition(", ")
    return where, 1 + [n for _, n in LEANS].index(lean) if lean else 0


def count_set(reader: DiceReader, directory: Path, still_tray: bool,
              by_place: dict[str, Tally]) -> dict[str, Tally]:
    """The set's tallies by look; its dice added to `by_place` too."""
    by_look: dict[str, Tally] = {}
    for item in synthetic(directory):
        count_scene(item, read_rendered(reader, item, True, still_tray), by_look, by_place)
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
    by_place: dict[str, Tally] = {}
    for directories, still_tray in ((args.read, False), (args.still_tray, True)):
        for directory in directories:
            by_look = count_set(reader, directory, still_tray, by_place)
            whole = Tally()
            for look, tally in by_look.items():
                whole.add(tally)
                total.setdefault(look, Tally()).add(tally)
            print(f"{directory.name}: {whole.line()}", flush=True)
    overall = Tally()
    for look, tally in sorted(total.items()):
        overall.add(tally)
        print(f"  {look}: {tally.line()}")
    for where, tally in sorted(by_place.items(), key=lambda item: _place_order(item[0])):
        print(f"  {where}: {tally.line()}")
    print(f"all: {overall.line()}")


if __name__ == "__main__":
    main()
