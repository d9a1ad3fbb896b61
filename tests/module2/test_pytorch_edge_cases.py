"""PyTorch fidelity at the edges: each test pins one behaviour of
``torch`` 2.13 that the library got wrong, silently or with an error. Expected
values come from the math or NumPy, never from the library itself.

Library-level behaviour (autograd engine, indexing, given tensor methods): no task
marker.
"""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt

INPLACE = "modified by an inplace operation"

# ------------------------------------------- saved outputs changed in place


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.exp(),
        lambda x: x.sigmoid(),
        lambda x: x.tanh(),
        lambda x: x.sqrt(),
        lambda x: x.expm1(),
    ],
    ids=["exp", "sigmoid", "tanh", "sqrt", "expm1"],
)
def test_changing_a_saved_output_in_place_fails_backward(op):
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = op(x)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match=INPLACE):
        y.sum().backward()
    # Under no_grad the change is still recorded (PyTorch's version counter).
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = op(x)
    with kt.no_grad():
        y.mul_(3.0)
    with pytest.raises(RuntimeError, match=INPLACE):
        y.sum().backward()


@pytest.mark.task2_4
def test_changing_an_output_that_was_not_saved_is_allowed():
    # Mul saves its inputs only: PyTorch computes this gradient, and so do we.
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    y = x * 3.0
    y.add_(1.0)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    # An unchanged saved output still gives the true gradient e^x.
    x = kt.tensor([0.5, 2.0], requires_grad=True)
    x.exp().sum().backward()
    np.testing.assert_allclose(x.grad.to_numpy(), np.exp([0.5, 2.0]), rtol=1e-15)


# ------------------------------------------------------ bools index as masks


@pytest.mark.task2_1
def test_a_tensor_of_python_or_numpy_bools_is_a_mask():
    x = kt.tensor([10.0, 20.0, 30.0])
    picks = [True, False, True]
    assert x[kt.tensor(picks)].tolist() == [10.0, 30.0]
    assert x[kt.tensor(np.array(picks))].tolist() == [10.0, 30.0]
    assert x[kt.from_numpy(np.array(picks))].tolist() == [10.0, 30.0]
    assert x[kt.tensor(kt.tensor(picks))].tolist() == [10.0, 30.0]
    # Integers still index by position, even 1 and 0.
    assert x[kt.tensor([1, 0, 1])].tolist() == [20.0, 10.0, 20.0]
    m = np.array([[True, False], [False, True]])
    y = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert y[kt.tensor(m)].tolist() == [1.0, 4.0]


# -------------------------------------- fill_/zero_/copy_ cut the old graph


