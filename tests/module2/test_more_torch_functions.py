"""More of PyTorch's functions (issue 42): aliases and short compositions
(``nelement``, ``fliplr``, ``take``, ``select``, ``tensor_split``, ``inner``,
...), ``storage_offset`` and the draws ``randint_like``, ``seed``, ``random_``,
``exponential_``: values and dtypes against PyTorch itself, gradients against
PyTorch's and central differences (``grad_check``), float64 on both sides. Given
code."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import assert_same_backward, assert_same_function
from tests.pytorch_reference import import_torch

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


def _ties(fn_kt, fn_torch, *arrays):
    """Values and gradients as PyTorch's, without central differences (which
    split a tie's gradient where PyTorch gives it to one side)."""
    torch = import_torch()
    ours = [kt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, expected = fn_kt(*ours), fn_torch(*theirs)
    _same(got, expected.detach())
    assert_same_backward(got, expected, ours, theirs, RNG, rtol=1e-12, atol=1e-14)


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


def test_signbit_isreal_element_size_msort():
    torch = import_torch()
    for values in [SPECIAL, np.array([-3, 0, 2]), np.array([True, False])]:
        ours, theirs = kt.tensor(values), torch.tensor(values)
        _same(kt.signbit(ours), torch.signbit(theirs))
        _same(ours.isreal(), theirs.isreal())
        assert ours.element_size() == theirs.element_size()
    _same(kt.signbit(kt.tensor(-math.nan)), torch.signbit(torch.tensor(-math.nan)))
    assert kt.zeros(2, dtype=kt.float32).element_size() == 4
    _both(kt.msort, torch.msort, A)
    _both(lambda a: a.msort(), lambda a: a.msort(), RNG.normal(size=(4, 2, 3)))
    i = torch.tensor([[3, 1], [2, 5], [0, 4]])
    _same(kt.tensor(i.numpy()).msort(), i.msort())


def test_vdot_logaddexp2():
    torch = import_torch()
    _both(kt.vdot, torch.vdot, A[0], B[0])
    _both(lambda a, b: a.vdot(b), lambda a, b: a.vdot(b), A[1], B[2])
    i = torch.tensor([1, 2, 3])
    _same(kt.tensor([1, 2, 3]).vdot(kt.tensor([1, 2, 3])), i.vdot(i))
    with pytest.raises(RuntimeError):
        kt.vdot(kt.tensor(A), kt.tensor(B))
    _both(kt.logaddexp2, torch.logaddexp2, A * 30, B * 30)
    _both(lambda a, b: a.logaddexp2(b), lambda a, b: a.logaddexp2(b), A, B[0])
    x, y = np.meshgrid(SPECIAL, SPECIAL)
    _same(
        kt.tensor(x).logaddexp2(kt.tensor(y)),
        torch.tensor(x).logaddexp2(torch.tensor(y)),
    )


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast(name):
    torch = import_torch()
    ours, theirs = getattr(kt, name), getattr(torch, name)
    for shape in [(), (3,), (2, 3), (2, 3, 4), (1, 2, 3, 4)]:
        _both(ours, theirs, RNG.normal(size=shape))
    arrays = [np.array(2.0), A[0], A]
    got = ours(*[kt.tensor(a) for a in arrays])
    expected = theirs(*[torch.tensor(a) for a in arrays])
    assert isinstance(got, tuple) and len(got) == 3
    for g, e in zip(got, expected):
        _same(g, e)
    (g,) = ours([kt.tensor([1, 2])])
    _same(g, theirs([torch.tensor([1, 2])])[0])


def test_dstack_column_stack():
    torch = import_torch()
    cases = {"dstack": [[(), ()], [(3,), (3,)], [(3, 2), (3, 2)], [(2, 3, 1), (2, 3)]]}
    cases["column_stack"] = [[(), ()], [(3,), (3,)], [(3, 1), (3,)], [(3, 2), (3, 4)]]
    for name, shapes in [(n, s) for n, c in cases.items() for s in c]:
        _both(
            lambda *a: getattr(kt, name)(a),
            lambda *a: getattr(torch, name)(a),
            *[RNG.normal(size=s) for s in shapes],
        )
    for name in cases:
        i = [torch.tensor([1, 2]), torch.tensor([3, 4])]
        ours = getattr(kt, name)([kt.tensor(t.numpy()) for t in i])
        _same(ours, getattr(torch, name)(i))


@pytest.mark.parametrize("name, least", [("hsplit", 1), ("vsplit", 2), ("dsplit", 3)])
def test_hsplit_vsplit_dsplit(name, least):
    torch = import_torch()
    x = RNG.normal(size=(4, 6, 2))
    shapes = [(4, 6, 2)] + ([(6,)] if name == "hsplit" else [])
    for shape, sections in [(s, k) for s in shapes for k in [2, [1, 3], (0, 9)]]:
        x = RNG.normal(size=shape)
        parts = getattr(torch, name)(torch.tensor(x), sections)
        weights = [RNG.normal(size=p.shape) for p in parts]

        def joined(lib, parts):  # (every part, weighted, in one tensor to compare)
            return lib.cat(
                [(p * lib.tensor(w)).reshape(-1) for p, w in zip(parts, weights)]
            )

        _both(
            lambda a: joined(kt, getattr(kt, name)(a, sections)),
            lambda a: joined(torch, getattr(torch, name)(a, sections)),
            x,
        )
        got = getattr(kt.tensor(x), name)(sections)
        assert [p.shape for p in got] == [tuple(p.shape) for p in parts]
    i = torch.arange(8).reshape(2, 2, 2)
    for g, e in zip(getattr(kt.tensor(i.numpy()), name)(2), getattr(i, name)(2)):
        _same(g, e)
    for shape, sections in [((4, 6, 2), 5), ((4, 6, 2), 0), ((2,) * (least - 1), 1)]:
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.zeros(shape), sections)
        with pytest.raises(RuntimeError):
            getattr(kt, name)(kt.zeros(shape), sections)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin(name):
    torch = import_torch()
    ours, theirs = getattr(kt, name), getattr(torch, name)
    _both(ours, theirs, A, B)
    _both(lambda a, b: getattr(a, name)(b), lambda a, b: getattr(a, name)(b), A, B[0])
    _ties(ours, theirs, A, np.where(RNG.random(A.shape) < 0.3, A, B))
    x, y = np.meshgrid(SPECIAL, SPECIAL)  # (NaN: the other; ties: self's gradient)
    _ties(ours, theirs, x, y)
    # (the sign of a zero is not compared: kt.where gives +0 for -0, a known
    # difference)
    i, j = torch.tensor([1, 5, -2]), torch.tensor([3, 2, -2])
    _same(ours(kt.tensor([1, 5, -2]), kt.tensor([3, 2, -2])), theirs(i, j))
    _same(
        ours(kt.tensor([1, 5, -2]), kt.tensor(j.double().numpy())),
        theirs(i, j.double()),
    )


