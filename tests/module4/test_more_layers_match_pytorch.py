"""More of ``torch.nn`` (given): the activations ``Hardtanh``, ``ReLU6``,
``Mish`` and ``PReLU`` with their ``F`` forms, the losses
``MarginRankingLoss``, ``CosineEmbeddingLoss``, ``GaussianNLLLoss`` and
``BCELoss(weight=)``, ``Unflatten``, ``ParameterDict``, and Module's
``register_parameter`` and ``state_dict(keep_vars=True)``.

Values and gradients are compared with ``torch`` itself (skipping, with the
install command, where it is absent) and the gradients also with central
differences of NumPy references (PyTorch's documented formulas), which run
everywhere. The code under test is given, built from tensor operations; the
tests that also build Task 4.6's layers carry its marker."""

from __future__ import annotations

import math

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.module4.helpers import check_grad
from tests.pytorch_reference import import_torch

task2_6 = pytest.mark.task2_6
RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3, 5)) * 4.0  # (none exactly on a kink of hardtanh)
Y = RNG.normal(size=(4, 3, 5)) * 4.0
SIGNS = np.where(RNG.normal(size=(4, 3, 5)) > 0, 1.0, -1.0)


def _against_torch(ours, theirs, arrays, grads=True):
    """``ours`` (Kindling tensors) and ``theirs`` (torch tensors) at ``arrays``:
    the same values, and the same gradient of a weighted sum for every input."""
    torch = import_torch()
    weights = np.random.default_rng(1).normal(
        size=np.shape(ours(*map(kt.tensor, arrays)))
    )
    ks = [kt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    k_out, t_out = ours(*ks), theirs(torch, *ts)
    np.testing.assert_allclose(
        k_out.to_numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    if grads:
        (k_out * kt.tensor(weights)).sum().backward()
        (t_out * torch.tensor(weights)).sum().backward()
        for k, t in zip(ks, ts):
            np.testing.assert_allclose(
                k.grad.to_numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12
            )


# ------------------------------------------------------------- activations
ACTIVATIONS = {
    "hardtanh": (
        lambda x: F.hardtanh(x, -2.0, 3.0),
        lambda T, x: T.nn.functional.hardtanh(x, -2.0, 3.0),
        lambda x: np.clip(x, -2.0, 3.0),
    ),
    "relu6": (
        F.relu6,
        lambda T, x: T.nn.functional.relu6(x),
        lambda x: np.clip(x, 0.0, 6.0),
    ),
    "mish": (
        F.mish,
        lambda T, x: T.nn.functional.mish(x),
        lambda x: x * np.tanh(np.log1p(np.exp(x))),
    ),
}


@task2_6
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_their_formulas_and_central_differences(name):
    ours, _, reference = ACTIVATIONS[name]
    check_grad(ours, [X[0]], reference=reference)


@task2_6
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_pytorch(name):
    ours, theirs, _ = ACTIVATIONS[name]
    _against_torch(ours, theirs, [X])


@task2_6
def test_activation_modules_are_their_functions():
    x = kt.tensor(X)
    for module, function in [
        (nn.ReLU6(), F.relu6),
        (nn.Mish(), F.mish),
        (nn.Hardtanh(-0.5, 0.25), lambda t: F.hardtanh(t, -0.5, 0.25)),
    ]:
        np.testing.assert_array_equal(module(x).to_numpy(), function(x).to_numpy())
    with pytest.raises(ValueError, match="min_val"):
        nn.Hardtanh(1.0, -1.0)


def test_function_layers_take_their_functions_settings_in_order():
    # A layer's settings are its function's, in PyTorch's order and defaults.
    torch = import_torch()
    pairs = [
        (nn.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2), "negative_slope"),
        (nn.Softplus(2.0, 5.0), torch.nn.Softplus(2.0, 5.0), "threshold"),
        (nn.MarginRankingLoss(0.5), torch.nn.MarginRankingLoss(0.5), "margin"),
        (nn.GaussianNLLLoss(full=True), torch.nn.GaussianNLLLoss(full=True), "full"),
        (nn.CosineSimilarity(0), torch.nn.CosineSimilarity(0), "dim"),
        (nn.AvgPool2d(3, 1, 1, True), torch.nn.AvgPool2d(3, 1, 1, True), "ceil_mode"),
        (nn.HuberLoss(delta=0.5), torch.nn.HuberLoss(delta=0.5), "delta"),
    ]
    for ours, theirs, name in pairs:
        assert getattr(ours, name) == getattr(theirs, name), (ours, name)
    assert nn.CrossEntropyLoss().reduction == "mean"
    layer = nn.ELU()
    layer.alpha = 2.0  # an attribute: the next call uses it
    np.testing.assert_allclose(
        layer(kt.tensor([-1.0])).to_numpy(), [2 * math.expm1(-1)]
    )
    with pytest.raises(TypeError, match="LeakyReLU.*slope"):
        nn.LeakyReLU(slope=0.2)
    with pytest.raises(TypeError, match="NLLLoss"):
        nn.NLLLoss(None, -100, "mean", "extra")


@pytest.mark.task4_6  # (a Module: Task 0.4's parameters)
@pytest.mark.parametrize("channels", [1, 3])
def test_prelu_matches_pytorch_and_learns_its_slopes(channels):
    torch = import_torch()
    ours, theirs = nn.PReLU(channels), torch.nn.PReLU(channels).double()
    assert ours.weight.shape == (channels,)
    np.testing.assert_allclose(ours.weight.to_numpy(), 0.25)
    assert [name for name, _ in ours.named_parameters()] == ["weight"]
    w = np.linspace(-0.5, 0.5, channels)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w))
    _against_torch(
        lambda x, a: F.prelu(x, a),
        lambda T, x, a: T.nn.functional.prelu(x, a),
        [X, w],
    )


