"""``erfinv`` and ``ldexp`` (functions, methods, in place), ``cross``, ``cov``
and ``vander``: values against
PyTorch and hand-worked cases, gradients against PyTorch's and central
differences. Given code."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task2_6

RNG = np.random.default_rng(47)


def test_erfinv_inverts_erf():
    y = np.array([0.0, 1e-300, 1e-20, -1e-9, 0.1, -0.5, 0.9, 0.999999, 1 - 1e-16])
    x = kt.erfinv(kt.tensor(y)).to_numpy()
    # erf(erfinv(y)) = y; near 0, erfinv(y) = y sqrt(pi) / 2 to 1e-16
    np.testing.assert_allclose([math.erf(v) for v in x[:-1]], y[:-1], rtol=1e-15)
    assert x[2] == pytest.approx(1e-20 * math.sqrt(math.pi) / 2, rel=1e-15)
    ends = kt.tensor([1.0, -1.0, 1.5, math.nan]).erfinv().to_numpy()
    assert ends[0] == math.inf and ends[1] == -math.inf and np.isnan(ends[2:]).all()


def test_erfinv_matches_pytorch():
    torch = import_torch()
    y = np.array([0.0, -0.0, 1e-12, 0.3, -0.7, 0.99, -(1 - 1e-15), 1.0, -1.0, 2.0])
    got, expected = kt.erfinv(kt.tensor(y)).to_numpy(), torch.erfinv(torch.tensor(y))
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-15, atol=0)
    assert np.signbit(got[1])  # erfinv(-0.0) = -0.0
    assert_same_function(
        kt.erfinv, torch.erfinv, RNG.uniform(-0.9, 0.9, size=5), rng=RNG, rtol=1e-12
    )
    x = kt.tensor([0.3, 0.5])
    assert x.erfinv_() is x
    np.testing.assert_allclose(x.to_numpy(), torch.tensor([0.3, 0.5]).erfinv_().numpy())


def test_cross_by_hand_and_against_pytorch():
    torch = import_torch()
    e = kt.eye(3)
    assert kt.cross(e[0], e[1]).tolist() == [0.0, 0.0, 1.0]  # x times y = z
    assert e[1].cross(e[0]).tolist() == [0.0, 0.0, -1.0]
    a, b = RNG.normal(size=(4, 3, 2)), RNG.normal(size=(4, 3, 2))
    assert_same_function(
        lambda u, v: kt.cross(u, v, dim=1),
        lambda u, v: torch.cross(u, v, dim=1),
        a,
        b,
        rng=RNG,
        rtol=1e-12,
    )
    # without dim: the first dim of size 3 (here 1)
    got = kt.tensor(a).cross(kt.tensor(b)).to_numpy()
    np.testing.assert_allclose(
        got, torch.linalg.cross(torch.tensor(a), torch.tensor(b), dim=1)
    )
    with pytest.raises(RuntimeError, match="must have length 3"):
        kt.cross(kt.ones(2, 2), kt.ones(2, 2))


def test_cov_by_hand():
    # rows x = [1, 2, 3] and y = [3, 2, 1]: variances 1, covariance -1
    assert kt.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]).cov().tolist() == [
        [1.0, -1.0],
        [-1.0, 1.0],
    ]
    assert kt.cov(kt.tensor([1.0, 2.0, 4.0]), correction=0).item() == pytest.approx(
        14 / 9
    )


@pytest.mark.parametrize("shape", [(3, 5), (5,), (1, 4), (2, 1)])
@pytest.mark.parametrize("correction", [0, 1, 2, 5])
def test_cov_matches_pytorch(shape, correction):
    torch = import_torch()
    x = RNG.normal(size=shape)
    got = kt.cov(kt.tensor(x), correction=correction)
    with warnings.catch_warnings():  # (torch warns of N - correction <= 0)
        warnings.simplefilter("ignore")
        expected = torch.cov(torch.tensor(x), correction=correction)
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(
        got.to_numpy(), expected.numpy(), rtol=1e-12, equal_nan=True
    )
    if shape[-1] > correction:
        assert_same_function(
            lambda t: kt.cov(t, correction=correction),
            lambda t: torch.cov(t, correction=correction),
            x,
            rng=RNG,
            rtol=1e-10,
        )


def test_vander():
    torch = import_torch()
    assert kt.vander(kt.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert kt.vander(kt.tensor([2.0]), N=3, increasing=True).tolist() == [
        [1.0, 2.0, 4.0]
    ]
    for x in ([1, 2, 3], [1.5, 0.0, -2.0]):
        for n in (None, 2, 4):
            for increasing in (False, True):
                got = kt.vander(kt.tensor(x), n, increasing)
                expected = torch.vander(torch.tensor(x), n, increasing)
                assert got.tolist() == expected.tolist()
                assert got.dtype.is_floating_point == expected.dtype.is_floating_point
    # d/dx (x^2 + x + 1) = 2x + 1, also at 0 (the column of ones has no gradient)
    x = kt.tensor([1.5, 0.0, -2.0], requires_grad=True)
    kt.vander(x).sum().backward()
    assert x.grad.tolist() == [4.0, 1.0, -3.0]


def test_ldexp():
    torch = import_torch()
    m, e = kt.tensor([1.0, -3.0, 0.75]), kt.tensor([3, -1, 2])
    assert kt.ldexp(m, e).tolist() == [8.0, -1.5, 3.0]  # x 2^e
    expected = torch.ldexp(torch.tensor([1.0, -3.0, 0.75]), torch.tensor([3, -1, 2]))
    assert m.ldexp(e).tolist() == expected.tolist()
    assert m.ldexp_(e) is m and m.tolist() == [8.0, -1.5, 3.0]
    assert_same_function(
        lambda a: kt.ldexp(a, kt.tensor([2, 3])),
        lambda a: torch.ldexp(a, torch.tensor([2, 3])),
        RNG.normal(size=2),
        rng=RNG,
        rtol=1e-15,
    )
    # (PyTorch 2.13's gradient for a negative integer exponent is 0, as if 2^e
    # were computed in integers; the derivative is 2^e: central differences)
    x = kt.tensor([0.3, -1.2], requires_grad=True)
    kt.grad_check(lambda a: kt.ldexp(a, kt.tensor([-3, 1])), x)
    x = kt.tensor([0.3, -1.2], requires_grad=True)
    kt.ldexp(x, kt.tensor([-3, 1])).sum().backward()
    assert x.grad.tolist() == [0.125, 2.0]
