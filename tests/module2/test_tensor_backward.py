"""Task 2.4: every tensor backward, un-broadcasting, backward() semantics and
grad_check.

Gradients are checked on every entry against central differences (``oracle.py``),
on inputs in random storage layouts. Backend-parametrized tests take their task
marker from ``backend_params``; the others carry ``task2_4``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import module2_tensors as kt
from module2_tensors import Function
from tests.backends import backend_params

from .oracle import check_gradients
from .strategies import (
    Case,
    away_from_zero,
    backend_settings,
    broadcastable_shapes,
    cases,
    dims_of,
    distinct_cases,
    matmul_shapes,
    positive_values,
    shapes,
    small_values,
)

# Gradient checks run 2 forwards per input entry: keep the tensors small.
grad_shapes = shapes(max_dims=3, max_size=12)

UNARY = {
    "neg": (lambda t: -t, small_values),
    "sigmoid": (lambda t: t.sigmoid(), small_values),
    "relu": (lambda t: t.relu(), away_from_zero()),
    "log": (lambda t: t.log(), positive_values),
    "exp": (lambda t: t.exp(), small_values),
    "inv": (lambda t: 1.0 / t, away_from_zero(gap=0.5)),
    "tanh": (lambda t: t.tanh(), small_values),
    "sqrt": (lambda t: t.sqrt(), positive_values),
    "pow": (lambda t: t**3, small_values),
    "abs": (lambda t: t.abs(), away_from_zero()),
    "copy": (lambda t: t.contiguous() * 1.0, small_values),
}

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "mix": lambda a, b: (a * b + a).sigmoid() - b.exp() / (a * a + 1.0),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("backend", backend_params("2.4"), indirect=True)
@given(data=st.data())
@backend_settings
def test_unary_gradients(backend, name, data):
    fn, values = UNARY[name]
    check_gradients(fn, data.draw(cases(grad_shapes, values)), backend=backend)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("backend", backend_params("2.4"), indirect=True)
@given(data=st.data())
@backend_settings
def test_binary_gradients_sum_over_broadcast_dims(backend, name, data):
    shape_a, shape_b = data.draw(broadcastable_shapes(max_size=12))
    a = data.draw(cases(shape_a, away_from_zero(gap=0.5)))
    b = data.draw(cases(shape_b, away_from_zero(gap=0.5)))
    check_gradients(BINARY[name], a, b, backend=backend)


@pytest.mark.parametrize("backend", backend_params("2.4"), indirect=True)
@given(data=st.data())
@backend_settings
def test_sum_and_mean_gradients(backend, data):
    case = data.draw(cases(shapes(min_dims=1, max_dims=3, max_size=12)))
    dim = data.draw(dims_of(case.array.ndim))
    keepdim = data.draw(st.booleans())
    check_gradients(lambda t: t.sum(dim, keepdim), case, backend=backend)
    check_gradients(lambda t: t.mean(dim, keepdim) * t.mean(), case, backend=backend)


@pytest.mark.parametrize("backend", backend_params("2.4"), indirect=True)
@given(data=st.data())
@backend_settings
def test_max_gradients(backend, data):
    case = data.draw(distinct_cases(shapes(min_dims=1, max_dims=3, max_size=12)))
    dim = data.draw(dims_of(case.array.ndim))
    keepdim = data.draw(st.booleans())
    check_gradients(lambda t: t.amax(dim, keepdim), case, backend=backend)
    check_gradients(lambda t: t.max(), case, backend=backend)


@pytest.mark.parametrize("backend", backend_params("2.4", matmul=True), indirect=True)
@given(data=st.data())
@backend_settings
def test_matmul_gradients_with_broadcast_batches(backend, data):
    shape_a, shape_b = data.draw(matmul_shapes(max_batch=2))
    a, b = data.draw(cases(shape_a)), data.draw(cases(shape_b))
    check_gradients(lambda x, y: x @ y, a, b, backend=backend)


@pytest.mark.parametrize(
    "backend", backend_params("2.4", cuda=True, matmul=True), indirect=True
)
def test_backward_on_tiny_tensors(backend):
    """Every backend, CUDA included, differentiates one small network."""
    x = Case(np.array([[0.5, -1.0], [2.0, 0.25]]), (1, 0))
    w = Case(np.array([[1.0, -0.5, 2.0], [0.3, 0.1, -1.0]]), (0, 1))
    check_gradients(
        lambda x, w: ((x @ w).relu() + x.sum(1, keepdim=True)).amax(1).sigmoid(),
        x,
        w,
        backend=backend,
    )


@pytest.mark.task2_4
@given(cases(grad_shapes), st.data())
@settings(max_examples=10)
def test_permute_view_and_reshape_gradients(case, data):
    order = tuple(data.draw(st.permutations(range(case.array.ndim))))
    weights = np.arange(case.array.size, dtype=np.float64).reshape(
        tuple(case.array.shape[k] for k in order)
    )
    check_gradients(lambda t: t.permute(*order) * kt.tensor(weights), case)
    check_gradients(lambda t: t.contiguous().view(-1) * kt.arange(t.size), case)


@pytest.mark.task2_4
@pytest.mark.parametrize("order", [(1, 2, 0), (2, 0, 1)])
@pytest.mark.parametrize("shape", [(3, 3, 3), (2, 3, 4)])
def test_permute_backward_uses_the_inverse_of_a_cycle(order, shape):
    """A 3-cycle is not its own inverse (a swap is): for $L = \\sum_i W_i\\,
    \\mathrm{permute}(x)_i$ the gradient is $W$ permuted back, NumPy's
    ``transpose(W, argsort(order))``."""
    x = kt.tensor(np.zeros(shape), requires_grad=True)
    out_shape = tuple(shape[k] for k in order)
    weights = np.arange(1.0, 1.0 + np.prod(shape)).reshape(out_shape)
    (x.permute(*order) * kt.tensor(weights)).sum().backward()
    expected = np.transpose(weights, np.argsort(order))
    assert x.grad is not None and x.grad.shape == shape, (
        f"permute{order} of shape {shape}: gradient of shape "
        f"{None if x.grad is None else x.grad.shape}; Permute.backward must permute "
        "grad by the inverse of order"
    )
    np.testing.assert_array_equal(
        x.grad.to_numpy(),
        expected,
        err_msg=f"permute{order}: Permute.backward must permute grad by the "
        "inverse of order, not by order again",
    )


@pytest.mark.task2_4
def test_max_splits_the_gradient_between_ties():
    x = kt.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
    x.amax(1).sum().backward()
    np.testing.assert_allclose(
        x.grad.to_numpy(), [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]
    )


@pytest.mark.task2_4
@given(broadcastable_shapes(max_dims=4, max_size=36), st.data())
def test_unbroadcast_sums_back_to_the_input_shape(pair, data):
    small = pair[0]
    big = np.broadcast_shapes(*pair)
    grad = data.draw(cases(big))
    out = kt.unbroadcast(grad.tensor(), small)
    assert out.shape == small
    extra = len(big) - len(small)
    expected = grad.array.sum(axis=tuple(range(extra))) if extra else grad.array
    summed = tuple(k for k, n in enumerate(small) if n == 1 and expected.shape[k] != 1)
    expected = expected.sum(axis=summed, keepdims=True)
    np.testing.assert_allclose(out.to_numpy(), expected, rtol=1e-12)


@pytest.mark.task2_4
def test_unbroadcast_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(3, 2\)"):
        kt.unbroadcast(kt.zeros(2, 3), (3, 2))
    with pytest.raises(ValueError, match=r"\(3,\).*\(2, 3\)"):
        kt.unbroadcast(kt.zeros(3), (2, 3))


@pytest.mark.task2_4
def test_backward_on_a_0d_tensor_and_shapes_of_grads():
    x = kt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = kt.tensor(2.0, requires_grad=True)
    loss = (x * b).sum()
    assert loss.shape == ()
    loss.backward()
    assert x.grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert b.grad.shape == () and b.grad.item() == 10.0


@pytest.mark.task2_4
def test_backward_needs_a_gradient_for_a_non_scalar():
    x = kt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match=r"one element.*\(3,\)"):
        y.backward()
    y.backward(kt.tensor([1.0, 0.0, -1.0]))
    assert x.grad.tolist() == [2.0, 0.0, -6.0]
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        (x * x).backward(kt.tensor([1.0, 2.0]))


@pytest.mark.task2_4
def test_backward_without_anything_to_differentiate():
    with pytest.raises(RuntimeError, match="does not require grad"):
        (kt.tensor([1.0]) * 2).sum().backward()


@pytest.mark.task2_4
def test_gradients_accumulate_until_grad_is_cleared():
    x = kt.tensor([1.0, -2.0], requires_grad=True)
    (x * 3.0).sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [3.0 + 2.0, 3.0 - 4.0]
    x.grad = None  # (as PyTorch's optimizer.zero_grad() does)
    assert x.grad is None
    x.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


@pytest.mark.task2_4
def test_constants_and_intermediates_get_no_grad():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    c = kt.tensor([5.0, 6.0])
    y = x * c
    (y + x).sum().backward()
    assert c.grad is None
    assert y.grad is None  # not a leaf, not retained
    assert x.grad.tolist() == [6.0, 7.0]
    assert not (x < c).requires_grad  # comparisons are not differentiable


@pytest.mark.task2_4
def test_a_value_used_on_many_paths_sums_its_gradients():
    x = kt.tensor([2.0], requires_grad=True)
    y = x * x  # 2x
    z = y * x + y + x  # d/dx = 3x^2 + 2x + 1
    z.sum().backward()
    assert x.grad.tolist() == [3 * 4 + 4 + 1]


class _WrongMul(Function):
    """Mul with a planted bug in backward: forgets a factor."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.backend.mul_zip(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_values
        return grad, grad * a


