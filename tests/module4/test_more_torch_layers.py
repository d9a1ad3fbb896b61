"""More of ``torch.nn`` (given): ``AdaptiveAvgPool1d`` and ``AdaptiveMaxPool1d``
with their ``F`` forms, ``Unfold``, ``UpsamplingNearest2d`` and
``UpsamplingBilinear2d``: values and gradients as ``torch``'s (and against
central differences), the layers' reprs as PyTorch's, and the errors PyTorch
raises for plain misuse."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.pytorch_reference import assert_same_function, import_torch

pytestmark = pytest.mark.task4_6
RNG = np.random.default_rng(31)
X = RNG.normal(size=(2, 3, 7))


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


def test_unfold_layer_matches_torch():
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 5, 6))
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


# ---------------------------------------------------------------- resizing
@pytest.mark.parametrize("name", ["UpsamplingNearest2d", "UpsamplingBilinear2d"])
def test_upsampling_layers_match_torch(name):
    torch = import_torch()
    x = RNG.normal(size=(2, 3, 4, 5))
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
