"""Helpers for the tensor-level Module 4 tests: making tensors in a chosen memory
layout, and checking autodiff against central differences on every entry."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from module2_tensors import SimpleBackend, Tensor, tensor
from module4_networks import optim

# The pure-Python backend is the default of these tests: tiny shapes, no Numba
# compilation of the backend's kernels. (The convolution kernels are Numba either
# way; the training tests use the fast backend.)
BACKEND = SimpleBackend


def make(
    a: np.ndarray,
    requires_grad: bool = False,
    order: Optional[Sequence[int]] = None,
    backend=BACKEND,
) -> Tensor:
    """A tensor holding ``a``; with ``order`` it is a non-contiguous view (its
    storage holds ``a.transpose(order)``)."""
    a = np.asarray(a, dtype=np.float64)
    if order is None or list(order) == list(range(a.ndim)):
        return tensor(a, backend=backend, requires_grad=requires_grad)
    base = tensor(np.ascontiguousarray(a.transpose(order)), backend=backend)
    view = base.permute(*np.argsort(order).tolist())
    return view.detach().requires_grad_(requires_grad)


def check_grad(
    f: Callable[..., Tensor],
    arrays: Sequence[np.ndarray],
    orders: Optional[Sequence[Optional[Sequence[int]]]] = None,
    seed: int = 0,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    backend=BACKEND,
    reference: Optional[Callable[..., np.ndarray]] = None,
) -> None:
    """Compare the gradients autodiff gives ``f`` at ``arrays`` with central
    differences on every entry of every input.

    The scalar differentiated is $L = \\sum_i w_i f(\\dots)_i$ with fixed random
    weights $w$, so the whole Jacobian is checked, not only its column sums.

    ``reference``, if given, is a NumPy function of the same arrays that computes
    what ``f`` should (PyTorch's documented equations): ``f``'s values are first
    asserted equal to it, then the central differences are taken on the reference
    (the same derivatives, without two evaluations of ``f`` per entry).
    """
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    orders = list(orders) if orders is not None else [None] * len(arrays)
    inputs = [make(a, True, o, backend=backend) for a, o in zip(arrays, orders)]
    out = f(*inputs)
    weights = np.random.default_rng(seed).uniform(-1.0, 1.0, size=out.shape)
    (out * tensor(weights, backend=backend)).sum().backward()
    if reference is not None:
        want = np.asarray(reference(*arrays), dtype=np.float64)
        assert want.shape == out.shape, (want.shape, out.shape)
        np.testing.assert_allclose(out.to_numpy(), want, rtol=1e-10, atol=1e-12)

    def loss(values: Sequence[np.ndarray]) -> float:
        if reference is not None:
            return float(np.sum(np.asarray(reference(*values)) * weights))
        result = f(
            *[make(v, False, o, backend=backend) for v, o in zip(values, orders)]
        )
        return float(np.sum(result.to_numpy() * weights))

    for k, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            values = [v.copy() for v in arrays]
            values[k][idx] = a[idx] + eps
            up = loss(values)
            values[k][idx] = a[idx] - eps
            numeric[idx] = (up - loss(values)) / (2 * eps)
        grad = inputs[k].grad
        assert grad is not None, f"input {k} got no gradient"
        np.testing.assert_allclose(
            grad.to_numpy(),
            numeric,
            atol=atol,
            rtol=rtol,
            err_msg=f"gradient of input {k}",
        )


def check_module_grad(
    module,
    x: np.ndarray,
    seed: int = 0,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    backend=BACKEND,
) -> None:
    """Like :func:`check_grad` for a layer: the gradients of the input and of
    every parameter, each entry against a central difference (parameters are
    perturbed in place through their storage)."""
    from module2_tensors import no_grad

    x = np.array(x, dtype=np.float64)
    inp = make(x, True, backend=backend)
    out = module(inp)
    weights = np.random.default_rng(seed).uniform(-1.0, 1.0, size=out.shape)
    for _, p in module.named_parameters():
        p.value.grad = None
    (out * tensor(weights, backend=backend)).sum().backward()

    def loss(values: np.ndarray) -> float:
        with no_grad():
            result = module(make(values, backend=backend))
        return float(np.sum(result.to_numpy() * weights))

    numeric = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        shifted = x.copy()
        shifted[idx] += eps
        up = loss(shifted)
        shifted[idx] -= 2 * eps
        numeric[idx] = (up - loss(shifted)) / (2 * eps)
    np.testing.assert_allclose(
        inp.grad.to_numpy(), numeric, atol=atol, rtol=rtol, err_msg="input"
    )
    for name, p in module.named_parameters():
        data = p.value._tensor
        numeric = np.zeros(data.shape)
        for idx in data.indices():
            position = data.index(idx)
            original = data._storage[position]
            data._storage[position] = original + eps
            up = loss(x)
            data._storage[position] = original - eps
            numeric[idx] = (up - loss(x)) / (2 * eps)
            data._storage[position] = original
        assert p.value.grad is not None, f"{name} got no gradient"
        np.testing.assert_allclose(
            p.value.grad.to_numpy(), numeric, atol=atol, rtol=rtol, err_msg=name
        )


def check_grad_through_update(
    module,
    x,
    seed: int = 0,
    eps: float = 1e-6,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    backend=BACKEND,
) -> None:
    """The ``Parameter``/``.value`` contract: an optimizer or a gradient check
    that calls ``p.update(leaf)`` with a leaf that requires grad makes
    ``p.value`` that leaf, and a forward that reads ``p.value`` sends the
    gradient to it (a forward that reads ``p`` itself sends it to ``p`` and
    leaves the leaf without one). For every parameter in turn: substitute a leaf
    holding the same numbers, run forward and backward, and compare the leaf's
    gradient with central differences (values substituted by ``update`` too).
    ``x`` is the input: an array, or a tensor (an Embedding's indices)."""
    from module2_tensors import no_grad

    inp = x if isinstance(x, Tensor) else make(x, backend=backend)
    with no_grad():
        shape = module(inp).shape
    weights = tensor(
        np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape), backend=backend
    )
    for name, p in module.named_parameters():
        if not p.requires_grad:
            continue
        start = p.value.to_numpy().copy()
        leaf = make(start, True, backend=backend)
        p.update(leaf)
        assert p.value is leaf, f"{name}: update(leaf) must make .value the leaf"
        (module(inp) * weights).sum().backward()
        assert leaf.grad is not None, (
            f"{type(module).__name__}.{name}: the value given by {name}.update() "
            f"got no gradient: forward must read self.{name}.value (what an "
            f"optimizer or a gradient check put there), not self.{name}"
        )

        def loss(values: np.ndarray) -> float:
            p.update(make(values, backend=backend))
            with no_grad():
                return float((module(inp) * weights).sum().item())

        numeric = np.zeros_like(start)
        for idx in np.ndindex(start.shape):
            shifted = start.copy()
            shifted[idx] += eps
            up = loss(shifted)
            shifted[idx] -= 2 * eps
            numeric[idx] = (up - loss(shifted)) / (2 * eps)
        p.update(make(start, backend=backend))
        np.testing.assert_allclose(
            leaf.grad.to_numpy(),
            numeric,
            atol=atol,
            rtol=rtol,
            err_msg=f"{type(module).__name__}.{name}: gradient of the updated value",
        )


def assert_entries(
    got: np.ndarray, want: np.ndarray, what: str, rtol: float = 1e-12, atol=1e-12
) -> None:
    """``got`` equals ``want`` entry by entry (within the tolerances), or a failure
    that names ``what`` computed it and the first entry that differs."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    wrong = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=atol))
    if wrong.size:
        at = tuple(int(i) for i in wrong[0])
        raise AssertionError(
            f"{what}: {len(wrong)} of {got.size} entries differ; the first, at "
            f"{at}: {float(got[at])!r} instead of {float(want[at])!r}"
        )


#: Optimizer settings the CPU steps and the fused GPU kernels are checked
#: against the students' update formulas with.
FUSED_SETTINGS = [
    (optim.SGD, dict(lr=0.1)),
    (optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    (optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3)),
    (optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    (optim.Adam, dict(lr=2e-3)),
    (optim.Adam, dict(lr=1e-2, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.05)),
    (optim.AdamW, dict(lr=1e-2)),
    (optim.AdamW, dict(lr=3e-3, betas=(0.85, 0.99), weight_decay=0.2)),
    # Adam with PyTorch's decoupled_weight_decay=True: AdamW's step (its kernel).
    (optim.Adam, dict(lr=3e-3, weight_decay=0.2, decoupled_weight_decay=True)),
]


def reference_class(cls: type) -> type:
    """``cls`` under another name: the fused steps take exact classes only, so
    this runs the students' update formulas at every step."""
    return type(f"Reference{cls.__name__}", (cls,), {})
