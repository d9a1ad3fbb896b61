"""Call forms of autograd and of a few tensor functions that no other test
runs, against ``torch`` itself (float64 on both sides), gradients also against
central differences: ``y.backward(gradient=g)``; ``backward`` given both
``grad`` and ``gradient`` (a ``TypeError``), or a list or NumPy array for the
gradient (a ``TypeError``, as torch: neither takes one);
``autograd.grad(..., allow_unused=False)`` for an unused input (raises as
torch), and ``allow_unused=True, materialize_grads=True`` (zeros, as torch);
``inference_mode(False)`` (recording stays on, also as a decorator);
``x.reshape_as(y)``; unary ``+x``; and the errors of ``stack([])`` and
``x.chunk(0)``. Skips, with the install command, where PyTorch is absent."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

from .oracle import check_gradients
from .strategies import Case

X = np.random.default_rng(0).normal(size=(2, 3))
G = np.random.default_rng(1).normal(size=(2, 3))


def _f(t):
    return t.exp() * t.sin() + t * t


def _central_differences(f, x, g, h=1e-6):
    """The gradient of sum(g * f(x)) by central differences, read with NumPy."""
    numeric = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += h
        down[index] -= h
        numeric[index] = (
            (g * f(kt.tensor(up)).to_numpy()).sum()
            - (g * f(kt.tensor(down)).to_numpy()).sum()
        ) / (2 * h)
    return numeric


@pytest.mark.task2_4
def test_backward_with_the_gradient_keyword_matches_pytorch_and_differences():
    torch = import_torch()
    x = kt.tensor(X, requires_grad=True)
    _f(x).backward(gradient=kt.tensor(G))
    t = torch.tensor(X, requires_grad=True)
    _f(t).backward(gradient=torch.tensor(G))
    np.testing.assert_allclose(x.grad.to_numpy(), t.grad.numpy(), rtol=1e-12)
    numeric = _central_differences(_f, X, G)
    np.testing.assert_allclose(x.grad.to_numpy(), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.task2_4
def test_backward_given_both_grad_and_gradient_raises_a_type_error():
    x = kt.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match="both grad and gradient"):
        (x * x).backward(kt.tensor(G), gradient=kt.tensor(G))
    assert x.grad is None


@pytest.mark.task2_4
@pytest.mark.parametrize("form", ["list", "numpy", "number"])
def test_backward_with_a_list_numpy_or_number_gradient_raises_as_pytorch(form):
    # (torch's TypeError also for a Python number: gradients are tensors or None)
    torch = import_torch()
    g = {"list": G.tolist(), "numpy": G, "number": 2.0}[form]
    t = torch.tensor(X, requires_grad=True)
    with pytest.raises(TypeError):
        (t * t).backward(g)
    x = kt.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match="list|ndarray|float"):
        (x * x).backward(g)


@pytest.mark.task2_6
def test_grad_of_an_unused_input_without_allow_unused_raises_as_pytorch():
    torch = import_torch()
    t, s = (torch.tensor(X, requires_grad=True) for _ in range(2))
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        torch.autograd.grad((t * t).sum(), [t, s], allow_unused=False)
    x, y = (kt.tensor(X, requires_grad=True) for _ in range(2))
    with pytest.raises(RuntimeError, match="not used.*allow_unused=True"):
        kt.autograd.grad((x * x).sum(), [x, y], allow_unused=False)


@pytest.mark.task2_6
def test_grad_materializes_zeros_for_an_unused_input_as_pytorch():
    torch = import_torch()
    t, s = (torch.tensor(X, requires_grad=True) for _ in range(2))
    theirs = torch.autograd.grad(
        (t * t.sin()).sum(), [t, s], allow_unused=True, materialize_grads=True
    )
    x, y = (kt.tensor(X, requires_grad=True) for _ in range(2))
    ours = kt.autograd.grad(
        (x * x.sin()).sum(), [x, y], allow_unused=True, materialize_grads=True
    )
    assert len(ours) == len(theirs) == 2
    for mine, other in zip(ours, theirs):
        assert mine.shape == tuple(other.shape)
        np.testing.assert_allclose(mine.to_numpy(), other.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(ours[1].to_numpy(), 0.0)
    assert x.grad is None and y.grad is None
    (unmaterialized,) = kt.autograd.grad(
        (x * x.sin()).sum(), [y], allow_unused=True, materialize_grads=False
    )
    assert unmaterialized is None


@pytest.mark.task2_6
def test_inference_mode_false_leaves_gradient_recording_on_as_pytorch():
    torch = import_torch()
    x = kt.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    with kt.inference_mode(False):
        y = (x * 2).sum()
        assert kt.is_grad_enabled()
    with torch.inference_mode(False):
        s = (t * 2).sum()
    assert y.requires_grad == s.requires_grad is True
    y.backward()
    s.backward()
    np.testing.assert_allclose(x.grad.to_numpy(), t.grad.numpy())
    with kt.inference_mode():
        assert not (x * 2).requires_grad
    assert kt.is_grad_enabled()


@pytest.mark.task2_6
def test_inference_mode_as_a_decorator_records_only_where_pytorchs_does():
    """``@inference_mode(False)`` runs the function as it is (a bug turned
    recording off: the decorator ran it inside a fresh ``no_grad()``)."""
    torch = import_torch()

    def double(x):
        return x * 2

    for mode in ({}, {"mode": True}, {"mode": False}):
        got = kt.inference_mode(**mode)(double)(kt.tensor(X, requires_grad=True))
        t = torch.tensor(X, requires_grad=True)
        assert (
            got.requires_grad == torch.inference_mode(**mode)(double)(t).requires_grad
        )
        assert kt.is_grad_enabled()
    assert not kt.inference_mode(double)(kt.tensor(X, requires_grad=True)).requires_grad


@pytest.mark.task2_6
def test_reshape_as_matches_pytorch_with_its_gradient():
    torch = import_torch()
    other = np.zeros((3, 2))
    x = kt.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    ours, theirs = x.reshape_as(kt.tensor(other)), t.reshape_as(torch.tensor(other))
    assert ours.shape == tuple(theirs.shape) == (3, 2)
    np.testing.assert_array_equal(ours.to_numpy(), theirs.detach().numpy())
    g = np.arange(6.0).reshape(3, 2)
    ours.backward(kt.tensor(g))
    theirs.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.to_numpy(), t.grad.numpy())
    check_gradients(lambda a: a.reshape_as(kt.tensor(other)), Case(X, (0, 1)))


@pytest.mark.task2_6
def test_unary_plus_matches_pytorch_with_its_gradient():
    torch = import_torch()
    x = kt.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    ours, theirs = +x, +t
    np.testing.assert_array_equal(ours.to_numpy(), theirs.detach().numpy())
    assert ours.requires_grad == theirs.requires_grad is True
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), t.grad.numpy(), rtol=1e-12)
    check_gradients(lambda a: (+a) * a, Case(X, (0, 1)))


@pytest.mark.task2_6
def test_stack_of_no_tensors_raises_naming_the_problem():
    with pytest.raises(ValueError, match="at least one tensor"):
        kt.stack([])


@pytest.mark.task2_6
def test_chunk_into_zero_pieces_raises_naming_the_problem():
    with pytest.raises(ValueError, match="chunks must be positive"):
        kt.tensor(X).chunk(0)


@pytest.mark.task2_6
@pytest.mark.parametrize("call", ["stack", "chunk"])
def test_stack_and_chunk_errors_are_a_value_error_where_pytorchs_are_runtime(call):
    """The Module 4 guide, section 14: a bad argument's value is a ValueError
    here where PyTorch's C++ checks raise RuntimeError."""
    torch = import_torch()

    def run(lib):
        if call == "stack":
            return lib.stack([])
        return lib.tensor(X).chunk(0)

    with pytest.raises(Exception) as theirs:
        run(torch)
    assert isinstance(theirs.value, RuntimeError)
    with pytest.raises(ValueError):
        run(kt)
