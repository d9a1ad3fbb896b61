"""More of ``torch.nn`` (given): ``AdaptiveAvgPool1d`` and ``AdaptiveMaxPool1d``
with their ``F`` forms, ``F.max_pool1d_with_indices`` and
``F.max_pool2d_with_indices``, ``Unfold``, ``SoftMarginLoss``,
``HingeEmbeddingLoss`` and ``MultiLabelSoftMarginLoss`` with theirs,
``UpsamplingNearest2d`` and ``UpsamplingBilinear2d``: values and gradients as
``torch``'s (and against central differences), the layers' reprs as PyTorch's,
and the errors PyTorch raises for plain misuse."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.pytorch_reference import (
    assert_same_function,
    copy_parameters,
    import_torch,
)

pytestmark = pytest.mark.task4_6
# Small inputs: grad_check calls a layer twice per input entry, and a student who
# skipped Task 3.2 runs these on SimpleBackend's loops (with the 4.6 tests of the
# other files, 576 s of the grader's 600-s timeout at (2, 4, 7, 6) convolutions).
RNG = np.random.default_rng(31)
X = RNG.normal(size=(2, 3, 7))
IDX = {"return_indices": True}


def _same_layer(ours, theirs, *arrays):
    """Layer ``ours`` and torch's ``theirs`` called on ``arrays``: the same
    values and input gradients, and the same repr."""
    assert repr(ours) == repr(theirs)
    assert_same_function(
        ours, theirs, *arrays, rng=np.random.default_rng(1), rtol=1e-10
    )


# ----------------------------------------------------------------- pooling
@pytest.mark.parametrize("size", [1, 3, (3,), 4, 7, 10])
@pytest.mark.parametrize("name", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
def test_adaptive_pool1d_matches_torch(name, size):
    torch = import_torch()
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    for x in (X, X[0]):  # batched and not
        assert_same_function(
            lambda t: ours(t, size),
            lambda t: theirs(t, size),
            x,
            rng=np.random.default_rng(2),
            rtol=1e-10,
        )


@pytest.mark.parametrize("name", ["AdaptiveAvgPool1d", "AdaptiveMaxPool1d"])
def test_adaptive_pool1d_layers_match_torch(name):
    torch = import_torch()
    for size in (3, (4,)):
        _same_layer(getattr(nn, name)(size), getattr(torch.nn, name)(size), X)
    assert getattr(nn, name)(output_size=5).output_size == 5


@pytest.mark.parametrize("name", ["adaptive_avg_pool1d", "adaptive_max_pool1d"])
def test_adaptive_pool1d_rejects_other_dims(name):
    torch = import_torch()
    for shape in [(7,), (2, 3, 4, 7)]:
        with pytest.raises(RuntimeError):
            getattr(torch.nn.functional, name)(torch.zeros(shape), 2)
        # (Kindling's 2-D adaptive pooling raises ValueError for its dims.)
        with pytest.raises(ValueError):
            getattr(F, name)(kt.tensor(np.zeros(shape)), 2)


@pytest.mark.parametrize("settings", [(2,), (3, 2, 1), (3, 2, 1, True, False)])
@pytest.mark.parametrize("divisor", [1, 3])
def test_avg_pool2d_divisor_override_matches_torch(settings, divisor):
    torch = import_torch()
    assert_same_function(
        lambda t: F.avg_pool2d(t, *settings, divisor_override=divisor),
        lambda t: torch.nn.functional.avg_pool2d(
            t, *settings, divisor_override=divisor
        ),
        RNG.normal(size=(2, 3, 7, 6)),
        rng=np.random.default_rng(7),
        rtol=1e-10,
    )
    ours = nn.AvgPool2d(*settings, divisor_override=divisor)
    theirs = torch.nn.AvgPool2d(*settings, divisor_override=divisor)
    _same_layer(ours, theirs, RNG.normal(size=(1, 3, 7, 6)))


@pytest.mark.parametrize(
    "name, x, settings",
    [
        ("max_pool1d", X, [(2,), (3, 2, 1), (2, 1, 0, 2, True)]),
        ("max_pool2d", RNG.normal(size=(2, 2, 4, 5)), [(2,), ((2, 3), 1, 1)]),
    ],
)
def test_max_pool_with_indices_matches_torch(name, x, settings):
    torch = import_torch()
    ours, theirs = getattr(F, f"{name}_with_indices"), getattr(
        torch.nn.functional, name
    )
    for args in settings:
        got, want = ours(kt.tensor(x), *args), theirs(torch.tensor(x), *args, **IDX)
        assert got[1].dtype == kt.int64
        np.testing.assert_array_equal(got[1].to_numpy(), want[1].numpy())
        np.testing.assert_array_equal(got[0].to_numpy(), want[0].numpy())
        assert_same_function(  # (the values' gradients, to the first maxima)
            lambda t: ours(t, *args)[0],
            lambda t: theirs(t, *args),
            x,
            rng=np.random.default_rng(5),
            rtol=1e-10,
        )
        # (the function with return_indices=True is the same)
        _, indices = getattr(F, name)(kt.tensor(x), *args, return_indices=True)
        np.testing.assert_array_equal(indices.to_numpy(), want[1].numpy())
    ties = np.array([[[1.0, 1.0, 0.0, 2.0, 2.0, 2.0]]])  # (the first maximum's index)
    _, indices = F.max_pool1d_with_indices(kt.tensor(ties), 3)
    assert indices.to_numpy().tolist() == [[[0, 3]]]
    layer = nn.MaxPool1d(2, return_indices=True)
    assert repr(layer) == repr(torch.nn.MaxPool1d(2, return_indices=True))
    assert len(layer(kt.tensor(X))) == 2


def test_unfold_layer_matches_torch():
    torch = import_torch()
    x = RNG.normal(size=(2, 2, 5, 5))
    for args, kwargs in [
        ((2,), {}),
        (((2, 3),), {}),
        ((2,), {"padding": 1, "stride": (1, 2)}),
        ((2, 1, 1, 2), {}),
        ((3,), {"dilation": 2}),
    ]:
        ours, theirs = nn.Unfold(*args, **kwargs), torch.nn.Unfold(*args, **kwargs)
        _same_layer(ours, theirs, x)
        _same_layer(ours, theirs, x[0])  # (C, H, W)
    with pytest.raises(TypeError):
        nn.Unfold()  # (kernel_size is required, as PyTorch's)
    with pytest.raises(TypeError):
        torch.nn.Unfold()


@pytest.mark.parametrize(
    "settings", [{"padding": (1,)}, {"stride": (2,)}, {"dilation": [2]}]
)
def test_2d_sizes_as_one_tuples_match_torch(settings):
    """A 1-tuple (or 1-list) stands for both spatial dims, as torch's."""
    torch = import_torch()
    x, w = RNG.normal(size=(1, 2, 6, 6)), RNG.normal(size=(3, 2, 3, 3))
    got = F.conv2d(kt.tensor(x), kt.tensor(w), **settings)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), **settings)
    np.testing.assert_allclose(got.to_numpy(), want.numpy(), rtol=1e-12)
    pooled = F.max_pool2d(kt.tensor(x), (2,), (1,), (1,))
    want = torch.nn.functional.max_pool2d(torch.tensor(x), (2,), (1,), (1,))
    np.testing.assert_array_equal(pooled.to_numpy(), want.numpy())