@task2_6
def test_prelu_gradients_match_central_differences():
    def reference(x, a):
        return np.where(x > 0, x, a.reshape(1, 3, 1) * x)

    check_grad(
        lambda x, a: F.prelu(x, a),
        [X[:2], np.array([0.1, -0.2, 0.3])],
        reference=reference,
    )
    # One slope for every channel, and a 1-D input (its channels are dim 0).
    check_grad(
        lambda x, a: F.prelu(x, a),
        [X[0, 0], np.array([0.3])],
        reference=lambda x, a: np.where(x > 0, x, a * x),
    )


# ------------------------------------------------------------------ losses
def _margin_ranking(x1, x2, y, margin=0.5):
    return np.maximum(0.0, -y * (x1 - x2) + margin)


def _cosine_embedding(x1, x2, y, margin=0.2):
    dot = (x1 * x2).sum(-1)
    cos = dot / np.sqrt(((x1 * x1).sum(-1) + 1e-12) * ((x2 * x2).sum(-1) + 1e-12))
    return np.where(y == 1, 1 - cos, np.maximum(0.0, cos - margin))


def _gaussian_nll(x, t, v, full=False):
    return 0.5 * (np.log(v) + (x - t) ** 2 / v) + (
        0.5 * math.log(2 * math.pi) if full else 0
    )


@task2_6
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_margin_ranking_loss(reduction):
    x1, x2, y = X[0, 0], Y[0, 0], SIGNS[0, 0]

    def ours(a, b):
        return F.margin_ranking_loss(a, b, y, 0.5, reduction)

    check_grad(
        ours,
        [x1, x2],
        reference=lambda a, b: _reduce(_margin_ranking(a, b, y), reduction),
    )
    _against_torch(
        ours,
        lambda T, a, b: T.nn.functional.margin_ranking_loss(
            a, b, T.tensor(y), margin=0.5, reduction=reduction
        ),
        [x1, x2],
    )
    module = nn.MarginRankingLoss(0.5, reduction)
    np.testing.assert_allclose(
        module(kt.tensor(x1), kt.tensor(x2), kt.tensor(y)).to_numpy(),
        _reduce(_margin_ranking(x1, x2, y), reduction),
    )


def _reduce(values, reduction):
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(values)


@task2_6
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cosine_embedding_loss(reduction):
    x1, x2, y = X[0], Y[0], np.array([1.0, -1.0, -1.0])

    def ours(a, b):
        return F.cosine_embedding_loss(a, b, y, 0.2, reduction)

    check_grad(
        ours,
        [x1, x2],
        reference=lambda a, b: _reduce(_cosine_embedding(a, b, y), reduction),
    )
    _against_torch(
        ours,
        lambda T, a, b: T.nn.functional.cosine_embedding_loss(
            a, b, T.tensor(y), margin=0.2, reduction=reduction
        ),
        [x1, x2],
    )
    module = nn.CosineEmbeddingLoss(0.2, reduction)
    np.testing.assert_allclose(
        module(kt.tensor(x1), kt.tensor(x2), kt.tensor(y)).to_numpy(),
        _reduce(_cosine_embedding(x1, x2, y), reduction),
    )