def test_dist():
    torch = import_torch()
    for p in [2, 1, 3.5, math.inf, -math.inf]:
        _both(lambda a, b: kt.dist(a, b, p), lambda a, b: torch.dist(a, b, p), A, B)
    _both(lambda a, b: a.dist(b), lambda a, b: a.dist(b), A, B[1])
    _both(lambda a: a.dist(a.detach()), lambda a: a.dist(a.detach()), A)  # (0)
    _same(kt.tensor(A).dist(kt.tensor(B), 0), torch.tensor(A).dist(torch.tensor(B), 0))


def test_aminmax_broadcast_shapes():
    torch = import_torch()
    x = A.copy()
    x[0, 1] = x[0, 3] = x.max()  # (tied maxima share the gradient, as PyTorch's)
    for kw in [{}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"keepdim": True}]:
        _both(lambda a: kt.aminmax(a, **kw)[0], lambda a: torch.aminmax(a, **kw)[0], A)
        _both(lambda a: a.aminmax(**kw).max, lambda a: a.aminmax(**kw).max, A)
        _ties(lambda a: a.aminmax(**kw).max, lambda a: a.aminmax(**kw).max, x)
        _ties(lambda a: a.aminmax(**kw).min, lambda a: a.aminmax(**kw).min, -x)
    for values in [[[3, -1], [2, 7]], [True, False]]:
        got, expected = kt.tensor(values).aminmax(), torch.tensor(values).aminmax()
        _same(got.min, expected.min)
        _same(got.max, expected.max)
    for shapes in [((2, 1), (3,), 1), ((),), ((5, 1, 4), (3, 1)), (2, (0, 1))]:
        assert kt.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
    with pytest.raises(ValueError):  # (PyTorch's RuntimeError: the guide's ValueError)
        kt.broadcast_shapes((2,), (3,))


