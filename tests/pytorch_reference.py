"""PyTorch itself as a reference: the differential tests compare the library
with ``torch`` where it is installed.

PyTorch is not a dependency of the course. On a student's install
(``.[dev]``) these comparisons skip, saying how to run them; the tests against
hand-worked values beside them still run. Where the instructors' CI sets
``KINDLING_REQUIRE_TORCH=1`` a comparison that cannot import ``torch`` fails
instead, so that none of them is skipped there unnoticed.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

import numpy as np
import pytest

#: Set by the instructors' CI: a PyTorch comparison that cannot run fails.
REQUIRE_TORCH = "KINDLING_REQUIRE_TORCH"

#: How to install PyTorch's CPU build (all a comparison needs).
INSTALL = (
    "pip install torch --index-url https://download.pytorch.org/whl/cpu "
    "(the CPU build; any recent version)"
)


def import_torch() -> ModuleType:
    """``torch``, or skip the calling test (a student's install) with the reason
    and the install command; fail instead where ``KINDLING_REQUIRE_TORCH=1``."""
    try:
        import torch
    except ImportError as error:
        if os.environ.get(REQUIRE_TORCH) == "1":
            pytest.fail(
                f"{REQUIRE_TORCH}=1 but PyTorch cannot be imported ({error}); "
                f"install it: {INSTALL}"
            )
        pytest.skip(
            f"compares with PyTorch itself, which is not installed (optional: "
            f"the course never needs it); to run this comparison: {INSTALL}"
        )
    return torch


def copy_parameters(ours: Any, theirs: Any) -> None:
    """Give ``torch`` module ``theirs`` the parameters of Kindling's ``ours``,
    after checking that both have the same parameter names and shapes, in the
    same order (PyTorch's layout)."""
    torch = import_torch()
    mine, torchs = list(ours.named_parameters()), list(theirs.named_parameters())
    assert [n for n, _ in mine] == [n for n, _ in torchs]
    with torch.no_grad():
        for (name, p), (_, q) in zip(mine, torchs):
            assert p.shape == tuple(q.shape), name
            q.copy_(torch.tensor(p.to_numpy()))


def assert_parameter_grads_match(ours: Any, theirs: Any, atol: float = 1e-10) -> None:
    """Every parameter's ``.grad`` in Kindling's ``ours`` equals the one in
    ``torch`` module ``theirs`` (after both ran the same backward pass)."""
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(
            p.grad.to_numpy(), q.grad.numpy(), atol=atol, err_msg=name
        )


def assert_same_backward(
    out: Any,
    t_out: Any,
    ours: Any,
    theirs: Any,
    rng: np.random.Generator,
    **tolerance: float,
) -> None:
    """Backpropagate the same random weighting of Kindling's ``out`` and torch's
    ``t_out`` (of one shape) and assert that the inputs ``ours`` and ``theirs``
    (in the same order) got equal gradients (``np.testing.assert_allclose``'s
    ``tolerance``; ``atol=1e-10`` unless given)."""
    torch = import_torch()
    weights = rng.normal(size=tuple(t_out.shape))
    (out * out.new_tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    tolerance = tolerance or {"atol": 1e-10}
    for k, (mine, torchs) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(
            mine.grad.to_numpy(), torchs.grad.numpy(), err_msg=f"input {k}", **tolerance
        )


def assert_same_function(
    fn: Any, t_fn: Any, *arrays: np.ndarray, rng: np.random.Generator, rtol: float
) -> None:
    """``fn`` (Kindling's) and ``t_fn`` (torch's) of float64 tensors made of
    ``arrays``: the same shape and values (within ``rtol``), the same gradients
    (:func:`assert_same_backward`, within ``rtol`` or ``1e-14`` where a sum
    cancels), and ``fn``'s gradients against central
    differences (``grad_check``)."""
    import module2_tensors as kt

    torch = import_torch()
    ours = [kt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, expected = fn(*ours), t_fn(*theirs)
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got.to_numpy(), expected.detach().numpy(), rtol=rtol)
    assert_same_backward(got, expected, ours, theirs, rng, rtol=rtol, atol=1e-14)
    kt.grad_check(fn, *[kt.tensor(a, requires_grad=True) for a in arrays])
