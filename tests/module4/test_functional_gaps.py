"""PyTorch's functional pieces the probe found missing (given code):
``F.logsigmoid``/``nn.LogSigmoid``, ``F.batch_norm`` (with its running
statistics), ``F.adaptive_max_pool2d``/``nn.AdaptiveMaxPool2d``,
``F.pad`` with negative widths (cropping), ``F.linear`` with a 1-D weight,
``Module.half()`` and a shared layer's ``state_dict`` entries; ``diff``,
``take_along_dim``, ``Tensor.unfold``, ``index_fill``, ``type_as``,
``F.pairwise_distance``/``nn.PairwiseDistance``,
``F.triplet_margin_loss``/``nn.TripletMarginLoss``, and the function forms
``kt.broadcast_to``/``kt.expand`` keeping an integer dtype.
Values against NumPy written from PyTorch's documented formulas, gradients
against central differences. The in-place forms of the activations and
dropout (``inplace=True``, PyTorch's) change their input itself."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

RNG = np.random.default_rng(3)


@pytest.mark.task2_6
def test_logsigmoid_is_log_of_sigmoid_and_stable_far_out():
    x = RNG.normal(size=(3, 4)) * 3.0
    check_grad(F.logsigmoid, [x], reference=lambda a: -np.logaddexp(0.0, -a))
    far = F.logsigmoid(kt.tensor([-800.0, 800.0])).tolist()
    assert far == [-800.0, 0.0]
    assert nn.LogSigmoid()(kt.tensor([0.0])).item() == pytest.approx(-np.log(2.0))


@pytest.mark.task2_6
def test_softplus_and_logsigmoid_at_infinity_are_their_limits():
    # softplus(-inf) = 0 and logsigmoid(inf) = 0 with gradient 0 and 1, as
    # PyTorch's (the stable formula's max(z, 0) part is -inf + inf there).
    inf = np.inf
    x = kt.tensor([-inf, inf], requires_grad=True)
    y = F.softplus(x)
    np.testing.assert_array_equal(y.detach().to_numpy(), [0.0, inf])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.to_numpy(), [0.0, 1.0])
    assert np.isnan(F.softplus(kt.tensor([np.nan])).item())
    z = F.logsigmoid(kt.tensor([inf, -inf]))
    np.testing.assert_array_equal(z.to_numpy(), [0.0, -inf])
    assert F.softplus(kt.tensor([-inf]), beta=2.0, threshold=5.0).item() == 0.0


def _batch_norm_ref(x, w, b, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    z = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return z * w.reshape(shape) + b.reshape(shape)


@pytest.mark.task2_6
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 3)])
def test_batch_norm_in_training_normalises_over_batch_and_positions(shape):
    x = RNG.normal(size=shape) * 2.0 + 1.0
    w, b = np.array([1.0, 2.0, -0.5]), np.array([0.0, 0.1, 0.3])
    check_grad(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [x, w, b],
        reference=_batch_norm_ref,
    )


@pytest.mark.task2_6
def test_batch_norm_moves_the_running_statistics_and_uses_them_in_eval():
    x = np.array([[1.0, 2.0], [3.0, 5.0], [0.0, 1.0]])
    mean, var = kt.zeros(2), kt.ones(2)
    F.batch_norm(kt.tensor(x), mean, var, training=True, momentum=0.2)
    # 0.8 * old + 0.2 * batch (the variance unbiased: n - 1 = 2)
    np.testing.assert_allclose(mean.tolist(), 0.2 * x.mean(0))
    np.testing.assert_allclose(var.tolist(), 0.8 + 0.2 * x.var(0, ddof=1))
    out = F.batch_norm(
        kt.tensor(x), kt.tensor([1.0, 1.0]), kt.tensor([4.0, 2.0]), training=False
    )
    np.testing.assert_allclose(
        out.tolist(), (x - 1.0) / np.sqrt(np.array([4.0, 2.0]) + 1e-5)
    )


def _adaptive_max_ref(x, oh, ow):
    """Each output cell the max of rows floor(i H / oh) .. ceil((i + 1) H / oh)."""
    h, w = x.shape[-2:]
    out = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = i * h // oh, -(-(i + 1) * h // oh)
            c0, c1 = j * w // ow, -(-(j + 1) * w // ow)
            out[..., i, j] = x[..., r0:r1, c0:c1].max(axis=(-2, -1))
    return out


@pytest.mark.task2_6
@pytest.mark.parametrize("size", [3, (4, 2), (None, 3), 1])
def test_adaptive_max_pool2d_takes_each_windows_maximum(size):
    x = RNG.normal(size=(2, 2, 7, 5))
    oh, ow = (size, size) if isinstance(size, int) else size
    oh, ow = oh or 7, ow or 5
    check_grad(
        lambda t: F.adaptive_max_pool2d(t, size),
        [x],
        reference=lambda a: _adaptive_max_ref(a, oh, ow),
    )
    layer = nn.AdaptiveMaxPool2d(size)
    want = _adaptive_max_ref(x[0], oh, ow)
    np.testing.assert_allclose(layer(kt.tensor(x[0])).to_numpy(), want)


@pytest.mark.parametrize("widths", [(-6, 0), (0, -6), (-3, -3), (1, 1, -4, 0)])
def test_pad_that_crops_more_than_a_dimension_holds_raises_as_pytorch(widths):
    # PyTorch raises where a negative width would leave a negative size (a size
    # of exactly 0 is allowed); NumPy-style slicing would give an empty tensor.
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 5))
    with pytest.raises(RuntimeError):
        torch.nn.functional.pad(torch.tensor(x), widths)
    with pytest.raises(RuntimeError, match="crops more than"):
        F.pad(kt.tensor(x), widths)
    assert F.pad(kt.tensor(x), (-5, 0)).shape == (2, 3, 0)  # (exactly all: allowed)


@pytest.mark.task2_6
@pytest.mark.parametrize("widths", [(-1, 1), (2, -3), (1, -2, -1, 0), (-1, -1)])
def test_pad_with_negative_widths_crops_as_pytorch(widths):
    x = RNG.normal(size=(2, 3, 5))
    pairs = [(widths[k], widths[k + 1]) for k in range(0, len(widths), 2)][::-1]
    pairs = [(0, 0)] * (3 - len(pairs)) + pairs  # (first dim first, as NumPy)

    def reference(a: np.ndarray) -> np.ndarray:
        # NumPy: pad the positive widths with 2.5, then slice the negative ones off.
        grown = [(max(p, 0), max(q, 0)) for p, q in pairs]
        padded = np.pad(a, grown, constant_values=2.5)
        cut = [
            slice(max(-p, 0), n - max(-q, 0)) for (p, q), n in zip(pairs, padded.shape)
        ]
        return padded[tuple(cut)]

    check_grad(lambda t: F.pad(t, widths, value=2.5), [x], reference=reference)


@pytest.mark.task2_6
def test_linear_with_a_one_dimensional_weight_gives_one_number_per_row():
    x, w = RNG.normal(size=(4, 5)), RNG.normal(size=5)
    check_grad(F.linear, [x, w], reference=lambda x, w: x @ w)
    with pytest.raises(ValueError, match="does not fit a weight"):
        F.linear(kt.tensor(x), kt.zeros(4))


@pytest.mark.task4_6  # (Task 4.6's Linear and BatchNorm1d)
def test_half_makes_floating_point_parameters_and_buffers_float16_in_place():
    linear, norm = nn.Linear(3, 2), nn.BatchNorm1d(2)
    weight = linear.weight
    model = nn.Sequential(linear, norm)
    assert model.half() is model and linear.weight is weight
    assert linear.weight.dtype is kt.float16 and norm.running_var.dtype is kt.float16
    assert norm.num_batches_tracked.dtype is kt.int64  # (integers stay, as PyTorch)


@pytest.mark.task4_6  # (Task 4.6's Linear)
def test_a_shared_layer_is_in_the_state_dict_under_each_name():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, shared)
    state = model.state_dict()
    assert list(state) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert state["1.weight"].tolist() == shared.weight.tolist()
    result = model.load_state_dict(state)
    assert (result.missing_keys, result.unexpected_keys) == ([], [])
    assert len(list(model.parameters())) == 2  # (parameters: each once)


# ------------------------------------------- more tensor ops, distances, dtypes


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "make", [lambda x: kt.broadcast_to(x, (2, 3)), lambda x: kt.expand(x, 2, 3)]
)
def test_the_function_forms_of_broadcasting_keep_an_integer_dtype(make):
    out = make(kt.tensor([1, 2, 3]))
    assert out.dtype == kt.int64 and out.tolist() == [[1, 2, 3], [1, 2, 3]]
    assert make(kt.tensor([True, False, True])).dtype == kt.bool


@pytest.mark.task2_6
@pytest.mark.parametrize("n, dim", [(1, -1), (2, 1), (1, 0)])
def test_diff_is_numpys_forward_difference(n, dim):
    x = RNG.normal(size=(3, 4))
    check_grad(lambda t: t.diff(n, dim), [x], reference=lambda a: np.diff(a, n, dim))
    ints = np.array([[1, 4, 9, 16], [2, 3, 5, 7]])
    out = kt.diff(kt.tensor(ints), n, dim)
    assert out.dtype == kt.int64 and out.tolist() == np.diff(ints, n, dim).tolist()


@pytest.mark.task2_6
def test_diff_joins_prepend_and_append_and_compares_bools():
    x = kt.tensor([1.0, 3.0, 6.0])
    out = x.diff(prepend=kt.tensor([0.0]), append=kt.tensor([10.0]))
    assert out.tolist() == np.diff([0.0, 1.0, 3.0, 6.0, 10.0]).tolist()
    flags = kt.tensor([True, True, False, True])
    assert flags.diff().dtype == kt.bool
    assert flags.diff().tolist() == [False, True, True]  # (NumPy: not_equal)
    # The three are joined in the dtype they promote to, as torch.diff: an int
    # tensor with a float prepend differences floats (an int64 label held 0.5),
    # and a mask with an int prepend is an int tensor, subtracted.
    ints = kt.tensor([1, 4, 9])
    out = kt.diff(ints, n=2, prepend=kt.tensor([0.5]), append=kt.tensor([2.25]))
    expected = np.diff([0.5, 1.0, 4.0, 9.0, 2.25], n=2)
    assert out.dtype == kt.float64 and out.tolist() == expected.tolist()
    out = flags.diff(prepend=kt.tensor([3]))
    assert out.dtype == kt.int64 and out.tolist() == [-2, 0, -1, 1]
    out = kt.tensor([1.0, 4.0], dtype=kt.float32).diff(prepend=kt.tensor([0.25]))
    assert out.dtype == kt.float64 and out.tolist() == [0.75, 3.0]


@pytest.mark.task2_6
@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_take_along_dim_is_numpys_take_along_axis(dim):
    x = RNG.normal(size=(3, 4))
    index = np.array([[0, 2, 1, 1], [2, 0, 0, 1]]) if dim == 0 else None
    if dim in (1, -1):
        index = np.array([[3, 0], [1, 1], [0, 2]])
    if dim is None:
        index = np.array([11, 0, 5])
    ref = lambda a: np.take_along_axis(a, index, dim)  # noqa: E731
    check_grad(
        lambda t: kt.take_along_dim(t, t.new_tensor(index, dtype=kt.int64), dim),
        [x],
        reference=ref,
    )


@pytest.mark.task2_6
def test_take_along_dim_broadcasts_outside_dim_and_keeps_the_dtype():
    x = kt.tensor([[5, 6, 7], [8, 9, 10]])
    out = x.take_along_dim(kt.tensor([[2, 0]]), 1)  # (one row of indices for both)
    assert out.dtype == kt.int64 and out.tolist() == [[7, 5], [10, 8]]


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "dim, size, step", [(1, 2, 1), (1, 3, 2), (0, 2, 1), (-1, 5, 1)]
)
def test_unfold_gives_the_sliding_windows_as_a_last_dim(dim, size, step):
    x = RNG.normal(size=(3, 5))

    def ref(a):
        windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
        return np.take(windows, range(0, windows.shape[dim], step), axis=dim)

    check_grad(lambda t: t.unfold(dim, size, step), [x], reference=ref)
    assert kt.tensor([[1, 2, 3]]).unfold(1, 2, 1).dtype == kt.int64


@pytest.mark.task2_6
def test_index_fill_sets_the_chosen_slices_and_passes_the_gradient_elsewhere():
    x = RNG.normal(size=(2, 4))

    def ref(a):
        out = a.copy()
        out[:, [0, 3]] = -1.0
        return out

    index = kt.tensor([0, -1])
    check_grad(lambda t: t.index_fill(1, index, -1.0), [x], reference=ref)
    y = kt.tensor([[1, 2], [3, 4]])
    assert y.index_fill_(0, kt.tensor([1]), 7) is y and y.tolist() == [[1, 2], [7, 7]]
    assert y.dtype == kt.int64


@pytest.mark.task2_6
def test_type_as_converts_to_the_other_tensors_dtype():
    x = kt.tensor([1.7, -2.5])
    assert x.type_as(kt.tensor([1])).dtype == kt.int64
    assert x.type_as(kt.tensor([1])).tolist() == [1, -2]  # (toward zero)
    assert kt.tensor([1, 2]).type_as(x.float()).dtype == kt.float32


def _distance_ref(a, b, p=2.0, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1.0 / p)


@pytest.mark.task2_6
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_pairwise_distance_is_the_p_norm_of_the_difference_plus_eps(p):
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    ref = lambda x, y: _distance_ref(x, y, p)  # noqa: E731
    check_grad(lambda x, y: F.pairwise_distance(x, y, p), [a, b], reference=ref)
    out = F.pairwise_distance(kt.tensor(a), kt.tensor(b), p, keepdim=True)
    np.testing.assert_allclose(out.to_numpy(), ref(a, b)[:, None], rtol=1e-12)


def _triplet_ref(a, p, n, margin=1.0, swap=False):
    d_neg = _distance_ref(a, n)
    if swap:
        d_neg = np.minimum(d_neg, _distance_ref(p, n))
    return np.maximum(margin + _distance_ref(a, p) - d_neg, 0.0)


@pytest.mark.task2_6
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_hinges_on_the_two_distances(swap):
    a, p, n = (RNG.normal(size=(5, 3)) for _ in range(3))
    want = _triplet_ref(a, p, n, 0.5, swap)
    check_grad(
        lambda *t: F.triplet_margin_loss(*t, margin=0.5, swap=swap, reduction="none"),
        [a, p, n],
        reference=lambda *arrays: _triplet_ref(*arrays, 0.5, swap),
    )
    out = F.triplet_margin_loss(*map(kt.tensor, (a, p, n)), 0.5, swap=swap)
    assert out.item() == pytest.approx(want.mean(), rel=1e-12)
    with pytest.raises(ValueError, match="reduction"):
        F.triplet_margin_loss(kt.tensor(a), kt.tensor(p), kt.tensor(n), reduction="x")


@pytest.mark.task2_6
def test_pairwise_distance_and_triplet_margin_loss_layers_take_torchs_settings():
    a, p, n = (RNG.normal(size=(5, 3)) for _ in range(3))
    ta, tp, tn = map(kt.tensor, (a, p, n))
    distance = nn.PairwiseDistance(1.0, 1e-3, True)  # (p, eps, keepdim)
    np.testing.assert_allclose(
        distance(ta, tp).to_numpy(), _distance_ref(a, p, 1.0, 1e-3)[:, None]
    )
    origin, point = kt.tensor([[0.0, 0.0]]), kt.tensor([[3.0, 4.0]])
    assert nn.PairwiseDistance()(origin, point).item() == pytest.approx(5.0, abs=1e-5)
    loss = nn.TripletMarginLoss(0.5, swap=True, reduction="none")
    np.testing.assert_allclose(
        loss(ta, tp, tn).to_numpy(), _triplet_ref(a, p, n, 0.5, True), rtol=1e-12
    )
    loss.margin, loss.reduction = 2.0, "sum"  # settings are attributes
    want = _triplet_ref(a, p, n, 2.0, True).sum()
    assert loss(ta, tp, tn).item() == pytest.approx(want, rel=1e-12)
    assert repr(nn.TripletMarginLoss()) == "TripletMarginLoss()"


@pytest.mark.task4_6  # (Task 4.6's Embedding)
def test_embedding_refuses_float_indices_and_looks_up_integer_ones():
    layer = nn.Embedding(5, 2)
    table = layer.weight.value.to_numpy()
    for lookup in (layer, lambda i: F.embedding(i, layer.weight.value)):
        with pytest.raises(RuntimeError, match="expected Long or Int indices"):
            lookup(kt.tensor([[1.0, 2.0]]))
        with pytest.raises(RuntimeError, match="expected Long or Int indices"):
            lookup(np.array([1.0, 2.0]))
        out = lookup(kt.tensor([[4, 0, 4]]))
        np.testing.assert_array_equal(out.to_numpy(), table[[[4, 0, 4]]])
        assert lookup(np.array([3, 1])).to_numpy().tolist() == table[[3, 1]].tolist()


@pytest.mark.task4_6  # (Task 4.6's cross_entropy)
def test_class_index_targets_must_be_integers_as_pytorchs():
    logits = RNG.normal(size=(4, 5))
    x, logp = kt.tensor(logits), F.log_softmax(kt.tensor(logits), dim=1)
    for loss in (lambda t: F.cross_entropy(x, t), lambda t: F.nll_loss(logp, t)):
        for target in (
            kt.tensor([1.0, 0.0, 4.0, 2.0]),
            kt.tensor([1, 0, 4, 2]).float(),
        ):
            with pytest.raises(RuntimeError, match="expected target dtype to be Long"):
                loss(target)
        # -mean(log softmax(x)[n, t_n]), worked with NumPy
        shifted = logits - logits.max(1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        want = -log_probs[np.arange(4), [1, 0, 4, 2]].mean()
        assert loss(kt.tensor([1, 0, 4, 2])).item() == pytest.approx(want, rel=1e-12)
    # A float target of the input's shape holds probabilities: still a float.
    one_hot = np.eye(5)[[1, 0, 4, 2]]
    assert F.cross_entropy(x, kt.tensor(one_hot)).item() == pytest.approx(want)


def _softplus(a):
    return np.where(a > 20.0, a, np.logaddexp(0.0, a))


# PyTorch's in-place activations, each with its positional settings and the
# function it computes (the documented formulas, in NumPy).
IN_PLACE_ACTIVATIONS = [
    (F.relu, (), lambda a: np.maximum(a, 0.0)),
    (F.leaky_relu, (0.1,), lambda a: np.where(a > 0, a, 0.1 * a)),
    (F.elu, (0.7,), lambda a: np.where(a > 0, a, 0.7 * np.expm1(a))),
    (F.silu, (), lambda a: a / (1.0 + np.exp(-a))),
    (F.hardtanh, (-0.5, 1.0), lambda a: np.clip(a, -0.5, 1.0)),
    (F.relu6, (), lambda a: np.clip(a, 0.0, 6.0)),
    (F.mish, (), lambda a: a * np.tanh(_softplus(a))),
]


@pytest.mark.task2_6
@pytest.mark.parametrize("function, settings, reference", IN_PLACE_ACTIVATIONS)
def test_inplace_activations_write_into_the_input_and_differentiate(
    function, settings, reference
):
    a = RNG.normal(size=(3, 4)) * 3.0
    x = kt.tensor(a)
    out = function(x, *settings, True)  # (PyTorch's positional inplace)
    assert out is x
    np.testing.assert_allclose(x.to_numpy(), reference(a), rtol=1e-12, atol=1e-12)
    y = kt.tensor(a)
    np.testing.assert_allclose(function(y, *settings).to_numpy(), reference(a))
    np.testing.assert_array_equal(y.to_numpy(), a)  # (out of place: unchanged)
    # On a non-leaf the change is recorded: gradients of the input through it.
    check_grad(
        lambda t: function(t * 1.0, *settings, inplace=True), [a], reference=reference
    )


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "layer",
    [
        lambda: nn.ReLU(inplace=True),
        lambda: nn.ReLU(True),
        lambda: nn.LeakyReLU(0.1, inplace=True),
        lambda: nn.LeakyReLU(0.1, True),
        lambda: nn.ELU(inplace=True),
        lambda: nn.SiLU(inplace=True),
        lambda: nn.ReLU6(inplace=True),
        lambda: nn.Hardtanh(-0.5, 0.5, inplace=True),
        lambda: nn.Mish(inplace=True),
    ],
)
def test_inplace_activation_layers_change_and_return_their_input(layer):
    a = RNG.normal(size=(2, 5)) * 3.0
    x = kt.tensor(a)
    out = layer()(x)
    assert out is x
    assert not np.array_equal(x.to_numpy(), a)
    plain = kt.tensor(a)
    layer().__class__()(plain)  # (the default, inplace=False, keeps it)
    np.testing.assert_array_equal(plain.to_numpy(), a)


@pytest.mark.task2_6
def test_inplace_activations_keep_pytorchs_autograd_errors():
    leaf = kt.tensor([-1.0, 2.0], requires_grad=True)
    for change in (lambda t: F.relu(t, inplace=True), nn.SiLU(inplace=True)):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            change(leaf)
    # A value saved for backward (exp saves its input), then changed in place.
    hidden = leaf * 2.0
    saved = hidden.exp()
    F.elu(hidden, inplace=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved.sum().backward()
    # Without gradients, a leaf may be changed.
    with kt.no_grad():
        F.leaky_relu(leaf, 0.5, True)
    assert leaf.tolist() == [-0.5, 2.0]


@pytest.mark.task4_4  # (Task 4.4's dropout)
def test_inplace_dropout_scales_or_zeroes_the_input_itself():
    a = RNG.uniform(1.0, 2.0, size=(4, 3, 2, 2))
    x = kt.tensor(a)
    assert F.dropout(x, 0.5, True, True) is x
    kept = x.to_numpy() != 0.0
    assert 0 < kept.sum() < a.size
    np.testing.assert_allclose(x.to_numpy()[kept], 2.0 * a[kept])
    # Not in training, the input is left as it is (a leaf that requires grad too).
    x = kt.tensor(a, requires_grad=True)
    assert F.dropout(x, 0.5, False, True) is x
    np.testing.assert_array_equal(x.to_numpy(), a)


@pytest.mark.task4_6  # (the layers are Task 0.4's Modules, train/eval)
def test_inplace_dropout_layers_scale_or_zero_the_input_itself():
    a = RNG.uniform(1.0, 2.0, size=(4, 3, 2, 2))
    layer = nn.Dropout(0.25, inplace=True)
    x = kt.tensor(a)
    assert layer(x) is x
    kept = x.to_numpy() != 0.0
    np.testing.assert_allclose(x.to_numpy()[kept], a[kept] / 0.75)
    # Whole channels: each (n, c) map is all zeros or all scaled.
    x = kt.tensor(a)
    assert nn.Dropout2d(0.5, inplace=True)(x) is x
    maps = x.to_numpy().reshape(4, 3, 4)
    scaled = np.isclose(maps, 2.0 * a.reshape(4, 3, 4)).all(-1)
    assert (scaled | (maps == 0.0).all(-1)).all()
    # In evaluation the input is left as it is (a leaf that requires grad too).
    layer.eval()
    x = kt.tensor(a, requires_grad=True)
    assert layer(x) is x
    np.testing.assert_array_equal(x.to_numpy(), a)


MASK = np.array([[True, False, True], [False, False, True]])


@pytest.mark.task2_6
def test_a_mask_computes_as_its_zeros_and_ones_where_pytorch_does():
    # (Library code subtracting inside: PyTorch computes these for a mask, though
    # its `-` of a mask raises.)
    b, ones = kt.tensor(MASK), MASK.astype(np.float64)
    want = np.log(np.exp(ones).sum(1))
    np.testing.assert_allclose(kt.logsumexp(b, 1).to_numpy(), want, rtol=1e-12)
    assert kt.logsumexp(b, (0, 1)).item() == pytest.approx(np.log(np.exp(ones).sum()))
    np.testing.assert_array_equal(kt.fmod(b, 1.5).to_numpy(), np.fmod(ones, 1.5))
    whole = b.fmod(2)
    assert whole.dtype == kt.int64 and whole.tolist() == [[1, 0, 1], [0, 0, 1]]
    x = RNG.normal(size=(2, 3)) * 2.0
    f = kt.tensor(x, dtype=kt.float32)
    d = np.abs(x - ones)
    smooth = np.where(d < 1.0, 0.5 * d * d, d - 0.5).mean()
    for loss in (F.smooth_l1_loss(f, b), F.smooth_l1_loss(b, f), F.huber_loss(f, b)):
        assert loss.dtype == kt.float32
        # (item() rounds to float32, as PyTorch's; the storage is float64-exact)
        assert loss.item() == np.float32(smooth)
        assert loss.to_numpy().item() == pytest.approx(smooth, rel=1e-12)
    with pytest.raises(RuntimeError, match="Subtraction"):
        b - f  # (the operator itself still raises, as PyTorch's)


@pytest.mark.task4_6
def test_mse_loss_of_a_mask_computes_as_pytorchs_and_l1_loss_raises():
    b, ones = kt.tensor(MASK), MASK.astype(np.float64)
    x = RNG.normal(size=(2, 3)) * 2.0
    mse = F.mse_loss(kt.tensor(x, dtype=kt.float32), b)
    assert mse.dtype == kt.float32
    assert mse.to_numpy().item() == pytest.approx(((x - ones) ** 2).mean(), rel=1e-12)
    with pytest.raises(RuntimeError, match="Subtraction"):
        F.l1_loss(kt.tensor(x), b)  # (PyTorch's l1_loss subtracts: it raises too)


@pytest.mark.task2_6
@pytest.mark.parametrize("number", [3, -2, 1.5, True])
def test_maximum_and_minimum_take_tensors_only(number):
    x = kt.tensor([[1.5, -2.5, 3.0]])
    for name in ("maximum", "minimum"):
        message = f"{name}\\(\\): argument 'other' .* must be Tensor, not "
        with pytest.raises(TypeError, match=message + type(number).__name__):
            getattr(x, name)(number)
        with pytest.raises(TypeError, match=message):
            getattr(kt, name)(x, number)
    # A 0-d tensor of the number is fine, and clamp takes the number.
    high = np.maximum(x.to_numpy(), number)
    np.testing.assert_array_equal(x.maximum(kt.tensor(float(number))).to_numpy(), high)
    np.testing.assert_array_equal(x.clamp(min=number).to_numpy(), high)