@pytest.mark.task2_4
@pytest.mark.parametrize("how", ["fill_", "zero_", "copy_"])
def test_overwriting_a_computed_tensor_sends_no_gradient_to_its_past(how):
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    if how == "fill_":
        y.fill_(1.0)
    elif how == "zero_":
        y.zero_()
    else:
        y.copy_(kt.tensor([7.0, 8.0]))
    (y * 5.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # PyTorch: zeros, not 2s


@pytest.mark.task2_6
def test_copy_into_a_computed_tensor_sends_the_gradient_to_the_source():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    z = kt.tensor([5.0], requires_grad=True)
    y = x * 2.0
    y.copy_(z * 3.0)  # (1,) broadcast into (2,)
    assert y.tolist() == [15.0, 15.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert z.grad.tolist() == [6.0]  # 3 per entry, two entries
    with pytest.raises(ValueError, match="shape"):
        kt.zeros(2, 3).copy_(kt.tensor([1.0, 2.0]))


# ------------------------------------------- gradients PyTorch gives, not NaN


@pytest.mark.task2_6
def test_std_of_a_constant_row_has_gradient_zero():
    x = kt.tensor([[2.0, 2.0, 2.0], [1.0, 2.0, 6.0]], requires_grad=True)
    x.std(1).sum().backward()
    row = np.array([1.0, 2.0, 6.0])
    # d std / d x_i = (x_i - mean) / ((n - 1) std) on the second row; 0 on the first.
    want = (row - row.mean()) / (2 * row.std(ddof=1))
    np.testing.assert_allclose(x.grad.to_numpy(), [[0.0, 0.0, 0.0], want], rtol=1e-14)


@pytest.mark.task2_4
def test_power_zero_has_gradient_zero_also_at_zero():
    x = kt.tensor([0.0, 2.0, -1.5], requires_grad=True)
    (x**0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x = kt.tensor([0.0, 2.0], requires_grad=True)
    e = kt.tensor([0.0, 3.0], requires_grad=True)
    (x**e).sum().backward()
    assert x.grad.tolist() == [0.0, 12.0]  # 3 * 2^2 where e = 3


@pytest.mark.parametrize(
    "create_graph",
    [
        pytest.param(False, marks=pytest.mark.task2_4),
        # (the recorded formula masks with masked_fill: Task 2.6's where)
        pytest.param(True, marks=pytest.mark.task2_6),
    ],
)
def test_exponent_gradient_at_base_zero_is_pytorchs(create_graph):
    """d(a^b)/db = a^b ln a, and PyTorch's 0 where a = 0 and b >= 0 (0^0 = 1 and
    ln 0 = -inf would give -inf at b = 0); -inf where b < 0 (inf * ln 0); inf
    where a^b overflows (2^2000: inf * ln 2)."""
    a = kt.tensor([0.0, 0.0, 0.0, 2.0, 0.5, 2.0])
    b = kt.tensor([0.0, 2.0, -1.0, 3.0, 0.0, 2000.0], requires_grad=True)
    (grad,) = kt.autograd.grad((a**b).sum(), b, create_graph=create_graph)
    want = [0.0, 0.0, -np.inf, 8 * np.log(2.0), np.log(0.5), np.inf]
    np.testing.assert_allclose(grad.to_numpy(), want, rtol=1e-15)


@pytest.mark.task2_6
def test_sort_and_topk_put_nan_where_pytorch_does():
    nan = float("nan")
    x = kt.tensor([3.0, nan, 1.0, nan, 2.0])
    values, indices = x.sort()
    assert indices.tolist() == [2.0, 4.0, 0.0, 1.0, 3.0]  # NaN is the largest
    assert values.tolist()[:3] == [1.0, 2.0, 3.0]
    assert np.isnan(values.to_numpy()[3:]).all()
    assert x.sort(descending=True).indices.tolist() == [1.0, 3.0, 0.0, 4.0, 2.0]
    assert x.topk(2).indices.tolist() == [1.0, 3.0]
    assert x.topk(2, largest=False).indices.tolist() == [2.0, 4.0]


@pytest.mark.task2_6
def test_clamp_with_tensor_bounds_sends_gradient_to_the_bounds():
    x = kt.tensor([-1.0, 0.5, 3.0, 0.0], requires_grad=True)
    low = kt.tensor([0.0, 0.0, 0.0, 0.0], requires_grad=True)
    high = kt.tensor([1.0, 1.0, 1.0, 1.0], requires_grad=True)
    out = x.clamp(low, high)
    assert out.tolist() == [0.0, 0.5, 1.0, 0.0]
    (out * kt.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0, 4.0]  # a tie x == low: to x
    assert low.grad.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert high.grad.tolist() == [0.0, 0.0, 3.0, 0.0]
    # low > high: the result is high, and so is the gradient's destination.
    x = kt.tensor([0.5], requires_grad=True)
    low = kt.tensor([1.0], requires_grad=True)
    high = kt.tensor([0.0], requires_grad=True)
    x.clamp(low, high).sum().backward()
    assert (x.grad.item(), low.grad.item(), high.grad.item()) == (0.0, 0.0, 1.0)


@pytest.mark.task2_4
def test_grad_accumulates_into_the_same_tensor():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    (x * 2.0).sum().backward()
    held = x.grad
    (x * 3.0).sum().backward()
    assert held is x.grad and held.tolist() == [5.0, 5.0]
    # Two leaves given one gradient object by a backward keep separate sums.
    a = kt.tensor([1.0], requires_grad=True)
    b = kt.tensor([1.0], requires_grad=True)
    (a + b).sum().backward()
    (a * 4.0).sum().backward()
    assert a.grad.tolist() == [5.0] and b.grad.tolist() == [1.0]


# ------------------------------------------- errors on ordinary PyTorch code


@pytest.mark.task2_3
def test_set_grad_enabled_is_a_function_a_context_manager_and_a_decorator():
    x = kt.tensor([1.0], requires_grad=True)
    for phase in ("train", "eval"):
        with kt.set_grad_enabled(phase == "train"):
            y = x * 2.0
        assert y.requires_grad == (phase == "train")
        assert kt.is_grad_enabled()  # restored after the block
    kt.set_grad_enabled(False)
    try:
        assert not kt.is_grad_enabled() and not (x * 2.0).requires_grad
    finally:
        kt.set_grad_enabled(True)

    @kt.set_grad_enabled(False)
    def predict(t):
        return t * 2.0

    assert kt.is_grad_enabled() and not predict(x).requires_grad


@pytest.mark.task2_6
def test_sort_and_topk_return_named_tuples():
    x = kt.tensor([[3.0, 1.0, 2.0]])
    assert x.sort().values.tolist() == [[1.0, 2.0, 3.0]]
    assert x.sort(descending=True).indices.tolist() == [[0.0, 2.0, 1.0]]
    assert kt.sort(x, dim=1).indices.tolist() == [[1.0, 2.0, 0.0]]
    assert x.topk(2).values.tolist() == [[3.0, 2.0]]
    assert kt.topk(x, 1, largest=False).indices.tolist() == [[1.0]]


@pytest.mark.task2_1
def test_a_0d_tensor_formats_as_a_number():
    loss = kt.tensor(1.234567)
    assert f"{loss:.4f}" == "1.2346" and f"{loss:>8.2f}" == "    1.23"
    assert f"{kt.tensor([1.0])}" == str(kt.tensor([1.0]))
    with pytest.raises(TypeError, match="format"):
        f"{kt.tensor([1.0, 2.0]):.2f}"


@pytest.mark.task2_6
def test_an_update_through_data_changes_the_parameter():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    w.data -= 0.1 * w.grad
    np.testing.assert_allclose(w.to_numpy(), [0.8, 1.6], rtol=1e-15)
    assert w.requires_grad and w.is_leaf
    w.data = kt.tensor([5.0, 6.0, 7.0])  # any shape, as in PyTorch
    assert w.tolist() == [5.0, 6.0, 7.0] and w.requires_grad


@pytest.mark.task2_6
def test_data_assignment_takes_the_new_values_dtype():
    # As torch: t.data = other gives t other's dtype too, so the label never
    # disagrees with the numbers (an int64 label on 1.7 would read back as 1).
    i = kt.tensor([1, 2, 3])
    i.data = kt.tensor([1.7, 2.5, -0.5])
    assert i.dtype is kt.float64 and i.tolist() == [1.7, 2.5, -0.5]
    f = kt.tensor([1.0, 2.0])
    f.data = kt.tensor([True, False])
    assert f.dtype is kt.bool and f.tolist() == [True, False]
    f.data = kt.tensor([4, 5])
    assert f.dtype is kt.int64 and f.tolist() == [4, 5]


@pytest.mark.task2_6
def test_to_with_copy_true_never_returns_the_tensor_itself():
    x = kt.tensor([1.0, 2.0], dtype=kt.float32)
    for y in (x.to(kt.float32, copy=True), x.to(copy=True), x.to("cpu", copy=True)):
        assert y is not x and y.dtype is kt.float32
        y.add_(1.0)
        assert x.tolist() == [1.0, 2.0]
    assert x.to(kt.float32) is x  # without copy: itself, as torch


@pytest.mark.task2_4
def test_backward_takes_pytorchs_gradient_keyword():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    (x * 3.0).backward(gradient=kt.tensor([1.0, -1.0]))
    assert x.grad.tolist() == [3.0, -3.0]


# ------------------------------------------------------------------ devices


@pytest.mark.task2_1
def test_factories_take_a_device_and_tensors_report_theirs():
    x = kt.zeros(2, 3, device="cpu")
    assert x.device == kt.device("cpu") and x.device != "cpu"  # (as torch's)
    assert str(x.device) == "cpu" and repr(x.device) == "device(type='cpu')"
    assert x.device.type == "cpu" and not x.is_cuda
    assert kt.tensor([1.0], device=kt.device("cpu")).tolist() == [1.0]
    for made in (
        kt.ones(2, device="cpu"),
        kt.full((2,), 3.0, device="cpu"),
        kt.rand(2, device="cpu"),
        kt.randn(2, device="cpu"),
        kt.arange(3, device="cpu"),
        kt.eye(2, device="cpu"),
        kt.linspace(0, 1, 3, device="cpu"),
        kt.randint(0, 5, (2,), device="cpu"),
        kt.randperm(3, device="cpu"),
    ):
        assert made.device == kt.device("cpu")
    with pytest.raises(RuntimeError, match="device type"):
        kt.zeros(2, device="tpu")
    assert kt.device("cuda:1").index == 1 and kt.device("cuda") != kt.device("cpu")


@pytest.mark.task2_1
def test_to_cpu_and_cpu_return_the_tensor_itself_on_the_cpu():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    assert x.to("cpu") is x and x.cpu() is x and x.to(device="cpu") is x
    assert x.to(kt.device("cpu")) is x and x.to(kt.zeros(1)) is x
    y = x.to(kt.SimpleBackend)
    assert y.backend is kt.SimpleBackend


# ------------------------------------------------------------------- dtypes


@pytest.mark.task2_6
def test_dtypes_report_what_was_asked_and_behave_so():
    x = kt.tensor([1.7, -2.5, 0.0])
    assert x.dtype is kt.float64 and x.is_floating_point()
    assert x.float().dtype is kt.float32 and x.double().dtype is kt.float64
    assert x.long().dtype is kt.int64 and x.long().tolist() == [1.0, -2.0, 0.0]
    assert x.int().dtype is kt.int32 and x.to(kt.int64).tolist() == [1.0, -2.0, 0.0]
    assert x.bool().dtype is kt.bool and x.bool().tolist() == [1.0, 1.0, 0.0]
    assert kt.tensor([1, 2]).dtype is kt.int64 and kt.arange(3).dtype is kt.int64
    assert kt.tensor([True]).dtype is kt.bool and (x > 0).dtype is kt.bool
    assert kt.zeros(2, dtype=kt.float32).dtype is kt.float32
    assert kt.tensor([0.5, 2.0], dtype=kt.long).tolist() == [0.0, 2.0]
    assert kt.randint(0, 5, (2,)).dtype is kt.int64
    for args in [(5, (300,)), (5, [300]), (0, 5, (300,)), (5,)]:  # (torch's forms)
        drawn = kt.randint(*args, **({"size": (300,)} if len(args) == 1 else {}))
        assert drawn.shape == (300,) and set(drawn.tolist()) == {0, 1, 2, 3, 4}
    assert kt.long is kt.int64 and kt.float is kt.float32 and kt.double is kt.float64
    # A bool tensor is a mask; an integer tensor indexes by position.
    y = kt.tensor([10.0, 20.0, 30.0])
    assert y[kt.tensor([1.0, 0.0, 1.0]).bool()].tolist() == [10.0, 30.0]
    assert y[kt.tensor([2.9, 0.2]).long()].tolist() == [30.0, 10.0]
    assert y[kt.ones(3, dtype=kt.bool)].tolist() == [10.0, 20.0, 30.0]
    with pytest.raises(RuntimeError, match="floating point"):
        kt.zeros(2, dtype=kt.int64, requires_grad=True)


@pytest.mark.task2_4
def test_float_conversion_keeps_the_gradient():
    w = kt.tensor([1.0, 2.0], requires_grad=True)
    (w.float() * kt.tensor([3.0, 4.0])).sum().backward()
    assert w.grad.tolist() == [3.0, 4.0]
    assert w.to("cpu", kt.float32).dtype is kt.float32


@pytest.mark.task2_6
def test_a_dtype_conversion_is_a_new_tensor():
    x = kt.tensor([1.0, 2.0])
    y = x.float()
    y += 1.0
    assert x.tolist() == [1.0, 2.0] and y.tolist() == [2.0, 3.0]
    assert x.double() is x  # already float64: itself, as in PyTorch


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "write, want",
    [
        (lambda x: x.__setitem__(slice(1, None), x[:-1]), [0, 0, 1, 2, 3]),
        (lambda x: x.__setitem__(slice(None, -1), x[1:]), [1, 2, 3, 4, 4]),
        (lambda x: x.__setitem__([1, 2, 3], x[:3]), [0, 0, 1, 2, 4]),
        (lambda x: x[1:].copy_(x[:-1]), [0, 0, 1, 2, 3]),
        (lambda x: x[1:].add_(x[:-1]), [0, 1, 3, 5, 7]),
    ],
)
def test_a_value_overlapping_its_target_is_read_before_it_is_written(write, want):
    """``x[1:] = x[:-1]`` shifts, as NumPy's (PyTorch raises on such an overlap;
    the Module 4 guide lists it): every entry of the value is read before one is
    overwritten (it gave ``[0, 0, 0, 0, 0]``, the first entry copied along)."""
    x = kt.arange(5.0)
    write(x)
    assert x.tolist() == want
