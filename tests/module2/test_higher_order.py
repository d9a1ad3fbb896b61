"""Higher-order gradients: ``backward(create_graph=True)`` and
``kt.autograd.grad(..., create_graph=True)``.

The recorded backward pass (``engine/higher_order.py``) runs the forwards of
Task 2.3 and the shape functions of Task 2.6 (``expand``, ``where``, indexing)
through Task 1.4's ``backpropagate``; the references are central differences of
the *ordinary* first gradient (Task 2.4's backwards), NumPy's closed forms, and
PyTorch itself where it is installed. So these tests carry ``task2_6``.
"""

from typing import Callable, List, Sequence

import numpy as np
import pytest

import module2_tensors as kt
from module2_tensors import Function
from module2_tensors.engine import higher_order
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6

Fn = Callable[..., kt.Tensor]


def first_gradients(f: Fn, arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
    """The ordinary (unrecorded) gradients of the scalar ``f`` at ``arrays``."""
    xs = [kt.tensor(a, requires_grad=True) for a in arrays]
    grads = kt.autograd.grad(f(*xs), xs, allow_unused=True)
    return [
        np.zeros(a.shape) if g is None else g.to_numpy() for a, g in zip(arrays, grads)
    ]


def hvp_by_differences(
    f: Fn, arrays: Sequence[np.ndarray], vs: Sequence[np.ndarray], h: float = 1e-5
) -> List[np.ndarray]:
    """$H v$ for the stacked inputs: the central difference of the first
    gradient along the direction $v$, $(\\nabla f(x + h v) - \\nabla f(x - h v))
    / 2h$."""
    up = first_gradients(f, [a + h * v for a, v in zip(arrays, vs)])
    down = first_gradients(f, [a - h * v for a, v in zip(arrays, vs)])
    return [(u - d) / (2 * h) for u, d in zip(up, down)]


def hvp_recorded(
    f: Fn, arrays: Sequence[np.ndarray], vs: Sequence[np.ndarray]
) -> List[np.ndarray]:
    """$H v = \\nabla_x \\langle \\nabla_x f, v \\rangle$ with the first
    gradient recorded (``create_graph=True``) and differentiated again."""
    xs = [kt.tensor(a, requires_grad=True) for a in arrays]
    grads = kt.autograd.grad(f(*xs), xs, create_graph=True)
    for g in grads:
        assert g.requires_grad and g.grad_fn is not None
    inner = sum((g * kt.tensor(v)).sum() for g, v in zip(grads, vs))
    second = kt.autograd.grad(inner, xs, allow_unused=True)
    return [
        np.zeros(a.shape) if s is None else s.to_numpy() for a, s in zip(arrays, second)
    ]


# Scalar functions of one or two tensors; the shapes of their arguments.
CASES = {
    "cube": (lambda x: (x**3).sum(), [(3, 4)]),
    "sin": (lambda x: x.sin().sum(), [(5,)]),
    "exp": (lambda x: (x.exp() * x).sum(), [(2, 3)]),
    "product": (lambda x, y: (x * y * x).sum(), [(3, 2), (3, 2)]),
    "sum_of_squares": (lambda x: x.sum(1).pow(2).sum(), [(3, 4)]),
    "mean_then_square": (lambda x: x.mean(0).pow(2).sum() + x.mean() ** 3, [(4, 3)]),
    "broadcast": (
        lambda x, b: ((x * b + b) ** 2).tanh().sum(),
        [(3, 4), (4,)],
    ),
    "outer_broadcast": (
        lambda x, y: (x.view(3, 1) * y.view(1, 2)).sigmoid().sum(),
        [(3,), (2,)],
    ),
    "matmul": (lambda a, b: ((a @ b) ** 2).sum(), [(2, 3), (3, 4)]),
    "batched_matmul": (lambda a, b: (a @ b).exp().mean(), [(2, 2, 3), (3, 2)]),
    "quotient_log": (
        lambda x, y: ((x * x + 1.0).log() / (y * y + 1.0)).sum(),
        [(4,), (4,)],
    ),
    "sqrt_pow": (lambda x: ((x * x + 1.0).sqrt() ** 1.5).sum(), [(5,)]),
    "indexing_cat": (
        lambda x: kt.cat([x[1:, ::2], x[:1, 1:3] ** 2], 0).sin().sum(),
        [(3, 4)],
    ),
    "where_relu": (
        lambda x: kt.where(x > 0.0, x**3, x.exp()).sum() + (x.relu() ** 2).sum(),
        [(6,)],
    ),
    "amax_norm": (lambda x: (x * x).amax(1).sum() + x.norm() ** 3, [(3, 4)]),
    "erf_log1p_expm1": (
        lambda x: (x.erf() * (x * x).log1p() + x.expm1() ** 2).sum(),
        [(5,)],
    ),
    "abs_floor": (lambda x: (x.abs() ** 3 + x.floor() * x**2).sum(), [(5,)]),
    "tensor_power": (lambda x, y: (x.abs() ** y).sum(), [(4,), (4,)]),
    "max_along_maximum": (
        lambda x, y: (x.max(1).values ** 2).sum() + (kt.maximum(x, y) ** 3).sum(),
        [(3, 4), (3, 4)],
    ),
    "index_select_gather": (
        lambda x: (x.index_select(0, kt.tensor([2, 0, 2])) ** 3).sum()
        + (x.gather(1, kt.tensor([[0, 0], [1, 0], [1, 1]])).exp()).sum(),
        [(3, 2)],
    ),
    "advanced_index_scatter": (
        lambda x, y: (x[[0, 2, 2]] ** 3).sum()
        + (x.scatter_add(0, kt.tensor([[1, 0], [2, 2]]), y) ** 2).sum(),
        [(3, 2), (2, 2)],
    ),
    "views_and_std": (
        lambda x: (x.T.view(2, 3, 1).squeeze(2).unsqueeze(0) ** 3).sum()
        + (x.std(1) ** 3).sum(),
        [(3, 2)],
    ),
    "copy_pad_expand": (
        lambda x: (x.T.contiguous().cos() ** 2).sum()
        + (kt.pad(x, (1, 1)) ** 3).sum()
        + (x.expand(2, 3, 2) * x).exp().sum(),
        [(3, 2)],
    ),
    "sum_max_functions": (
        lambda x: (kt.tensor_functions.Sum.apply(x * x, 1) ** 2).sum()
        + (kt.tensor_functions.Max.apply(x, 0) ** 3).sum(),
        [(3, 2)],
    ),
    "overwrite": (lambda x, y: ((x * 1.0).copy_(y**2) ** 3).sum(), [(3,), (3,)]),
    "permute_transpose": (
        lambda x: ((x.T @ x) * x.permute(1, 0).sum(1)).sum(),
        [(3, 2)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hessian_vector_product_matches_central_differences(name: str) -> None:
    f, shapes = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    arrays = [rng.uniform(0.3, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in shapes]
    vs = [rng.normal(size=s) for s in shapes]
    got = hvp_recorded(f, arrays, vs)
    want = hvp_by_differences(f, arrays, vs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_second_derivative_of_a_cube_with_backward_twice() -> None:
    x = kt.tensor([1.0, -2.0, 0.5], requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    first = x.grad
    np.testing.assert_allclose(first.to_numpy(), [3.0, 12.0, 0.75])  # 3 x^2
    assert first.grad_fn is not None
    x.grad = None
    first.sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), [6.0, -12.0, 3.0])  # 6 x


def test_third_derivative_of_sin() -> None:
    x = kt.tensor([0.3, 1.1, -0.7], requires_grad=True)
    (d1,) = kt.autograd.grad(x.sin().sum(), x, create_graph=True)
    (d2,) = kt.autograd.grad(d1.sum(), x, create_graph=True)
    (d3,) = kt.autograd.grad(d2.sum(), x)
    np.testing.assert_allclose(d1.to_numpy(), np.cos([0.3, 1.1, -0.7]))
    np.testing.assert_allclose(d2.to_numpy(), -np.sin([0.3, 1.1, -0.7]))
    np.testing.assert_allclose(d3.to_numpy(), -np.cos([0.3, 1.1, -0.7]))


def test_hessian_vector_product_of_a_quadratic_and_logsumexp_against_numpy() -> None:
    rng = np.random.default_rng(3)
    a, x0, v0 = rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=4)
    x = kt.tensor(x0, requires_grad=True)
    f = x @ kt.tensor(a) @ x + kt.logsumexp(x, 0)
    (g,) = kt.autograd.grad(f, x, create_graph=True)
    (hv,) = kt.autograd.grad(g, x, grad_outputs=kt.tensor(v0))
    # The Hessian of x'Ax is A + A'; of logsumexp, diag(p) - p p' (p = softmax).
    p = np.exp(x0 - x0.max()) / np.exp(x0 - x0.max()).sum()
    hessian = a + a.T + np.diag(p) - np.outer(p, p)
    np.testing.assert_allclose(hv.to_numpy(), hessian @ v0, rtol=1e-10, atol=1e-12)


def test_jacobian_vector_product_through_a_seed_that_requires_grad() -> None:
    # The double-backward trick: g(u) = J^T u is linear in u, so d<g, v>/du = J v.
    # It needs the seed u kept in the recorded graph, as PyTorch keeps it.
    def f(x: kt.Tensor) -> kt.Tensor:
        return (x.view(2, 3) @ x.view(3, 2)).exp().view(4)

    rng = np.random.default_rng(11)
    x0, v0 = rng.normal(size=6) * 0.5, rng.normal(size=6)
    x = kt.tensor(x0, requires_grad=True)
    u = kt.zeros(4, requires_grad=True)
    (g,) = kt.autograd.grad(f(x), x, grad_outputs=u, create_graph=True)
    (jv,) = kt.autograd.grad(g, u, grad_outputs=kt.tensor(v0))
    h = 1e-6
    numeric = (
        f(kt.tensor(x0 + h * v0)).to_numpy() - f(kt.tensor(x0 - h * v0)).to_numpy()
    ) / (2 * h)
    np.testing.assert_allclose(jv.to_numpy(), numeric, rtol=1e-6, atol=1e-8)


def gradient_penalty(w1: kt.Tensor, w2: kt.Tensor, x: kt.Tensor) -> kt.Tensor:
    """$\\|\\partial L / \\partial x\\|^2$ of a small tanh network's output sum,
    with the input gradient recorded so that the penalty depends on the
    weights."""
    loss = ((x @ w1).tanh() @ w2).sigmoid().sum()
    (gx,) = kt.autograd.grad(loss, x, create_graph=True)
    return (gx**2).sum()


def test_gradient_penalty_gradient_matches_central_differences() -> None:
    rng = np.random.default_rng(7)
    arrays = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]
    x0 = rng.normal(size=(5, 3))
    w1, w2 = (kt.tensor(a, requires_grad=True) for a in arrays)
    gradient_penalty(w1, w2, kt.tensor(x0, requires_grad=True)).backward()
    h = 1e-6
    for k, (w, a) in enumerate(zip((w1, w2), arrays)):
        numeric = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            values = []
            for step in (h, -h):
                moved = [b.copy() for b in arrays]
                moved[k][idx] += step
                ws = [kt.tensor(b) for b in moved]
                xs = kt.tensor(x0, requires_grad=True)
                values.append(gradient_penalty(ws[0], ws[1], xs).item())
            numeric[idx] = (values[0] - values[1]) / (2 * h)
        np.testing.assert_allclose(w.grad.to_numpy(), numeric, rtol=1e-5, atol=1e-7)


def test_without_create_graph_the_gradients_have_no_history() -> None:
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    (x.exp() * x).sum().backward()
    assert not x.grad.requires_grad and x.grad.grad_fn is None
    (g,) = kt.autograd.grad((x**3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


def test_create_graph_accumulates_out_of_place_and_keeps_the_graph() -> None:
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = (x**3).sum()
    y.backward(create_graph=True)  # retain_graph defaults to create_graph
    first = x.grad
    y.backward(create_graph=True)  # a second pass through the same graph
    assert x.grad is not first  # a new tensor: first is not changed in place
    np.testing.assert_allclose(first.to_numpy(), [3.0, 12.0])
    np.testing.assert_allclose(x.grad.to_numpy(), [6.0, 24.0])
    (d,) = kt.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(d.to_numpy(), [12.0, 24.0])  # d(6 x^2)/dx


def test_grad_outputs_weight_the_outputs() -> None:
    x = kt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = kt.autograd.grad(x**2, x, grad_outputs=kt.tensor([1.0, 0.0, -2.0]))
    np.testing.assert_allclose(g.to_numpy(), [2.0, 0.0, -12.0])


def test_allow_unused_and_materialize_grads() -> None:
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = kt.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused"):
        kt.autograd.grad((x * x).sum(), [x, y])
    gx, gy = kt.autograd.grad((x * x).sum(), [x, y], allow_unused=True)
    assert gy is None
    np.testing.assert_allclose(gx.to_numpy(), [2.0, 4.0])
    _, gy = kt.autograd.grad((x * x).sum(), [x, y], materialize_grads=True)
    np.testing.assert_allclose(gy.to_numpy(), [0.0])
    # A gradient that does not depend on x (the Hessian of a linear function)
    # is unused: None with allow_unused, as in PyTorch.
    (g,) = kt.autograd.grad((x * 3.0).sum(), x, create_graph=True)
    (h,) = kt.autograd.grad(g.sum() + (y * 0.0).sum(), x, allow_unused=True)
    assert h is None


def test_retain_graph_errors_as_in_pytorch() -> None:
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    kt.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        kt.autograd.grad(y, x)
    z = (x.exp() * x).sum()
    kt.autograd.grad(z, x, retain_graph=True)
    kt.autograd.grad(z, x)  # retained once: works
    w = (x.exp() * x).sum()
    kt.autograd.grad(w, x, create_graph=True)  # create_graph retains
    (again,) = kt.autograd.grad(w, x)
    np.testing.assert_allclose(again.to_numpy(), np.exp([1.0, 2.0]) * [2.0, 3.0])
    # create_graph with retain_graph=False frees the first graph: the recorded
    # gradient, which goes through it (exp's result), cannot be differentiated.
    v = (x.exp() * x).sum()
    (g,) = kt.autograd.grad(v, x, create_graph=True, retain_graph=False)
    with pytest.raises(RuntimeError, match="second time"):
        kt.autograd.grad(g.sum(), x)


def test_grad_of_an_input_that_does_not_require_grad_raises() -> None:
    x = kt.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        kt.autograd.grad((x * x).sum(), x)


class RawSquare(Function):
    """$x^2$ whose backward computes on raw storage (not differentiable)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.backend.mul_zip(a, a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_values
        return grad.backend.mul_zip(grad, a.backend.add_zip(a, a))


def test_a_function_without_a_recorded_backward_is_once_differentiable() -> None:
    x = kt.tensor([1.0, -3.0], requires_grad=True)
    (g,) = kt.autograd.grad(RawSquare.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.to_numpy(), [2.0, -6.0])  # the first derivative
    # ... but differentiating it again raises, naming the function, rather than
    # returning a silent 0.
    with pytest.raises(RuntimeError, match="RawSquare"):
        kt.autograd.grad(g.sum(), x)


def test_a_registered_formula_makes_a_function_twice_differentiable() -> None:
    higher_order.register(RawSquare)(lambda ctx, g, inputs, out: g * 2.0 * inputs[0])
    try:
        x = kt.tensor([1.0, -3.0], requires_grad=True)
        (g,) = kt.autograd.grad((RawSquare.apply(x) * x).sum(), x, create_graph=True)
        (h,) = kt.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(g.to_numpy(), [3.0, 27.0])  # 3 x^2
        np.testing.assert_allclose(h.to_numpy(), [6.0, -18.0])  # 6 x
    finally:
        del higher_order.FORMULAS[RawSquare]


def test_grad_takes_pytorchs_positional_arguments() -> None:
    x = kt.tensor([2.0], requires_grad=True)
    y = kt.tensor([1.0], requires_grad=True)
    # (outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
    # allow_unused), as torch.autograd.grad
    gx, gy = kt.autograd.grad((x**3).sum(), [x, y], None, None, True, True, True)
    assert gy is None and gx.grad_fn is not None
    np.testing.assert_allclose(gx.to_numpy(), [12.0])


def test_hooks_run_on_the_recorded_pass() -> None:
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.register_hook(lambda g: g * 3.0)
    (g,) = kt.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.to_numpy(), [6.0, 12.0])
    (h,) = kt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.to_numpy(), [6.0, 6.0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_derivatives_match_pytorch(name: str) -> None:
    torch = import_torch()
    f, shapes = CASES[name]
    rng = np.random.default_rng(100 + sorted(CASES).index(name))
    arrays = [rng.uniform(0.3, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in shapes]
    vs = [rng.normal(size=s) for s in shapes]
    tf = _torch_version(torch, name)
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    grads = torch.autograd.grad(tf(*xs), xs, create_graph=True)
    inner = sum((g * torch.tensor(v)).sum() for g, v in zip(grads, vs))
    second = torch.autograd.grad(inner, xs, allow_unused=True)
    got = hvp_recorded(f, arrays, vs)
    for g, s, a in zip(got, second, arrays):
        want = np.zeros(a.shape) if s is None else s.detach().numpy()
        np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def _torch_version(torch, name: str) -> Fn:
    """The case ``name`` in PyTorch's spelling (only where it differs)."""
    spelled = {
        "indexing_cat": lambda x: torch.cat([x[1:, ::2], x[:1, 1:3] ** 2], 0)
        .sin()
        .sum(),
        "where_relu": lambda x: torch.where(x > 0.0, x**3, x.exp()).sum()
        + (x.relu() ** 2).sum(),
        "max_along_maximum": lambda x, y: (x.max(1).values ** 2).sum()
        + (torch.maximum(x, y) ** 3).sum(),
        "index_select_gather": lambda x: (
            x.index_select(0, torch.tensor([2, 0, 2])) ** 3
        ).sum()
        + (x.gather(1, torch.tensor([[0, 0], [1, 0], [1, 1]])).exp()).sum(),
        "advanced_index_scatter": lambda x, y: (x[[0, 2, 2]] ** 3).sum()
        + (x.scatter_add(0, torch.tensor([[1, 0], [2, 2]]), y) ** 2).sum(),
        "copy_pad_expand": lambda x: (x.T.contiguous().cos() ** 2).sum()
        + (torch.nn.functional.pad(x, (1, 1)) ** 3).sum()
        + (x.expand(2, 3, 2) * x).exp().sum(),
        "sum_max_functions": lambda x: ((x * x).sum(1, keepdim=True) ** 2).sum()
        + (x.amax(0, keepdim=True) ** 3).sum(),
    }
    return spelled.get(name, CASES[name][0])


def test_the_hessian_of_a_2_norm_holds_at_a_zero_entry() -> None:
    # For r = |x|, H = (I - x x^T / r^2) / r: at x = (0, 3, 4), H[0, 0] = 1/5
    # (|x_0| ** 2 differentiated twice would give 2 sign(0)^2 = 0 there).
    x0 = np.array([0.0, 3.0, 4.0])
    r = np.linalg.norm(x0)
    hessian = (np.eye(3) - np.outer(x0, x0) / r**2) / r
    v = np.array([1.0, -2.0, 0.5])
    for norm in (lambda x: x.norm(), lambda x: x.norm(dim=0), lambda x: x.norm(p=2)):
        x = kt.tensor(x0, requires_grad=True)
        (g,) = kt.autograd.grad(norm(x), x, create_graph=True)
        (g * kt.tensor(v)).sum().backward()
        np.testing.assert_allclose(x.grad.to_numpy(), hessian @ v, atol=1e-15)


def test_a_recorded_gradient_has_its_leafs_dtype() -> None:
    # As torch: a float32 leaf's gradient is float32, recorded or not.
    for create_graph in (False, True):
        x = kt.tensor([0.5, -1.5], dtype=kt.float32, requires_grad=True)
        (g,) = kt.autograd.grad((x**3).sum(), x, create_graph=create_graph)
        (x**3).sum().backward(create_graph=create_graph)
        assert g.dtype is kt.float32 and x.grad.dtype is kt.float32
