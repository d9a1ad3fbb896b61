"""The numeric policy: tensor operations follow IEEE arithmetic and PyTorch.

They give ``inf``, ``-inf`` and ``nan`` where Module 0's scalar operators raise, with
no exception and no warning, identically on every backend (``simple`` under Task 2.3
or 2.4, ``fast`` under Task 3.1). NumPy, with its warnings off, is the oracle; the
expected values are those PyTorch gives.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import module2_tensors as kt
from module2_tensors import ieee
from tests.backends import backend_params

INF, NAN = math.inf, math.nan

#: (name, the tensor operation, the NumPy oracle, inputs)
FORWARD = [
    ("exp", lambda t: t.exp(), np.exp, [1000.0, -1000.0, 0.0, INF, -INF, NAN]),
    ("log", lambda t: t.log(), np.log, [0.0, -0.0, -1.0, 1.0, INF, -INF, NAN]),
    ("inv", lambda t: 1.0 / t, lambda x: 1.0 / x, [0.0, -0.0, 2.0, INF, NAN]),
    ("div", lambda t: t / 0.0, lambda x: x / 0.0, [1.0, -1.0, 0.0, NAN]),
    ("pow-1", lambda t: t**-1.0, lambda x: x**-1.0, [0.0, -0.0, 4.0]),
    ("pow2", lambda t: t**2.0, lambda x: x**2.0, [1e200, -1e200, 3.0, INF]),
    ("pow-half", lambda t: t**0.5, lambda x: x**0.5, [-1.0, 0.0, 4.0]),
    ("pow3", lambda t: t**3.0, lambda x: x**3.0, [-1e150, 2.0, -INF]),
    ("sqrt", lambda t: t.sqrt(), np.sqrt, [-1.0, 0.0, 4.0, INF, NAN]),
    ("relu", lambda t: t.relu(), lambda x: np.where(~(x <= 0), x, 0.0), []),
    ("sin", lambda t: t.sin(), np.sin, [INF, -INF, NAN, 1.0]),
    ("cos", lambda t: t.cos(), np.cos, [INF, -INF, NAN, 1.0]),
    (
        "sigmoid",
        lambda t: t.sigmoid(),
        lambda x: 1 / (1 + np.exp(-x)),
        [NAN, INF, -INF, 0.0, 1e3, -1e3],
    ),
    ("mul", lambda t: t * 1e300, lambda x: x * 1e300, [1e10, -1e10, INF, 0.0]),
    ("mul-inf", lambda t: t * INF, lambda x: x * INF, [0.0, 1.0, -1.0]),
    ("add-inf", lambda t: t + INF, lambda x: x + INF, [-INF, 1.0, NAN]),
]
# relu and sigmoid: the interesting inputs are NaN and the infinities.
FORWARD = [
    (name, f, oracle, values or [NAN, INF, -INF, -1.0, 0.0, 2.0])
    for name, f, oracle, values in FORWARD
]


def _quietly(f: Callable[[], Any]) -> Any:
    """Run ``f`` with every warning turned into an error: the policy says none."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return f()


def _assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    # assert_array_equal treats NaN == NaN and checks the sign of infinities.
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@pytest.mark.parametrize(
    "name, f, oracle, values", FORWARD, ids=[case[0] for case in FORWARD]
)
def test_forward_follows_ieee(backend, name, f, oracle, values):
    x = np.array(values)
    t = kt.tensor(x, backend=backend)
    result = _quietly(lambda: f(t).to_numpy())
    with np.errstate(all="ignore"):
        expected = oracle(x)
    _assert_same(result, expected)


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
def test_relu_keeps_nan(backend):
    """PyTorch: relu(nan) = nan (``x if x > 0 else 0`` would give 0)."""
    t = kt.tensor([NAN, -1.0, 1.0], backend=backend)
    result = _quietly(lambda: t.relu().to_numpy())
    assert math.isnan(result[0]) and list(result[1:]) == [0.0, 1.0]


def _values(result: Any) -> Any:
    # max(dim) gives the values, or (values, indices) as PyTorch.
    return result[0] if isinstance(result, tuple) else result


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@pytest.mark.parametrize("position", [0, 1, 2])
def test_max_propagates_nan_wherever_it_is(backend, position):
    row = [1.0, 5.0, -2.0]
    row[position] = NAN
    x = np.array([row, [1.0, 5.0, -2.0]])
    t = kt.tensor(x, backend=backend)
    along = _quietly(lambda: _values(t.max(1)).to_numpy())
    assert math.isnan(along[0]) and along[1] == 5.0
    down = _quietly(lambda: _values(t.max(0)).to_numpy())
    _assert_same(down, np.max(x, axis=0))
    assert math.isnan(_quietly(lambda: t.max().item()))


@pytest.mark.parametrize("backend", backend_params("2.3", matmul=True), indirect=True)
def test_matmul_overflows_to_inf(backend):
    a = kt.tensor([[1e200, 1e200], [0.0, INF]], backend=backend)
    b = kt.tensor([[1e200], [1.0]], backend=backend)
    result = _quietly(lambda: (a @ b).to_numpy())
    with np.errstate(all="ignore"):
        expected = np.array([[1e200, 1e200], [0.0, INF]]) @ np.array([[1e200], [1.0]])
    _assert_same(result, expected)


#: (name, the function, the input, its gradient there as PyTorch gives it)
BACKWARD = [
    ("sqrt at 0", lambda t: t.sqrt(), 0.0, INF),
    ("log at 0", lambda t: t.log(), 0.0, INF),
    ("log at -1", lambda t: t.log(), -1.0, -1.0),
    ("inv at 0", lambda t: 1.0 / t, 0.0, -INF),
    ("pow -1 at 0", lambda t: t**-1.0, 0.0, -INF),
    ("exp at 1000", lambda t: t.exp(), 1000.0, INF),
]


@pytest.mark.parametrize("backend", backend_params("2.4"), indirect=True)
@pytest.mark.parametrize(
    "name, f, value, gradient", BACKWARD, ids=[case[0] for case in BACKWARD]
)
def test_backward_follows_ieee(backend, name, f, value, gradient):
    t = kt.tensor([value], backend=backend, requires_grad=True)
    _quietly(lambda: f(t).sum().backward())
    _assert_same(t.grad.to_numpy(), np.array([gradient]))


def test_scalar_functions_match_numpy():
    """The IEEE scalar functions the backends compile, against NumPy, on the
    values where Python's ``math`` raises or NumPy differs from Python."""
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e300, -1e300, INF, -INF, NAN, 800.0]
    unary = {
        "exp": np.exp,
        "log": np.log,
        "inv": lambda x: np.float64(1.0) / x,
        "sqrt": np.sqrt,
        "sin": np.sin,
        "cos": np.cos,
    }
    with np.errstate(all="ignore"):
        for name, oracle in unary.items():
            f = getattr(ieee, name)
            for x in special:
                _assert_same(np.array(_quietly(lambda: f(x))), oracle(np.float64(x)))
        for x in special:
            for y in special:
                _assert_same(np.array(ieee.maximum(x, y)), np.maximum(x, y))
                # log_back(x, d) is d / x in IEEE arithmetic
                _assert_same(
                    np.array(ieee.log_back(y, x)), np.float64(x) / np.float64(y)
                )
                _assert_same(
                    np.array(ieee.power(x, y)),
                    np.power(np.float64(x), np.float64(y)),
                )
