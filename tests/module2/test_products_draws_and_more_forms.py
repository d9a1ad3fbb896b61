"""PyTorch's ``dot``, ``mv``, ``outer``, ``trace`` as methods, ``torch.normal``,
``ravel``, ``logaddexp``, ``nansum``/``nanmean``, ``meshgrid``, ``tensordot``,
``cdist`` and ``argwhere``: values and dtypes against PyTorch itself, gradients
against PyTorch's and central differences (float64 on both sides)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task2_6

RNG = np.random.default_rng(7)
A, B, C = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)), RNG.uniform(1, 2, (3, 4))


def _both(fn_kt, fn_torch, *arrays):
    """Values and gradients as PyTorch's, gradients as central differences."""
    assert_same_function(fn_kt, fn_torch, *arrays, rng=RNG, rtol=1e-13)


def test_dot_mv_outer_trace_as_pytorch():
    torch = import_torch()
    x, y, m = A[0], B[0], A[:, :3]
    _both(lambda a, b: a.dot(b), torch.dot, x, y)
    _both(kt.dot, torch.dot, x, y)
    _both(lambda a, b: a.mv(b), torch.mv, A, x)
    _both(kt.mv, torch.mv, A, x)
    _both(lambda a, b: a.outer(b), torch.outer, x, y[:3])
    _both(kt.ger, torch.outer, x, y[:3])
    _both(lambda a: a.trace(), torch.trace, m)
    _both(kt.trace, torch.trace, A)
    with pytest.raises(RuntimeError, match="1D tensors expected"):  # (PyTorch's)
        kt.tensor(A).dot(kt.tensor(B))
    i = np.array([[1, 2, 3], [4, 5, 6]])
    for name in ["dot", "outer"]:
        expected = getattr(torch.tensor(i[0]), name)(torch.tensor(i[1]))
        got = getattr(kt.tensor(i[0]), name)(kt.tensor(i[1]))
        assert got.tolist() == expected.tolist() and got.dtype.name == "int64"
    for d in [torch.int32, torch.int64]:
        expected = torch.tensor(i, dtype=d).trace()
        got = kt.tensor(i, dtype=getattr(kt, str(d)[6:])).trace()
        assert got.tolist() == expected.tolist()
        assert got.dtype.name == str(expected.dtype)[6:]
    got = kt.tensor(i).mv(kt.tensor([1, 1, 1]))
    assert got.tolist() == [6, 15] and got.dtype.name == "int64"


def test_normal_overloads():
    torch = import_torch()
    kt.manual_seed(0)
    assert kt.normal(2.0, 3.0, (2, 3)).shape == torch.normal(2.0, 3.0, (2, 3)).shape
    big = kt.normal(2.0, 3.0, size=(20000,))
    assert abs(big.mean().item() - 2) < 0.1 and abs(big.std().item() - 3) < 0.1
    mean = kt.tensor([0.0, 100.0, -100.0] * 3000)
    std = kt.tensor([1.0, 0.0, 2.0] * 3000)
    for drawn in [kt.normal(mean, std), kt.normal(mean, 1.0), kt.normal(0.0, std)]:
        assert drawn.shape == (9000,) and drawn.dtype.name == "float64"
    drawn = kt.normal(mean, std).to_numpy().reshape(-1, 3)
    np.testing.assert_allclose(drawn.mean(0), [0, 100, -100], atol=0.1)
    np.testing.assert_allclose(drawn.std(0), [1, 0, 2], atol=0.1)
    m = kt.tensor([[0.0], [1.0]])
    assert (
        kt.normal(m, kt.ones(3)).shape
        == torch.normal(torch.zeros(2, 1), torch.ones(3)).shape
    )
    assert kt.normal(0.0, 1.0, (2,), dtype=kt.float32).dtype.name == "float32"
    assert not kt.normal(kt.zeros(2, requires_grad=True)).requires_grad
    g = np.random.default_rng(3)
    assert kt.normal(0.0, 1.0, (3,), generator=g).tolist() == (
        kt.normal(0.0, 1.0, (3,), generator=np.random.default_rng(3)).tolist()
    )


def test_ravel_as_pytorch():
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 4))
    _both(kt.ravel, torch.ravel, x)
    _both(lambda a: a.ravel(), lambda a: a.ravel(), x)
    assert kt.tensor(2.0).ravel().shape == (1,)
    assert kt.tensor([[1, 2]]).ravel().dtype.name == "int64"


def test_logaddexp_as_pytorch():
    torch = import_torch()
    v = [0.0, 1.0, -1000.0, 1000.0, math.inf, -math.inf, math.inf, -math.inf, math.nan]
    w = [0.0, -3.0, -1000.5, 1.0, math.inf, -math.inf, 2.0, 5.0, 1.0]
    for name in ["logaddexp"]:
        got = getattr(kt, name)(kt.tensor(v), kt.tensor(w)).to_numpy()
        v_, w_ = torch.tensor(v, dtype=torch.float64), torch.tensor(
            w, dtype=torch.float64
        )
        expected = getattr(torch, name)(v_, w_).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-15)
        _both(lambda a, b: getattr(a, name)(b), getattr(torch, name), A, B)
        _both(getattr(kt, name), getattr(torch, name), A[0], A[0])  # (ties)


