"""The tray detector's last smoothing worked out at half its resolution, one convolution for
each of the four output phases: the same maps (to float rounding), a fifth faster.

    python -m models.dice.phase_split models/dice/detector.onnx [--out PATH]

`DiceDetector` (models/dice/nets.py) ends in `smooth(upsample(A) + lat4(s4))`, the costliest
step of the tray camera's frame: a 3x3 convolution (64 to 32 channels, its BatchNorm folded
by the export) at stride 4 of the stride-8 map A doubled by nearest upsampling, plus a 1x1
convolution of the stride-4 features s4. Both parts are linear, so:
- on the upsampled map, each output phase (its row even or odd, its column even or odd)
  sees A through a 2x2 kernel: the 3x3 kernel's taps summed over the pixels that repeat one
  of A's (`PHASE_ROWS`);
- lat4 then smooth is one 3x3 convolution of s4 (16 to 32 channels), read at each phase's
  pixels with stride 2; lat4's bias is added to A instead, which the upsampling spreads as
  before while the zero padding stays zero;
- the ReLU and the 1x1 head run on each phase (a grouped convolution) and the phases' five
  maps are interleaved back (DepthToSpace).
A third fewer multiplications in that step (a fifth over the network), and no upsampled
64-channel map is written: 3.0 -> 2.4 ms a 320x256 input on one core (models/dice/README.md).
The export of a run is split (train_detector); `merged` undoes it for a run that continues
from committed weights (from_onnx). The photographs' detector, an average of two, is left as
exported.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

# The trained layout's nodes, as torch names them in the export of DiceDetector.
SMOOTH, LAT4, HEAD, SUM, UPSAMPLE = (
    "/smooth/smooth.0/Conv", "/lat4/Conv", "/head/Conv", "/Add_2", "/Resize_2")
RELU, SCALES = "/smooth/smooth.2/Relu", "/Constant_2"
# The nodes a split replaces, and a merge puts back.
TAIL = frozenset({SCALES, UPSAMPLE, LAT4, SUM, SMOOTH, RELU, HEAD})
PREFIX = "phase_split/"
# PHASE_ROWS[p] @ (the 3x3 kernel's rows) = the 2x2 kernel's rows for output rows of parity
# p: an even row 2i sees A's rows i-1 (through the kernel's top row) and i (its other two);
# an odd row 2i+1 sees row i (top and middle) and i+1 (bottom). Columns alike.
PHASE_ROWS = (np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]),
              np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
PHASES = ((0, 0), (0, 1), (1, 0), (1, 1))  # DepthToSpace's DCR order


def is_split(model: onnx.ModelProto) -> bool:
    return any(node.name.startswith(PREFIX) for node in model.graph.node)


def split(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of a DiceDetector export with its smoothing split by phase.
    ValueError when the graph is not one (or is split already)."""
    if is_split(model):
        raise ValueError("the detector's smoothing is split already")
    split_model = onnx.ModelProto()
    split_model.CopyFrom(model)
    graph = split_model.graph
    nodes = {node.name: node for node in graph.node}
    if not TAIL.issubset(nodes):
        raise ValueError("not a DiceDetector export: its smoothing was not found")
    weights = _weights(graph)
    smooth, smooth_bias = (weights[name].astype(np.float64) for name in nodes[SMOOTH].input[1:])
    lateral, lateral_bias = (weights[name].astype(np.float64) for name in nodes[LAT4].input[1:])
    head, head_bias = (weights[name] for name in nodes[HEAD].input[1:])
    coarse, fine = nodes[UPSAMPLE].input[0], nodes[LAT4].input[0]
    added: list[onnx.TensorProto] = []

    def constant(name: str, value: np.ndarray) -> str:
        added.append(numpy_helper.from_array(value.astype(np.float32), PREFIX + name))
        return PREFIX + name

    composed = np.einsum("omyx,mi->oiyx", smooth, lateral[:, :, 0, 0])
    split_nodes = [helper.make_node(
        "Add", [coarse, constant("lat4_bias", lateral_bias.reshape(1, -1, 1, 1))],
        [PREFIX + "coarse"], name=PREFIX + "coarse")]
    constant("fine", composed)
    constant("bias", smooth_bias)
    phases = []
    for p, q in PHASES:
        kernel = np.einsum("ay,omyx,bx->omab", PHASE_ROWS[p], smooth, PHASE_ROWS[q])
        pads = [1 - p, 1 - q, p, q]
        tag = f"{p}{q}"
        split_nodes += [
            helper.make_node("Conv", [fine, PREFIX + "fine", PREFIX + "bias"],
                             [PREFIX + "fine" + tag], name=PREFIX + "fine" + tag,
                             kernel_shape=[3, 3], strides=[2, 2], pads=pads),
            helper.make_node("Conv", [PREFIX + "coarse", constant("kernel" + tag, kernel)],
                             [PREFIX + "coarse" + tag], name=PREFIX + "coarse" + tag,
                             kernel_shape=[2, 2], pads=pads),
            helper.make_node("Add", [PREFIX + "coarse" + tag, PREFIX + "fine" + tag],
                             [PREFIX + "sum" + tag], name=PREFIX + "sum" + tag),
            helper.make_node("Relu", [PREFIX + "sum" + tag], [PREFIX + "relu" + tag],
                             name=PREFIX + "relu" + tag),
        ]
        phases.append(PREFIX + "relu" + tag)
    split_nodes += [
        helper.make_node("Concat", phases, [PREFIX + "phases"], name=PREFIX + "phases", axis=1),
        helper.make_node("Conv", [PREFIX + "phases", constant("head", np.concatenate([head] * 4)),
                                  constant("head_bias", np.concatenate([head_bias] * 4))],
                         [PREFIX + "heads"], name=PREFIX + "heads", kernel_shape=[1, 1],
                         group=4),
        helper.make_node("DepthToSpace", [PREFIX + "heads"], [nodes[HEAD].output[0]],
                         name=PREFIX + "interleave", blocksize=2, mode="DCR"),
    ]
    _replace(graph, TAIL, split_nodes, added)
    onnx.checker.check_model(split_model)
    return split_model


