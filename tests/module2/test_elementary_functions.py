"""The elementary functions (``tan``, ``asin``/``arcsin``, ``sinh``, ``atanh``,
``log2``, ``log10``, ``erfc``, ``logit``, ``sinc``, ...): values against PyTorch
itself at moderate and small arguments and at the edges of their domains (NaN,
$\\pm\\infty$), gradients against PyTorch's and central differences (float64 on
both sides), second derivatives (``create_graph``), the ``kt.`` function forms,
the in-place forms and the result dtypes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6

UNIT = ["tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "atanh"]
ANY = ["sinh", "cosh", "asinh", "arcsinh", "erfc", "exp2", "deg2rad", "rad2deg"]
POSITIVE = ["acosh", "arccosh", "log2", "log10", "reciprocal"]
NAMES = UNIT + ["arctanh"] + ANY + POSITIVE + ["logit", "sinc", "sgn"]


def _domain(name):
    """Moderate and small arguments inside ``name``'s domain."""
    if name in ("acosh", "arccosh"):
        return np.array([1.0 + 1e-12, 1.25, 2.0, 10.0, 1e5])
    if name in POSITIVE:
        return np.array([1e-10, 0.3, 1.0, 8.0, 1000.0])
    if name in ("logit",):
        return np.array([1e-10, 0.2, 0.5, 0.7, 0.999])
    return np.array([-0.9, -0.25, -1e-10, 1e-300, 0.5, 0.75])


@pytest.mark.parametrize("name", NAMES)
def test_values_match_pytorch(name):
    torch = import_torch()
    x = _domain(name)
    if name in ANY + ["sinc", "sgn"]:
        x = np.concatenate([x, x * 5.0])
    expected = getattr(torch, name)(torch.tensor(x)).numpy()
    for got in (getattr(kt, name)(kt.tensor(x)), getattr(kt.tensor(x), name)()):
        np.testing.assert_allclose(got.to_numpy(), expected, rtol=1e-15, atol=0)


def test_exact_where_pytorch_is():
    torch = import_torch()
    x = np.array([1000.0, 0.001, 1e-300, 8.0, 1024.0])
    for name in ["log10", "log2"]:
        got = getattr(kt, name)(kt.tensor(x)).tolist()
        assert got == getattr(torch, name)(torch.tensor(x)).tolist()
    assert kt.log10(kt.tensor(1000.0)).item() == 3.0
    small = np.array([1e-10, -1e-10, 1e-200, 3e-8])
    for name in ["sinh", "asinh", "atanh", "asin", "atan", "tan", "sinc"]:
        got = getattr(kt, name)(kt.tensor(small)).to_numpy()
        expected = getattr(torch, name)(torch.tensor(small)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-15)
    big = np.array([5.0, 10.0, 26.0, 710.0, -710.0])  # (erfc tiny; sinh past e^x)
    for name in ["erfc", "sinh", "cosh"]:
        got = getattr(kt, name)(kt.tensor(big)).to_numpy()
        expected = getattr(torch, name)(torch.tensor(big)).numpy()
        np.testing.assert_allclose(got, expected, rtol=4e-16)


EDGES = np.array([2.0, -2.0, 1.0, -1.0, 0.0, -0.0, math.inf, -math.inf, math.nan])


@pytest.mark.parametrize("name", NAMES)
def test_nan_and_infinities_at_the_domain_edges_as_pytorch(name):
    torch = import_torch()
    got = getattr(kt, name)(kt.tensor(EDGES)).to_numpy()
    expected = getattr(torch, name)(torch.tensor(EDGES)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(expected)), (got, expected)
    keep = ~np.isnan(expected)
    np.testing.assert_allclose(got[keep], expected[keep], rtol=1e-15, atol=0)
    assert np.signbit(got[keep]).tolist() == np.signbit(expected[keep]).tolist()


def test_edges_named_in_the_brief():
    assert math.isnan(kt.asin(kt.tensor(2.0)).item())
    assert kt.atanh(kt.tensor(1.0)).item() == math.inf
    assert kt.log2(kt.tensor(0.0)).item() == -math.inf
    assert kt.sinc(kt.tensor(0.0)).item() == 1.0