@task2_6
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gaussian_nll_loss(full, reduction):
    x, t = X[0], Y[0]
    var = np.abs(Y[1]) + 0.1

    def ours(a, v):
        return F.gaussian_nll_loss(a, t, v, full, 1e-6, reduction)

    check_grad(
        ours,
        [x, var],
        reference=lambda a, v: _reduce(_gaussian_nll(a, t, v, full), reduction),
    )
    _against_torch(
        ours,
        lambda T, a, v: T.nn.functional.gaussian_nll_loss(
            a, T.tensor(t), v, full=full, reduction=reduction
        ),
        [x, var],
    )


@task2_6
def test_gaussian_nll_loss_variance_shapes_and_clamp():
    torch = import_torch()
    x, t = X[0], Y[0]  # (3, 5)
    row_var = np.abs(Y[1, :, 0]) + 0.5  # one variance per row: (3,) or (3, 1)
    for var in (row_var, row_var[:, None], np.array([0.0, 2.0, 1e-9])[:, None], 0.7):
        kv = var if isinstance(var, float) else kt.tensor(var)
        tv = var if isinstance(var, float) else torch.tensor(var)
        np.testing.assert_allclose(
            F.gaussian_nll_loss(kt.tensor(x), kt.tensor(t), kv, eps=1e-3).item(),
            torch.nn.functional.gaussian_nll_loss(
                torch.tensor(x), torch.tensor(t), tv, eps=1e-3
            ).item(),
        )
    # The clamp at eps passes the gradient to var as if unclamped (as torch).
    _against_torch(
        lambda a, v: F.gaussian_nll_loss(a, kt.tensor(t), v, eps=0.5),
        lambda T, a, v: T.nn.functional.gaussian_nll_loss(a, T.tensor(t), v, eps=0.5),
        [x, np.full((3, 5), 0.1)],
    )
    with pytest.raises(ValueError, match="incorrect size"):
        F.gaussian_nll_loss(kt.tensor(x), kt.tensor(t), kt.ones(5, 3))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(kt.tensor(x), kt.tensor(t), kt.tensor(-np.ones((3, 5))))
    module = nn.GaussianNLLLoss(full=True, reduction="sum")
    np.testing.assert_allclose(
        module(kt.tensor(x), kt.tensor(t), kt.tensor(row_var)).item(),
        _gaussian_nll(x, t, row_var[:, None], full=True).sum(),
    )


@task2_6
@pytest.mark.parametrize(
    "loss, inputs",
    [
        (F.smooth_l1_loss, 2),
        (F.huber_loss, 2),
        (F.kl_div, 2),
        (F.margin_ranking_loss, 3),
        (F.cosine_embedding_loss, 3),
        (F.gaussian_nll_loss, 3),
    ],
)
def test_a_bad_reduction_is_rejected_first_naming_the_loss(loss, inputs):
    # None inputs fail any computation: the check comes before it (as PyTorch).
    with pytest.raises(ValueError, match=f"{loss.__name__}: reduction must be"):
        loss(*[None] * inputs, reduction="average")


@pytest.mark.task4_6  # (Task 4.6's binary_cross_entropy)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy_weight(reduction):
    p = 1.0 / (1.0 + np.exp(-X[0] / 4.0))  # (away from 0 and 1)
    y = (Y[0] > 0).astype(float)
    w = np.abs(Y[1, 0]) + 0.5  # (5,): broadcast over the rows, as torch does

    def reference(a):
        return _reduce(-w * (y * np.log(a) + (1 - y) * np.log(1 - a)), reduction)

    def ours(a):
        return F.binary_cross_entropy(a, y, w, reduction)

    check_grad(ours, [p], reference=reference)
    _against_torch(
        ours,
        lambda T, a: T.nn.functional.binary_cross_entropy(
            a, T.tensor(y), weight=T.tensor(w), reduction=reduction
        ),
        [p],
    )
    module = nn.BCELoss(weight=kt.tensor(w), reduction=reduction)
    np.testing.assert_allclose(
        module(kt.tensor(p), kt.tensor(y)).to_numpy(), reference(p)
    )


