"""Evaluate the borne-off reading (vision/board/trays.py through `BoardReader`) on synthetic
boards never trained on, and say what it reads on the real frames of shared/data/board-photos.

    python -m models.board.evaluate_trays --count 400 --seed 1000 [--hand-rate 0.3] \
        [--bear-off 0] [--rows models/board/eval-trays-hands.csv] [--real]

Truth per tray half (synth/board's "trays" label): its checkers, or not visible when the tray
half is not wholly in the picture or a hand hides it. Prints the totals as JSON: tray halves
read right, halves called not visible while visible (and why: the reader's patch leaves the
picture, or the network said hidden), halves given a count while not visible, and boards
whose `off` is exactly right (null when a half was not visible counts as right only if the
truth has a half not visible too).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from models.board.data import jpeg
from models.board.evaluate import SHARED
from models.board.tray_data import BearOffRenderer
from vision.board.classes import OCCLUDED, encode_class
from vision.board.reader import BoardReader
from vision.board.strips import canonical_geometry
from vision.board.trays import MODEL, TRAY_NAMES, extract_trays


def truth(label: dict[str, Any]) -> list[int]:
    """Class of each tray half as the label has it, not visible (31) outside the picture."""
    out = []
    for name in TRAY_NAMES:
        half = label["trays"][name]
        seen = half["in_picture"] and not half["hidden"]
        out.append(encode_class(half["colour"], half["count"]) if seen else OCCLUDED)
    return out


def synthetic(reader: BoardReader, count: int, seed: int, hand_rate: float, bear_off: float,
              rows: list[dict[str, Any]]) -> dict[str, Any]:
    renderer = BearOffRenderer(seed, bear_off, hand_rate)
    rng = np.random.default_rng((seed, 11))
    for i in range(count):
        scene = renderer.next_scene()
        label = scene.label
        image = jpeg(scene.image, int(rng.integers(55, 96)))
        reading = reader.read(image, label["corners"])
        assert reading.trays is not None
        said = [int(c) for c in reading.trays.classes]
        want = truth(label)
        _, in_picture = extract_trays(image, np.array(label["corners"]), canonical_geometry())
        inside = [bool(v) for v in in_picture]
        seen_all = OCCLUDED not in want
        rows.append({
            "set": f"synth-{seed}", "image": i, "variant": label["variant"],
            "tilt": label["camera"]["tilt"], "off": json.dumps(label["off"]),
            "read": json.dumps(reading.off()), "read_alone": json.dumps(reading.trays.off()),
            "truth": " ".join(map(str, want)),
            "said": " ".join(map(str, said)),
            "halves_right": sum(s == w for s, w in zip(said, want, strict=True)),
            "false_hidden_patch": sum(w != OCCLUDED and not ok
                                      for w, ok in zip(want, inside, strict=True)),
            "false_hidden_net": sum(w != OCCLUDED and s == OCCLUDED and ok
                                    for s, w, ok in zip(said, want, inside, strict=True)),
            "false_visible": sum(w == OCCLUDED and s != OCCLUDED
                                 for s, w in zip(said, want, strict=True)),
            "visible": sum(w != OCCLUDED for w in want),
            "off_right": reading.off() == label["off"] if seen_all else reading.off() is None,
            "off_right_alone": reading.trays.off() == label["off"] if seen_all
            else reading.trays.off() is None,
            "all_seen": seen_all, "with_off": label["off"] != {"light": 0, "dark": 0},
        })
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    halves = 4 * len(rows)
    visible = sum(r["visible"] for r in rows)
    seen = [r for r in rows if r["all_seen"]]
    with_off = [r for r in seen if r["with_off"]]
    return {
        "images": len(rows), "tray_halves": halves, "halves_visible": visible,
        "halves_right_pct": round(100 * sum(r["halves_right"] for r in rows) / max(halves, 1), 2),
        "visible_called_hidden_patch": sum(r["false_hidden_patch"] for r in rows),
        "visible_called_hidden_net": sum(r["false_hidden_net"] for r in rows),
        "hidden_given_a_count": sum(r["false_visible"] for r in rows),
        "hidden_halves": halves - visible,
        "boards_off_right_pct": round(100 * sum(r["off_right"] for r in rows)
                                      / max(len(rows), 1), 2),
        "boards_all_seen": len(seen),
        "all_seen_off_right": sum(r["off_right"] for r in seen),
        "all_seen_with_off": len(with_off),
        "all_seen_with_off_right": sum(r["off_right"] for r in with_off),
        "boards_off_right_trays_alone_pct": round(100 * sum(r["off_right_alone"] for r in rows)
                                                  / max(len(rows), 1), 2),
        "read_null": sum(r["read"] == "null" for r in rows),
    }


def real(reader: BoardReader) -> list[dict[str, Any]]:
    """What the reader says about the trays of each real frame."""
    from vision.board.cli import read_image

    out = []
    for item in json.loads((SHARED / "labels.json").read_text()):
        answer = reader.read(read_image(SHARED / item["file"]), item["corners"]).to_json("")
        out.append({"file": item["file"], "off": answer["off"],
                    "off_hidden": answer["off_hidden"],
                    "off_confidence": answer["off_confidence"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--hand-rate", type=float, default=0.3)
    parser.add_argument("--bear-off", type=float, default=0.0,
                        help="share of sessions at a finished game's end (0: the seed's "
                             "default scenes, as models.board.evaluate renders them)")
    parser.add_argument("--rows", type=Path, help="CSV file for the per-image rows")
    parser.add_argument("--real", action="store_true", help="also the real frames")
    parser.add_argument("--model", type=Path, default=MODEL, help="tray classifier")
    args = parser.parse_args()
    reader = BoardReader(trays=args.model)
    rows: list[dict[str, Any]] = []
    summary = synthetic(reader, args.count, args.seed, args.hand_rate, args.bear_off, rows)
    if args.rows and rows:
        with args.rows.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print(json.dumps({"synthetic": summary, "seed": args.seed, "hand_rate": args.hand_rate,
                      "bear_off": args.bear_off}))
    if args.real and SHARED.is_dir():
        for r in real(reader):
            print(json.dumps(r))


if __name__ == "__main__":
    main()