def test_float_power():
    torch = import_torch()
    x = np.abs(A) + 0.1
    _both(kt.float_power, torch.float_power, x, B)
    _both(lambda a: a.float_power(2.5), lambda a: a.float_power(2.5), x)
    _both(lambda a: kt.float_power(a, 3), lambda a: torch.float_power(a, 3), A)
    i = torch.tensor([[2, -3], [0, 5]])
    _same(kt.tensor(i.numpy()).float_power(2), i.float_power(2))
    for e in [torch.tensor([1, 3]), torch.tensor([0.5, 2.0], dtype=torch.float32)]:
        ours = kt.tensor(e.numpy(), dtype=getattr(kt, str(e.dtype)[6:]))
        _same(kt.tensor(i.numpy()).float_power(ours), i.float_power(e))
    x = kt.tensor([2.0, -3.0])
    x.float_power_(2)
    _same(x, torch.tensor([2.0, -3.0], dtype=torch.float64).float_power_(2))
    with pytest.raises(RuntimeError):
        torch.tensor([2, 3]).float_power_(2)
    with pytest.raises(RuntimeError):
        kt.tensor([2, 3]).float_power_(2)


def _same_in_place(name, x, other):
    """``x.name(other)`` for an in-place ``name``: ``x`` afterwards as torch's
    (float64 tensors of ``x`` and ``other``)."""
    torch = import_torch()
    ours, theirs = kt.tensor(x), torch.tensor(x, dtype=torch.float64)
    getattr(ours, name)(kt.tensor(other))
    _same(ours, getattr(theirs, name)(torch.tensor(other, dtype=torch.float64)))


def test_hypot():
    torch = import_torch()
    _both(kt.hypot, torch.hypot, A, B)
    _both(lambda a, b: a.hypot(b), lambda a, b: a.hypot(b), A * 1e200, B[0] * 1e200)
    _ties(kt.hypot, torch.hypot, A * 1e-200, B * 1e-200)
    x, y = np.meshgrid(SPECIAL, np.concatenate([SPECIAL, [1e300]]))
    _ties(kt.hypot, torch.hypot, x, y)  # (0/0: NaN gradients, as PyTorch's)
    _same_in_place("hypot_", [3.0, 1e200], [4.0, 1e200])


def test_xlogy():
    torch = import_torch()
    y = np.abs(B) + 0.1
    _both(kt.xlogy, torch.xlogy, A, y)
    _both(lambda a, b: a.xlogy(b), lambda a, b: a.xlogy(b), A, y[0])
    _both(lambda a: a.xlogy(2.5), lambda a: a.xlogy(2.5), A)
    x, y = np.meshgrid(SPECIAL[SPECIAL != math.inf], SPECIAL[SPECIAL != math.inf])
    _ties(kt.xlogy, torch.xlogy, x, y)  # (0 at x = 0, its gradients as PyTorch's)
    x, y = np.array([0.0, 0.0, 2.0, math.inf]), np.array([math.inf] * 3 + [0.0])
    _same(
        kt.xlogy(kt.tensor(x), kt.tensor(y)),
        torch.xlogy(torch.tensor(x), torch.tensor(y)),
    )
    i, j = torch.tensor([0, 2, 3]), torch.tensor([0, 5, 1])
    _same(kt.tensor([0, 2, 3]).xlogy(kt.tensor([0, 5, 1])), i.xlogy(j))
    _same_in_place("xlogy_", [0.0, 2.0], [0.0, 3.0])


@pytest.mark.parametrize("name", ["var", "std"])
def test_unbiased_alone(name):
    """``x.var(False)``: a bool alone is ``unbiased`` (PyTorch's ``var(unbiased)``),
    on the methods and the ``kt.*`` forms, ``var_mean`` and ``std_mean`` too."""
    torch = import_torch()
    for u in [False, True]:
        _both(lambda a: getattr(a, name)(u), lambda a: getattr(a, name)(u), A)
        _both(
            lambda a: getattr(kt, name)(a, u), lambda a: getattr(torch, name)(a, u), A
        )
        _both(
            lambda a: kt.stack(getattr(kt, f"{name}_mean")(a, u)),
            lambda a: torch.stack(getattr(torch, f"{name}_mean")(a, u)),
            A,
        )


