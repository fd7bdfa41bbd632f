"""Train the strip classifier on synthetic strips and export it to ONNX.

    python -m models.board.data --out /tmp/board/train-1.npz --count 3000 --seed 1
    python -m models.board.data --out /tmp/board/train-2.npz --count 3000 --seed 2
    python -m models.board.train /tmp/board/train-1.npz /tmp/board/train-2.npz \
        --epochs 6 --out models/board/strips.onnx

Writes the ONNX weights and, beside them, `strips.json` (the recipe, the data and the
held-out accuracy). Seeded: torch, numpy and the split.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from models.board.nets import StripNet
from vision.board.classes import OCCLUDED
from vision.board.strips import STRIP_NAMES, STRIP_SIZE, STRIP_WIDTH


def load(paths: list[Path], empty_load: float = 1.0, seed: int = 0,
         ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """All labelled strips of the sets, in order (filled into one array: half the memory of
    concatenating), their classes and which strip of its scene each is (0-25, `STRIP_NAMES`
    order). `empty_load` < 1 keeps only that share of the empty strips (a seeded draw) of
    every set but the last, which holds the held-out strips: less memory."""
    rng = np.random.default_rng((seed, 3))
    keeps = []
    for i, p in enumerate(paths):
        y = np.load(p)["y"]
        keep = y >= 0
        if empty_load < 1 and i < len(paths) - 1:
            keep &= (y != 0) | (rng.random(len(y)) < empty_load)
        keeps.append((y, keep))
    n = sum(int(k.sum()) for _, k in keeps)
    x = np.empty((n, STRIP_SIZE[1], STRIP_SIZE[0], 3), np.uint8)
    at = 0
    for p, (_, keep) in zip(paths, keeps, strict=True):
        xp = np.load(p)["x"]
        x[at:at + int(keep.sum())] = xp[keep]
        at += int(keep.sum())
        del xp
    strip = [(np.arange(len(y)) % len(STRIP_NAMES))[k] for y, k in keeps]
    return x, np.concatenate([y[k] for y, k in keeps]), np.concatenate(strip)


def tall(y: np.ndarray[Any, Any], at_least: int) -> np.ndarray[Any, Any]:
    """Whether each class is a stack of at least `at_least` checkers (either colour)."""
    count = np.where((y >= 1) & (y <= 15), y, np.where((y >= 16) & (y <= 30), y - 15, 0))
    return np.asarray(count >= at_least)


def augment(x: torch.Tensor, gen: torch.Generator, cast_range: float = 0.12) -> torch.Tensor:
    """Mirror, brightness and contrast, a colour cast, a pixel of sideways shift."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(3), x)
    gain = 0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=gen)
    cast = 1 - cast_range / 2 + cast_range * torch.rand(n, 3, 1, 1, generator=gen)
    bias = 20 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.85 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen)
    x = ((x - mean) * contrast + mean) * gain * cast + bias
    shift = int(torch.randint(-1, 2, (1,), generator=gen))
    if shift:
        x = torch.roll(x, shift, dims=3)
    return x.clamp(0, 255)