@pytest.mark.parametrize("name", [n for n in NAMES if n != "sgn"])
def test_gradients_match_pytorch_and_central_differences(name):
    torch = import_torch()
    x = _domain(name)[1:-1] if name not in POSITIVE else _domain(name)[1:]
    expected = torch.tensor(x, requires_grad=True)
    getattr(torch, name)(expected).sum().backward()
    ours = kt.tensor(x, requires_grad=True)
    getattr(kt, name)(ours).sum().backward()
    np.testing.assert_allclose(ours.grad.to_numpy(), expected.grad.numpy(), rtol=1e-13)
    kt.grad_check(getattr(kt, name), kt.tensor(x, requires_grad=True))


def test_logit_eps_and_sinc_gradient_at_zero_as_pytorch():
    torch = import_torch()
    x = np.array([0.0, 0.01, 0.3, 0.99, 1.0])
    for eps in [None, 0.05]:
        t = torch.tensor(x, requires_grad=True)
        torch.logit(t, eps).sum().backward()
        k = kt.tensor(x, requires_grad=True)
        kt.logit(k, eps).sum().backward()
        got = kt.logit(kt.tensor(x), eps).to_numpy()
        expected = torch.logit(torch.tensor(x), eps).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-15)
        np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), rtol=1e-14)
    kt.grad_check(
        lambda t: t.logit(eps=0.05), kt.tensor([0.01, 0.3, 0.97], requires_grad=True)
    )
    t = torch.tensor([0.0, 0.5], requires_grad=True)
    torch.sinc(t).sum().backward()
    k = kt.tensor([0.0, 0.5], requires_grad=True)
    kt.sinc(k).sum().backward()
    np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), atol=1e-16)


@pytest.mark.parametrize(
    "name", ["tan", "asin", "sinh", "cosh", "asinh", "acosh", "atanh", "log10", "erfc"]
)
def test_second_derivatives_match_pytorch(name):
    torch = import_torch()
    x = np.array([0.3, 0.6]) + (1.0 if name == "acosh" else 0.0)
    t = torch.tensor(x, requires_grad=True)
    (g,) = torch.autograd.grad(getattr(torch, name)(t).sum(), t, create_graph=True)
    g.sum().backward()
    k = kt.tensor(x, requires_grad=True)
    getattr(kt, name)(k).sum().backward(create_graph=True)
    (d,) = kt.autograd.grad(k.grad.sum(), k)
    np.testing.assert_allclose(d.to_numpy(), t.grad.numpy(), rtol=1e-12)


def test_in_place_forms_match_pytorch():
    torch = import_torch()
    x = np.array([0.1, 0.4, 0.8])
    names = "sin cos tan asin acos atan sinh cosh asinh atanh log2 log10 exp2 erf erfc"
    for name in (names + " log1p expm1 rsqrt reciprocal logit sgn").split():
        k, t = kt.tensor(x), torch.tensor(x)
        assert getattr(k, name + "_")() is k
        getattr(t, name + "_")()
        np.testing.assert_allclose(k.to_numpy(), t.numpy(), rtol=4e-16)
    k, t = kt.tensor(x + 1.0), torch.tensor(x + 1.0)
    assert k.acosh_().tolist() == t.acosh_().tolist()
    # (with autograd: the in-place result's gradient, as PyTorch's)
    k, t = kt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (k * 1.0).asin_().log10_().sum().backward()
    (t * 1.0).asin_().log10_().sum().backward()
    np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), rtol=1e-14)


@pytest.mark.parametrize("name", ["tan", "asinh", "log10", "erfc", "sinc", "exp2"])
def test_result_dtypes_as_pytorch(name):
    # (PyTorch's default dtype is float32: an integer tensor's result has it)
    torch = import_torch()
    kt.set_default_dtype(kt.float32)
    try:
        for values in ([1, 2], [True, False]):
            got = getattr(kt, name)(kt.tensor(values))
            expected = getattr(torch, name)(torch.tensor(values))
            assert got.dtype.name == str(expected.dtype)[6:] == "float32"
    finally:
        kt.set_default_dtype(kt.float64)
    got = getattr(kt, name)(kt.tensor([1.0, 2.0], dtype=kt.float32))
    assert got.dtype == kt.float32
