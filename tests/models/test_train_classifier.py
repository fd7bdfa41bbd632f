"""Keeping a continued die classifier close to its teacher on the crops of dice."""

import numpy as np
import pytest

pytest.importorskip("torch")

import torch

from models.dice.nets import DieClassifier
from models.dice.train_classifier import CLASSES, _stay_close


def _net(seed: int) -> DieClassifier:
    torch.manual_seed(seed)
    return DieClassifier(len(CLASSES), 0, 1).eval()


def test_keeping_close_costs_nothing_where_the_network_calls_dice_as_its_teacher() -> None:
    inputs = np.random.default_rng(0).normal(size=(6, 1, 48, 48)).astype(np.float32)
    target = torch.tensor([0, 1, 2, 3, 0, 7])
    teacher, other = _net(1), _net(2)
    with torch.no_grad():
        same = _stay_close(teacher, teacher(torch.from_numpy(inputs)), inputs, target)
        apart = _stay_close(teacher, other(torch.from_numpy(inputs)), inputs, target)
    assert abs(float(same)) < 1e-6
    assert float(apart) > 1e-4


def test_crops_of_no_die_are_left_free_to_learn() -> None:
    inputs = np.random.default_rng(1).normal(size=(4, 1, 48, 48)).astype(np.float32)
    teacher, other = _net(1), _net(2)
    with torch.no_grad():
        logits = other(torch.from_numpy(inputs))
        only_none = _stay_close(teacher, logits, inputs, torch.zeros(4, dtype=torch.long))
        one_die = _stay_close(teacher, logits, inputs, torch.tensor([0, 0, 0, 4]))
        alone = _stay_close(teacher, logits[3:], inputs[3:], torch.tensor([4]))
    assert float(only_none) == 0.0
    assert torch.isclose(one_die, alone)
