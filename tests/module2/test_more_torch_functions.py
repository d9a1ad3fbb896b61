"""More of PyTorch's functions (issue 42): aliases and short compositions
(``nelement``, ``fliplr``, ``take``, ``select``, ``tensor_split``, ``inner``, ...):
values and dtypes against PyTorch itself, gradients against PyTorch's and
central differences (``grad_check``), float64 on both sides. Given code."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task2_6

RNG = np.random.default_rng(11)
A, B = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
SPECIAL = np.array([0.0, -0.0, 1.5, -2.0, math.nan, math.inf, -math.inf, 0.0])


def _both(fn_kt, fn_torch, *arrays):
    """Values and gradients as PyTorch's, gradients as central differences."""
    assert_same_function(fn_kt, fn_torch, *arrays, rng=RNG, rtol=1e-12)


def _same(got, expected):
    """Equal values (NaN where NaN), shape and dtype name (PyTorch's float32 from
    integers is the default float, float64 here)."""
    name = str(expected.dtype)[6:].replace("float32", "float64")
    assert got.dtype.name == name, (got.dtype, expected.dtype)
    assert got.shape == tuple(expected.shape)
    rtol = 1e-7 if expected.dtype == import_torch().float32 else 1e-15
    np.testing.assert_allclose(got.to_numpy(), expected.double().numpy(), rtol=rtol)


def test_sizes():
    torch = import_torch()
    x, t = kt.zeros(2, 3), torch.zeros(2, 3)
    assert x.nelement() == t.nelement() == 6 and x.ndimension() == t.ndimension()
    assert kt.tensor(1.0).ndimension() == 0


@pytest.mark.parametrize("name", ["fliplr", "flipud"])
def test_flips(name):
    torch = import_torch()
    _both(getattr(kt, name), getattr(torch, name), A)
    _both(lambda a: getattr(a, name)(), lambda a: getattr(a, name)(), B)
    i = torch.tensor([[3, 1], [2, 5], [0, 4]])
    _same(getattr(kt.tensor(i.numpy()), name)(), getattr(i, name)())


def test_take_select_diagflat():
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 4))
    index = np.array([[0, 23], [-1, 5]])
    _both(
        lambda a: kt.take(a, kt.tensor(index)),
        lambda a: torch.take(a, torch.tensor(index)),
        x,
    )
    _both(
        lambda a: a.take(kt.tensor([3, 3])), lambda a: a.take(torch.tensor([3, 3])), A
    )
    for dim, i in [(0, 1), (1, -1), (-1, 2), (2, 0)]:
        _both(lambda a: kt.select(a, dim, i), lambda a: torch.select(a, dim, i), x)
        _both(lambda a: a.select(dim, i), lambda a: a.select(dim, i), x)
    for offset in [0, 1, -2]:
        _both(lambda a: kt.diagflat(a, offset), lambda a: torch.diagflat(a, offset), A)
        _both(lambda a: a.diagflat(offset), lambda a: a.diagflat(offset), A[0])
    i = torch.tensor([[1, 2], [3, 4]])
    ours = kt.tensor(i.numpy())
    _same(ours.take(kt.tensor([0, 3])), i.take(torch.tensor([0, 3])))
    _same(ours.select(1, 0), i.select(1, 0))
    _same(ours.diagflat(1), i.diagflat(1))
    with pytest.raises(IndexError):
        kt.zeros(2, 3).take(kt.tensor([6]))


def test_inner():
    torch = import_torch()
    for a, b in [(A[0], B[0]), (A, B), (A, B[0]), (A[0], B), (A, np.float64(2.0))]:
        _both(kt.inner, torch.inner, a, np.asarray(b))
    _both(kt.inner, torch.inner, RNG.normal(size=(2, 3, 4)), B)
    i = torch.tensor([[1, 2], [3, 4]])
    _same(kt.tensor(i.numpy()).inner(kt.tensor(i.numpy())), i.inner(i))


@pytest.mark.parametrize("name", ["isposinf", "isneginf"])
def test_infinity_tests(name):
    torch = import_torch()
    _same(
        getattr(kt, name)(kt.tensor(SPECIAL)),
        getattr(torch, name)(torch.tensor(SPECIAL)),
    )
    i = torch.tensor([-3, 0, 2])
    _same(getattr(kt.tensor([-3, 0, 2]), name)(), getattr(i, name)())


@pytest.mark.parametrize("args", [(3,), (2, 1), ([1, 9, 3], -1), ((0, 2),)])
def test_tensor_split(args):
    torch = import_torch()
    x = RNG.normal(size=(3, 4, 5))
    parts = torch.tensor_split(torch.tensor(x), *args)
    weights = [RNG.normal(size=p.shape) for p in parts]

    def joined(lib, parts):  # (every part, weighted, in one tensor to compare)
        return lib.cat(
            [(p * lib.tensor(w)).reshape(-1) for p, w in zip(parts, weights)]
        )

    _both(
        lambda a: joined(kt, kt.tensor_split(a, *args)),
        lambda a: joined(torch, torch.tensor_split(a, *args)),
        x,
    )
    got = kt.tensor(x).tensor_split(*args)
    assert [p.shape for p in got] == [tuple(p.shape) for p in parts]
    i = torch.tensor([[1, 2, 3], [4, 5, 6]])
    for g, e in zip(kt.tensor(i.numpy()).tensor_split([1], 1), i.tensor_split([1], 1)):
        _same(g, e)
    assert [p.shape for p in kt.zeros(7).tensor_split(3)] == [(3,), (2,), (2,)]