class _SwappedPermute(Function):
    """A transpose whose backward forgets to transpose back: every column sum of the
    Jacobian is right, so only a weighted check catches it."""

    @staticmethod
    def forward(ctx, a):
        return kt.tensor(a.to_numpy().T.copy())

    @staticmethod
    def backward(ctx, grad):
        return grad.contiguous().view(grad.shape[::-1])


@pytest.mark.task2_4
def test_grad_check_accepts_correct_gradients():
    a = kt.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
    b = kt.tensor([1.0, -3.0], requires_grad=True)
    kt.grad_check(lambda x, y: (x * y).sigmoid().sum(0), a, b)
    kt.grad_check(lambda x: (x @ x).amax(1), a)


@pytest.mark.task2_4
def test_grad_check_catches_wrong_gradients():
    a = kt.tensor([[0.5, -1.0], [2.0, 1.5]], requires_grad=True)
    b = kt.tensor([[1.0, -3.0], [0.25, 2.0]], requires_grad=True)
    with pytest.raises(AssertionError, match="argument 0 at index"):
        kt.grad_check(lambda x, y: _WrongMul.apply(x, y), a, b)
    c = kt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    with pytest.raises(AssertionError, match="argument 0"):
        kt.grad_check(lambda x: _SwappedPermute.apply(x), c)


