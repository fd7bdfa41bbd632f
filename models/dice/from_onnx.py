"""A committed straight-down network (cocked.onnx, both heads of a joint one) or the detector
(detector.onnx) as a state dict to continue training from (`train_cocked --init`,
`train_detector --init`): only the ONNX exports are committed, and the export folds each
BatchNorm into the convolution before it.

    python -m models.dice.from_onnx models/dice/cocked.onnx --synthetic DIR --out cocked.pt

The convolutions take the folded weights; each BatchNorm is rebuilt from the statistics of its
input over crops (the detector: pictures, as its training draws them) of the scenes given
(those the run will train on), so that it computes the
export exactly in eval mode and nearly in train mode, where it normalises by the batch's own
statistics. Prints how far the rebuilt network is from the export on those crops.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper
from torch import nn

from models.dice.data import synthetic
from models.dice.detector_targets import augment
from models.dice.nets import DiceDetector, DieClassifier
from models.dice.phase_split import is_split, merged
from models.dice.train_cocked import centred, dataset, told, with_cues
from models.dice.train_detector import load
from vision.dice.preprocess import DETECTOR_SIZE

SAMPLE = 3000  # crops the BatchNorm statistics are measured on
PICTURES = 300  # the detector's: whole pictures, each many dice and much floor


def unfolded(path: Path, sample: torch.Tensor) -> DieClassifier:
    """The network of an export of `DieClassifier`, with or without residual blocks, its
    BatchNorms rebuilt from their inputs' statistics over `sample` (n, channels, size, size)."""
    weights, convolutions = _exported(path)
    # Seven plain convolutions, and two in each block at 12x12 and at 6x6.
    blocks, extra = divmod(len(convolutions) - 7, 4)
    if blocks < 0 or extra or "classify.weight" not in weights:
        raise ValueError(f"{path} is not a DieClassifier")
    classes, _ = weights["classify.weight"].shape
    model = DieClassifier(classes, blocks=blocks, channels=sample.shape[1])
    layers = _classifier_layers(model)
    for node, (convolution, norm) in zip(convolutions, layers, strict=True):
        weight = weights[node.input[1]]
        if tuple(convolution.weight.shape) != weight.shape:
            raise ValueError(f"{path}: {node.name} is {weight.shape}, the network's "
                             f"{tuple(convolution.weight.shape)}")
        _fold_into(convolution, norm, weight, weights[node.input[2]])
    model.classify.weight.data = torch.from_numpy(weights["classify.weight"].copy())
    model.classify.bias.data = torch.from_numpy(weights["classify.bias"].copy())
    _measure(model, layers, sample)
    return model


