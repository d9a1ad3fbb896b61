"""PyTorch's function forms of the tensor methods (``kt.sin``, ``kt.all``,
``kt.masked_fill``, ...) and its other names (``absolute``, ``arctan2``,
``swapaxes``, ``moveaxis``, ``clamp_min``): values against PyTorch itself,
gradients against central differences (``grad_check``), float64 on both sides."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6

A = np.array([[0.5, -1.5, 2.0], [0.25, 3.0, -0.75]])
B = np.array([[1.5, 0.5, -1.0], [0.75, -2.0, 4.0]])

# (name, positional arguments after the tensor: "B" is the second tensor)
UNARY = ["sin", "cos", "log1p", "expm1", "erf", "clone", "t", "absolute"]
CASES = [(n, ()) for n in UNARY] + [
    ("std", (1,)),
    ("pow", (3.0,)),
    ("pow", ("B",)),
    ("arctan2", ("B",)),
    ("swapaxes", (0, 1)),
    ("swapdims", (1, 0)),
    ("moveaxis", (0, 1)),
    ("clamp_min", (0.3,)),
    ("clamp_max", (0.3,)),
    ("clamp_min", ("B",)),
    ("clamp_max", ("B",)),
]


def _args(args, make):
    return [make(B) if a == "B" else a for a in args]


@pytest.mark.parametrize("name, args", CASES)
def test_function_form_matches_pytorch_and_central_differences(name, args):
    torch = import_torch()
    x = np.abs(A) if name in ("pow", "log1p") else A
    expected = getattr(torch, name)(torch.tensor(x), *_args(args, torch.tensor))
    for f in (getattr(kt, name), getattr(kt.Tensor, name)):
        got = f(kt.tensor(x), *_args(args, kt.tensor))
        np.testing.assert_allclose(got.to_numpy(), expected.numpy(), rtol=1e-14)
    if name != "swapdims":  # (swapdims is swapaxes)
        kt.grad_check(
            lambda *t: getattr(kt, name)(t[0], *_args(args, lambda _: t[1])),
            kt.tensor(x, requires_grad=True),
            kt.tensor(B, requires_grad=True),
        )


def test_rsqrt_numel_all_any_and_comparisons_match_pytorch():
    torch = import_torch()
    a, b = kt.tensor(A), kt.tensor(B)
    ta, tb = torch.tensor(A), torch.tensor(B)
    np.testing.assert_allclose(
        kt.rsqrt(kt.abs(a)).to_numpy(), torch.rsqrt(ta.abs()).numpy(), rtol=1e-15
    )
    assert kt.numel(a) == torch.numel(ta) == 6
    for name in ["greater", "greater_equal", "less", "less_equal", "not_equal"]:
        got, expected = getattr(kt, name)(a, b), getattr(torch, name)(ta, tb)
        assert got.dtype == kt.bool and got.tolist() == expected.tolist()
    assert bool(kt.all(a > -2)) == bool(torch.all(ta > -2)) is True
    assert kt.any(a > 2, 1).tolist() == torch.any(ta > 2, 1).tolist()
    assert kt.is_floating_point(a) and not kt.is_floating_point(kt.tensor([1, 2]))
    assert kt.is_tensor(a) and not kt.is_tensor(A) and torch.is_tensor(ta)


def test_masked_fill_and_scatter_function_forms_match_pytorch():
    torch = import_torch()
    mask = A > 1
    got = kt.masked_fill(kt.tensor(A), kt.tensor(mask), -9.0)
    expected = torch.masked_fill(torch.tensor(A), torch.tensor(mask), -9.0)
    assert got.tolist() == expected.tolist()
    index = np.array([[2, 0, 1], [0, 0, 2]])
    got = kt.scatter(kt.zeros(2, 3), 1, kt.tensor(index), kt.tensor(B))
    expected = torch.scatter(
        torch.zeros(2, 3, dtype=torch.float64), 1, torch.tensor(index), torch.tensor(B)
    )
    assert got.tolist() == expected.tolist()
    kt.grad_check(
        lambda x: kt.masked_fill(x, kt.tensor(mask), -9.0),
        kt.tensor(A, requires_grad=True),
    )


def test_an_integer_tensor_of_one_entry_is_an_index():
    """Tensor.__index__, as PyTorch's: x[:n], list[n] and range(n) take an
    integer tensor of one entry; a float tensor or several entries are refused."""
    x = kt.arange(5.0)
    n = kt.tensor(2)
    assert x[:n].tolist() == [0.0, 1.0] and [10, 20, 30][n] == 30
    assert list(range(kt.tensor([3]))) == [0, 1, 2]
    with pytest.raises(TypeError):
        range(kt.tensor(2.0))
    with pytest.raises((TypeError, ValueError)):
        [10, 20, 30][kt.tensor([1, 2])]
