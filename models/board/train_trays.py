"""Train the tray classifier (vision/board/trays.py) on synthetic tray patches, export ONNX.

    python -m models.board.train_trays /tmp/board_off/hr-{41,42,43,44}.npz --epochs 14 \
        --out /tmp/board_off/v2/trays.onnx

(the full recipe: models/board/README.md, "Tray classifier").

The network is the strip classifier's (`nets.py: StripNet`: it averages over the width, so it
takes the wider tray patch as it is), its head sized for the taller patch, fewer channels. The
last 300 scenes of the last set are held out. Writes `trays.json` beside the weights (the
run's settings and held-out accuracy). Seeded; `--init` continues from a `.pt` state.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.board.nets import StripNet
from models.board.train import Run, evaluate, fit
from vision.board.trays import TRAY_NAMES, TRAY_SIZE

# Fewer channels than the strips' network: four of these larger patches a frame cost about as
# much as 16 strips (about 2 ms on one thread), where the full width cost 2.5 ms.
CHANNELS = (12, 16, 24, 32)


def load(paths: list[Path]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The labelled patches of all sets in order (out-of-picture ones, -1, left out)."""
    xs, ys = [], []
    for p in paths:
        data = np.load(p)
        keep = data["y"] >= 0
        xs.append(data["x"][keep])
        ys.append(data["y"][keep])
    return np.concatenate(xs), np.concatenate(ys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("models/board/trays.onnx"))
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init", type=Path, help="start from this .pt state")
    parser.add_argument("--empty-keep", type=float, default=0.4,
                        help="share of empty patches used per epoch (most trays are empty)")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator().manual_seed(args.seed)

    x, y = load(args.data)
    last = np.load(args.data[-1])
    n_val = int((last["y"][last["image"] >= last["image"].max() - 299] >= 0).sum())
    xv, yv, xt, yt = x[-n_val:], y[-n_val:], x[:-n_val], y[:-n_val]
    print(f"train {len(xt)} patches, val {len(xv)}; classes {np.bincount(yt, minlength=32)}")

    net = StripNet(rows=TRAY_SIZE[1] // 8, channels=CHANNELS)
    if args.init is not None:
        net.load_state_dict(torch.load(args.init))
    full = np.flatnonzero(yt != 0)
    run = Run(args.epochs, args.batch, args.lr, args.empty_keep, cast=0.12, out=args.out,
              input_name="trays", size=TRAY_SIZE)
    seconds = fit(net, (xt, yt), (xv, yv), full, run, rng, gen)

    config = {
        "model": f"StripNet(rows={TRAY_SIZE[1] // 8}, channels={CHANNELS})",
        "input": f"float32 (N, 3, {TRAY_SIZE[1]}, {TRAY_SIZE[0]}), BGR 0-255",
        "patch_size": list(TRAY_SIZE), "patches": list(TRAY_NAMES),
        "classes": "0 empty, 1-15 light count, 16-30 dark count, 31 hidden",
        "data": [str(p) for p in args.data], "train_patches": len(xt), "val_patches": len(xv),
        "epochs": args.epochs, "batch": args.batch, "lr": args.lr, "seed": args.seed,
        "empty_keep": args.empty_keep, "init": None if args.init is None else str(args.init),
        "val_accuracy": round(evaluate(net, xv, yv), 5),
        "train_seconds": round(seconds),
    }
    args.out.with_suffix(".json").write_text(json.dumps(config, indent=1) + "\n")
    print(json.dumps(config))


if __name__ == "__main__":
    main()
