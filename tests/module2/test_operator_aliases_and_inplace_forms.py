"""PyTorch's other names of the operators (``x.eq(y)``, ``x.mul(y)``, ``kt.div(a,
b, rounding_mode="floor")``, ``kt.fmod``, ``kt.atan2``), the elementwise tests and
roundings (``isnan``, ``nan_to_num``, ``ceil``, ``trunc``, ``frac``,
``round(decimals=)``, ``count_nonzero``, ``lerp``), and the in-place forms
(``exp_``, ``pow_``, ``addcmul_``, ``squeeze_``, ``detach_``, ...).

Values are checked against NumPy, gradients against central differences
(``oracle.check_gradients``); where PyTorch is installed, the result dtypes are
compared with its own. Given code (the ``Tensor`` mixins) built on Task 2.6's
``where``: the tests carry Task 2.6's marker."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

from .oracle import check_gradients
from .strategies import Case

pytestmark = pytest.mark.task2_6

NAN, INF = math.nan, math.inf
A = np.array([[1.5, -2.0, 3.0], [NAN, 5.0, -6.0]])
B = np.array([[1.5, 5.0, -1.0], [0.0, NAN, -6.0]])


def case(values) -> Case:
    a = np.array(values, dtype=np.float64)
    return Case(a, tuple(range(a.ndim)))


COMPARISONS = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "greater": np.greater,
    "less": np.less,
    "greater_equal": np.greater_equal,
    "less_equal": np.less_equal,
    "not_equal": np.not_equal,
}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_methods_are_the_operators_with_nan_unequal(name):
    out = getattr(kt.tensor(A), name)(kt.tensor(B))
    assert out.dtype is kt.bool
    assert out.tolist() == COMPARISONS[name](A, B).tolist()
    assert (
        getattr(kt.tensor(A), name)(1.5).tolist() == COMPARISONS[name](A, 1.5).tolist()
    )
    if name in ("eq", "ne", "lt", "le", "gt", "ge"):  # the function forms
        assert getattr(kt, name)(kt.tensor(A), kt.tensor(B)).tolist() == (
            COMPARISONS[name](A, B).tolist()
        )


def test_arithmetic_method_names_keep_pytorchs_dtypes():
    i, j = kt.tensor([-7, 7, 5]), kt.tensor([2, -2, 5])
    for name in ("mul", "multiply"):
        out = getattr(i, name)(j)
        assert out.dtype is kt.int64 and out.tolist() == [-14, -14, 25]
    assert kt.mul(i, 2.5).dtype is kt.float64
    assert i.subtract(j).tolist() == [-9, 9, 0] and kt.sub(i, j).dtype is kt.int64
    assert kt.subtract(i, j, alpha=2).tolist() == [-11, 11, -5]
    assert kt.add(i, j).tolist() == [-5, 5, 10]
    for name in ("div", "divide", "true_divide"):  # int / int is a float
        out = getattr(kt, name)(i, j)
        assert out.dtype is kt.float64 and out.tolist() == [-3.5, -3.5, 1.0]
    floor = i.floor_divide(j)  # int // int stays int64
    assert floor.dtype is kt.int64 and floor.tolist() == [-4, -4, 1]
    assert (
        kt.floor_divide(i, j).tolist()
        == np.floor_divide([-7, 7, 5], [2, -2, 5]).tolist()
    )
    assert kt.neg(i).tolist() == [7, -7, -5] and i.negative().dtype is kt.int64


def test_div_rounding_modes_round_the_quotient_down_or_toward_zero():
    a, b = np.array([-7.0, 7.0, -7.5, 6.0]), np.array([2.0, -2.0, 2.0, 4.0])
    x, y = kt.tensor(a), kt.tensor(b)
    assert x.div(y, rounding_mode="floor").tolist() == np.floor(a / b).tolist()
    assert kt.div(x, y, rounding_mode="trunc").tolist() == np.trunc(a / b).tolist()
    assert x.divide(y, rounding_mode=None).tolist() == (a / b).tolist()
    # Quotients just below a whole number: 0.3 / 0.1 is 2.9999999999999996, so
    # trunc gives 2 (PyTorch's); 0.3 * (1 / 0.1) would round up to 3.
    a, b = np.array([0.3, 3.38, 6.6, -0.3]), np.array([0.1, 0.13, 0.66, 0.1])
    expected = np.trunc(a / b)
    assert expected.tolist() == [2.0, 26.0, 9.0, -2.0]
    assert kt.tensor(a).div(kt.tensor(b), rounding_mode="trunc").tolist() == (
        expected.tolist()
    )
    w, v = kt.tensor(a, requires_grad=True), kt.tensor(b, requires_grad=True)
    kt.fmod(w, v).sum().backward()  # (d fmod(a, b) / db = -trunc(a / b))
    assert v.grad.tolist() == (-expected).tolist()
    i = kt.tensor([-7, 7])
    for mode, expected in (("floor", [-4, 3]), ("trunc", [-3, 3])):
        out = kt.div(i, 2, rounding_mode=mode)
        assert out.dtype is kt.int64 and out.tolist() == expected
    with pytest.raises(RuntimeError, match="rounding_mode"):
        x.div(y, rounding_mode="round")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        i.div(0, rounding_mode="trunc")
    # A rounded quotient is piecewise constant: gradient 0, as PyTorch's.
    w = kt.tensor(a, requires_grad=True)
    w.div(y, rounding_mode="trunc").sum().backward()
    assert w.grad.tolist() == [0.0] * 4


def test_remainder_and_fmod_take_the_divisors_and_the_dividends_sign():
    a, b = np.array([-7.0, 7.0, -7.5, 7.5, 6.0]), np.array([2.0, -2.0, 2.0, 2.0, -4.0])
    x, y = kt.tensor(a), kt.tensor(b)
    np.testing.assert_allclose(kt.remainder(x, y).to_numpy(), np.remainder(a, b))
    np.testing.assert_allclose(x.fmod(y).to_numpy(), np.fmod(a, b))
    np.testing.assert_allclose(kt.fmod(x, 2).to_numpy(), np.fmod(a, 2.0))
    i = kt.tensor([-7, 7, -8])
    out = kt.fmod(i, 3)
    assert out.dtype is kt.int64 and out.tolist() == np.fmod([-7, 7, -8], 3).tolist()
    assert i.remainder(3).tolist() == np.remainder([-7, 7, -8], 3).tolist()
    assert kt.fmod(i, 2.5).dtype is kt.float64
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        kt.fmod(i, 0)
    assert np.isnan(kt.fmod(x, 0.0).to_numpy()).all()  # (floats: NaN, as C's)
    # d/da = 1, d/db = -trunc(a / b), away from the jumps.
    check_gradients(
        lambda p, q: p.fmod(q), case([-7.3, 7.1, 2.2]), case([2.0, -2.5, 0.7])
    )


def test_atan2_is_the_angle_of_the_point_in_every_quadrant():
    y = np.array([1.0, 1.0, -1.0, -1.0, 0.0, 2.0, -3.0])
    x = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 0.0, 0.0])
    out = kt.atan2(kt.tensor(y), kt.tensor(x))
    np.testing.assert_allclose(out.to_numpy(), np.arctan2(y, x), rtol=1e-15)
    ints = kt.tensor([1, -2]).atan2(kt.tensor([0, 0]))
    assert ints.dtype is kt.float64
    np.testing.assert_allclose(ints.to_numpy(), [np.pi / 2, -np.pi / 2])
    f32 = kt.tensor([1.0], dtype=kt.float32)
    assert f32.atan2(kt.tensor([2.0], dtype=kt.float32)).dtype is kt.float32
    check_gradients(
        lambda p, q: p.atan2(q),
        case([[1.0, -0.5], [0.3, -2.0]]),
        case([[0.7, -1.5], [-0.2, 3.0]]),
    )


def test_atan2_gradient_at_the_origin_is_zero_as_pytorchs():
    # x / (x^2 + y^2) gave 0 / 0 = NaN at (0, 0); PyTorch gives 0 (and a NaN
    # input still gives NaN). Elsewhere: x / r^2 and -y / r^2.
    y = kt.tensor([0.0, 3.0, NAN], requires_grad=True)
    x = kt.tensor([0.0, 4.0, 1.0], requires_grad=True)
    y.atan2(x).sum().backward()
    np.testing.assert_allclose(y.grad.to_numpy(), [0.0, 4.0 / 25.0, NAN])
    np.testing.assert_allclose(x.grad.to_numpy(), [0.0, -3.0 / 25.0, NAN])


def test_logical_functions_treat_non_zero_as_true():
    a, b = np.array([1.5, 0.0, -2.0, 0.0]), np.array([2.0, 2.0, 0.0, 0.0])
    x, y = kt.tensor(a), kt.tensor(b)
    assert kt.logical_not(x).tolist() == np.logical_not(a).tolist()
    for name in ("logical_and", "logical_or", "logical_xor"):
        out = getattr(kt, name)(x, y)
        assert out.dtype is kt.bool
        assert out.tolist() == getattr(np, name)(a, b).tolist()


def test_isnan_isinf_isfinite_and_nan_to_num_match_numpy():
    a = np.array([1.0, NAN, INF, -INF, -0.5])
    x = kt.tensor(a)
    for name in ("isnan", "isinf", "isfinite"):
        assert getattr(kt, name)(x).dtype is kt.bool
        assert getattr(x, name)().tolist() == getattr(np, name)(a).tolist()
    assert kt.isnan(kt.tensor([1, 2])).tolist() == [False, False]
    np.testing.assert_array_equal(kt.nan_to_num(x).to_numpy(), np.nan_to_num(a))
    np.testing.assert_array_equal(
        x.nan_to_num(nan=9.0, posinf=5.0, neginf=-5.0).to_numpy(),
        np.nan_to_num(a, nan=9.0, posinf=5.0, neginf=-5.0),
    )
    # The default replacements are the largest finite numbers of the dtype.
    big = float(np.finfo(np.float32).max)
    f32 = kt.tensor(a, dtype=kt.float32).nan_to_num()
    assert f32.dtype is kt.float32 and f32.tolist()[2:4] == [big, -big]
    assert kt.tensor([3, -1]).nan_to_num().tolist() == [3, -1]
    # The gradient flows to the finite entries only.
    w = kt.tensor(a, requires_grad=True)
    w.nan_to_num().sum().backward()
    assert w.grad.tolist() == [1.0, 0.0, 0.0, 0.0, 1.0]


def test_ceil_trunc_frac_and_round_with_decimals_match_numpy():
    a = np.array([-2.5, -1.5, -0.4, 0.0, 0.4, 1.5, 2.7, INF, -INF])
    x = kt.tensor(a)
    np.testing.assert_array_equal(kt.ceil(x).to_numpy(), np.ceil(a))
    np.testing.assert_array_equal(x.trunc().to_numpy(), np.trunc(a))
    finite = a[np.isfinite(a)]
    np.testing.assert_allclose(
        kt.frac(kt.tensor(finite)).to_numpy(), np.modf(finite)[0]
    )
    np.testing.assert_array_equal(kt.round(x).to_numpy(), np.round(a))
    r = np.array([1.2345, -2.5678, 0.125, 1234.5])
    for decimals in (2, 1, -1):
        np.testing.assert_allclose(
            kt.tensor(r).round(decimals=decimals).to_numpy(),
            np.round(r, decimals),
            rtol=1e-12,
        )
    ints = kt.tensor([-3, 4])
    assert ints.ceil().dtype is kt.int64 and ints.trunc().tolist() == [-3, 4]
    assert kt.floor(x).tolist() == np.floor(a).tolist()
    assert kt.sign(ints).tolist() == [-1, 1] and kt.square(ints).tolist() == [9, 16]
    assert kt.relu(ints).tolist() == [0, 4]
    # ceil and trunc are steps (gradient 0); frac = x - trunc(x) has gradient 1.
    w = kt.tensor([-1.3, 0.4, 2.6], requires_grad=True)
    (w.ceil() + w.trunc() + 3.0 * w.frac()).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0, 3.0]


def test_count_nonzero_counts_in_all_or_along_dims():
    a = np.array([[[1.0, 0.0], [0.0, 2.0]], [[0.0, 0.0], [3.0, NAN]]])
    x = kt.tensor(a)
    out = kt.count_nonzero(x)
    assert out.dtype is kt.int64 and out.item() == np.count_nonzero(a)
    for dim in (0, 1, -1, (0, 2)):
        assert kt.count_nonzero(x, dim=dim).tolist() == (
            np.count_nonzero(a, axis=dim).tolist()
        )


def test_lerp_interpolates_and_differentiates_in_all_three():
    start, end = kt.tensor([1.0, 2.0]), kt.tensor([3.0, 3.0])
    assert start.lerp(end, 0.5).tolist() == [2.0, 2.5]
    assert kt.lerp(start, end, kt.tensor([0.0, 2.0])).tolist() == [1.0, 4.0]
    check_gradients(
        lambda a, b, w: a.lerp(b, w),
        case([[1.0, -2.0], [0.5, 3.0]]),
        case([[4.0, 1.0], [-1.0, 2.0]]),
        case([[0.3, 0.9], [1.5, -0.2]]),
    )


IN_PLACE = {
    "exp_": ([0.5, -1.0], np.exp),
    "log_": ([0.5, 2.0], np.log),
    "sqrt_": ([4.0, 2.0], np.sqrt),
    "abs_": ([-4.0, 2.0], np.abs),
    "neg_": ([-4.0, 2.0], np.negative),
    "sigmoid_": ([0.0, 2.0], lambda a: 1.0 / (1.0 + np.exp(-a))),
    "tanh_": ([0.0, 2.0], np.tanh),
    "floor_": ([-1.5, 2.5], np.floor),
    "ceil_": ([-1.5, 2.5], np.ceil),
    "round_": ([-1.5, 2.5], np.round),
    "trunc_": ([-1.5, 2.5], np.trunc),
    "frac_": ([-1.5, 2.25], lambda a: np.modf(a)[0]),
    "sign_": ([-1.5, 0.0], np.sign),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_forms_write_the_result_into_the_tensor_and_its_views(name):
    values, reference = IN_PLACE[name]
    a = np.array([values, values])
    base = kt.tensor(a)
    row = base[1]
    assert getattr(row, name)() is row
    np.testing.assert_allclose(base.to_numpy(), [values, reference(np.array(values))])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(kt.tensor(values, requires_grad=True), name)()


def test_in_place_forms_are_recorded_for_autograd():
    # y = x * 2; y.exp_(): dL/dx = 2 exp(2x); then y.pow_(2): 4 exp(4x).
    x = kt.tensor([0.1, -0.3], requires_grad=True)
    y = x * 2.0
    y.exp_().pow_(2.0)
    y.sum().backward()
    np.testing.assert_allclose(
        x.grad.to_numpy(), 4.0 * np.exp(4.0 * np.array([0.1, -0.3]))
    )
    check_gradients(lambda t: (t * 1.0).sigmoid_().log_(), case([0.5, -1.0, 2.0]))
    # The first argument is the recorded second input: its gradient flows.
    other = kt.tensor([1.0, 2.0], requires_grad=True)
    kt.zeros(2).add_(other, alpha=3.0).mul_(other).sum().backward()
    assert other.grad.tolist() == [6.0, 12.0]  # d(3 o^2)/do
    assert kt.tensor([7.0, -7.0]).div_(2, rounding_mode="floor").tolist() == [3, -4]


def test_in_place_forms_check_the_result_dtype_as_pytorch():
    with pytest.raises(RuntimeError, match="can't be cast"):
        kt.tensor([1, 2]).exp_()
    with pytest.raises(RuntimeError, match="can't be cast"):
        kt.tensor([1, 2]).pow_(0.5)
    i = kt.tensor([3, -4])
    assert i.pow_(2).tolist() == [9, 16] and i.dtype is kt.int64
    assert kt.tensor([-3, 4]).abs_().tolist() == [3, 4]
    assert kt.tensor([2.0, 3.0]).pow_(kt.tensor([2.0, 0.5])).tolist() == [4.0, 3.0**0.5]


def test_augmented_assignments_write_into_the_tensor_and_its_views():
    # x **= 2 and the others change x itself, as PyTorch's: another name of x and
    # x's base see the result (Python would otherwise rebind x to a new tensor).
    x = kt.tensor([5.0, 7.0])
    alias = x
    x **= 2
    assert alias.tolist() == [25.0, 49.0]
    base = kt.tensor([5, 7, 9])
    view = base[1:]
    view //= 2
    assert base.tolist() == [5, 3, 4] and base.dtype is kt.int64
    view %= 3
    assert base.tolist() == [5, 0, 1]
    mask = kt.tensor([True, True, False])
    keep = mask
    mask &= kt.tensor([False, True, True])
    assert keep.tolist() == [False, True, False] and keep.dtype is kt.bool
    mask |= kt.tensor([True, False, False])
    mask ^= kt.tensor([True, True, True])
    assert keep.tolist() == [False, False, True]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf = kt.tensor([1.0, 2.0], requires_grad=True)
        leaf **= 2
    with pytest.raises(RuntimeError, match=r"in-place operation \(and_\)"):
        flags = kt.tensor([1.0, 0.0], requires_grad=True)
        flags &= kt.tensor([1.0, 1.0])
    y = kt.tensor([1.0, 2.0], requires_grad=True)
    z = y * 1.0
    z **= 2
    z.sum().backward()
    assert y.grad.tolist() == [2.0, 4.0]


def test_fill_and_scatter_in_place_record_their_value_or_source():
    # masked_fill_(mask, value), index_fill_(dim, index, value) and
    # scatter_add_(dim, index, src): the tensor argument's gradient flows.
    mask = kt.tensor([True, False, True])
    value = kt.tensor(2.0, requires_grad=True)
    y = kt.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1.0
    assert y.masked_fill_(mask, value).tolist() == [2.0, 2.0, 2.0]
    (y * kt.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert value.grad.item() == 101.0
    rows = kt.zeros(3, 2) * 1.0
    filled = kt.tensor(5.0, requires_grad=True)
    rows.index_fill_(0, kt.tensor([0, 2]), filled).sum().backward()
    assert rows.tolist() == [[5.0, 5.0], [0.0, 0.0], [5.0, 5.0]]
    assert filled.grad.item() == 4.0
    src = kt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = kt.zeros(3, 2) * 1.0
    out.scatter_add_(0, kt.tensor([[0, 1], [2, 2]]), src)
    assert out.tolist() == [[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]]
    (out * kt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    assert src.grad.tolist() == [[1.0, 4.0], [5.0, 6.0]]
    assert kt.tensor([1, 2, 3]).masked_fill_(mask, value=9).tolist() == [9, 2, 9]
    # Given by name, the tensor is recorded all the same.
    src.grad = None
    out = kt.zeros(3, 2) * 1.0
    out.scatter_add_(dim=0, index=kt.tensor([[0, 1], [2, 2]]), src=src)
    out.sum().backward()
    assert src.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    other = kt.tensor([1.0, 2.0], requires_grad=True)
    total = kt.ones(2) * 1.0
    assert total.add_(other=other, alpha=3).tolist() == [4.0, 7.0]
    total.sum().backward()
    assert other.grad.tolist() == [3.0, 3.0]
    # scatter_(dim, index, number) on a computed tensor: the number went in as a
    # 0-d tensor that scatter read as src (IndexError); torch writes the number.
    x = kt.zeros(3, requires_grad=True)
    y = x * 1.0
    assert y.scatter_(0, kt.tensor([1]), 5.0).tolist() == [0.0, 5.0, 0.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]  # (the written entry: none)


def test_addcmul_and_addcdiv_add_a_scaled_product_or_quotient():
    x = kt.tensor([1.0, 2.0])
    assert x.addcmul_(kt.tensor([1.0, 2.0]), kt.tensor([3.0, 4.0]), value=0.5) is x
    assert x.tolist() == [2.5, 6.0]
    x.addcdiv_(kt.tensor([1.0, 2.0]), kt.tensor([4.0, 8.0]), value=2)
    assert x.tolist() == [3.0, 6.5]
    # The gradient reaches the factors.
    t1 = kt.tensor([1.0, -2.0], requires_grad=True)
    t2 = kt.tensor([3.0, 4.0], requires_grad=True)
    kt.zeros(2).addcdiv_(t1, t2, value=3.0).sum().backward()
    np.testing.assert_allclose(t1.grad.to_numpy(), [1.0, 0.75])
    np.testing.assert_allclose(t2.grad.to_numpy(), [-3.0 / 9.0, 6.0 / 16.0])


def test_squeeze_unsqueeze_and_transpose_in_place_change_the_shape():
    x = kt.tensor([[1.0, 2.0]])
    storage = x._tensor._storage
    assert x.squeeze_() is x and x.shape == (2,)
    assert x.unsqueeze_(1).shape == (2, 1) and x.t_().shape == (1, 2)
    assert x.transpose_(0, 1).tolist() == [[1.0], [2.0]]
    assert x._tensor._storage is storage  # (views: the same numbers)
    # In the graph the tensor becomes the view of its old value.
    w = kt.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = w * 1.0
    y.squeeze_(0)
    (y * kt.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert y.shape == (3,) and w.grad.tolist() == [[1.0, 2.0, 3.0]]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.unsqueeze_(0)


def test_detach_in_place_makes_a_leaf_that_does_not_require_grad():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    assert y.detach_() is y
    assert y.is_leaf and not y.requires_grad and y.tolist() == [2.0, 4.0]
    (y * x).sum().backward()  # y is a constant now
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        (x * 1.0)[0:1].detach_()


def test_result_dtypes_agree_with_pytorch():
    """PyTorch run with this library's default float dtype (float64)."""
    torch = import_torch()
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        _compare_dtypes_with(torch)
    finally:
        torch.set_default_dtype(before)


