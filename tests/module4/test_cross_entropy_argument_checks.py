"""``F.cross_entropy``'s (and ``nll_loss``'s) argument checks against ``torch``
itself: a 0-d input (no class dimension) and a class ``weight`` of the wrong
length raise with a message naming the problem, as PyTorch's do (a ValueError
here where PyTorch's C++ raises RuntimeError: the Module 4 guide, section 14),
before any computation; a weight of the right length matches PyTorch. Skips,
with the install command, where PyTorch is absent."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks.nn import functional as F
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task4_6


def _torch_error(call):
    with pytest.raises(Exception) as info:
        call()
    return info.value


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_a_0d_input_raises_naming_its_missing_class_dimension(name):
    torch = import_torch()
    theirs = _torch_error(
        lambda: getattr(torch.nn.functional, name)(
            torch.tensor(1.0, dtype=torch.float64), torch.tensor(0)
        )
    )
    assert isinstance(theirs, (RuntimeError, ValueError))
    with pytest.raises(ValueError, match=f"{name}: input must have a class dimension"):
        getattr(F, name)(kt.tensor(1.0), kt.tensor(0))


@pytest.mark.parametrize(
    "name, probabilities",
    [("cross_entropy", False), ("cross_entropy", True), ("nll_loss", False)],
)
def test_a_weight_of_the_wrong_length_raises_naming_the_classes(name, probabilities):
    torch = import_torch()
    logits = np.random.default_rng(0).normal(size=(2, 3))
    target = np.full((2, 3), 1 / 3) if probabilities else np.array([0, 2])
    weight = np.ones(2)
    theirs = _torch_error(
        lambda: getattr(torch.nn.functional, name)(
            torch.tensor(logits), torch.tensor(target), weight=torch.tensor(weight)
        )
    )
    assert isinstance(theirs, RuntimeError) and "3 classes" in str(theirs)
    with pytest.raises(ValueError, match=r"weight must have shape \(3,\)"):
        getattr(F, name)(kt.tensor(logits), kt.tensor(target), weight=kt.tensor(weight))


def test_cross_entropy_with_a_weight_of_the_right_length_matches_pytorch():
    torch = import_torch()
    rng = np.random.default_rng(1)
    logits, weight = rng.normal(size=(4, 3)), rng.uniform(0.5, 2.0, size=3)
    target = np.array([0, 2, 1, 2])
    ours = F.cross_entropy(
        kt.tensor(logits), kt.tensor(target), weight=kt.tensor(weight)
    )
    theirs = torch.nn.functional.cross_entropy(
        torch.tensor(logits), torch.tensor(target), weight=torch.tensor(weight)
    )
    np.testing.assert_allclose(float(ours.item()), theirs.item(), rtol=1e-12)