def merged(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of a split export in the trained layout again: smoothing, lat4 and head weights
    worked back from the phases' (lat4's own up to what the smoothing cannot tell apart,
    which computes the same)."""
    if not is_split(model):
        raise ValueError("the detector's smoothing is not split")
    merged_model = onnx.ModelProto()
    merged_model.CopyFrom(model)
    graph = merged_model.graph
    weights = {name[len(PREFIX):]: value.astype(np.float64)
               for name, value in _weights(graph).items() if name.startswith(PREFIX)}
    nodes = {node.name: node for node in graph.node}
    coarse, fine = nodes[PREFIX + "coarse"].input[0], nodes[PREFIX + "fine00"].input[0]
    maps = nodes[PREFIX + "interleave"].output[0]
    # Each phase's kernel is (rows of p) W (rows of q)^T: the four together determine W.
    taking = np.stack([np.kron(PHASE_ROWS[p], PHASE_ROWS[q]) for p, q in PHASES]).reshape(16, 9)
    phases = np.stack([weights[f"kernel{p}{q}"] for p, q in PHASES], axis=2)
    out, middle = phases.shape[:2]
    smooth = (phases.reshape(out, middle, 16) @ np.linalg.pinv(taking).T).reshape(
        out, middle, 3, 3)
    composed = weights["fine"]
    lateral = np.linalg.lstsq(smooth.transpose(0, 2, 3, 1).reshape(-1, middle),
                              composed.transpose(0, 2, 3, 1).reshape(-1, composed.shape[1]),
                              rcond=None)[0]
    heads = len(weights["head"]) // 4
    resize = next(node for node in graph.node if node.op_type == "Resize")
    added: list[onnx.TensorProto] = []

    def constant(name: str, value: np.ndarray) -> str:
        added.append(numpy_helper.from_array(value.astype(np.float32), name))
        return name

    trained_nodes = [
        helper.make_node("Constant", [], [SCALES + "_output_0"], name=SCALES,
                         value=numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32))),
        helper.make_node("Resize", [coarse, "", SCALES + "_output_0"], [UPSAMPLE + "_output_0"],
                         name=UPSAMPLE),
        helper.make_node("Conv", [fine, constant("lat4.weight", lateral[:, :, None, None]),
                                  constant("lat4.bias", weights["lat4_bias"].ravel())],
                         [LAT4 + "_output_0"], name=LAT4, kernel_shape=[1, 1]),
        helper.make_node("Add", [UPSAMPLE + "_output_0", LAT4 + "_output_0"],
                         [SUM + "_output_0"], name=SUM),
        helper.make_node("Conv", [SUM + "_output_0", constant("smooth.weight", smooth),
                                  constant("smooth.bias", weights["bias"])],
                         [SMOOTH + "_output_0"], name=SMOOTH, kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", [SMOOTH + "_output_0"], [RELU + "_output_0"], name=RELU),
        helper.make_node("Conv", [RELU + "_output_0",
                                  constant("head.weight", weights["head"][:heads]),
                                  constant("head.bias", weights["head_bias"][:heads])],
                         [maps], name=HEAD, kernel_shape=[1, 1]),
    ]
    trained_nodes[1].attribute.extend(resize.attribute)
    _replace(graph, {node.name for node in graph.node if node.name.startswith(PREFIX)},
             trained_nodes, added)
    onnx.checker.check_model(merged_model)
    return merged_model


def _weights(graph: onnx.GraphProto) -> dict[str, np.ndarray]:
    return {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}


def _replace(graph: onnx.GraphProto, removed: set[str] | frozenset[str],
             nodes: list[onnx.NodeProto],
             weights: list[onnx.TensorProto]) -> None:
    """The `removed` nodes out, `nodes` in where the first of them stood (the graph stays in
    the order it runs), `weights` added and those no node reads any longer dropped."""
    kept: list[onnx.NodeProto] = []
    for node in graph.node:
        if node.name in removed:
            if nodes:
                kept.extend(nodes)
                nodes = []
        else:
            kept.append(node)
    del graph.node[:]
    graph.node.extend(kept)
    read = {name for node in graph.node for name in node.input}
    initializers = [tensor for tensor in [*graph.initializer, *weights] if tensor.name in read]
    del graph.initializer[:]
    graph.initializer.extend(initializers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx", type=Path, help="a DiceDetector export")
    parser.add_argument("--out", type=Path, help="where to write it (default: in place)")
    args = parser.parse_args()
    onnx.save(split(onnx.load(str(args.onnx))), str(args.out or args.onnx))
    print(f"wrote {args.out or args.onnx}")


if __name__ == "__main__":
    main()