# ------------------------------------------------- containers and Module
@task2_6
def test_unflatten_inverts_flatten():
    x = kt.tensor(np.arange(2 * 12 * 5, dtype=float).reshape(2, 12, 5))
    for dim, sizes in [(1, (3, 4)), (1, (2, -1, 3)), (-1, (5, 1)), (0, (1, 2))]:
        expected_shape = list(x.shape)
        d = dim % 3
        flat = np.arange(2 * 12 * 5, dtype=float).reshape(2, 12, 5)
        want = flat.reshape(*expected_shape[:d], *sizes, *expected_shape[d + 1 :])
        got = nn.Unflatten(dim, sizes)(x)
        np.testing.assert_array_equal(got.to_numpy(), want)
    back = nn.Flatten(1, 2)(nn.Unflatten(1, (3, 4))(x))
    np.testing.assert_array_equal(back.to_numpy(), x.to_numpy())


@pytest.mark.task4_6  # (Task 0.4's Module registers them)
def test_parameter_dict_registers_its_values():
    pd = nn.ParameterDict({"a": kt.zeros(2), "b": nn.Parameter(kt.ones(3))})
    assert isinstance(pd["a"], nn.Parameter) and len(pd) == 2
    pd["c"] = kt.ones(1)
    assert list(pd) == pd.keys() == ["a", "b", "c"] and "c" in pd
    assert [name for name, _ in pd.named_parameters()] == ["a", "b", "c"]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.extra = nn.ParameterDict({"scale": kt.ones(1)})

    assert list(Net().state_dict()) == ["extra.scale"]
    removed = pd.pop("a")
    assert removed.shape == (2,) and "a" not in pd and pd.get("a") is None
    del pd["b"]
    assert [k for k, _ in pd.items()] == ["c"] and len(pd.values()) == 1
    pd.update([("d", kt.zeros(1))])
    assert pd.keys() == ["c", "d"]


@pytest.mark.task4_6
def test_register_parameter_as_pytorch():
    m = nn.Linear(2, 3)
    p = nn.Parameter(kt.zeros(4))
    m.register_parameter("scale", p)
    assert m.scale is p
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias", "scale"]
    m.register_parameter("bias", None)  # as m.bias = None
    assert m.bias is None and "bias" not in dict(m.named_parameters())
    with pytest.raises(TypeError, match="Parameter or None required"):
        m.register_parameter("w2", kt.zeros(2))
    with pytest.raises(KeyError, match="empty"):
        m.register_parameter("a.b", nn.Parameter(kt.zeros(1)))
    with pytest.raises(KeyError, match="already exists"):
        m.register_parameter("forward", nn.Parameter(kt.zeros(1)))


@pytest.mark.task4_6
def test_state_dict_keep_vars_keeps_the_parameters_themselves():
    torch = import_torch()
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    detached, kept = model.state_dict(), model.state_dict(keep_vars=True)
    assert list(kept) == list(detached)
    assert kept["0.weight"] is model[0].weight and kept["0.weight"].requires_grad
    assert not detached["0.weight"].requires_grad
    assert kept["1.running_mean"] is model[1].running_mean
    prefixed = model.state_dict(prefix="net.")
    assert list(prefixed) == ["net." + key for key in detached]
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    assert list(theirs.state_dict(keep_vars=True)) == list(kept)
    assert theirs.state_dict(keep_vars=True)["0.weight"] is theirs[0].weight