def _labelled(got, expected):
    """Equal values and the same dtype name, float32 included (PyTorch's default
    float set to float64 by the caller, as the library's)."""
    assert got.dtype.name == str(expected.dtype)[6:], (got.dtype, expected.dtype)
    rtol = 1e-3 if expected.dtype == import_torch().float16 else 1e-6
    np.testing.assert_allclose(got.to_numpy(), expected.double().numpy(), rtol=rtol)


def test_number_first():
    """``kt.pow(2, x)``, ``kt.xlogy(2, x)``, ``kt.float_power(2, x)`` as PyTorch's
    (a Python number first), and ``xlogy``'s dtype (of ``float32``: ``float32``)."""
    torch = import_torch()
    _both(lambda a: kt.pow(2.5, a), lambda a: torch.pow(2.5, a), A)
    _both(lambda a: kt.xlogy(3, a), lambda a: torch.xlogy(3, a), np.abs(A) + 0.1)
    _both(lambda a: kt.float_power(2, a), lambda a: torch.float_power(2, a), A)
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for d in ["float32", "float16", "int64", "int32", "bool"]:
            x = kt.tensor([1, 0], dtype=getattr(kt, d))
            t = torch.tensor([1, 0], dtype=getattr(torch, d))
            for n, name in zip([2, 2.5, 3, 0.5], ["pow", "xlogy", "float_power"] * 2):
                _labelled(getattr(kt, name)(n, x), getattr(torch, name)(n, t))
                _labelled(getattr(kt, name)(x, n), getattr(torch, name)(t, n))
            _labelled(x.xlogy(2), t.xlogy(2))
            _labelled(x.xlogy(kt.tensor([2.0])), t.xlogy(torch.tensor([2.0])))
    finally:
        torch.set_default_dtype(default)


def test_heaviside():
    torch = import_torch()
    for values in [np.array([0.5]), np.array(-2.0), SPECIAL[::-1].copy()]:
        got = kt.heaviside(kt.tensor(SPECIAL), kt.tensor(values))
        _same(got, torch.heaviside(torch.tensor(SPECIAL), torch.tensor(values)))
    i = torch.tensor([-3, 0, 2])
    _same(
        kt.tensor([-3, 0, 2]).heaviside(kt.tensor([7])), i.heaviside(torch.tensor([7]))
    )
    _same_in_place("heaviside_", [-1.0, 0.0, 3.0], 0.25)
    for lib in (torch, kt):
        with pytest.raises(RuntimeError):
            lib.heaviside(lib.tensor([-1.0, 0.0]), lib.tensor([1]))


def test_cartesian_prod_block_diag():
    torch = import_torch()
    a, b, c = RNG.normal(size=2), RNG.normal(size=3), RNG.normal(size=4)
    _both(kt.cartesian_prod, torch.cartesian_prod, a, b, c)
    _both(kt.cartesian_prod, torch.cartesian_prod, a)
    i, j = torch.tensor([1, 2]), torch.tensor([3, 4, 5])
    _same(
        kt.cartesian_prod(kt.tensor([1, 2]), kt.tensor([3, 4, 5])),
        torch.cartesian_prod(i, j),
    )
    _both(kt.block_diag, torch.block_diag, np.array(2.0), b, A, RNG.normal(size=(2, 1)))
    _both(kt.block_diag, torch.block_diag, A)
    blocks = [torch.tensor([[1, 2]]), torch.tensor(3), torch.tensor([[4], [5]])]
    ours = [kt.tensor(t.numpy()) for t in blocks]
    _same(kt.block_diag(*ours), torch.block_diag(*blocks))
    _same(kt.block_diag(kt.tensor([True])), torch.block_diag(torch.tensor([True])))