def _compare_dtypes_with(torch):
    i, f = [[-7, 5, 3], [4, -2, 1]], [[1.5, -2.5, 3.0], [0.5, 2.0, -1.0]]
    calls = {
        "div": lambda m, a, b: m.div(a, b),
        "div floor": lambda m, a, b: m.div(a, b, rounding_mode="floor"),
        "div trunc": lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
        "floor_divide": lambda m, a, b: m.floor_divide(a, b),
        "remainder": lambda m, a, b: m.remainder(a, b),
        "fmod": lambda m, a, b: m.fmod(a, b),
        "atan2": lambda m, a, b: m.atan2(a, b),
        "mul": lambda m, a, b: m.mul(a, b),
        "ge": lambda m, a, b: a.ge(b),
        "logical_xor": lambda m, a, b: m.logical_xor(a, b),
        "ceil": lambda m, a, b: m.ceil(a),
        "isfinite": lambda m, a, b: m.isfinite(a),
        "count_nonzero": lambda m, a, b: m.count_nonzero(a, dim=1),
    }
    for name, call in calls.items():
        for x, y in ((i, i), (f, i), (i, f), (f, f)):
            if name in ("div floor", "div trunc", "floor_divide", "remainder", "fmod"):
                y = (
                    [[2, -3, 3], [5, 3, -1]]
                    if y is i
                    else [[2.5, -1.5, 3.0], [4.0, 1.5, -1.0]]
                )
            theirs = call(torch, torch.tensor(np.array(x)), torch.tensor(np.array(y)))
            ours = call(kt, kt.tensor(x), kt.tensor(y))
            assert ours.dtype.name == str(theirs.dtype).split(".")[-1], name
            np.testing.assert_allclose(
                ours.to_numpy(), theirs.double().numpy(), rtol=1e-12, err_msg=name
            )
