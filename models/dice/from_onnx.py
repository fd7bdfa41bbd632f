"""A committed straight-down network (cocked.onnx, faces.onnx) as a state dict to continue
training from (`train_cocked --init`): only the ONNX exports are committed, and the export
folds each BatchNorm into the convolution before it.

    python -m models.dice.from_onnx models/dice/cocked.onnx --synthetic DIR --out cocked.pt

The convolutions take the folded weights; each BatchNorm is rebuilt from the statistics of its
input over crops of the scenes given (those the run will train on), so that it computes the
export exactly in eval mode and nearly in train mode, where it normalises by the batch's own
statistics. Prints how far the rebuilt network is from the export on those crops.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper

from models.dice.nets import DieClassifier
from models.dice.train_cocked import centred, dataset, with_slope

SAMPLE = 3000  # crops the BatchNorm statistics are measured on


def unfolded(path: Path, sample: torch.Tensor) -> DieClassifier:
    """The network of an export of `DieClassifier` without residual blocks, its BatchNorms
    rebuilt from their inputs' statistics over `sample` (n, channels, size, size)."""
    graph = onnx.load(str(path)).graph
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    convolutions = [node for node in graph.node if node.op_type == "Conv"]
    classes, _ = weights["classify.weight"].shape
    model = DieClassifier(classes, blocks=0, channels=sample.shape[1])
    layers = [model.features[i] for i in range(7)]
    if len(convolutions) != len(layers):
        raise ValueError(f"{path} is not a DieClassifier without residual blocks")
    biases = []
    for node, (convolution, norm, _) in zip(convolutions, layers, strict=True):
        weight = weights[node.input[1]]
        if tuple(convolution.weight.shape) != weight.shape:
            raise ValueError(f"{path}: {node.name} is {weight.shape}, the network's "
                             f"{tuple(convolution.weight.shape)}")
        convolution.weight.data = torch.from_numpy(weight.copy())
        biases.append(torch.from_numpy(weights[node.input[2]].copy()))
        # The identity plus the folded bias: the export itself, in eval mode.
        norm.running_mean.zero_()
        norm.running_var.fill_(1.0 - norm.eps)
        norm.weight.data.fill_(1.0)
        norm.bias.data = biases[-1].clone()
    model.classify.weight.data = torch.from_numpy(weights["classify.weight"].copy())
    model.classify.bias.data = torch.from_numpy(weights["classify.bias"].copy())
    inputs: list[torch.Tensor] = []
    hooks = [convolution.register_forward_hook(lambda _m, _i, out: inputs.append(out.detach()))
             for convolution, _, _ in layers]
    model.eval()
    with torch.no_grad():
        model(sample)
    for hook in hooks:
        hook.remove()
    for (_, norm, _), seen, bias in zip(layers, inputs, biases, strict=True):
        mean, variance = seen.mean(dim=(0, 2, 3)), seen.var(dim=(0, 2, 3), unbiased=False)
        # (x - mean) / sqrt(variance + eps) * sqrt(variance + eps) + mean + bias = x + bias
        norm.running_mean.data, norm.running_var.data = mean, variance
        norm.weight.data = torch.sqrt(variance + norm.eps)
        norm.bias.data = mean + bias
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path)
    parser.add_argument("--synthetic", type=Path, action="append", required=True,
                        help="scenes whose crops measure the BatchNorm statistics")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    patches, slopes, _ = dataset(args.synthetic, 1, 0, 1)
    export = ort.InferenceSession(str(args.onnx))
    channels = export.get_inputs()[0].shape[1]
    chosen = np.random.default_rng(0).permutation(len(patches))[:SAMPLE]
    sample = with_slope(centred(torch.from_numpy(patches[chosen])),
                        torch.from_numpy(slopes[chosen]) if channels == 2 else None)
    model = unfolded(args.onnx, sample)
    exported = export.run(None, {"crops": sample.numpy()})[0]
    with torch.no_grad():
        again = model(sample).numpy()
        model.train()
        trained = model(sample).numpy()
    agree = float((trained.argmax(1) == exported.argmax(1)).mean())
    print(f"eval mode: largest difference {np.abs(again - exported).max():.2g}; train mode: "
          f"{agree:.1%} of the calls the same")
    torch.save(model.state_dict(), args.out)


if __name__ == "__main__":
    main()