@pytest.mark.parametrize(
    "name, args",
    [
        ("ReLU", ()),
        ("ReLU", (True,)),
        ("LeakyReLU", ()),
        ("LeakyReLU", (0.1, True)),
        ("ELU", (0.5,)),
        ("GELU", ("tanh",)),
        ("Softplus", (2, 10)),
        ("Hardtanh", (-2.0, 2.0, True)),
        ("ReLU6", (True,)),
        ("SiLU", (True,)),
        ("Mish", ()),
        ("Softmax", (1,)),
        ("LogSoftmax", (0,)),
        ("PReLU", (3,)),
        ("Sigmoid", ()),
        ("MSELoss", ()),
        ("Conv2d", (3, 8, 3)),
        ("Conv2d", (3, 8, 3, 2, 1, 1, 1, False)),
        ("Conv1d", (3, 8, 3, 1, "same")),
        ("MaxPool2d", (2,)),
        ("MaxPool2d", (3, 2, 1)),
        ("AvgPool2d", (2,)),
        ("MaxPool1d", (2,)),
        ("AvgPool1d", (3,)),
        ("AvgPool1d", (3, 2, 1)),
        ("BatchNorm1d", (3,)),
        ("BatchNorm2d", (3, 1e-3, 0.2, False, False)),
        ("InstanceNorm2d", (3,)),
        ("InstanceNorm1d", (3, 1e-5, 0.1, True, True)),
        ("LayerNorm", (4,)),
        ("LayerNorm", ((2, 4), 1e-6, False)),
        ("GroupNorm", (2, 4)),
        ("GroupNorm", (2, 4, 1e-3, False)),
        ("Upsample", (None, 2)),
        ("Upsample", (None, (2, 3))),
        ("Upsample", (None, 0)),  # a zero scale: None, as PyTorch keeps it
        ("Upsample", ((4, 4), None, "bilinear")),
        ("AdaptiveAvgPool2d", ((1, 1),)),
        ("Dropout", (0.1,)),
        ("Dropout2d", (0.2, True)),
        ("Flatten", ()),
        ("Unflatten", (1, (2, 3))),
    ],
)
def test_layers_print_their_settings_as_pytorchs(name, args):
    # repr shows what PyTorch's shows (print(model) is how a user reads a
    # network): the settings that make the layer what it is, an activation's
    # inplace=True only when set, a convolution's padding and bias only where
    # they differ from the defaults, a pool's stride as its kernel's.
    torch = import_torch()
    assert repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


@pytest.mark.parametrize("name", ["GroupNorm", "LayerNorm"])
def test_norm_layers_without_a_bias_print_and_normalise_as_pytorchs(name):
    # bias=False: no shift parameter (None, as PyTorch's), the scale kept.
    torch = import_torch()
    args = (2, 4) if name == "GroupNorm" else (4,)
    ours, theirs = getattr(nn, name)(*args, bias=False), getattr(torch.nn, name)(
        *args, bias=False
    )
    assert ours.bias is None and repr(ours) == repr(theirs)
    x = RNG.normal(size=(3, 4, 4))
    want = theirs.double()(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(ours(kt.tensor(x)).to_numpy(), want, atol=1e-12)


@task2_6
def test_margin_losses_pass_the_full_gradient_at_their_kink():
    """PyTorch's margin losses take max(0, .) as a clamp, whose gradient where
    the argument is exactly 0 is 1 (relu's is 0): equal scores, a distance equal
    to the margin. Hand-worked gradients at the kink (each loss there is 0)."""

    def grads(loss, *arrays):
        xs = [kt.tensor(a, requires_grad=True) for a in arrays]
        out = loss(*xs)
        out.backward()
        assert out.item() == 0.0
        return [x.grad.to_numpy().tolist() for x in xs]

    # max(0, -y (a - b) + margin) at a = b, y = 1: d/da = -1, d/db = 1
    same = grads(
        lambda a, b: F.margin_ranking_loss(a, b, kt.tensor([1.0])), [1.0], [1.0]
    )
    assert same == [[-1.0], [1.0]]
    # max(0, margin - x) where y = -1, at x = margin = 1: d/dx = -1
    hinge = grads(lambda x: F.hinge_embedding_loss(x, kt.tensor([-1.0])), [1.0])
    assert hinge == [[-1.0]]
    # max(0, cos - margin) where y = -1, at cos = margin = 0 ([1, 0] and [0, 1]):
    # d cos / d x1 = x2 / (|x1| |x2|) - cos x1 / |x1|^2 = [0, 1], and [1, 0] for x2
    cos = grads(
        lambda a, b: F.cosine_embedding_loss(a, b, kt.tensor([-1.0])),
        [[1.0, 0.0]],
        [[0.0, 1.0]],
    )
    np.testing.assert_allclose(cos, [[[0.0, 1.0]], [[1.0, 0.0]]], atol=1e-12)
    # d(a, p) - d(a, n) + margin with L1 distances 1 and 2, margin 1: d/da =
    # sign(a - p) - sign(a - n) = [-1, 0] - [0, -1]
    triplet = grads(
        lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0, p=1, eps=0.0),
        [[0.0, 0.0]],
        [[1.0, 0.0]],
        [[0.0, 2.0]],
    )
    assert triplet == [[[-1.0, 1.0]], [[1.0, 0.0]], [[0.0, -1.0]]]