@pytest.mark.filterwarnings("ignore:Initializing zero-element")  # (torch's init)
def test_linear_to_no_features_matches_torch():
    """``nn.Linear(4, 0)``: an empty output, and gradients (zeros, empty) of
    torch's shapes."""
    torch = import_torch()
    ours, theirs = nn.Linear(4, 0), torch.nn.Linear(4, 0).double()
    assert repr(ours) == repr(theirs)
    for shape in [(2, 4), (4,), (3, 2, 4)]:
        x = RNG.normal(size=shape)
        a, t = kt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        got, want = ours(a), theirs(t)
        assert got.shape == tuple(want.shape)
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_array_equal(a.grad.to_numpy(), t.grad.numpy())
        assert ours.weight.grad.shape == tuple(theirs.weight.grad.shape)


# ------------------------------------------------------------- activations
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax", "Softmin"])
def test_softmaxes_without_dim_take_torchs_implicit_dim(name, shape):
    """``dim`` left out: dim 0 of a 0-, 1- or 3-D input, else 1, with torch's
    warning (``Softmin``'s took the softmax of all the entries)."""
    torch = import_torch()
    function = {"LogSoftmax": "log_softmax"}.get(name, name.lower())
    x = RNG.normal(size=shape)
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {function}"):
        got = getattr(F, function)(kt.tensor(x))
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {function}"):
        want = getattr(torch.nn.functional, function)(torch.tensor(x))
    np.testing.assert_allclose(got.to_numpy(), want.numpy(), rtol=1e-12)
    with pytest.warns(UserWarning):
        _same_layer(getattr(nn, name)(), getattr(torch.nn, name)(), x)