def test_unravel_index_tril_triu_indices():
    torch = import_torch()
    for index, shape in [([4, -1, 5, 0], (3, 2)), (7, (2, 3, 2)), ([[3, 9]], 10)]:
        got = kt.unravel_index(kt.tensor(index), shape)
        expected = torch.unravel_index(torch.tensor(index), shape)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    with pytest.raises(TypeError):
        torch.unravel_index(torch.tensor([1.0]), (2, 2))
    with pytest.raises(TypeError):
        kt.unravel_index(kt.tensor([1.0]), (2, 2))
    for args in [(3, 4), (3, 4, 1), (4, 3, -2), (0, 3), (3, 3, 5), (2, 5, -9)]:
        _same(kt.tril_indices(*args), torch.tril_indices(*args))
        _same(kt.triu_indices(*args), torch.triu_indices(*args))
    assert kt.tril_indices(3, 3, dtype=kt.int32).dtype == kt.int32


def test_logspace():
    torch = import_torch()
    for args, kw in [((0, 2, 3), {}), ((-1.5, 2, 7), {"base": 2}), ((1, 0, 4), {})]:
        _same(
            kt.logspace(*args, **kw), torch.logspace(*args, **kw, dtype=torch.float64)
        )
    x = kt.logspace(0, 1, 5, base=3.0, dtype=kt.float32, requires_grad=True)
    assert x.dtype == kt.float32 and x.is_leaf and x.requires_grad
    # An integer dtype truncates the powers, not the exponents: 1, 3, 10, 31, 100
    # (truncated exponents would give 1, 1, 10, 10, 100).
    for args in [(0, 2, 5), (0, 3, 7, 2.0)]:
        _same(
            kt.logspace(*args, dtype=kt.int64), torch.logspace(*args, dtype=torch.int64)
        )


@pytest.mark.parametrize("name", ["linspace", "logspace"])
def test_integer_spaces_truncate_their_endpoints(name):
    """An integer dtype truncates ``start`` and ``end`` too, as PyTorch's
    (``linspace(0.5, 3.7, 5)``: 0, 0, 1, 2, 3, from 0 to 3; ``logspace`` of one
    step keeps ``start``: ``base ** start``, then truncated)."""
    torch = import_torch()
    for args in [(0.5, 3.7, 5), (-0.5, 2.7, 4), (2.9, -1.9, 6), (1.75, 0.5, 1)]:
        for d in ["int64", "int32"]:
            _same(
                getattr(kt, name)(*args, dtype=getattr(kt, d)),
                getattr(torch, name)(*args, dtype=getattr(torch, d)),
            )


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_division_remainders_at_infinities(name):
    """``fmod``, ``remainder`` (``%``) and ``//`` exact and with PyTorch's values at
    the infinities (``fmod(1.5, inf)`` is 1.5, ``1.5 % -inf`` is -inf, ``1.5 //
    -inf`` is -1, ``inf // 2`` NaN; ``1 // 0.1`` is 9, ``1 % 0.1`` nearly 0.1)."""
    torch = import_torch()
    x, y = np.meshgrid(SPECIAL, np.concatenate([SPECIAL, [0.1, 3.0]]))
    x, y = np.append(x, [1.0, 1e17]), np.append(y, [0.1, 0.3])
    _same(
        getattr(kt, name)(kt.tensor(x), kt.tensor(y)),
        getattr(torch, name)(torch.tensor(x), torch.tensor(y)),
    )
    if name != "floor_divide":  # (PyTorch: no derivative of floor_divide)
        _both(getattr(kt, name), getattr(torch, name), A, B)
        _ties(getattr(kt, name), getattr(torch, name), A, np.full(4, math.inf))


@pytest.mark.parametrize("shape, dim", [((2, 0), 1), ((0, 3), 0), ((0, 3), 1)])
def test_reductions_of_empty_tensors(shape, dim):
    """``softmax``, ``log_softmax``, ``logsumexp`` (-inf) along an empty dim, and
    ``argmax``/``argmin`` along a dim that is not empty of an empty tensor, as
    PyTorch's; ``prod``'s gradient of an empty tensor (empty)."""
    torch = import_torch()
    x, t = kt.zeros(*shape), torch.zeros(*shape, dtype=torch.float64)
    for name in ["softmax", "log_softmax", "logsumexp"]:
        _same(getattr(x, name)(dim), getattr(t, name)(dim))
    if shape[dim]:
        _same(x.argmax(dim), t.argmax(dim))
        _same(kt.argmin(x, dim), torch.argmin(t, dim))
    for dims in [(), (dim,)]:
        x = kt.zeros(*shape, requires_grad=True)
        x.prod(*dims).sum().backward()
        assert x.grad.shape == shape


