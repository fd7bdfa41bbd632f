"""One straight-down network for the cocked call and the top face (models/dice/train_joint)."""

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import numpy as np
import onnxruntime as ort
import torch

from models.dice.from_onnx import unfolded
from models.dice.nets import DieClassifier, TwoHeads
from models.dice.train_cocked import CLASSES, VALUE_CLASSES
from models.dice.train_joint import OUTPUTS, joint_head, scene_loss, taught
from models.dice.training import export_onnx
from tests.models.test_from_onnx import learnt


def test_the_joint_network_starts_as_the_face_network() -> None:
    torch.manual_seed(0)
    faces = DieClassifier(len(VALUE_CLASSES), blocks=1, channels=2).eval()
    joint = TwoHeads(len(CLASSES), len(VALUE_CLASSES), blocks=1, channels=2)
    joint.load_state_dict(joint_head(faces.state_dict()))
    crops = torch.randn(6, 2, 48, 48)
    with torch.no_grad():
        read = faces(crops)
        cocked, faced = joint.eval()(crops)
    assert torch.allclose(faced, read, atol=1e-6)
    # Its cocked call starts from the face network's cocked logit against its faces' mean.
    assert torch.allclose(cocked[:, 1], read[:, 0], atol=1e-6)
    assert torch.allclose(cocked[:, 0], read[:, 1:].mean(1) + float(np.log(6.0)), atol=1e-5)
    # Weights of both heads already are taken as they are, to continue from.
    assert joint_head(joint.state_dict())["classify.bias"].shape == (9,)


def test_the_cocked_head_learns_only_the_teachers_call() -> None:
    labels = torch.tensor([0, 3, 5, 0])  # cocked, a 3, a 5, cocked
    teacher = torch.tensor([[0.3, 0.7], [0.9, 0.1], [0.6, 0.4], [0.2, 0.8]])
    faces = torch.zeros(4, len(VALUE_CLASSES))
    # A head calling what the teacher calls is not moved, however the labels disagree...
    cocked = teacher.log().requires_grad_()
    scene_loss(cocked, faces, labels, teacher, cocked_weight=2.0).backward()
    assert cocked.grad is not None and cocked.grad.abs().max() < 1e-6
    # ...and one calling otherwise is drawn towards the teacher.
    cocked = torch.zeros(4, 2, requires_grad=True)
    taught(cocked, teacher).backward()
    assert cocked.grad is not None
    assert (torch.sign(-cocked.grad[:, 1]) == torch.sign(teacher[:, 1] - 0.5)).all()


def test_the_two_heads_export_as_two_outputs_and_unfold_into_one_network(
        tmp_path: Path) -> None:
    torch.manual_seed(0)
    joint = TwoHeads(len(CLASSES), len(VALUE_CLASSES), blocks=1, channels=2)
    learnt(joint)
    path = tmp_path / "cocked.onnx"
    export_onnx(joint, torch.zeros(1, 2, 48, 48), path, ("crops", *OUTPUTS),
                {name: {0: "n"} for name in ("crops", *OUTPUTS)})
    sample = torch.randn(64, 2, 48, 48)
    session = ort.InferenceSession(str(path))
    assert [o.name for o in session.get_outputs()] == list(OUTPUTS)
    cocked, faces = session.run(None, {"crops": sample.numpy()})
    with torch.no_grad():
        expected = joint(sample)
    assert np.allclose(cocked, expected[0].numpy(), atol=1e-4)
    assert np.allclose(faces, expected[1].numpy(), atol=1e-4)
    # Unfolded to continue training: one network of both heads' classes, in order, whose
    # weights a joint network takes.
    model = unfolded(path, sample)
    with torch.no_grad():
        assert torch.allclose(model.eval()(sample), torch.cat(expected, 1), atol=1e-4)
    again = TwoHeads(len(CLASSES), len(VALUE_CLASSES), blocks=1, channels=2)
    again.load_state_dict(joint_head(model.state_dict()))
