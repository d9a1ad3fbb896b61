"""Task 2.3: map, zip, reduce and matmul kernels, and the Tensor forwards.

Every forward is compared with NumPy on tensors in random storage layouts (permuted,
non-contiguous views). The backend-parametrized tests also run on Module 3's
backends when they exist (see ``tests/backends.py``).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import module2_tensors as kt
from module2_tensors import SimpleBackend, TensorData
from tests.backends import backend_params

from .strategies import (
    Case,
    away_from_zero,
    backend_settings,
    broadcastable_shapes,
    cases,
    dims_of,
    make_tensor,
    matmul_shapes,
    positive_values,
    shapes,
    small_values,
)


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(x) / (1 + np.exp(x)))


# name -> (tensor function, NumPy oracle, values it is defined on)
UNARY = {
    "neg": (lambda t: -t, lambda x: -x, small_values),
    "sigmoid": (lambda t: t.sigmoid(), _sigmoid, small_values),
    "relu": (lambda t: t.relu(), lambda x: np.maximum(x, 0.0), small_values),
    "log": (lambda t: t.log(), np.log, positive_values),
    "exp": (lambda t: t.exp(), np.exp, small_values),
    "inv": (lambda t: 1.0 / t, lambda x: 1.0 / x, away_from_zero()),
    "tanh": (lambda t: t.tanh(), np.tanh, small_values),
    "sqrt": (lambda t: t.sqrt(), np.sqrt, positive_values),
    "square": (lambda t: t**2, np.square, small_values),
    "abs": (lambda t: t.abs(), np.abs, small_values),
}

BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "lt": (lambda a, b: a < b, lambda x, y: (x < y) * 1.0),
    "gt": (lambda a, b: a > b, lambda x, y: (x > y) * 1.0),
    "le": (lambda a, b: a <= b, lambda x, y: (x <= y) * 1.0),
    "ge": (lambda a, b: a >= b, lambda x, y: (x >= y) * 1.0),
    "eq": (lambda a, b: a == b, lambda x, y: (x == y) * 1.0),
    "ne": (lambda a, b: a != b, lambda x, y: (x != y) * 1.0),
    "is_close": (lambda a, b: a.is_close(b), lambda x, y: (abs(x - y) < 1e-2) * 1.0),
}


def assert_matches(t, expected):
    expected = np.asarray(expected, dtype=np.float64)
    assert t.shape == expected.shape
    np.testing.assert_allclose(t.to_numpy(), expected, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- map / zip


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_unary_functions_match_numpy(backend, name, data):
    fn, oracle, values = UNARY[name]
    case = data.draw(cases(elements=values))
    assert_matches(fn(case.tensor(backend)), oracle(case.array))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_binary_functions_broadcast_like_numpy(backend, name, data):
    fn, oracle = BINARY[name]
    shape_a, shape_b = data.draw(broadcastable_shapes())
    a = data.draw(cases(shape_a, elements=away_from_zero()))
    b = data.draw(cases(shape_b, elements=away_from_zero()))
    if name in ("eq", "ne", "le", "ge", "is_close"):
        # Exercise equality: let b repeat some of a's numbers.
        b.array = np.where(
            np.broadcast_to(b.array, b.shape) > 0, b.array, b.array * 0 + 1.5
        )
    assert_matches(fn(a.tensor(backend), b.tensor(backend)), oracle(a.array, b.array))


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@pytest.mark.parametrize("layout", [(1, 0), (2, 0, 1)], ids=["transposed", "permuted"])
def test_map_writes_through_the_strides_of_out(backend, layout):
    # ``map(fn)(a, out)`` writes into a given ``out``, which may be a permuted view:
    # the kernel must place entry i at index_to_position(index, out_strides), not at
    # storage position i.
    shape = (2, 3) if len(layout) == 2 else (2, 3, 4)
    values = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    a = make_tensor(values, backend=backend)
    out = make_tensor(np.zeros(shape), layout, backend)
    backend.neg_map(a, out)
    got = out.to_numpy()
    assert np.array_equal(got, -values), (
        f"map into an out with strides {out._tensor.strides} put the entries in the "
        "wrong places: write each entry at index_to_position(out_index, out_strides)"
        f"\ngot\n{got}\nexpected\n{-values}"
    )


@pytest.mark.parametrize(
    "backend", backend_params("2.3", cuda=True, matmul=True), indirect=True
)
def test_map_zip_reduce_on_tiny_tensors(backend):
    """A small smoke test that every backend (CUDA included) runs each pattern."""
    a = make_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], (1, 0), backend)
    b = make_tensor([[0.5], [2.0]], backend=backend)
    assert_matches(a.relu(), [[1, 0, 3], [4, 5, 0]])
    assert_matches(a * b, [[0.5, -1, 1.5], [8, 10, -12]])
    assert_matches(a.sum(1), [2.0, 3.0])
    assert_matches(a.amax(0), [4.0, 5.0, 3.0])
    assert_matches(a @ make_tensor([[1.0], [1.0], [1.0]], backend=backend), [[2], [3]])


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_python_numbers_on_either_side(backend, data):
    case = data.draw(cases(elements=away_from_zero()))
    t, x = case.tensor(backend), case.array
    assert_matches(2.0 + t, 2.0 + x)
    assert_matches(t + 2, x + 2)
    assert_matches(1.5 - t, 1.5 - x)
    assert_matches(t - 1.5, x - 1.5)
    assert_matches(3.0 * t, 3.0 * x)
    assert_matches(t / 4.0, x / 4.0)
    assert_matches(2.0 / t, 2.0 / x)
    assert_matches(t < 0.5, (x < 0.5) * 1.0)
    assert_matches(0.5 < t, (0.5 < x) * 1.0)


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_map_with_out_broadcasts_into_a_strided_view(backend, data):
    """``map(fn)(a, out)`` writes ``fn(a)``, broadcast, into any view ``out``."""
    # (sides of 2 or 3: a side of 1 in out would hide a misplaced input index)
    big = data.draw(shapes(min_dims=1, min_side=2))
    small = tuple(1 if data.draw(st.booleans()) else n for n in big)
    small = small[data.draw(st.integers(0, len(small))) :]
    a = data.draw(cases(small))
    out = data.draw(cases(big)).tensor(backend)
    result = backend.neg_map(a.tensor(backend), out)
    assert result is out
    assert_matches(out, np.broadcast_to(-a.array, big))


# ---------------------------------------------------------------- reductions


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_sum_mean_max_over_one_dim(backend, data):
    case = data.draw(cases(min_dims=1))
    dim = data.draw(dims_of(case.array.ndim))
    keepdim = data.draw(st.booleans())
    t, x = case.tensor(backend), case.array
    assert_matches(t.sum(dim, keepdim), x.sum(dim, keepdims=keepdim))
    assert_matches(t.mean(dim, keepdim), x.mean(dim, keepdims=keepdim))
    assert_matches(t.amax(dim, keepdim), x.max(dim, keepdims=keepdim))
    assert_matches(t.amin(dim=dim, keepdim=keepdim), x.min(dim, keepdims=keepdim))


@pytest.mark.parametrize("backend", backend_params("2.3"), indirect=True)
@given(data=st.data())
@backend_settings
def test_reductions_over_everything_and_over_several_dims(backend, data):
    case = data.draw(cases())
    t, x = case.tensor(backend), case.array
    assert_matches(t.sum(), x.sum())
    assert t.sum().dims == 0
    assert_matches(t.mean(), x.mean())
    assert_matches(t.max(), x.max())
    assert_matches(t.sum(keepdim=True), x.sum(keepdims=True))
    if x.ndim >= 2:
        dims = tuple(data.draw(st.permutations(range(x.ndim)))[:2])
        assert_matches(t.sum(dims), x.sum(dims))
        assert_matches(t.amax(dims, keepdim=True), x.max(dims, keepdims=True))


@pytest.mark.task2_3
@given(cases(min_dims=1, elements=st.sampled_from([0.0, 1.0, 2.5, -1.0])))
def test_all_and_any(case):
    t, x = case.tensor(), case.array
    assert_matches(t.all(), np.all(x) * 1.0)
    assert_matches(t.all(-1), np.all(x, axis=-1) * 1.0)
    assert_matches(t.any(0, keepdim=True), np.any(x, axis=0, keepdims=True) * 1.0)


@pytest.mark.task2_3
def test_reductions_examples_and_ties():
    t = kt.tensor([[3.0, 1.0, 3.0], [0.0, -2.0, 5.0]])
    assert t.sum(0).tolist() == [3.0, -1.0, 8.0]
    assert t.sum(-1, keepdim=True).tolist() == [[7.0], [3.0]]
    assert t.amax(1).tolist() == [3.0, 5.0]
    assert t.mean().item() == pytest.approx(10.0 / 6.0)
    assert kt.tensor(4.0).sum().item() == 4.0


@pytest.mark.task2_3
def test_empty_reductions():
    empty = kt.zeros(0, 3)
    assert empty.sum(0).tolist() == [0.0, 0.0, 0.0]  # as PyTorch: the empty sum is 0
    assert empty.sum(1).shape == (0,)
    with pytest.raises(ValueError, match=r"max\(\) of an empty selection.*\(0, 3\)"):
        empty.amax(0)
    with pytest.raises(ValueError, match=r"max\(\) of an empty.*\(0, 3\)"):
        empty.max()
    # As PyTorch: the mean of nothing is 0/0 = nan.
    assert np.isnan(empty.mean().item())
    assert np.isnan(empty.mean(0).to_numpy()).all()


@pytest.mark.task2_3
def test_dims_out_of_range_are_rejected():
    t = kt.zeros(2, 3)
    with pytest.raises(IndexError, match=r"dim=2 is out of range.*2 dimensions"):
        t.sum(2)
    with pytest.raises(IndexError, match=r"dim=-3 is out of range"):
        t.max(-3)
    with pytest.raises(IndexError, match="0-d"):
        kt.tensor(1.0).sum(1)


# ---------------------------------------------------------------- matmul


@pytest.mark.parametrize("backend", backend_params("2.3", matmul=True), indirect=True)
@given(data=st.data())
@backend_settings
def test_batched_matmul_broadcasts_batch_dims(backend, data):
    shape_a, shape_b = data.draw(matmul_shapes())
    a, b = data.draw(cases(shape_a)), data.draw(cases(shape_b))
    assert_matches(a.tensor(backend) @ b.tensor(backend), a.array @ b.array)


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [
        ((3,), (3,)),
        ((3,), (3, 2)),
        ((2, 3), (3,)),
        ((2, 2, 3), (3,)),
        ((3,), (4, 3, 2)),
    ],
)
@pytest.mark.task2_3
def test_matmul_with_vectors_follows_pytorch(shape_a, shape_b):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=shape_a), rng.normal(size=shape_b)
    assert_matches(kt.tensor(x) @ kt.tensor(y), x @ y)


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((2, 3), (2, 3)), ((4, 2, 3), (5, 3, 1)), ((3,), (2,)), ((), (2, 2))],
)
@pytest.mark.task2_3
def test_matmul_shape_errors_name_both_shapes(shape_a, shape_b):
    a, b = kt.zeros(shape_a), kt.zeros(shape_b)
    message = rf"{shape_a} and {shape_b}".replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(ValueError, match=message):
        a @ b


@pytest.mark.task2_3
def test_zip_shape_errors_name_both_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\).*dimension -1"):
        kt.zeros(2, 3) + kt.zeros(4)


@pytest.mark.task2_3
def test_simple_ops_kernels_directly():
    """The ops class on raw tensors: zip broadcasts, reduce keeps the dim."""
    a = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = kt.tensor([10.0, 20.0])
    assert SimpleBackend.add_zip(a, b).tolist() == [[11.0, 22.0], [13.0, 24.0]]
    # map broadcasts its input into out: a row, and a column
    out = SimpleBackend.neg_map(b, kt.zeros(3, 2))
    assert out.tolist() == [[-10.0, -20.0]] * 3
    out = SimpleBackend.neg_map(kt.tensor([[1.0], [2.0]]), kt.zeros(2, 3))
    assert out.tolist() == [[-1.0] * 3, [-2.0] * 3]
    assert SimpleBackend.add_reduce(a, 0).tolist() == [[4.0, 6.0]]
    assert SimpleBackend.max_reduce(a, 1).tolist() == [[2.0], [4.0]]
    assert SimpleBackend.matrix_multiply(a, a).tolist() == [[7.0, 10.0], [15.0, 22.0]]


@pytest.mark.task2_3
@pytest.mark.parametrize(
    "name, start", [("add", 10.0), ("max", -math.inf), ("max", -100.0)]
)
def test_reduce_kernel_folds_into_the_start_value_that_out_holds(name, start):
    """``out`` holds the start value when ``_reduce`` is called (``ops.reduce``
    fills it: 0 for a sum, -inf for a max); the kernel folds the entries into
    it. A kernel that starts from 0 gets a max of negative numbers wrong."""
    from module0_fundamentals import operators
    from module2_tensors import tensor_ops

    a = np.array([[-5.0, -2.0, -7.0], [-1.0, -4.0, -3.0]])
    kernel = tensor_ops.tensor_reduce(getattr(operators, name))
    out = np.full(2, start)
    kernel(
        out,
        np.array([2, 1]),
        np.array([1, 1]),
        a.ravel(),
        np.array(a.shape),
        np.array([3, 1]),
        1,
    )
    want = start + a.sum(axis=1) if name == "add" else np.maximum(start, a.max(axis=1))
    assert out.tolist() == want.tolist(), (
        f"{name}-reduce with the start value {start} already in out gave "
        f"{out.tolist()}, not {want.tolist()}: fold each row into out's entry "
        "(the start value), not into 0"
    )


# ---------------------------------------------------------------- views


@pytest.mark.task2_3
@given(cases(min_dims=1), st.data())
def test_permute_is_a_view_that_matches_numpy(case, data):
    t = case.tensor()
    order = data.draw(st.permutations(range(t.dims)))
    p = t.permute(*order)
    assert_matches(p, case.array.transpose(order))
    assert p._tensor._storage is t._tensor._storage
    negative = [d - t.dims for d in order]
    assert_matches(t.permute(negative), case.array.transpose(order))


@pytest.mark.task2_3
@given(cases(), st.data())
def test_contiguous_then_view_matches_numpy_reshape(case, data):
    t = case.tensor()
    c = t.contiguous()
    assert c.is_contiguous()
    assert_matches(c, case.array)
    if t.is_contiguous():
        assert c is t  # nothing to copy
    size = case.array.size
    factors = [n for n in range(1, size + 1) if size % n == 0]
    rows = data.draw(st.sampled_from(factors))
    assert_matches(c.view(rows, -1), case.array.reshape(rows, -1))
    assert_matches(c.view(size), case.array.reshape(size))


@pytest.mark.task2_3
def test_view_shares_storage_and_rejects_non_contiguous():
    t = kt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v = t.view(3, 2)
    assert v._tensor._storage is t._tensor._storage
    with pytest.raises(ValueError, match=r"view size is not compatible"):
        t.permute(1, 0).view(6)
    with pytest.raises(ValueError, match=r"shape \(2, 3\) \(6 entries\) as shape"):
        t.view(4, 2)
    with pytest.raises(ValueError, match="only one size may be -1"):
        t.view(-1, -1)


@pytest.mark.task2_3
def test_permute_errors():
    t = kt.zeros(2, 3)
    with pytest.raises(IndexError, match="not a permutation"):
        t.permute(0, 0)
    with pytest.raises(IndexError, match="out of range"):
        t.permute(0, 2)


# ---------------------------------------------------------------- Tensor basics


@pytest.mark.task2_3
def test_tensor_from_lists_numbers_and_arrays():
    t = kt.tensor([[1, 2, 3], [4, 5, 6]])
    assert t.shape == (2, 3)
    assert t.dims == 2
    assert t.size == 6 and t.numel() == 6
    assert t.size() == (2, 3) and t.size(-1) == 3 and t.size(0) == 2
    assert t.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    scalar = kt.tensor(2.5)
    assert scalar.shape == () and scalar.dims == 0 and scalar.size == 1
    assert scalar.item() == 2.5
    array = np.arange(6.0).reshape(2, 3)
    from_numpy = kt.tensor(array)
    array[0, 0] = 99.0  # tensor() copies
    assert from_numpy.to_numpy()[0, 0] == 0.0
    assert kt.tensor(from_numpy).tolist() == from_numpy.tolist()


# tensor()'s checks are given code: this test belongs to no task.
def test_tensor_rejects_ragged_lists_and_non_numbers():
    with pytest.raises(ValueError, match="equal lengths"):
        kt.tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match="numbers"):
        kt.tensor(["a", "b"])


@pytest.mark.task2_3
def test_item_needs_one_element():
    assert kt.tensor([[3.0]]).item() == 3.0
    with pytest.raises(ValueError, match=r"exactly one element.*\(2,\)"):
        kt.tensor([1.0, 2.0]).item()


@pytest.mark.task2_3
def test_zeros_ones_full_rand():
    assert kt.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert kt.zeros((2, 3)).shape == (2, 3)
    assert kt.ones(()).shape == ()
    assert kt.full((2,), 7.0).tolist() == [7.0, 7.0]
    a, b = kt.rand(3, 4, seed=1), kt.rand(3, 4, seed=1)
    assert a.tolist() == b.tolist()
    assert np.all((a.to_numpy() >= 0) & (a.to_numpy() < 1))
    generator = np.random.default_rng(5)
    assert kt.rand(2, generator=generator).shape == (2,)
    kt.manual_seed(3)
    first = kt.randn(4).tolist()
    kt.manual_seed(3)
    assert kt.randn(4).tolist() == first
    assert kt.arange(4).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="non-negative"):
        kt.zeros(2, -1)


@pytest.mark.task2_3
def test_repr_looks_like_pytorch():
    assert repr(kt.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(kt.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(kt.tensor(3.0)) == "tensor(3.)"
    assert repr(kt.tensor([[1.0, 2.0], [3.0, 4.0]])) == (
        "tensor([[1., 2.],\n        [3., 4.]])"
    )
    x = kt.tensor([1.0], requires_grad=True)
    assert repr(x) == "tensor([1.], requires_grad=True)"
    assert repr(x * 2).endswith("grad_fn=<MulBackward>)")
    # Integer and bool tensors print their values as PyTorch's do.
    assert repr(kt.tensor([[3, -2], [1, 0]])) == "tensor([[ 3, -2],\n        [ 1,  0]])"
    assert repr(kt.tensor([1.0, 2.0]) > 1.5) == "tensor([False,  True])"
    assert repr(kt.tensor(True)) == "tensor(True)"


@pytest.mark.task2_3
def test_operator_type_errors():
    t = kt.zeros(2)
    with pytest.raises(TypeError, match="str"):
        t + "a"
    # (a - b is a + (-b): the message names b as written, not a negated copy)
    shown = {"list": r"list \(\[1, 2\]\)", "array": r"ndarray \(array\(\[1\."}
    for b, name in ([1, 2], "list"), (np.ones(2), "array"):
        with pytest.raises(TypeError, match="a Tensor and a " + shown[name]):
            t - b
    with pytest.raises(TypeError, match="exponent must be a number"):
        t ** "2"


@pytest.mark.task2_3
def test_tensors_are_hashable_and_have_a_length():
    t = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert {t: 1}[t] == 1
    assert len(t) == 2
    assert bool(kt.tensor([1.0])) and not bool(kt.tensor(0.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)


@pytest.mark.task2_3
def test_to_backend_keeps_the_numbers():
    t = kt.tensor([1.0, 2.0])
    assert t.to(SimpleBackend) is t
    other = kt.TensorBackend(kt.SimpleOps)
    moved = t.to(other)
    assert moved.backend is other and moved.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="different backends"):
        t + moved


@pytest.mark.task2_3
def test_tensor_data_round_trip():
    data = TensorData([1.0, 2.0, 3.0, 4.0], (2, 2))
    t = kt.Tensor(data)
    assert t.T.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert t.mT.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(TypeError, match="use tensor"):
        kt.Tensor([1.0, 2.0])


@pytest.mark.task2_3
@given(cases(shape=shapes(min_dims=1), elements=small_values))
def test_math_functions_on_special_values(case):
    """Stable sigmoid for large inputs; sqrt of a negative and 0 ** -1 follow
    PyTorch (NaN, inf) instead of raising."""
    big = kt.tensor([-1000.0, 1000.0]).sigmoid().tolist()
    assert big == [0.0, 1.0]
    assert math.isnan(kt.tensor(-1.0).sqrt().item())
    assert kt.tensor(0.0) ** -1 == kt.tensor(math.inf)
    assert_matches(case.tensor() ** 3, case.array**3)
    assert math.isnan((kt.tensor(-8.0) ** 0.5).item())


@pytest.mark.task2_3
@given(cases(min_dims=2, elements=small_values))
def test_operations_leave_inputs_unchanged(case):
    t = case.tensor()
    before = t.to_numpy()
    _ = (t * 2 + t.exp()).sum(0)
    np.testing.assert_array_equal(t.to_numpy(), before)


@pytest.mark.task2_3
def test_case_helper_makes_non_contiguous_tensors():
    case = Case(np.arange(6.0).reshape(2, 3), (1, 0))
    t = case.tensor()
    assert not t.is_contiguous()
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
