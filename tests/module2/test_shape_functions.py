"""Task 2.6: shape and utility operations (forwards against NumPy, gradients against
central differences on every entry) and the gradient modes."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import module2_tensors as kt
from module0_fundamentals import Module, Parameter
from tests.backends import backend_params
from tests.messages import assert_names

from .oracle import check_gradients
from .strategies import (
    Case,
    backend_settings,
    broadcastable_shapes,
    cases,
    dims_of,
    distinct_cases,
    shapes,
)

task = pytest.mark.task2_6
few = settings(max_examples=10)
grad_shapes = shapes(min_dims=1, max_dims=3, max_size=12)


def assert_matches(t, expected):
    expected = np.asarray(expected, dtype=np.float64)
    assert t.shape == expected.shape
    np.testing.assert_allclose(t.to_numpy(), expected, rtol=1e-12, atol=1e-12)


def shares_storage(a, b):
    """A view: the two tensors read the same memory (no copy was made)."""
    return np.shares_memory(a._tensor._storage, b._tensor._storage)


# ---------------------------------------------------------------- reshaping


@task
@given(cases(), st.data())
def test_reshape_and_flatten_match_numpy(case, data):
    t, x = case.tensor(), case.array
    size = x.size
    rows = data.draw(st.sampled_from([n for n in range(1, size + 1) if size % n == 0]))
    assert_matches(t.reshape(rows, -1), x.reshape(rows, -1))
    assert_matches(kt.reshape(t, (size,)), x.reshape(size))
    assert_matches(t.flatten(), x.reshape(-1))
    if x.ndim >= 2:
        start = data.draw(st.integers(0, x.ndim - 2))
        end = data.draw(st.integers(start, x.ndim - 1))
        shape = x.shape[:start] + (-1,) + x.shape[end + 1 :]
        assert_matches(t.flatten(start, end - x.ndim), x.reshape(shape))


@task
def test_flatten_edge_cases():
    assert kt.tensor(3.0).flatten().shape == (1,)
    with pytest.raises(ValueError, match="start_dim 1 comes after end_dim 0"):
        kt.zeros(2, 3).flatten(1, 0)


@task
@given(cases(grad_shapes))
@few
def test_reshape_and_flatten_gradients(case):
    check_gradients(lambda t: t.reshape(-1) * kt.arange(t.size), case)
    check_gradients(lambda t: t.flatten().exp(), case)


@task
@given(cases(shapes(min_dims=1, max_dims=4, max_size=24)), st.data())
def test_squeeze_and_unsqueeze_are_views(case, data):
    t, x = case.tensor(), case.array
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    u = t.unsqueeze(dim)
    assert_matches(u, np.expand_dims(x, dim))
    assert shares_storage(u, t)
    assert_matches(u.squeeze(dim), x)
    assert_matches(t.squeeze(), np.squeeze(x))
    assert shares_storage(t.squeeze(), t)
    one = data.draw(dims_of(x.ndim))
    expected = np.squeeze(x, one) if x.shape[one] == 1 else x
    assert_matches(kt.squeeze(t, one), expected)  # a size > 1 is left alone


@task
@given(cases(grad_shapes), st.data())
@few
def test_squeeze_and_unsqueeze_gradients(case, data):
    dim = data.draw(st.integers(0, case.array.ndim))
    weights = kt.arange(case.array.size).view(case.array.shape).unsqueeze(dim)
    check_gradients(lambda t: t.unsqueeze(dim) * weights, case)
    check_gradients(lambda t: (t.unsqueeze(dim) * weights).squeeze(), case)


@task
@given(cases(shapes(min_dims=2, max_size=24)), st.data())
def test_transpose_matches_numpy(case, data):
    d0, d1 = data.draw(dims_of(case.array.ndim)), data.draw(dims_of(case.array.ndim))
    t = case.tensor()
    assert_matches(t.transpose(d0, d1), np.swapaxes(case.array, d0, d1))
    assert shares_storage(t.transpose(d0, d1), t)


@task
@given(cases(shapes(min_dims=2, max_dims=3, max_size=12)), st.data())
@few
def test_transpose_gradient(case, data):
    d0, d1 = data.draw(dims_of(case.array.ndim)), data.draw(dims_of(case.array.ndim))
    shape = np.swapaxes(case.array, d0, d1).shape
    weights = kt.arange(case.array.size).view(shape)
    check_gradients(lambda t: t.transpose(d0, d1) * weights, case)


# ---------------------------------------------------------------- expand


@task
@given(broadcastable_shapes(max_dims=4, max_size=36), st.data())
def test_expand_is_a_stride_0_view(pair, data):
    small = pair[0]
    big = np.broadcast_shapes(*pair)
    case = data.draw(cases(small))
    t = case.tensor()
    e = t.expand(*big)
    assert_matches(e, np.broadcast_to(case.array, big))
    assert shares_storage(e, t)
    assert_matches(kt.broadcast_to(t, big), np.broadcast_to(case.array, big))


@task
@given(broadcastable_shapes(max_dims=3, max_size=12), st.data())
@few
def test_expand_gradient_sums_the_copies(pair, data):
    small = pair[0]
    big = np.broadcast_shapes(*pair)
    weights = kt.arange(int(np.prod(big))).view(big)
    check_gradients(lambda t: t.expand(big) * weights, data.draw(cases(small)))


@task
def test_expand_keeps_sizes_with_minus_one_and_rejects_bad_shapes():
    t = kt.tensor([[1.0], [2.0]])
    assert t.expand(2, -1, 3).tolist() == [[[1.0] * 3, [2.0] * 3]] * 2
    # a new leading dim of size 1: dim 1 of t is stretched by shape[1 + 1]
    assert t.expand(1, 2, 3).tolist() == [[[1.0] * 3, [2.0] * 3]]
    with pytest.raises(ValueError, match=r"\(2, 1\) to \(3, 1\).*dimension 0"):
        t.expand(3, 1)
    with pytest.raises(ValueError, match=r"\(2, 1\) to \(1,\)"):
        t.expand(1)
    with pytest.raises(ValueError, match="new dimension"):
        t.expand(-1, 2, 1)


# ---------------------------------------------------------------- cat, stack, split


@st.composite
def joinable(draw, count=3, max_size=8):
    """Cases with one shape except along a drawn dim, and the dim."""
    base = draw(shapes(min_dims=1, max_dims=3, max_size=max_size))
    dim = draw(st.integers(0, len(base) - 1))
    out = []
    for _ in range(draw(st.integers(1, count))):
        shape = list(base)
        shape[dim] = draw(st.integers(1, 3))
        out.append(draw(cases(tuple(shape))))
    return out, dim


@pytest.mark.parametrize("backend", backend_params("2.6"), indirect=True)
@given(joinable(), st.data())
@backend_settings
def test_cat_and_stack_match_numpy(backend, pieces, data):
    cs, dim = pieces
    tensors = [c.tensor(backend) for c in cs]
    assert_matches(kt.cat(tensors, dim), np.concatenate([c.array for c in cs], dim))
    assert_matches(
        kt.cat(tensors, dim - cs[0].array.ndim),
        np.concatenate([c.array for c in cs], dim),
    )
    same = [data.draw(cases(cs[0].shape)) for _ in cs]
    new_dim = data.draw(st.integers(-cs[0].array.ndim - 1, cs[0].array.ndim))
    assert_matches(
        kt.stack([c.tensor(backend) for c in same], new_dim),
        np.stack([c.array for c in same], new_dim),
    )


@task
@given(joinable(count=3, max_size=6))
@few
def test_cat_and_stack_gradients(pieces):
    cs, dim = pieces
    check_gradients(lambda *ts: kt.cat(ts, dim).sigmoid(), *cs)
    same = [Case(c.array, c.layout) for c in cs if c.shape == cs[0].shape]
    check_gradients(lambda *ts: kt.stack(ts, dim).exp(), *same)


@task
def test_cat_and_stack_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(2, 4\) differ outside"):
        kt.cat([kt.zeros(2, 3), kt.zeros(2, 4)], 0)
    with pytest.raises(ValueError) as error:  # (PyTorch: "... [2, 3] ... [3, 2]")
        kt.stack([kt.zeros(2, 3), kt.zeros(3, 2)])
    assert_names(error.value, (2, 3), (3, 2))
    with pytest.raises(ValueError, match="at least one tensor"):
        kt.cat([])


@task
@given(cases(shapes(min_dims=1, max_dims=3, max_size=24)), st.data())
def test_split_and_chunk_match_numpy(case, data):
    t, x = case.tensor(), case.array
    dim = data.draw(dims_of(x.ndim))
    size = x.shape[dim]
    step = data.draw(st.integers(1, size + 1))
    pieces = t.split(step, dim)
    expected = np.split(x, list(range(step, size, step)), axis=dim)
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_matches(p, e)
        assert shares_storage(p, t)  # views
    cuts = sorted(data.draw(st.lists(st.integers(0, size), max_size=3)))
    sections = [b - a for a, b in zip([0] + cuts, cuts + [size])]
    for p, e in zip(kt.split(t, sections, dim), np.split(x, cuts, axis=dim)):
        assert_matches(p, e)
    chunks = data.draw(st.integers(1, 4))
    got = t.chunk(chunks, dim)
    per = -(-size // chunks)
    for p, e in zip(got, np.split(x, list(range(per, size, per)), axis=dim)):
        assert_matches(p, e)


@task
def test_chunk_of_an_empty_dimension_gives_that_many_empty_pieces():
    # torch.chunk: a dimension of size 0 splits into `chunks` empty pieces (a
    # nonempty one into ceil(size / chunks)-sized pieces, maybe fewer)
    assert [p.shape for p in kt.zeros(0, 3).chunk(2)] == [(0, 3), (0, 3)]
    assert [p.shape for p in kt.zeros(2, 0).chunk(3, 1)] == [(2, 0)] * 3
    assert [p.shape for p in kt.zeros(1, 2).chunk(3)] == [(1, 2)]


@task
@given(cases(grad_shapes), st.data())
@few
def test_split_gradient_reassembles_the_pieces(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    step = data.draw(st.integers(1, case.array.shape[dim]))

    def f(t):
        pieces = t.split(step, dim)
        return kt.cat([p * (k + 1.0) for k, p in enumerate(pieces)][::-1], dim)

    check_gradients(f, case)


@task
def test_split_errors():
    t = kt.zeros(5, 2)
    with pytest.raises(ValueError, match=r"add up to 4.*size 5"):
        t.split([1, 3])
    with pytest.raises(ValueError, match="positive"):
        t.split(0)
    with pytest.raises(IndexError, match="does not fit"):
        t.narrow(0, 3, 3)


@task
def test_split_edges_match_torch():
    # torch.split(torch.zeros(0, 3), 2): one empty piece, not none and not a
    # piece of size 1 (which narrow would have to refuse)
    assert [p.shape for p in kt.zeros(0, 3).split(2)] == [(0, 3)]
    assert [p.shape for p in kt.zeros(0, 3).split(2, 1)] == [(0, 2), (0, 1)]
    with pytest.raises(IndexError) as error:  # torch: "Dimension out of range"
        kt.zeros(2, 3).split(1, dim=5)
    assert_names(error.value, 5)


# ---------------------------------------------------------------- pad, repeat


@st.composite
def pads(draw, dims):
    pairs = draw(st.integers(0, dims))
    return tuple(draw(st.integers(0, 2)) for _ in range(2 * pairs))


def numpy_pad(x, pad, value):
    width = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        width[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return np.pad(x, width, constant_values=value)


@pytest.mark.parametrize("backend", backend_params("2.6"), indirect=True)
@given(cases(shapes(min_dims=1, max_dims=3, max_size=12)), st.data())
@backend_settings
def test_pad_matches_numpy(backend, case, data):
    pad = data.draw(pads(case.array.ndim))
    value = data.draw(st.sampled_from([0.0, -1.5]))
    out = kt.pad(case.tensor(backend), pad, value)
    assert_matches(out, numpy_pad(case.array, pad, value))


@task
@given(cases(grad_shapes), st.data())
@few
def test_pad_gradient(case, data):
    pad = data.draw(pads(case.array.ndim))
    check_gradients(lambda t: kt.pad(t, pad, 2.0).exp(), case)


@task
def test_pad_errors():
    with pytest.raises(ValueError, match="pairs"):
        kt.pad(kt.zeros(2, 2), (1,))
    with pytest.raises(ValueError, match="pairs"):
        kt.pad(kt.zeros(2), (1, 1, 1, 1))
    with pytest.raises(ValueError, match="non-negative"):
        kt.pad(kt.zeros(2), (-1, 0))


@task
@given(cases(shapes(max_dims=3, max_size=8)), st.data())
def test_repeat_and_tile_match_numpy_tile(case, data):
    extra = data.draw(st.integers(0, 1))
    sizes = tuple(data.draw(st.integers(1, 3)) for _ in range(case.array.ndim + extra))
    t = case.tensor()
    assert_matches(t.repeat(*sizes), np.tile(case.array, sizes))
    short = sizes[1:] if sizes else sizes
    assert_matches(kt.tile(t, short), np.tile(case.array, short))


@task
@given(cases(shapes(min_dims=1, max_dims=2, max_size=6)), st.data())
@few
def test_repeat_gradient(case, data):
    sizes = tuple(data.draw(st.integers(1, 3)) for _ in range(case.array.ndim + 1))
    out_shape = np.tile(case.array, sizes).shape
    weights = kt.arange(int(np.prod(out_shape))).view(out_shape)
    check_gradients(lambda t: t.repeat(*sizes) * weights, case)


@task
def test_repeat_needs_enough_sizes():
    # The docstring's "fewer sizes than dimensions": the message names the shape.
    with pytest.raises(ValueError) as error:
        kt.zeros(2, 3).repeat(2)
    assert_names(error.value, (2, 3))


@task
def test_repeat_takes_one_tuple_and_zero_copies_as_torch():
    t = kt.arange(6).view(2, 3)
    # torch: x.repeat((2, 1, 2)) is x.repeat(2, 1, 2); x.repeat(0, 2) is empty
    assert t.repeat((2, 1, 2)).tolist() == t.repeat(2, 1, 2).tolist()
    assert t.repeat(0, 2).shape == (0, 6) and t.repeat([1, 0]).shape == (2, 0)
    with pytest.raises(ValueError) as error:  # the docstring's "a negative size"
        t.repeat(-1, 2)
    assert_names(error.value, -1)


@task
@pytest.mark.parametrize("counts", [(1, 1), (1, 1, 1), (2, 1)])
def test_repeat_and_tile_are_copies_even_of_one_repeat(counts):
    # torch.repeat always copies: a write to the result never reaches t, also
    # when every count is 1 (where reshapes alone give a view of t), also for
    # a view that is not contiguous.
    for t in (kt.arange(6.0).view(2, 3), kt.arange(6.0).view(3, 2).permute(1, 0)):
        before = t.tolist()
        for out in (t.repeat(*counts), t.tile(counts)):
            first = (0,) * out.dims
            out[first] = 99.0
            assert t.tolist() == before and out[first].item() == 99.0


# ---------------------------------------------------------------- where


@pytest.mark.parametrize("backend", backend_params("2.6"), indirect=True)
@given(broadcastable_shapes(max_size=12), st.data())
@backend_settings
def test_where_matches_numpy(backend, pair, data):
    shape_c, shape_x = pair
    condition = data.draw(cases(shape_c, st.sampled_from([0.0, 1.0, -2.0])))
    x = data.draw(cases(shape_x))
    y = data.draw(cases(np.broadcast_shapes(shape_c, shape_x)[1:]))
    out = kt.where(condition.tensor(backend), x.tensor(backend), y.tensor(backend))
    assert_matches(out, np.where(condition.array != 0, x.array, y.array))
    number = kt.where(condition.tensor(backend), x.tensor(backend), 7.0)
    assert_matches(number, np.where(condition.array != 0, x.array, 7.0))


@task
@given(broadcastable_shapes(max_size=8), st.data())
@few
def test_where_gradients_go_to_the_chosen_side(pair, data):
    shape_c, shape_x = pair
    condition = data.draw(cases(shape_c, st.sampled_from([0.0, 1.0]))).tensor()
    x = data.draw(cases(shape_x))
    y = data.draw(cases(shape_c))
    check_gradients(lambda a, b: kt.where(condition, a, b) * 3.0, x, y)


@task
def test_where_does_not_leak_infinities_or_differentiate_the_condition():
    condition = kt.tensor([1.0, 0.0], requires_grad=True)
    x = kt.tensor([1.0, math.inf], requires_grad=True)
    y = kt.tensor([math.nan, 2.0], requires_grad=True)
    out = kt.where(condition, x, y)
    assert out.tolist() == [1.0, 2.0]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]
    assert y.grad.tolist() == [0.0, 1.0]
    assert condition.grad is None


# ---------------------------------------------------------------- indexing

KEYS = st.sampled_from(
    [
        0,
        -1,
        slice(None),
        slice(1, None),
        slice(None, None, 2),
        slice(-2, None),
        slice(0, 0),
        None,
    ]
)


@st.composite
def keys(draw, dims):
    items = [draw(KEYS) for _ in range(draw(st.integers(1, max(1, dims))))]
    used = sum(1 for k in items if k is not None)
    if used > dims:
        items = [k for k in items if k is None] + [slice(None)] * dims
    if draw(st.booleans()) and sum(1 for k in items if k is not None) < dims:
        items.insert(draw(st.integers(0, len(items))), Ellipsis)
    return tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]


@task
@given(cases(shapes(min_dims=1, max_dims=3, max_size=24)), st.data())
def test_indexing_matches_numpy_and_is_a_view(case, data):
    key = data.draw(keys(case.array.ndim))
    t = case.tensor()
    view = t[key]
    assert_matches(view, case.array[key])
    assert shares_storage(view, t)


@task
@given(cases(grad_shapes), st.data())
@few
def test_indexing_gradient(case, data):
    key = data.draw(keys(case.array.ndim))
    check_gradients(lambda t: t[key].exp(), case)
    check_gradients(lambda t: t[key] * 2.0 + t[key], case)


@task
@pytest.mark.parametrize(
    "shape, key",
    [((3,), (..., 0, ...)), ((2, 3), (..., ...)), ((2, 3), (0, ..., ...))],
    ids=["fills-nothing", "two", "after-an-int"],
)
def test_an_index_holds_at_most_one_ellipsis(shape, key):
    t = kt.zeros(*shape)
    try:
        t[key]
    except IndexError as error:  # PyTorch: "an index can only have a single ellipsis"
        assert "ellipsis" in str(error).lower() or "..." in str(
            error
        ), f"the message should name the ellipsis (...): {error}"
    except NotImplementedError:
        raise  # an unwritten stub is reported as one
    except Exception as error:
        pytest.fail(
            f"t[{key}] raised {type(error).__name__}: {error}; as in PyTorch, a "
            "second ... must raise IndexError"
        )
    else:
        pytest.fail(
            f"t[{key}] on shape {shape} was accepted: an index holds at most one ... "
            "(Ellipsis), and PyTorch raises IndexError for a second one"
        )


@task
def test_indexing_errors():
    t = kt.zeros(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of range for dimension 1"):
        t[0, 3]
    with pytest.raises(IndexError, match="index -3 is out of range for dimension 0"):
        t[-3]
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(ValueError, match="positive"):
        t[::-1]
    with pytest.raises(TypeError, match="index_select"):
        t["a"]
    assert t[1, 2].shape == ()
    rows = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert [row.tolist() for row in rows] == [[1.0, 2.0], [3.0, 4.0]]  # t[0], t[1]
    with pytest.raises(TypeError, match="0-d"):
        iter(kt.tensor(1.0))


@task
def test_setitem_and_in_place_writes():
    t = kt.zeros(2, 3)
    t[0] = 1.0
    t[:, 2] = kt.tensor([5.0, 6.0])
    t[1, :2] = kt.tensor([7.0, 8.0])
    assert t.tolist() == [[1.0, 1.0, 5.0], [7.0, 8.0, 6.0]]
    with pytest.raises(ValueError, match=r"shape \(3,\) into shape \(2,\)"):
        t[:, 0] = kt.tensor([1.0, 2.0, 3.0])
    w = kt.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        w[0] = 1.0
    with kt.no_grad():
        w.fill_(3.0)
        w[1] = 4.0
    assert w.tolist() == [3.0, 4.0]
    with kt.no_grad():
        assert w.zero_() is w
    assert w.tolist() == [0.0, 0.0]
    assert kt.ones(2).copy_(kt.tensor(2.0)).tolist() == [2.0, 2.0]


@task
def test_setitem_drops_the_values_leading_ones():
    """As PyTorch's: a value's leading dims of size 1 are dropped before it is
    broadcast, so out[i] = model(x[i : i + 1]) writes a (1, C) row into (C,);
    copy_ keeps the strict broadcast rule."""
    t = kt.zeros(2, 3)
    t[0] = kt.tensor([[[1.0, 2.0, 3.0]]])
    t[1:] = kt.ones(1, 1, 3) * 4
    t[[0, 1], 1] = kt.tensor([[[7.0, 8.0]]])
    assert t.tolist() == [[1.0, 7.0, 3.0], [4.0, 8.0, 4.0]]
    with pytest.raises(ValueError, match=r"shape \(2, 3\) into shape \(3,\)"):
        t[0] = kt.ones(2, 3)
    with pytest.raises(ValueError):
        t[0].copy_(kt.ones(1, 3))


@pytest.mark.parametrize("backend", backend_params("2.6"), indirect=True)
@given(cases(shapes(min_dims=1, max_dims=3, max_size=12)), st.data())
@backend_settings
def test_index_select_matches_numpy_take(backend, case, data):
    dim = data.draw(dims_of(case.array.ndim))
    size = case.array.shape[dim]
    index = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))
    t = case.tensor(backend)
    assert_matches(t.index_select(dim, index), np.take(case.array, index, axis=dim))
    as_tensor = kt.tensor(index, backend=backend)
    assert_matches(
        kt.index_select(t, dim, as_tensor), np.take(case.array, index, axis=dim)
    )


@task
@given(cases(grad_shapes), st.data())
@few
def test_index_select_gradient_adds_up_repeated_indices(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    size = case.array.shape[dim]
    index = data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=4))
    check_gradients(lambda t: t.index_select(dim, index).sigmoid(), case)


@task
def test_index_select_scatter_adds_and_checks_range():
    x = kt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.index_select(0, [2, 0, 2, 2]).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        x.index_select(0, [3])
    with pytest.raises(ValueError, match="whole-number"):
        x.index_select(0, [0.5])
    # a 0-d index picks one entry and keeps the dim (PyTorch's); 2-D is refused
    m = kt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert m.index_select(1, kt.tensor(2)).tolist() == [[3.0], [6.0]]
    assert kt.zeros(3).index_add(0, kt.tensor(1), kt.ones(1)).tolist() == [0, 1, 0]
    with pytest.raises(ValueError, match="1-D index"):
        m.index_select(1, kt.tensor([[1]]))


@task
@given(cases(shapes(min_dims=1, max_dims=3, max_size=12)), st.data())
def test_gather_matches_numpy_take_along_axis(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    size = case.array.shape[dim]
    shape = list(case.array.shape)
    shape[dim] = data.draw(st.integers(1, 3))
    index = data.draw(cases(tuple(shape), st.integers(0, size - 1).map(float)))
    out = case.tensor().gather(dim, index.tensor().long())
    expected = np.take_along_axis(case.array, index.array.astype(int), axis=dim)
    assert_matches(out, expected)


@task
@given(cases(grad_shapes), st.data())
@few
def test_gather_gradient(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    size = case.array.shape[dim]
    shape = list(case.array.shape)
    shape[dim] = data.draw(st.integers(1, 3))
    index = data.draw(cases(tuple(shape), st.integers(0, size - 1).map(float)))
    check_gradients(lambda t: kt.gather(t, dim, index.tensor().long()) * 2.0, case)


@task
def test_gather_errors():
    t = kt.zeros(2, 3)
    with pytest.raises(ValueError, match=r"shape \(3,\) does not fit.*\(2, 3\)"):
        t.gather(1, kt.zeros(3, dtype=kt.int64))
    with pytest.raises(IndexError, match=r"\[0, 3\)"):
        t.gather(1, kt.tensor([[3], [0]]))


# ---------------------------------------------------------------- sort, topk


@task
@given(
    cases(
        shapes(min_dims=1, max_dims=3, max_size=24),
        st.sampled_from([0.0, 1.0, 2.0, -1.0, 0.5]),
    ),
    st.data(),
)
def test_sort_is_stable_like_numpy(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    descending = data.draw(st.booleans())
    values, indices = case.tensor().sort(dim, descending)
    key = -case.array if descending else case.array
    order = np.argsort(key, axis=dim, kind="stable")
    assert_matches(indices, order)
    assert_matches(values, np.take_along_axis(case.array, order, axis=dim))


@task
@given(distinct_cases(grad_shapes), st.data())
@few
def test_sort_and_topk_gradients_follow_the_inverse_permutation(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    descending = data.draw(st.booleans())
    weights = kt.arange(case.array.size).view(case.array.shape)
    check_gradients(lambda t: t.sort(dim, descending)[0] * weights, case)
    k = data.draw(st.integers(0, case.array.shape[dim]))
    check_gradients(lambda t: t.topk(k, dim)[0].exp(), case)


@task
@given(
    cases(
        shapes(min_dims=1, max_dims=3, max_size=24), st.sampled_from([0.0, 1.0, 2.0])
    ),
    st.data(),
)
def test_topk_matches_a_stable_sort(case, data):
    dim = data.draw(dims_of(case.array.ndim))
    k = data.draw(st.integers(0, case.array.shape[dim]))
    largest = data.draw(st.booleans())
    values, indices = case.tensor().topk(k, dim, largest)
    key = -case.array if largest else case.array
    order = np.take(np.argsort(key, axis=dim, kind="stable"), range(k), axis=dim)
    assert_matches(indices, order)
    assert_matches(values, np.take_along_axis(case.array, order, axis=dim))


@task
def test_sort_ties_and_topk_errors():
    values, indices = kt.tensor([2.0, 1.0, 2.0, 1.0]).sort(descending=True)
    assert values.tolist() == [2.0, 2.0, 1.0, 1.0]
    assert indices.tolist() == [0.0, 2.0, 1.0, 3.0]
    # The docstring's "k is not in [0, size]": the message names k (PyTorch says
    # "selected index k out of range", naming neither).
    with pytest.raises(ValueError) as error:
        kt.zeros(4).topk(5)
    if "selected index k out of range" not in str(error.value):
        assert_names(error.value, 5)
    zero_d, where = kt.tensor(3.0).sort()
    assert zero_d.shape == () and where.item() == 0.0
    # torch.topk(torch.tensor(3.), 1): 0-d values and indices
    top, at = kt.tensor(3.0).topk(1)
    assert top.shape == () == at.shape and (top.item(), at.item()) == (3.0, 0.0)
    top, at = kt.tensor(3.0).topk(0)  # torch: k=0 also gives the 0-d value
    assert top.shape == () == at.shape and (top.item(), at.item()) == (3.0, 0.0)
    with pytest.raises(ValueError):
        kt.tensor(3.0).topk(2)


@task
def test_sort_and_topk_name_a_dim_out_of_range():
    for f in (lambda t: t.sort(dim=5), lambda t: t.topk(1, dim=5)):
        with pytest.raises(IndexError) as error:  # torch: "Dimension out of range"
            f(kt.zeros(2, 3))
        assert_names(error.value, 5)


# ---------------------------------------------------------------- var


@task
@given(cases(shapes(min_dims=1, max_size=24)), st.data())
def test_var_and_std_match_numpy(case, data):
    t, x = case.tensor(), case.array
    dim = data.draw(st.none() | dims_of(x.ndim))
    keepdim = data.draw(st.booleans())
    n = x.size if dim is None else x.shape[dim]
    axis = None if dim is None else dim
    assert_matches(
        t.var(dim, unbiased=False, keepdim=keepdim), x.var(axis, keepdims=keepdim)
    )
    if n > 1:
        assert_matches(
            kt.var(t, dim, keepdim=keepdim), x.var(axis, ddof=1, keepdims=keepdim)
        )
        assert_matches(t.std(dim), x.std(axis, ddof=1))
        assert_matches(t.var(dim, correction=0), x.var(axis))


@task
@given(cases(shapes(min_dims=1, max_dims=3, min_side=2, max_size=12)), st.data())
@few
def test_var_gradient(case, data):
    dim = data.draw(st.none() | dims_of(case.array.ndim))
    check_gradients(lambda t: t.var(dim), case)
    check_gradients(lambda t: t.var(dim, unbiased=False), case)


@task
def test_var_of_too_few_entries_is_nan():
    # As PyTorch: the unbiased variance of one entry is 0/0 = nan.
    assert np.isnan(kt.tensor([1.0]).var().item())
    assert np.isnan(kt.tensor(2.0).std().item())
    assert kt.tensor([1.0]).var(unbiased=False).item() == 0.0


@task
def test_var_with_a_correction_of_n_or_more_is_inf():
    # As PyTorch: n - c <= 0 divides a positive sum of squares by 0 (inf); only
    # deviations that are all 0 give 0/0 = nan.
    assert kt.tensor([1.0, 2.0]).var(correction=2).item() == math.inf
    assert kt.tensor([1.0, 2.0]).std(correction=3).item() == math.inf
    assert np.isnan(kt.tensor([1.0, 1.0]).var(correction=2).item())


# ---------------------------------------------------------------- grad modes


@task
def test_no_grad_records_nothing_and_restores_the_mode():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    with kt.no_grad():
        y = x * 2
        with kt.no_grad():
            z = y + 1
        w = z * x
    assert not y.requires_grad and y.history is None
    assert not w.requires_grad
    assert kt.is_grad_enabled()
    assert (x * 2).requires_grad
    with pytest.raises(ZeroDivisionError):
        with kt.no_grad():
            1 / 0
    assert kt.is_grad_enabled()

    @kt.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    assert kt.is_grad_enabled()
    with kt.no_grad() as mode:  # __enter__ returns the context manager
        assert isinstance(mode, kt.no_grad) and not kt.is_grad_enabled()


@task
def test_detach_shares_the_numbers_without_history():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).detach()
    assert not y.requires_grad and y.is_leaf
    z = x * 3
    d = z.detach()
    assert shares_storage(d, z)
    (x * y).sum().backward()
    assert x.grad.tolist() == [3.0, 6.0]  # y is a constant


@task
def test_requires_grad_and_frozen_parameters():
    x = kt.tensor([1.0])
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad_(False)
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match="only works on leaves"):
        (kt.tensor([1.0], requires_grad=True) * 2).requires_grad_(False)

    class Layer(Module):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(kt.tensor([[1.0, 2.0]]))
            self.bias = Parameter(kt.tensor([0.5]))

        def forward(self, inputs):
            return inputs @ self.weight.value.T + self.bias.value

    layer = Layer()
    assert layer.weight.value.requires_grad  # Parameter switches tracking on
    layer.bias.value.requires_grad_(False)  # freeze
    layer(kt.tensor([[1.0, 1.0]])).sum().backward()
    assert layer.weight.value.grad.tolist() == [[1.0, 1.0]]
    assert layer.bias.value.grad is None


@task
def test_retain_grad_keeps_gradients_of_intermediates():
    x = kt.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    assert y.retain_grad() is y
    z = kt.retain_grad(y * 3)
    z.sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    assert z.grad.tolist() == [1.0, 1.0]
    assert x.grad.tolist() == [6.0, 12.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        kt.tensor([1.0]).retain_grad()