@pytest.mark.parametrize("name", ["asin", "acos", "atanh", "logit"])
def test_inverse_functions_of_a_mask(name):
    """``asin``, ``acos``, ``atanh``, ``logit`` of a ``bool`` tensor: of its 0s and
    1s in the default float, as PyTorch's (methods and ``kt.*``)."""
    torch = import_torch()
    m, t = kt.tensor([True, False]), torch.tensor([True, False])
    _same(getattr(m, name)(), getattr(t, name)())
    _same(getattr(kt, name)(m), getattr(torch, name)(t))


@pytest.mark.parametrize("k", [1, 2, 3, 0, -1, 6])
def test_rot90(k):
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 4))
    for dims in [(0, 1), [1, 0], (2, 0), (-1, 1)]:
        _both(lambda a: kt.rot90(a, k, dims), lambda a: torch.rot90(a, k, dims), x)
    _both(lambda a: a.rot90(k), lambda a: a.rot90(k), A)
    i = torch.arange(6).reshape(2, 3)
    _same(kt.tensor(i.numpy()).rot90(k), i.rot90(k))
    for args in [((0,),), ((0, 0),), ((0, -2),)]:
        for lib in (torch, kt):
            with pytest.raises(RuntimeError):
                lib.rot90(lib.zeros(2, 2), k, *args)
    with pytest.raises(RuntimeError):
        kt.rot90(kt.zeros(3), k)


def test_kron():
    torch = import_torch()
    for sa, sb in [((3,), (2,)), ((2, 3), (3, 2)), ((2,), (2, 3)), ((2, 1, 3), (4, 2))]:
        _both(kt.kron, torch.kron, RNG.normal(size=sa), RNG.normal(size=sb))
    _both(lambda a, b: a.kron(b), lambda a, b: a.kron(b), np.array(2.5), A)
    _both(kt.kron, torch.kron, np.array(2.5), np.array(-1.0))
    i, j = torch.tensor([1, 2]), torch.tensor([[1, 10], [100, 1000]])
    _same(kt.tensor(i.numpy()).kron(kt.tensor(j.numpy())), i.kron(j))


def test_diag_embed():
    torch = import_torch()
    x = RNG.normal(size=(2, 3))
    for args in [(), (1,), (-2,), (0, 0, 2), (1, 2, 0), (-1, -1, 0)]:
        _both(
            lambda a: kt.diag_embed(a, *args), lambda a: torch.diag_embed(a, *args), x
        )
        _both(
            lambda a: a.diag_embed(*args[:1]), lambda a: a.diag_embed(*args[:1]), A[0]
        )
    i = torch.tensor([[1, 2], [3, 4]])
    _same(kt.tensor(i.numpy()).diag_embed(1), i.diag_embed(1))
    _same(
        kt.tensor([True, False]).diag_embed(), torch.tensor([True, False]).diag_embed()
    )


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin(name):
    torch = import_torch()
    x = RNG.normal(size=(3, 4, 5))
    for dim in [0, 1, -1]:
        _both(
            lambda a: getattr(kt, name)(a, dim).values,
            lambda a: getattr(torch, name)(a, dim).values,
            x,
        )
    ties = np.array([[1.0, 3, 3, 2, 3, 0, 0], [2, 2, 2, 5, 1, 5, 1]])
    with_nan = np.array([1.0, 3, 2, math.nan, 5, -1, math.nan, 0])
    for values, dim in [(ties, 1), (ties.T, 0), (with_nan, 0), (SPECIAL, 0)]:
        got = getattr(kt.tensor(values), name)(dim)
        expected = getattr(torch.tensor(values), name)(dim)
        _same(got.indices, expected.indices)
        _ties(
            lambda a: getattr(a, name)(dim).values,
            lambda a: getattr(a, name)(dim).values,
            values,
        )
    for values in [[[3, 1], [2, 5], [0, 9]], [[True, False], [False, True]]]:
        got = getattr(kt.tensor(values), name)(0)
        expected = getattr(torch.tensor(values), name)(0)
        _same(got.values, expected.values)
        _same(got.indices, expected.indices)


