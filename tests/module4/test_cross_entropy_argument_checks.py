"""Two known faults of ``F.cross_entropy``'s argument checks, pinned down
against ``torch`` itself as strict xfails (they pass once fixed, and then the
marks must go): a 0-d input (with a class-index target) fails with a bare
``IndexError`` where torch raises a ``RuntimeError`` with a message, and a
class ``weight`` of the wrong length fails inside a ``view`` where torch says
the weight must cover all N classes. Skips, with the install command, where
PyTorch is absent."""

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


@pytest.mark.xfail(
    strict=True,
    raises=IndexError,
    reason="Kindling: IndexError('tuple index out of range') from a 0-d input; "
    "torch: RuntimeError('Expected floating point type for target with class "
    "probabilities, got Long')",
)
def test_cross_entropy_of_a_0d_input_raises_a_clear_error_as_pytorch():
    torch = import_torch()
    theirs = _torch_error(
        lambda: torch.nn.functional.cross_entropy(
            torch.tensor(1.0, dtype=torch.float64), torch.tensor(0)
        )
    )
    assert isinstance(theirs, RuntimeError)
    with pytest.raises(RuntimeError, match="input|target|dimension|0-d|shape"):
        F.cross_entropy(kt.tensor(1.0), kt.tensor(0))


@pytest.mark.xfail(
    strict=True,
    reason="Kindling: ValueError('cannot view a tensor of shape (2,) (2 entries) as "
    "shape (3,)') from inside a view; torch: RuntimeError('weight tensor should be "
    "defined either for all 3 classes or no classes but got weight tensor of "
    "shape: [2]')",
)
def test_cross_entropy_with_a_weight_of_the_wrong_length_says_so_as_pytorch():
    torch = import_torch()
    logits = np.random.default_rng(0).normal(size=(2, 3))
    target, weight = np.array([0, 2]), np.ones(2)
    theirs = _torch_error(
        lambda: torch.nn.functional.cross_entropy(
            torch.tensor(logits), torch.tensor(target), weight=torch.tensor(weight)
        )
    )
    assert isinstance(theirs, RuntimeError)
    with pytest.raises(RuntimeError, match="weight.*3 classes"):
        F.cross_entropy(kt.tensor(logits), kt.tensor(target), weight=kt.tensor(weight))


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