def evaluate(net: nn.Module, x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> float:
    net.eval()
    wrong = 0
    with torch.no_grad():
        for i in range(0, len(x), 1024):
            xb = torch.from_numpy(x[i:i + 1024]).permute(0, 3, 1, 2).float()
            pred = net(xb).argmax(1).numpy()
            wrong += int((pred != y[i:i + 1024]).sum())
    return 1 - wrong / max(len(x), 1)


def init_from_onnx(net: StripNet, path: Path, calib: np.ndarray[Any, Any]) -> None:
    """Load exported weights (`strips.onnx`, where the export folded each batch norm into its
    convolution) into `net`: the folded convolution, and a batch norm whose statistics are
    measured on `calib` strips, its scale and shift set to undo them. The eval-mode network
    is then exactly the ONNX one, and in training the batch statistics come out near 1."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    blocks = [m for m in net.features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise ValueError(f"{path}: {len(convs)} convolutions, StripNet has {len(blocks)}")
    state = net.state_dict()
    for name in ("head.1.weight", "head.1.bias", "head.4.weight", "head.4.bias"):
        state[name] = torch.from_numpy(init[name].copy())
    net.load_state_dict(state)
    captured: list[torch.Tensor] = []
    with torch.no_grad():
        for node, block in zip(convs, blocks, strict=True):
            conv, bn = block[0], block[1]
            assert isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d)
            conv.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            bias = torch.from_numpy(init[node.input[2]].copy())
            bn.running_mean.zero_()
            bn.running_var.fill_(1 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias)
        net.eval()
        hooks = [b[0].register_forward_hook(lambda _m, _i, o: captured.append(o))
                 for b in blocks]
        net(torch.from_numpy(calib).permute(0, 3, 1, 2).float())
        for h in hooks:
            h.remove()
        for z, block in zip(captured, blocks, strict=True):
            bn = block[1]
            mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3), unbiased=False)
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.add_(mean)


def export(net: nn.Module, out: Path, input_name: str = "strips",
           size: tuple[int, int] = STRIP_SIZE) -> None:
    """ONNX weights at `out` (input `input_name`, patches of `size` = (width, height)) and the
    torch state beside them (`.pt`, to continue from)."""
    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    dummy = torch.zeros(2, 3, size[1], size[0])
    torch.onnx.export(net, (dummy,), str(out), input_names=[input_name],
                      output_names=["logits"],
                      dynamic_axes={input_name: {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)


@dataclass(frozen=True)
class Run:
    """How to train: epochs, batch, peak learning rate, the share of the empty patches used
    each epoch, the colour cast's range, and where the ONNX goes (its input's name, size)."""

    epochs: int
    batch: int
    lr: float
    empty_keep: float
    cast: float
    out: Path
    input_name: str = "strips"
    size: tuple[int, int] = STRIP_SIZE


def fit(net: nn.Module, train: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]],
        held_out: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]], full: np.ndarray[Any, Any],
        run: Run, rng: np.random.Generator, gen: torch.Generator) -> float:
    """Train `net` (AdamW, one-cycle rate, label smoothing 0.02): each epoch the patches at
    the indices `full` (repeats included) and a share `run.empty_keep` of the empty ones,
    augmented; after each epoch the held-out accuracy is printed and the ONNX written.
    Returns the seconds it took."""
    (xt, yt), (xv, yv) = train, held_out
    opt = torch.optim.AdamW(net.parameters(), lr=run.lr, weight_decay=1e-4)
    empty = np.flatnonzero(yt == 0)
    per_epoch = len(full) + int(len(empty) * run.empty_keep)
    steps = run.epochs * (per_epoch // run.batch + 1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, run.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    start = time.perf_counter()
    for epoch in range(run.epochs):
        net.train()
        idx = np.concatenate([full, rng.choice(empty, int(len(empty) * run.empty_keep),
                                                replace=False)])
        rng.shuffle(idx)
        total = 0.0
        for i in range(0, len(idx), run.batch):
            b = np.sort(idx[i:i + run.batch])
            xb = augment(torch.from_numpy(xt[b]).permute(0, 3, 1, 2).float(), gen, run.cast)
            loss = loss_fn(net(xb), torch.from_numpy(yt[b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(b)
        acc = evaluate(net, xv, yv)
        print(f"epoch {epoch + 1}: loss {total / len(idx):.4f}  val acc {acc:.4%}  "
              f"{time.perf_counter() - start:.0f} s", flush=True)
        export(net, run.out, run.input_name, run.size)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("models/board/strips.onnx"))
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cast", type=float, default=0.12,
                        help="range of the per-channel colour cast (0.12: +-6 %%)")
    parser.add_argument("--init", type=Path,
                        help="start from these weights: a .pt state or an exported .onnx")
    parser.add_argument("--empty-keep", type=float, default=0.35,
                        help="share of empty strips used per epoch (most strips are empty)")
    parser.add_argument("--empty-load", type=float, default=1.0,
                        help="share of empty strips loaded at all (memory; not the last set)")
    parser.add_argument("--tall-repeat", type=int, default=1,
                        help="strips of tall stacks (--tall-from or more) this often an epoch")
    parser.add_argument("--tall-from", type=int, default=10)
    parser.add_argument("--bar-repeat", type=int, default=1,
                        help="bar strips holding checkers this often an epoch (they are few)")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    gen = torch.Generator().manual_seed(args.seed)

    x, y, strip = load(args.data, args.empty_load, args.seed)
    # Hold out whole scenes' worth at the end (strips come 26 per scene, in order).
    n_val = min(len(x) // 10, 26 * 300)
    xv, yv = x[-n_val:], y[-n_val:]
    xt, yt = x[:-n_val], y[:-n_val]
    print(f"train {len(xt)} strips, val {len(xv)}; classes {np.bincount(yt, minlength=32)}")

    net = StripNet()
    if args.init is not None and args.init.suffix == ".onnx":
        init_from_onnx(net, args.init, xt[rng.choice(len(xt), 2048, replace=False)])
    elif args.init is not None:
        net.load_state_dict(torch.load(args.init))
    full = np.flatnonzero(yt != 0)
    if args.tall_repeat > 1:
        heads = np.flatnonzero(tall(yt, args.tall_from))
        full = np.concatenate([full] + [heads] * (args.tall_repeat - 1))
    if args.bar_repeat > 1:
        on_bar = np.flatnonzero((strip[:len(yt)] >= 24) & (yt != 0) & (yt != OCCLUDED))
        full = np.concatenate([full] + [on_bar] * (args.bar_repeat - 1))
    run = Run(args.epochs, args.batch, args.lr, args.empty_keep, args.cast, args.out)
    seconds = fit(net, (xt, yt), (xv, yv), full, run, rng, gen)

    net.eval()
    config = {
        "model": "StripNet", "input": "float32 (N, 3, 128, 24), BGR 0-255",
        "strip_size": list(STRIP_SIZE), "strip_width_points": STRIP_WIDTH,
        "classes": "0 empty, 1-15 light count, 16-30 dark count, 31 occluded",
        "occluded_class": OCCLUDED,
        "data": [str(p) for p in args.data], "train_strips": len(xt), "val_strips": len(xv),
        "epochs": args.epochs, "batch": args.batch, "lr": args.lr, "seed": args.seed,
        "empty_keep": args.empty_keep, "empty_load": args.empty_load, "cast": args.cast,
        "tall_repeat": args.tall_repeat, "tall_from": args.tall_from,
        "bar_repeat": args.bar_repeat,
        "init": None if args.init is None else str(args.init),
        "val_strip_accuracy": round(evaluate(net, xv, yv), 5),
        "train_seconds": round(seconds),
    }
    args.out.with_suffix(".json").write_text(json.dumps(config, indent=1) + "\n")
    print(json.dumps(config))


if __name__ == "__main__":
    main()