# ------------------------------------------------------------ convolutions
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize(
    "settings",
    [
        {"padding": 1},
        {"padding": 2, "stride": 2, "dilation": 2},
        {"padding": "same", "dilation": 2},  # (an odd total: one more after)
        {"padding": 1, "groups": 2, "bias": False},
    ],
)
@pytest.mark.parametrize("dims", [1, 2])
def test_conv_padding_mode_matches_torch(dims, settings, mode):
    """``padding_mode``: the input padded by ``F.pad``'s mode, then convolved
    without padding, as PyTorch's layers; batched and unbatched."""
    torch = import_torch()
    name = f"Conv{dims}d"
    ours = getattr(nn, name)(2, 4, 4, padding_mode=mode, **settings)
    theirs = getattr(torch.nn, name)(2, 4, 4, padding_mode=mode, **settings)
    theirs.weight.data = torch.tensor(ours.weight.to_numpy())
    if ours.bias is not None:
        theirs.bias.data = torch.tensor(ours.bias.to_numpy())
    for shape in [(2, 2, 6, 5), (2, 6, 5)]:
        _same_layer(ours, theirs, RNG.normal(size=shape[: len(shape) - 2 + dims]))
    with pytest.raises(ValueError):
        torch.nn.Conv2d(1, 1, 3, padding_mode="constant")  # (F.pad's, not theirs)
    with pytest.raises(ValueError):
        nn.Conv2d(1, 1, 3, padding_mode="constant")


def test_conv_transpose2d_repr_and_settings_match_torch():
    torch = import_torch()
    for args, settings in [
        ((4, 6, 3), {}),
        ((4, 6, (3, 2)), {"padding": (0, 1)}),
        ((4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
        ((4, 6, 3), {"dilation": 2, "bias": False}),
    ]:
        ours = nn.ConvTranspose2d(*args, **settings)
        theirs = torch.nn.ConvTranspose2d(*args, **settings)
        assert repr(ours) == repr(theirs)
        for name in ("stride", "padding", "output_padding", "dilation", "padding_mode"):
            assert getattr(ours, name) == getattr(theirs, name)


# ------------------------------------------------------------------ losses
SIGNS = np.where(RNG.normal(size=(3, 4)) > 0, 1.0, -1.0)
LOSSES = {  # name: keyword settings besides reduction
    "soft_margin_loss": {},
    "hinge_embedding_loss": {"margin": 0.5},
}
# Special values, overflow of exp(-y x) past about 709, and
# hinge_embedding_loss's kink (x = margin, y = -1).
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, 800.0, -800.0])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", LOSSES)
def test_losses_match_torch(name, reduction):
    torch = import_torch()
    ours, theirs, kw = (
        getattr(F, name),
        getattr(torch.nn.functional, name),
        LOSSES[name],
    )
    x = RNG.normal(size=(3, 4)) * 2.0
    for target in (SIGNS, SIGNS[0], np.array([0.0, 1.0, -1.0, 2.0])):  # (broadcast)
        assert_same_function(
            lambda t: ours(t, kt.tensor(target), reduction=reduction, **kw),
            lambda t: theirs(t, torch.tensor(target), reduction=reduction, **kw),
            x,
            rng=np.random.default_rng(3),
            rtol=1e-10,
        )


