"""The forms PyTorch has and Kindling lacked one of: ``addcmul``/``addcdiv`` as
methods and ``kt.*`` functions (their in-place forms existed), ``multinomial``,
``bernoulli`` and ``bernoulli_`` as methods (``kt.*`` existed), ``generator=`` on
the draws. Values and gradients against PyTorch and central differences; the
draws' laws, dtypes and seeding by hand. Given code; Task 2.6's marker."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.module2.oracle import check_gradients
from tests.module2.strategies import Case
from tests.pytorch_reference import assert_same_backward, import_torch

pytestmark = pytest.mark.task2_6

RNG = np.random.default_rng(7)
X, T1, T2 = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3)), RNG.normal(size=(3,))


def _case(array):
    return Case(np.asarray(array, dtype=np.float64), tuple(range(np.ndim(array))))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, -0.5])
def test_addc_methods_and_functions_match_pytorch(name, value):
    torch = import_torch()
    t2 = T2 + 2.0  # (away from 0 for addcdiv)
    ours = [kt.tensor(a, requires_grad=True) for a in (X, T1, t2)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (X, T1, t2)]
    out = getattr(ours[0], name)(ours[1], ours[2], value=value)
    expected = getattr(torch, name)(*theirs, value=value)
    np.testing.assert_allclose(out.to_numpy(), expected.detach().numpy(), rtol=1e-14)
    function = getattr(kt, name)(*ours, value=value)
    np.testing.assert_allclose(function.to_numpy(), out.to_numpy(), rtol=1e-14)
    assert_same_backward(out, expected, ours, theirs, RNG, rtol=1e-12)
    check_gradients(
        lambda x, a, b: getattr(x, name)(a, b, value=value),
        _case(X),
        _case(T1),
        _case(t2),
    )


@pytest.mark.parametrize("name", ["addcmul_", "addcdiv_"])
def test_addc_in_place_forms_write_the_methods_result(name):
    torch = import_torch()
    x, t = kt.tensor(X), torch.tensor(X)
    assert getattr(x, name)(kt.tensor(T1), kt.tensor(T2 + 2.0), value=3.0) is x
    getattr(t, name)(torch.tensor(T1), torch.tensor(T2 + 2.0), value=3.0)
    np.testing.assert_allclose(x.to_numpy(), t.numpy(), rtol=1e-14)


def test_multinomial_method_draws_from_each_row_and_takes_a_generator():
    weights = kt.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
    picks = weights.multinomial(3, True)
    assert picks.dtype is kt.int64 and picks.tolist() == [[1, 1, 1], [0, 0, 0]]
    assert sorted(kt.tensor([1.0, 1.0, 1.0]).multinomial(3).tolist()) == [0, 1, 2]
    p = kt.tensor([0.1, 0.2, 0.3, 0.4])
    draws = [p.multinomial(1, generator=np.random.default_rng(s)) for s in (5, 5)]
    assert draws[0].tolist() == draws[1].tolist() and draws[0].shape == (1,)
    many = p.multinomial(20000, True, generator=np.random.default_rng(0))
    frequencies = np.bincount(many.to_numpy().astype(int), minlength=4) / 20000
    np.testing.assert_allclose(frequencies, p.tolist(), atol=0.015)
    kt.manual_seed(3)
    first = p.multinomial(2)
    kt.manual_seed(3)
    assert kt.multinomial(p, 2).tolist() == first.tolist()  # (the same draw)


def test_bernoulli_method_its_p_and_its_in_place_form():
    probabilities = kt.tensor([0.0, 1.0, 0.0, 1.0])
    draws = probabilities.bernoulli()
    assert draws.tolist() == [0.0, 1.0, 0.0, 1.0] and draws.dtype is kt.float64
    assert kt.bernoulli(probabilities).tolist() == draws.tolist()
    assert kt.zeros(3).bernoulli(1.0).tolist() == [1.0, 1.0, 1.0]
    ints = kt.tensor([0, 1, 1]).bernoulli(p=0.0)
    assert ints.dtype is kt.int64 and ints.tolist() == [0, 0, 0]
    half = kt.zeros(20000).bernoulli(0.3, generator=np.random.default_rng(1))
    assert abs(half.mean().item() - 0.3) < 0.015
    x = kt.full((2, 2), 7.0)
    assert x.bernoulli_(1.0) is x and x.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    y = kt.zeros(20000).bernoulli_(generator=np.random.default_rng(2))
    assert abs(y.mean().item() - 0.5) < 0.015  # (p = 0.5 by default, as torch)
    w = kt.tensor([0.5, 0.5], requires_grad=True)
    assert not w.bernoulli().requires_grad  # (no gradient through a draw)
