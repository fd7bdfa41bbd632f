"""On how many synthetic boards `calibrate --auto` finds the field (corner error < 2 % of the
field's width), and how long it takes.

    python bench/calibrate_auto.py [--boards 30] [--seed 2024]

One scene per board design (sessions skipped), hands included as rendered (30 %).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from calibration.auto import find_field
from synth.board.render import BoardRenderer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    errors: list[float | None] = []
    seconds = []
    for i in range(args.boards):
        scene = BoardRenderer((args.seed, i), (1280, 720)).next_scene()
        truth = np.array(scene.label["corners"])
        width = float(np.linalg.norm(truth[1] - truth[0]))
        start = time.perf_counter()
        try:
            fit = find_field(scene.image)
            errors.append(float(np.abs(fit.corners - truth).max()) / width)
        except ValueError:
            errors.append(None)
        seconds.append(time.perf_counter() - start)
    found = [e for e in errors if e is not None]
    print(json.dumps({
        "boards": args.boards,
        "within_2pct": sum(e < 0.02 for e in found),
        "within_5pct": sum(e < 0.05 for e in found),
        "no_field_found": errors.count(None),
        "median_error_pct": round(100 * float(np.median(found)), 2) if found else None,
        "seconds_median": round(float(np.median(seconds)), 2),
    }))


if __name__ == "__main__":
    main()
