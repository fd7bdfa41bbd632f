"""What the dice networks' training scripts share: their common options, the training data,
starting weights, and writing the weights, the ONNX export and the config side by side."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import torch

from models.dice.data import LabelledImage, rune55, synthetic


def training_parser(description: str, epochs: int, batch: int) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--synthetic", type=Path, action="append", default=[])
    parser.add_argument("--init", type=Path, help="start from these weights (a .pt state dict)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads for torch and OpenCV (the dev machine is shared)")
    return parser


def seeded(args: argparse.Namespace) -> np.random.Generator:
    """Seed torch, set the threads, and give the run's one numpy generator."""
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)
    torch.manual_seed(args.seed)
    return np.random.default_rng(args.seed)


def training_items(args: argparse.Namespace) -> list[LabelledImage]:
    """rune55 train and the synthetic folders given: never the held-out sets."""
    return rune55("train") + [item for d in args.synthetic for item in synthetic(d)]


Job = TypeVar("Job")
Result = TypeVar("Result")


def map_jobs(function: Callable[[Job], Result], jobs: Sequence[Job],
             workers: int) -> list[Result]:
    """`function` of each job, in order; in `workers` processes when there are several (the
    scenes' crops are cut from images read from disk, one scene a job)."""
    if workers <= 1:
        return [function(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(function, jobs, chunksize=64))


def start_from(model: torch.nn.Module, args: argparse.Namespace,
               adapt: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]] | None = None,
               ) -> torch.nn.Module:
    """Load --init; layers the saved weights lack (blocks added since) keep their own start,
    and input channels they lack (the context crop) start at zero, so the network at first
    computes what the saved one did. `adapt` reshapes saved weights the network has grown
    out of (a head with more classes)."""
    if args.init:
        state = torch.load(args.init)
        if adapt is not None:
            state = adapt(state)
        own = model.state_dict()
        for key, saved in state.items():
            if key in own and saved.dim() == 4 and own[key].shape[1] > saved.shape[1]:
                grown = torch.zeros_like(own[key])
                grown[:, : saved.shape[1]] = saved
                state[key] = grown
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected:
            raise ValueError(f"{args.init} holds weights this network lacks: {unexpected}")
        if missing:
            print(f"not in {args.init}, left as initialised: {len(missing)} tensors")
    return model


def export_onnx(model: torch.nn.Module, example: torch.Tensor, path: Path,
                names: tuple[str, ...], dynamic_axes: dict[str, dict[int, str]]) -> None:
    """`model` in eval mode as ONNX at `path`, as onnxruntime runs it in the reader: one
    input and one output or more, named `names` (the input's first)."""
    model.eval()
    torch.onnx.export(model, (example,), str(path), input_names=[names[0]],
                      output_names=list(names[1:]), dynamic_axes=dynamic_axes,
                      opset_version=17, dynamo=False)


def save(
    model: torch.nn.Module,
    args: argparse.Namespace,
    name: str,
    example: torch.Tensor,
    names: tuple[str, str],
    dynamic_axes: dict[str, dict[int, str]],
    config: dict[str, Any],
) -> None:
    """`name`.pt (to continue from with --init), `name`.onnx and `name`.json in args.out,
    made if missing (a run of minutes must not be lost for want of a folder)."""
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out / f"{name}.pt")
    path = args.out / f"{name}.onnx"
    export_onnx(model, example, path, names, dynamic_axes)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")
    config = {**config, "init": str(args.init) if args.init else None, "epochs": args.epochs,
              "batch": args.batch, "lr": args.lr, "seed": args.seed,
              "synthetic": [str(d) for d in args.synthetic]}
    (args.out / f"{name}.json").write_text(json.dumps(config, indent=2) + "\n")
