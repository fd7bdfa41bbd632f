"""The tray detector's smoothing split by output phase computes the maps it was trained to."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")

import onnx
import onnxruntime as ort

from models.dice.phase_split import is_split, merged, split

COMMITTED = Path(__file__).resolve().parents[2] / "models" / "dice" / "detector.onnx"


def maps(model: onnx.ModelProto, image: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    result: np.ndarray = session.run(None, {"image": image})[0]
    return result


def test_the_committed_detector_is_split_and_computes_what_its_trained_layout_does() -> None:
    committed = onnx.load(str(COMMITTED))
    assert is_split(committed)
    trained = merged(committed)
    assert not is_split(trained)
    assert not any(node.op_type == "DepthToSpace" for node in trained.graph.node)
    rng = np.random.default_rng(0)
    # The frame's shape (320x256 for 640x480), a portrait one, and a batch of small ones.
    for shape in [(1, 3, 256, 320), (1, 3, 320, 256), (2, 3, 64, 96)]:
        image = rng.random(shape, dtype=np.float32)
        expected = maps(trained, image)
        assert expected.shape == (shape[0], 5, shape[2] // 4, shape[3] // 4)
        np.testing.assert_allclose(maps(committed, image), expected, atol=1e-4)


def test_splitting_the_trained_layout_again_gives_the_same_weights_back() -> None:
    trained = merged(onnx.load(str(COMMITTED)))
    again = merged(split(trained))
    weights = {tensor.name: onnx.numpy_helper.to_array(tensor)
               for tensor in trained.graph.initializer}
    for tensor in again.graph.initializer:
        np.testing.assert_allclose(onnx.numpy_helper.to_array(tensor), weights[tensor.name],
                                   atol=1e-5)


def test_only_a_detector_in_its_trained_layout_is_split() -> None:
    committed = onnx.load(str(COMMITTED))
    with pytest.raises(ValueError, match="split already"):
        split(committed)
    classifier = onnx.load(str(COMMITTED.with_name("classifier.onnx")))
    with pytest.raises(ValueError, match="not a DiceDetector"):
        split(classifier)
    with pytest.raises(ValueError, match="not split"):
        merged(classifier)