def test_index_add_index_copy():
    torch = import_torch()
    index = [2, 0]
    for dim, shape in [(0, (2, 4)), (1, (3, 2))]:
        _both(
            lambda x, s: x.index_copy(dim, kt.tensor(index), s),
            lambda x, s: x.index_copy(dim, torch.tensor(index), s),
            A[:, :3] if dim else A,
            RNG.normal(size=shape),
        )
        for name, kw in [("index_copy_", {}), ("index_add_", {"alpha": -2.0})]:
            x = A[:, :3] if dim else A
            ps = [kt.tensor(a, requires_grad=True) for a in (x, RNG.normal(size=shape))]
            ts = [torch.tensor(p.to_numpy(), requires_grad=True) for p in ps]
            got = getattr(ps[0] * 1, name)(dim, kt.tensor(index), ps[1], **kw)
            expected = getattr(ts[0] * 1, name)(dim, torch.tensor(index), ts[1], **kw)
            _same(got.detach(), expected.detach())
            assert_same_backward(got, expected, ps, ts, RNG, rtol=1e-12, atol=1e-14)
    i = torch.zeros(3, dtype=torch.int64)
    ours = kt.zeros(3).long()
    assert ours.index_copy_(0, kt.tensor([1]), kt.tensor([7])) is ours
    _same(ours, i.index_copy_(0, torch.tensor([1]), torch.tensor([7])))
    _same(
        ours.index_add_(0, kt.tensor([1, 1]), kt.tensor([1, 2]), alpha=3),
        i.index_add_(0, torch.tensor([1, 1]), torch.tensor([1, 2]), alpha=3),
    )
    for lib in (torch, kt):
        with pytest.raises((RuntimeError, IndexError)):
            lib.zeros(3).index_copy(0, lib.tensor([1.0]), lib.tensor([7.0]))


def test_new_empty_stride_and_storage_offset():
    torch = import_torch()
    x = kt.zeros(2, 3).float()
    assert x.new_empty(4, 2).shape == x.new_empty((4, 2)).shape == (4, 2)
    assert x.new_empty(3).dtype == kt.float32
    views = [
        lambda x: x,
        lambda x: x.transpose(0, 2),
        lambda x: x[1:, :, 2:5],
        lambda x: x[::2, 1],
        lambda x: x[2],
        lambda x: x.narrow(1, 2, 2),
        lambda x: x[1, :1].expand(3, 5, 6),
        lambda x: x.chunk(2, 1)[1],
        lambda x: x.unbind(1)[3],
        lambda x: x[1].view(30),
        lambda x: x.permute(2, 0, 1)[1:],
        lambda x: x[1:].unsqueeze(1),
        lambda x: x.mT[1, 2:],
        lambda x: x[..., 1],
    ]
    for view in views:
        ours, theirs = view(kt.zeros(4, 5, 6)), view(torch.zeros(4, 5, 6))
        assert ours.stride() == theirs.stride()
        assert ours.storage_offset() == theirs.storage_offset()
        for d in range(-ours.dims, ours.dims):
            assert ours.stride(d) == theirs.stride(d)
    assert kt.tensor(2.0).stride() == torch.tensor(2.0).stride() == ()
    for shape in ((0,), (2, 0, 3), (0, 1), (3, 0)):  # a size-0 dim steps as size 1
        assert kt.zeros(*shape).stride() == torch.zeros(*shape).stride()
    for lib in (torch, kt):
        with pytest.raises(IndexError):
            lib.zeros(2, 3).stride(2)


def test_split_keywords():
    """``x.split(split_size=2)`` (the method's keyword) and ``kt.split(x,
    split_size_or_sections=...)`` (the function's), as PyTorch's."""
    torch = import_torch()
    for size in [2, [1, 3]]:
        _both(
            lambda a: kt.cat(a.split(split_size=size, dim=1), 1),
            lambda a: torch.cat(a.split(split_size=size, dim=1), 1),
            A,
        )
        _both(
            lambda a: kt.cat(kt.split(a, split_size_or_sections=size, dim=1), 1),
            lambda a: torch.cat(torch.split(a, split_size_or_sections=size, dim=1), 1),
            A,
        )
    ours, theirs = kt.tensor(A).split(split_size=2), torch.tensor(A).split(2)
    assert [p.shape for p in ours] == [tuple(p.shape) for p in theirs]


