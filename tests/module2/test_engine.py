"""Invariants of the autograd engine (``module2_tensors/autograd.py``): the speed
tricks it keeps, the one object that holds the autograd modes, and how the default
backend is chosen. These tests belong to no task: they check given code."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import module2_tensors as kt
from module2_tensors.engine import autograd, devices, grad_modes, versions
from module2_tensors.engine.autograd import Function


def test_fresh_is_the_reference_count_of_an_object_only_a_local_holds():
    fresh = object()
    assert sys.getrefcount(fresh) == autograd.FRESH


class _Double(Function):
    @staticmethod
    def forward(ctx, a):
        return a.backend.add_zip(a, a)

    @staticmethod
    def backward(ctx, grad):
        return grad + grad


class _Identity(Function):
    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def backward(ctx, grad):
        return grad


class _SavesItsResult(Function):
    @staticmethod
    def forward(ctx, a):
        out = a.backend.exp_map(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_values
        return grad.backend.mul_zip(grad, out)


@pytest.mark.task2_3
def test_a_fresh_result_takes_its_history_itself():
    # The refcount hand-off: the tensor the forward made is the one returned.
    made = []

    class Recording(_Double):
        @staticmethod
        def forward(ctx, a):
            out = a.backend.add_zip(a, a)
            made.append(id(out))
            return out

    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = Recording.apply(x)
    assert id(y) == made[0]
    assert y.history.last_fn is Recording and y.requires_grad


@pytest.mark.task2_1
def test_an_input_returned_by_a_forward_is_never_given_a_history():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = _Identity.apply(x)
    assert y is not x
    assert x.is_leaf and x.history is None
    assert y.history.last_fn is _Identity and y.parents == (x,)


@pytest.mark.task2_3
def test_a_result_saved_for_backward_does_not_point_at_its_own_history():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = _SavesItsResult.apply(x)
    (saved,) = y.history.ctx.saved_values
    assert saved is not y and saved.history is None


@pytest.mark.task2_3
def test_a_result_given_a_new_tensor_keeps_the_dtype_its_forward_gave():
    # A returned input, or a result the forward saved, comes back as a new
    # Tensor object carrying the history: with the forward result's dtype.
    class SavesASquare(Function):
        @staticmethod
        def forward(ctx, a):
            out = a * a  # (float32 in, float32 out: Tensor.__mul__'s label)
            ctx.save_for_backward(a, out)
            return out

        @staticmethod
        def backward(ctx, grad):
            a, _ = ctx.saved_values
            return grad * a * 2.0

    x = kt.tensor([1.0, 2.0], dtype=kt.float32, requires_grad=True)
    assert _Identity.apply(x).dtype == kt.float32
    y = SavesASquare.apply(x)
    assert y.dtype == kt.float32 and y.history.last_fn is SavesASquare
    assert _Identity.apply(kt.tensor([1.0], requires_grad=True)).dtype == kt.float64


@pytest.mark.task2_6
def test_the_autograd_modes_live_in_one_object():
    assert grad_modes.MODES.grad and kt.is_grad_enabled()
    with kt.no_grad():
        assert not grad_modes.MODES.grad and not kt.is_grad_enabled()
    assert grad_modes.MODES.grad
    with kt.autograd.detect_anomaly():
        assert grad_modes.MODES.anomaly and kt.autograd.is_anomaly_enabled()
    assert not grad_modes.MODES.anomaly
    kt.set_grad_enabled(False)
    try:
        assert not grad_modes.MODES.grad
    finally:
        kt.set_grad_enabled(True)


def test_enable_grad_switches_recording_on_when_entered_and_as_a_decorator():
    # (As torch.enable_grad: made, it changes nothing until its block starts.)
    with kt.set_grad_enabled(False):
        made = grad_modes.enable_grad()
        assert not grad_modes.MODES.grad
        with made:
            assert grad_modes.MODES.grad
        assert not grad_modes.MODES.grad

        @grad_modes.enable_grad()
        def inside() -> bool:
            return grad_modes.MODES.grad

        assert not grad_modes.MODES.grad
        assert inside() and not grad_modes.MODES.grad
    assert grad_modes.MODES.grad


@pytest.mark.task2_4
def test_chain_rule_unbroadcasts_only_the_gradients_of_another_shape(monkeypatch):
    # The engine calls the registered unbroadcast where a gradient's shape is
    # not its input's; where they agree, unbroadcast would return it unchanged.
    calls = []
    unbroadcast = autograd._unbroadcast

    def spy(grad, shape):
        calls.append((grad.shape, shape))
        return unbroadcast(grad, shape)

    monkeypatch.setattr(autograd, "_unbroadcast", spy)
    a = kt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = kt.tensor([5.0, 6.0], requires_grad=True)
    (a * b).backward(kt.ones((2, 2)))
    assert calls == [((2, 2), (2,))]
    assert a.grad.tolist() == [[5.0, 6.0], [5.0, 6.0]]
    assert b.grad.tolist() == [4.0, 6.0]


@pytest.mark.task2_6  # (the in-place forms mul_ and zero_)
def test_leaves_handed_one_gradient_get_numbers_of_their_own():
    # a + b hands one gradient tensor to both leaves (and a retained c): an
    # in-place change of one .grad (clip_grad_norm_ scales each by mul_) must not
    # reach the others, and the first leaf's .grad must not be the others'.
    a = kt.tensor([1.0, 2.0], requires_grad=True)
    b = kt.tensor([3.0, 4.0], requires_grad=True)
    c = a * 1.0
    c.retain_grad()
    ((c + b) * kt.tensor([3.0, 4.0])).sum().backward()
    a.grad.mul_(10.0)
    assert a.grad.tolist() == [30.0, 40.0]
    assert b.grad.tolist() == [3.0, 4.0] and c.grad.tolist() == [3.0, 4.0]
    b.grad.zero_()
    assert c.grad.tolist() == [3.0, 4.0] and a.grad.tolist() == [30.0, 40.0]


@pytest.mark.task2_4
def test_backward_sets_retain_graph_only_while_it_runs():
    seen = []

    class Spy(_Double):
        @staticmethod
        def backward(ctx, grad):
            seen.append(grad_modes.MODES.retain_graph)
            return grad + grad

    x = kt.tensor([1.0, 2.0], requires_grad=True)
    Spy.apply(x).sum().backward(retain_graph=True)
    assert seen == [True] and not grad_modes.MODES.retain_graph
    Spy.apply(x).sum().backward()
    assert seen == [True, False]


def test_a_backend_is_chosen_by_name_and_unknown_names_are_refused():
    previous = devices._default_backend
    try:
        kt.set_default_backend("simple")
        assert kt.get_default_backend() is kt.SimpleBackend
        with pytest.raises(ValueError, match="unknown backend 'gpu'.*simple"):
            kt.set_default_backend("gpu")
    finally:
        kt.set_default_backend(previous)


def test_an_unfinished_backend_is_never_the_automatic_default():
    class UnfinishedOps(kt.SimpleOps):
        pass

    unfinished = kt.TensorBackend(UnfinishedOps)

    def ready() -> bool:
        raise NotImplementedError("Task 3.1: implement tensor_map")

    previous = devices._default_backend
    try:
        kt.register_backend(unfinished, ready)
        kt.set_default_backend(None)
        assert kt.get_default_backend() is not unfinished
        kt.set_default_backend("unfinished")  # named explicitly, it is taken
        assert kt.get_default_backend() is unfinished
    finally:
        kt.set_default_backend(previous)


def test_the_environment_names_the_default_backend():
    code = "import module3_fast_ops as kt; print(kt.get_default_backend().name)"
    env = dict(os.environ, KINDLING_BACKEND="simple")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["simple"]


def _state(t):
    """Every attribute a tensor holds: slots, instance dict, and the class."""
    slots = {
        name: getattr(t, name)
        for cls in type(t).__mro__
        for name in getattr(cls, "__slots__", ())
        if name not in ("__dict__", "__weakref__") and hasattr(t, name)
    }
    return type(t), slots, dict(getattr(t, "__dict__", {}))


def test_new_builds_the_tensor_the_constructor_builds():
    # autograd._new sets a Tensor's slots itself (a speed trick for every
    # kernel output and view): the same attributes as Tensor(data, backend),
    # the id apart, which must be fresh and increasing.
    from module2_tensors.tensor_data import TensorData

    # (A Parameter's result is the plain Tensor its class gives: the same slots.)
    parameter = kt.Parameter(kt.tensor([1.0, 2.0]))
    for like in [
        kt.tensor([[1.0, 2.0]]),
        kt.tensor([3.0], requires_grad=True),
        parameter,
    ]:
        data = TensorData.full((2, 3), 1.5)
        made = autograd._new(like, data)
        reference = type(like)(data, like.backend)
        kind, slots, extra = _state(made)
        ref_kind, ref_slots, ref_extra = _state(reference)
        assert made.unique_id < reference.unique_id
        slots.pop("unique_id"), ref_slots.pop("unique_id")
        assert (kind, slots, extra) == (ref_kind, ref_slots, ref_extra)
        assert made._tensor is data and not made.requires_grad
        assert made.history is None and made.grad is None

    # Other subclasses go through their class, and keep it.
    class Sub(kt.Tensor):
        pass

    like = Sub(TensorData.full((2,)), parameter.backend)
    assert type(autograd._new(like, TensorData.full((2,)))) is Sub


def test_apply_builds_the_context_and_history_the_constructors_build():
    # Function.apply sets Context's and History's slots itself (a speed
    # trick): what forward receives and what the result's history holds are
    # what Context(...) and History(...) would hold.
    Context = autograd.Context

    seen = []

    class _Keep(Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            seen.append((type(ctx), ctx.needs_input_grad, ctx.saved_values))
            seen.append(ctx.freed)
            ctx.save_for_backward(a, b)
            return a.backend.mul_zip(a, b)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_values
            return grad * b, grad * a

    x, w = kt.tensor([1.0, 2.0]), kt.tensor([3.0, 4.0], requires_grad=True)
    plain = _Keep.apply(x, x, 2.0)
    assert plain.history is None
    fresh = Context()
    assert seen[:2] == [(Context, fresh.needs_input_grad, fresh.saved_values), False]
    out = _Keep.apply(x, w, 2.0)
    assert seen[2:] == [(Context, (False, True, False), ()), False]
    h = out.history
    # Versions are recorded once any storage of this process was changed in
    # place (an earlier test may have done so), else left empty.
    seen_versions = (
        (versions.version_of(x), versions.version_of(w)) if versions.versions else ()
    )
    reference = autograd.History(_Keep, h.ctx, (x, w, 2.0), (x, w), seen_versions)
    for name in ("last_fn", "ctx", "inputs", "parents", "versions", "saved_output"):
        assert getattr(h, name) == getattr(reference, name), name
    assert type(h) is autograd.History and type(h.ctx) is Context
    assert h.ctx.saved_values == (x, w) and not h.ctx.freed
    out.sum().backward()
    assert w.grad.to_numpy().tolist() == [1.0, 2.0]