@pytest.mark.parametrize("name", LOSSES)
def test_losses_special_values_and_dtypes_match_torch(name):
    torch = import_torch()
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    for sign in (1.0, -1.0):
        y = np.full(SPECIAL.shape, sign)
        got = ours(kt.tensor(SPECIAL), kt.tensor(y), reduction="none").to_numpy()
        want = theirs(torch.tensor(SPECIAL), torch.tensor(y), reduction="none")
        np.testing.assert_array_equal(got, want.numpy())
    x = np.array([0.5, -1.5, 0.5])  # (0.5: the hinge's kink)
    for target in ([1, -1, -1], [True, False, True]):  # int64 and bool targets
        for dtype in ("float32", "float64"):
            k = kt.tensor(x, dtype=getattr(kt, dtype), requires_grad=True)
            t = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
            got, want = ours(k, kt.tensor(target)), theirs(t, torch.tensor(target))
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
            np.testing.assert_allclose(got.item(), want.item(), rtol=1e-6)
            if target[-1] is True:  # (torch's soft_margin_loss: no backward)
                continue
            got.backward()
            want.backward()
            np.testing.assert_allclose(k.grad.to_numpy(), t.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", LOSSES)
def test_losses_reject_misuse_as_torch(name):
    torch = import_torch()
    ours, theirs = getattr(F, name), getattr(torch.nn.functional, name)
    x = np.ones((2, 3))
    for call in (
        lambda f, T: f(T.tensor(x), T.tensor(x), reduction="average"),
        lambda f, T: f(x.tolist(), T.tensor(x)),
    ):
        with pytest.raises((ValueError, TypeError)) as theirs_error:
            call(theirs, torch)
        with pytest.raises(theirs_error.type):
            call(ours, kt)


@pytest.mark.parametrize(
    "name, weights",
    [
        ("CrossEntropyLoss", ["weight"]),
        ("NLLLoss", ["weight"]),
        ("BCELoss", ["weight"]),
        ("BCEWithLogitsLoss", ["weight", "pos_weight"]),
        ("BCEWithLogitsLoss", ["pos_weight"]),
        ("CrossEntropyLoss", []),
    ],
)
def test_loss_weights_are_buffers_as_torch(name, weights):
    """``weight``/``pos_weight`` in ``state_dict`` and ``named_buffers`` (not
    when left out), made float64 by ``.double()`` and loaded back, as torch's."""
    torch = import_torch()
    w = np.array([1.0, 2.0, 0.5])
    ours = getattr(nn, name)(**{n: kt.tensor(w).float() for n in weights})
    theirs = getattr(torch.nn, name)(**{n: torch.tensor(w).float() for n in weights})
    assert [n for n, _ in ours.named_buffers()] == [*theirs.state_dict()] == weights
    for module in (ours.double(), theirs.double()):
        dtypes = {str(v.dtype).split(".")[-1] for v in module.state_dict().values()}
        assert dtypes <= {"float64"}
    if name == "CrossEntropyLoss" and weights:  # the loaded weight is the one used
        x, y = RNG.normal(size=(4, 3)), [0, 1, 2, 1]
        ours.load_state_dict({"weight": kt.tensor(w[::-1].copy())})
        theirs.load_state_dict({"weight": torch.tensor(w[::-1].copy())})
        got = ours(kt.tensor(x), kt.tensor(y)).item()
        assert got == pytest.approx(theirs(torch.tensor(x), torch.tensor(y)).item())


def test_loss_layers_match_torch():
    torch = import_torch()
    x, y = RNG.normal(size=(3, 4)), kt.tensor(SIGNS)
    for ours, theirs in [
        (nn.SoftMarginLoss(), torch.nn.SoftMarginLoss()),
        (nn.SoftMarginLoss(reduction="sum"), torch.nn.SoftMarginLoss(reduction="sum")),
        (nn.SoftMarginLoss("none"), torch.nn.SoftMarginLoss(reduction="none")),
        (nn.HingeEmbeddingLoss(), torch.nn.HingeEmbeddingLoss()),
        (
            nn.HingeEmbeddingLoss(0.5, reduction="none"),
            torch.nn.HingeEmbeddingLoss(0.5, reduction="none"),
        ),
    ]:
        assert repr(ours) == repr(theirs)
        assert_same_function(
            lambda t: ours(t, y),
            lambda t: theirs(t, torch.tensor(SIGNS)),
            x,
            rng=np.random.default_rng(4),
            rtol=1e-10,
        )
    assert nn.HingeEmbeddingLoss(2.0).margin == 2.0


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_soft_margin_loss_matches_torch(reduction):
    torch = import_torch()
    x, w = RNG.normal(size=(3, 4)) * 3.0, RNG.uniform(size=4)
    labels = (RNG.uniform(size=(3, 4)) > 0.5) * 1.0
    for args, weight in [
        ([x, labels], None),
        ([x, labels], w),
        ([x, labels[0]], w[None]),  # (labels and weights broadcast)
        ([x[0], labels[0]], w),  # (one example)
    ]:
        assert_same_function(
            lambda t, u: F.multilabel_soft_margin_loss(
                t, u, None if weight is None else kt.tensor(weight), reduction
            ),
            lambda t, u: torch.nn.functional.multilabel_soft_margin_loss(
                t,
                u,
                None if weight is None else torch.tensor(weight),
                reduction=reduction,
            ),
            *args,
            rng=np.random.default_rng(8),
            rtol=1e-10,
        )
    ours = nn.MultiLabelSoftMarginLoss(kt.tensor(w), reduction=reduction)
    theirs = torch.nn.MultiLabelSoftMarginLoss(torch.tensor(w), reduction=reduction)
    assert repr(ours) == repr(theirs)
    got = ours(kt.tensor(x), kt.tensor(labels))
    want = theirs(torch.tensor(x), torch.tensor(labels))
    np.testing.assert_allclose(got.to_numpy(), want.numpy(), rtol=1e-12)
    for T, f in (
        (kt, F.multilabel_soft_margin_loss),
        (torch, torch.nn.functional.multilabel_soft_margin_loss),
    ):
        with pytest.raises(ValueError):
            f(T.ones(2, 3), T.ones(2, 3), reduction="average")


# ---------------------------------------------------------------- resizing
@pytest.mark.parametrize("name", ["UpsamplingNearest2d", "UpsamplingBilinear2d"])
def test_upsampling_layers_match_torch(name):
    torch = import_torch()
    x = RNG.normal(size=(2, 2, 3, 4))
    for args, kwargs in [
        ((), {"scale_factor": 2}),
        ((), {"scale_factor": (2, 1.5)}),
        (((3, 7),), {}),
        ((6,), {}),
        ((None, 3), {}),
    ]:
        ours = getattr(nn, name)(*args, **kwargs)
        theirs = getattr(torch.nn, name)(*args, **kwargs)
        assert ours.scale_factor == theirs.scale_factor
        _same_layer(ours, theirs, x)


@pytest.mark.parametrize("name", ["UpsamplingNearest2d", "UpsamplingBilinear2d"])
def test_upsampling_layers_reject_misuse_as_torch(name):
    torch = import_torch()
    for lib in (nn, torch.nn):
        with pytest.raises(TypeError):
            getattr(lib, name)(2, None, "bicubic")  # (no mode argument)
    x = np.zeros((1, 1, 2, 2))
    with pytest.raises(ValueError):  # neither size nor scale_factor
        getattr(torch.nn, name)()(torch.tensor(x))
    with pytest.raises(ValueError):
        getattr(nn, name)()(kt.tensor(x))


# -------------------------------------------------------------- containers
def _containers(lib):
    """A Sequential of an OrderedDict, a plain one, a ModuleList and a
    ParameterList, built alike in Kindling (``lib`` is ``nn``) or ``torch.nn``."""
    named = [("fc", lib.Linear(2, 3)), ("act", lib.ReLU()), ("out", lib.Linear(3, 1))]
    weights = [lib.Parameter(layer.weight.detach()) for _, layer in named[::2]]
    return [
        lib.Sequential(OrderedDict(named)),
        lib.Sequential(*[layer for _, layer in named]),
        lib.ModuleList([layer for _, layer in named]),
        lib.ParameterList(weights * 2),
    ]


def test_sequential_of_an_ordered_dict_and_slices_name_as_torch():
    torch = import_torch()
    for ours, theirs in zip(_containers(nn), _containers(torch.nn)):
        for index in [slice(None), slice(None, None, 2), slice(1, None), slice(-1)]:
            part = ours[index]
            assert type(part) is type(ours)
            assert list(part.state_dict()) == list(theirs[index].state_dict())
    ours, theirs = _containers(nn)[0], _containers(torch.nn)[0].double()
    assert repr(ours) == repr(theirs)
    copy_parameters(ours, theirs)
    x = RNG.normal(size=(4, 2))
    np.testing.assert_allclose(
        ours(kt.tensor(x)).to_numpy(), theirs(torch.tensor(x)).detach().numpy()
    )
    for lib in (nn, torch.nn):  # a plain dict, or an OrderedDict among modules
        for args in [({"fc": lib.ReLU()},), (OrderedDict(fc=lib.ReLU()), lib.ReLU())]:
            with pytest.raises(TypeError):
                lib.Sequential(*args)


@pytest.mark.parametrize("name", ["adaptive_max_pool1d", "adaptive_max_pool2d"])
def test_adaptive_max_pool_gradient_at_ties_and_nan_matches_torch(name):
    """A tied maximum's gradient goes to the first (in row-major order), a
    window's NaN takes it, as PyTorch's (amax would share it, or spread NaN)."""
    torch = import_torch()
    x = np.array([[3.0, 1.0, 3.0, 2.0, 2.0], [0.0, np.nan, 3.0, -1.0, 3.0]])
    x = x[None] if name.endswith("1d") else x[None, None]
    for size in (1, 2, 3):
        ours, theirs = kt.tensor(x, requires_grad=True), torch.tensor(x)
        theirs.requires_grad_()
        got = getattr(F, name)(ours, size)
        want = getattr(torch.nn.functional, name)(theirs, size)
        np.testing.assert_array_equal(got.detach().to_numpy(), want.detach().numpy())
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_array_equal(ours.grad.to_numpy(), theirs.grad.numpy())


def _layout(container):
    """Each child's name and kind, and the state_dict's keys."""
    children = [(name, type(m).__name__) for name, m in container.named_children()]
    return children, list(container.state_dict())


def test_sequential_and_module_list_edits_match_torch():
    torch = import_torch()
    edits = [
        lambda c, lib: c.append(lib.Tanh()),
        lambda c, lib: c.extend([lib.Sigmoid(), lib.Linear(1, 2)]),
        lambda c, lib: c.insert(1, lib.Identity()),
        lambda c, lib: c.insert(0, lib.Softplus()),
        lambda c, lib: c.insert(len(c), lib.ELU()),
        lambda c, lib: c.__delitem__(2),
        lambda c, lib: c.__delitem__(-1),
        lambda c, lib: c.__delitem__(slice(None, None, 2)),
    ]
    for ours, theirs in zip(_containers(nn)[:3], _containers(torch.nn)[:3]):
        # A named Sequential is renumbered by del (PyTorch's insert into one
        # fails); PyTorch's ModuleList.insert takes no negative index.
        if isinstance(ours, nn.Sequential) and "fc" in ours._modules:
            del ours[1]
            del theirs[1]
        elif isinstance(ours, nn.Sequential):
            ours.insert(-1, nn.Hardtanh())
            theirs.insert(-1, torch.nn.Hardtanh())
        for edit in edits:
            assert edit(ours, nn) in (None, ours)
            edit(theirs, torch.nn)
            assert _layout(ours) == _layout(theirs)
            assert {key for key in vars(ours) if key.isdigit()} == set(ours._modules)
    with pytest.raises(IndexError):
        del ours[len(ours)]
    for lib in (nn, torch.nn):
        with pytest.raises(TypeError):
            lib.Sequential().append(3)
    ours = nn.Sequential(nn.ReLU())
    with pytest.raises(TypeError):  # (torch: AssertionError)
        ours.insert(0, 3)
    assert _layout(ours) == ([("0", "ReLU")], [])