@pytest.mark.parametrize(
    "make",  # (the arguments, of the library given)
    [
        lambda lib: ((), {"sections": 3}),
        lambda lib: ((), {"indices": [1, 3], "dim": 1}),
        lambda lib: ((lib.tensor([0, 2]),), {}),
        lambda lib: ((lib.tensor(2), 1), {}),
    ],
)
def test_tensor_split_keywords_and_tensors(make):
    """``tensor_split`` by PyTorch's keywords ``sections=``, ``indices=``, and at a
    tensor of indices (a 0-d one: the number of parts), methods and ``kt.*``."""
    torch = import_torch()
    (args, kw), (targs, tkw) = make(kt), make(torch)

    def theirs(a):
        return torch.tensor_split(a, *targs, **tkw)

    for ours in [
        lambda a: kt.tensor_split(a, *args, **kw),
        lambda a: a.tensor_split(*args, **kw),
    ]:
        _both(
            lambda a: kt.cat([p.reshape(-1) for p in ours(a)]),
            lambda a: torch.cat([p.reshape(-1) for p in theirs(a)]),
            A,
        )
        expected = [tuple(p.shape) for p in theirs(torch.tensor(A))]
        assert [p.shape for p in ours(kt.tensor(A))] == expected


def test_randint_like():
    torch = import_torch()
    kt.manual_seed(3)
    for like, args in [(kt.zeros(50), (3,)), (kt.tensor([1, 2] * 25), (-2, 4))]:
        got = kt.randint_like(like, *args)
        expected = torch.randint_like(torch.tensor(np.asarray(like)), *args)
        assert got.shape == like.shape and got.dtype.name == str(expected.dtype)[6:]
        assert set(got.tolist()) == set(range(*args))  # (50 draws: each value comes)
    assert kt.randint_like(kt.zeros(2), 5, dtype=kt.int64).dtype == kt.int64


def test_seed():
    drawn = kt.seed()
    assert isinstance(drawn, int) and 0 <= drawn < 2**63 and kt.seed() != drawn
    kt.manual_seed(drawn)
    first = kt.rand(3)
    kt.manual_seed(drawn)  # (the seed returned reproduces what followed)
    assert first.equal(kt.rand(3))


def test_random_():
    torch = import_torch()
    kt.manual_seed(0)
    for args, kw, low, high in [((6,), {}, 0, 6), ((-3, 2), {}, -3, 2)]:
        for make in (kt.zeros, lambda n: kt.zeros(n).long()):
            x = make(200)
            assert x.random_(*args, **kw) is x
            assert set(x.tolist()) == set(range(low, high))
    named = kt.zeros(200).random_(**{"from": 3, "to": 5})
    assert (
        set(named.tolist())
        == {3, 4}
        == set(kt.zeros(200).random_(to=5).tolist()) - {0, 1, 2}
    )
    for dtype, top in [("float32", 2**24), ("float64", 2**53), ("bool", 2)]:
        ours = kt.zeros(1000, dtype=getattr(kt, dtype)).random_()
        theirs = torch.zeros(1000, dtype=getattr(torch, dtype)).random_()
        assert ours.dtype.name == str(theirs.dtype)[6:]
        assert 0 <= ours.double().min().item() and ours.double().max().item() < top
        assert ours.double().max().item() >= top / 2  # (the whole range is drawn)
    gen = [kt.zeros(5).random_(9, generator=np.random.default_rng(4)) for _ in "ab"]
    assert gen[0].equal(gen[1])


def test_exponential_():
    torch = import_torch()
    x = kt.zeros(20000)
    assert x.exponential_(4.0) is x
    assert x.min().item() >= 0 and abs(x.mean().item() - 0.25) < 0.01
    assert abs(x.std().item() - 0.25) < 0.01
    f = kt.zeros(3).float().exponential_()
    assert f.dtype == kt.float32
    gen = [kt.zeros(5).exponential_(generator=np.random.default_rng(4)) for _ in "ab"]
    assert gen[0].equal(gen[1])
    for lib in (torch, kt):
        with pytest.raises(RuntimeError):
            lib.zeros(3).long().exponential_()