class _SquareOnePercentOff(Function):
    """``a * a`` whose backward is 1% too large: 2.02 a instead of 2 a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.backend.mul_zip(a, a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_values
        return grad * a * 2.02


@pytest.mark.task2_4
@pytest.mark.parametrize("scale", [1e4, 1e8])
def test_grad_check_catches_a_gradient_one_percent_off_at_large_inputs(scale):
    """At x ~ 1e4 the step is h = eps * |x| = 1e-2; a step that shrinks as x grows
    (eps / |x|) makes the round-off allowance r_j ~ 1/h so large that it
    accepts anything. A step that does not grow (h = eps) does the same at
    x ~ 1e8: there r_j ~ 4e6, more than the 1% (2e6) of the gradient 2e8."""
    x = kt.tensor([1.0 * scale, -3.0 * scale, 2.0 * scale], requires_grad=True)
    with pytest.raises(AssertionError, match="argument 0 at index"):
        kt.grad_check(lambda a: _SquareOnePercentOff.apply(a), x)


@pytest.mark.task2_4
def test_grad_check_allows_for_the_round_off_of_the_difference():
    """Beside a constant of 1e10, f(x + h) - f(x - h) is only known to a multiple
    of 1e10's spacing (1.9e-6, about the size of 2h): the central difference of
    this correct gradient is off by up to 90%, and only the round-off allowance
    r_j = 4 eps sum_i |w_i| max(|f_i(x+h)|, |f_i(x-h)|) / (2h) covers that."""
    x = kt.tensor([0.3, -0.7, 0.45, 0.9, -0.15, 0.6], requires_grad=True)
    kt.grad_check(lambda a: a + 1e10, x)


@pytest.mark.task2_4
def test_grad_check_works_where_an_input_is_exactly_zero():
    """h = eps * max(1, |x|) is eps at 0: never a step of 0 (a 0/0 difference)."""
    kt.grad_check(lambda a: a * a * 3.0, kt.tensor([0.0, 1.5], requires_grad=True))


@pytest.mark.task2_4
def test_grad_check_counts_a_missing_gradient_as_zero():
    """``y`` is not used: it gets no gradient, which is right when its central
    difference is 0; it must not be compared as any other value."""
    x = kt.tensor([0.5, -2.0], requires_grad=True)
    y = kt.tensor([1.0, 3.0], requires_grad=True)
    kt.grad_check(lambda a, b: a * 2.0, x, y)
    assert y.grad is None
    with pytest.raises(AssertionError, match="argument 1"):
        kt.grad_check(lambda a, b: a * 2.0 + b.detach(), x, y)


@pytest.mark.task2_4
def test_grad_check_passes_on_equality_with_zero_tolerances():
    """The check is |a_j - n_j| <= atol + rtol max(|a_j|, |n_j|) + r_j: with
    atol = rtol = 0 and an output that is exactly 0 everywhere (so r_j = 0),
    a gradient of 0 (given, or missing) equals its difference and passes."""
    x = kt.tensor([0.5, -2.0], requires_grad=True)
    y = kt.tensor([4.0], requires_grad=True)
    kt.grad_check(lambda a, b: a * 0.0, x, y, atol=0.0, rtol=0.0)


@pytest.mark.task2_4
def test_grad_check_restores_its_inputs_exactly():
    values = np.array([[0.3, -1.7], [2.5, 1e3]])
    x = kt.tensor(values.tolist(), requires_grad=True)
    kt.grad_check(lambda a: (a * a).sum(1), x)
    assert np.array_equal(x.to_numpy(), values), (
        "grad_check must put every perturbed entry back to its original value "
        f"(not original + h - h): the input is now {x.to_numpy().tolist()}"
    )


@pytest.mark.task2_4
def test_grad_check_evaluates_the_differences_with_recording_off():
    """One call of f records a graph for the backward pass; the 2 calls an entry
    for the differences must not (they would build graphs nobody uses), and
    recording is back on afterwards."""
    recording = []

    def f(a):
        recording.append(kt.is_grad_enabled())
        return a * a

    kt.grad_check(f, kt.tensor([1.0, -2.0], requires_grad=True))
    assert recording[0] and len(recording) == 5, recording
    assert not any(recording[1:]), (
        f"recording during f's calls: {recording}; the differences must run "
        "with set_grad_enabled(False)"
    )
    assert kt.is_grad_enabled()


@pytest.mark.task2_4
def test_backward_errors_are_clear_for_a_wrong_backward():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, a):
            return a.backend.id_map(a)

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    x = kt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="TooMany.backward returned 2 gradients"):
        TooMany.apply(x).sum().backward()