def _classifier_layers(model: DieClassifier) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each convolution of `model` with the BatchNorm after it, in the order the forward pass
    (and so the export's graph) runs them: the features down to 12x12, their blocks, the
    features down to 6x6, theirs."""
    def refined(blocks: nn.Sequential) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
        return [pair for block in blocks
                for pair in ((block.body[0][0], block.body[0][1]), (block.body[1], block.body[2]))]

    plain = [(model.features[i][0], model.features[i][1]) for i in range(7)]
    return [*plain[:5], *refined(model.refine12), *plain[5:], *refined(model.refine6)]


def unfolded_detector(path: Path, sample: torch.Tensor) -> DiceDetector:
    """The network of an export of `DiceDetector`, its BatchNorms rebuilt over `sample` (n, 3,
    rows, columns): each of its convolutions has a shape of its own, which finds its weights."""
    weights, convolutions = _exported(path)
    by_shape = {weights[node.input[1]].shape: node for node in convolutions}
    model = DiceDetector()
    layers = [(block[0], block[1]) for block in model.modules()
              if isinstance(block, nn.Sequential) and isinstance(block[0], nn.Conv2d)]
    plain = [model.lat16, model.lat8, model.lat4, model.head]
    if len(by_shape) != len(convolutions) or len(convolutions) != len(layers) + len(plain):
        raise ValueError(f"{path} is not a DiceDetector")
    for convolution, norm in [*layers, *((c, None) for c in plain)]:
        node = by_shape.get(tuple(convolution.weight.shape))
        if node is None:
            raise ValueError(f"{path} has no convolution of {tuple(convolution.weight.shape)}")
        _fold_into(convolution, norm, weights[node.input[1]], weights[node.input[2]])
    _measure(model, layers, sample)
    return model


def _exported(path: Path) -> tuple[dict[str, np.ndarray], list[onnx.NodeProto]]:
    model = onnx.load(str(path))
    # A committed detector's smoothing is split by output phase (phase_split.py): its
    # trained layout is worked back first.
    graph = (merged(model) if is_split(model) else model).graph
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    return weights, [node for node in graph.node if node.op_type == "Conv"]


def _fold_into(convolution: nn.Conv2d, norm: nn.BatchNorm2d | None, weight: np.ndarray,
               bias: np.ndarray) -> None:
    """The export's folded convolution; its bias goes to the BatchNorm after it, set for now
    to the identity plus that bias: the export itself, in eval mode."""
    convolution.weight.data = torch.from_numpy(weight.copy())
    if norm is None:
        convolution.bias.data = torch.from_numpy(bias.copy())
        return
    norm.running_mean.zero_()
    norm.running_var.fill_(1.0 - norm.eps)
    norm.weight.data.fill_(1.0)
    norm.bias.data = torch.from_numpy(bias.copy())


def _measure(model: nn.Module, layers: list[tuple[nn.Conv2d, nn.BatchNorm2d]],
             sample: torch.Tensor) -> None:
    """Each BatchNorm of `layers` rebuilt from its input's statistics over `sample`, so that
    it still computes x + bias in eval mode and nearly so in train mode."""
    inputs: list[torch.Tensor] = []
    hooks = [convolution.register_forward_hook(lambda _m, _i, out: inputs.append(out.detach()))
             for convolution, _ in layers]
    model.eval()
    with torch.no_grad():
        model(sample)
    for hook in hooks:
        hook.remove()
    for (_, norm), seen in zip(layers, inputs, strict=True):
        bias = norm.bias.data.clone()
        mean, variance = seen.mean(dim=(0, 2, 3)), seen.var(dim=(0, 2, 3), unbiased=False)
        # (x - mean) / sqrt(variance + eps) * sqrt(variance + eps) + mean + bias = x + bias
        norm.running_mean.data, norm.running_var.data = mean, variance
        norm.weight.data = torch.sqrt(variance + norm.eps)
        norm.bias.data = mean + bias


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path)
    parser.add_argument("--synthetic", type=Path, action="append", required=True,
                        help="scenes whose crops measure the BatchNorm statistics")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    export = ort.InferenceSession(str(args.onnx))
    name = export.get_inputs()[0].name
    if name == "image":  # the detector
        sample = _pictures(args.synthetic)
        model: nn.Module = unfolded_detector(args.onnx, sample)
    else:
        patches, cues, _ = dataset(args.synthetic, 1, 0, 1)
        # The cues the export is told, as the config its run wrote beside it says.
        columns = told(json.loads(args.onnx.with_suffix(".json").read_text()))
        chosen = np.random.default_rng(0).permutation(len(patches))[:SAMPLE]
        sample = with_cues(centred(torch.from_numpy(patches[chosen])),
                           torch.from_numpy(cues[chosen][:, columns]))
        model = unfolded(args.onnx, sample)
    # A joint straight-down network's two outputs are its one linear layer's rows, in order.
    exported = np.concatenate(export.run(None, {name: sample.numpy()}), axis=1)
    with torch.no_grad():
        again = model(sample).numpy()
        model.train()
        trained = model(sample).numpy()
    agree = (f"{float((trained.argmax(1) == exported.argmax(1)).mean()):.1%} of the calls the "
             "same" if name != "image" else
             f"largest difference {np.abs(trained - exported).max():.2g}")
    print(f"eval mode: largest difference {np.abs(again - exported).max():.2g}; train mode: "
          f"{agree}")
    torch.save(model.state_dict(), args.out)


def _pictures(directories: list[Path]) -> torch.Tensor:
    """PICTURES of the scenes in `directories`, augmented as the detector's training does."""
    rng = np.random.default_rng(0)
    items = [item for directory in directories for item in synthetic(directory)]
    chosen = [items[i] for i in rng.permutation(len(items))[:PICTURES]]
    views = [augment(image, boxes, rng, DETECTOR_SIZE)[0]
             for image, boxes in load(chosen, 512)]  # as the trainer loads them
    return torch.from_numpy(np.stack(views).transpose(0, 3, 1, 2).astype(np.float32) / 255.0)


if __name__ == "__main__":
    main()