def test_nansum_nanmean_as_pytorch():
    torch = import_torch()
    x = A.copy()
    x[0, 1] = x[2, 3] = x[1, 0] = math.nan
    x[:, 2] = math.nan
    for name in ["nansum", "nanmean"]:
        for args in [(), (0,), (1, True), ((0, 1),)]:
            _both(
                lambda a: getattr(kt, name)(a, *args),
                lambda a: getattr(torch, name)(a, *args),
                np.nan_to_num(x, nan=1.0),
            )
            ours, theirs = kt.tensor(x, requires_grad=True), torch.tensor(
                x, requires_grad=True
            )
            got, expected = getattr(ours, name)(*args), getattr(theirs, name)(*args)
            np.testing.assert_allclose(
                got.to_numpy(), expected.detach().numpy(), rtol=1e-14
            )
            got.sum().backward()
            expected.sum().backward()
            # (PyTorch's nanmean sends NaN, 0 * inf, back to a slice of NaNs,
            # whose mean is NaN; here those entries get 0, as nansum's do)
            keep = ~np.isnan(theirs.grad.numpy())
            assert keep.sum() >= 9 and np.all(ours.grad.to_numpy()[~keep] == 0)
            np.testing.assert_allclose(
                ours.grad.to_numpy()[keep], theirs.grad.numpy()[keep], rtol=1e-14
            )
    i = kt.tensor([[1, 2], [3, 4]], dtype=kt.int32)
    assert i.nansum().item() == 10 and i.nansum(0).dtype.name == "int64"
    f = kt.tensor([1.0, 2.0], dtype=kt.float32)
    assert kt.nansum(f, dtype=kt.float64).dtype.name == "float64"
    assert kt.nanmean(f).dtype.name == "float32"


def test_meshgrid_tensordot_cdist_as_pytorch():
    torch = import_torch()
    x, y, z = A[0], B[0, :3], C[0, :2]
    for indexing in ["ij", "xy"]:
        for args in [(x,), (x, y), (x, y, z)]:
            got = kt.meshgrid(*[kt.tensor(a) for a in args], indexing=indexing)
            expected = torch.meshgrid(
                *[torch.tensor(a) for a in args], indexing=indexing
            )
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                assert g.shape == tuple(e.shape) and g.tolist() == e.tolist()
            got = kt.meshgrid([kt.tensor(a) for a in args], indexing=indexing)
            assert [g.shape for g in got] == [tuple(e.shape) for e in expected]
    _both(
        lambda a, b: kt.meshgrid(a, b)[1] * kt.meshgrid(a, b)[0],
        lambda a, b: torch.meshgrid(a, b, indexing="ij")[1]
        * torch.meshgrid(a, b, indexing="ij")[0],
        x,
        y,
    )
    p, q = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 3, 5))
    for dims in [0, 1, 2, ([1, 2], [1, 0]), ([0], [1]), ([-1], [0])]:
        if dims == 2:
            q2 = RNG.normal(size=(3, 4, 5))
            _both(
                lambda a, b: kt.tensordot(a, b, dims),
                lambda a, b: torch.tensordot(a, b, dims),
                p,
                q2,
            )
            continue
        b = q if dims != 0 else q[:, :, 0]
        if dims == ([0], [1]):
            b = RNG.normal(size=(5, 2))
        _both(
            lambda a, c: kt.tensordot(a, c, dims),
            lambda a, c: torch.tensordot(a, c, dims),
            p,
            b,
        )
    got = kt.tensordot(kt.tensor([[1, 2]]), kt.tensor([[3], [4]]), 1)
    assert got.tolist() == [[11]] and got.dtype.name == "int64"
    u, v = RNG.normal(size=(2, 5, 3)), RNG.normal(size=(2, 4, 3))
    v[0, 1] = u[0, 2]  # (a zero distance: gradient 0, as PyTorch's)
    for p in [1.0, 3.0]:
        _both(lambda a, b: kt.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), u, v)
    ours, theirs = kt.tensor(u, requires_grad=True), torch.tensor(u, requires_grad=True)
    w = RNG.normal(size=(2, 5, 4))
    (kt.cdist(ours, kt.tensor(v)) * kt.tensor(w)).sum().backward()
    (torch.cdist(theirs, torch.tensor(v)) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ours.grad.to_numpy(), theirs.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        kt.cdist(kt.tensor(u), kt.tensor(v)).to_numpy(),
        torch.cdist(torch.tensor(u), torch.tensor(v)).numpy(),
        rtol=1e-13,
    )
    kt.grad_check(
        kt.cdist,
        kt.tensor(u, requires_grad=True),
        kt.tensor(u[:, :2] + 1.0, requires_grad=True),
    )


def test_argwhere_as_pytorch():
    torch = import_torch()
    x = [0.0, -0.0, 1.0, -2.0, math.inf, -math.inf, math.nan, -math.nan]
    for v in [x, [[3, 0, -1], [0, 2, 0]], [True, False]]:
        expected = torch.argwhere(torch.tensor(v))
        for got in [kt.argwhere(kt.tensor(v)), kt.tensor(v).argwhere()]:
            assert got.tolist() == expected.tolist(), v
            assert got.dtype.name == str(expected.dtype)[6:], v
