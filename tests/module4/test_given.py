"""The given plumbing of Module 4: argument checking, the worked bias kernel, data
splitting and batching for the scripts.

The code they check is given to the student; a test that builds tensors runs Task
2.1's code and carries its marker, the others carry none and pass before any task is
done (and must keep passing after).
"""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import fast_conv
from module4_networks import optim
from module4_networks.nn import functional as F
from project import run_mnist_multiclass as mnist
from project import run_sentiment as sentiment
from tests.module4.helpers import make
from tests.module4.reference import empty_strided, strided


# ------------------------------------------- conv1d/conv2d: argument checks
@pytest.mark.task2_1
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(bias=np.zeros(4)), TypeError, r"conv1d bias needs a Tensor"),
        (dict(stride=1.5), TypeError, r"stride must be an int"),
        (dict(padding=(1, 1)), TypeError, r"padding must be an int"),
    ],
)
def test_conv1d_rejects_bad_arguments(kwargs, error, message):
    x, w = make(np.zeros((1, 2, 5))), make(np.zeros((3, 2, 2)))
    with pytest.raises(error, match=message):
        F.conv1d(x, w, **kwargs)


@pytest.mark.task2_1
def test_conv1d_bias_of_the_wrong_shape_names_both_shapes():
    x, w = make(np.zeros((1, 2, 5))), make(np.zeros((3, 2, 2)))
    with pytest.raises(ValueError, match=r"bias must have shape \(3,\).*got \(2,\)"):
        F.conv1d(x, w, make(np.zeros(2)))
    with pytest.raises(ValueError, match=r"2 channels but the weight expects 4"):
        F.conv1d(x, make(np.zeros((3, 4, 2))))


@pytest.mark.task2_1
def test_conv2d_rejects_a_three_dim_weight():
    with pytest.raises(ValueError, match=r"weight must have 4 dims"):
        F.conv2d(make(np.zeros((1, 2, 5, 5))), make(np.zeros((3, 2, 2))))


# --------------------------- kernel launchers: checks, the given bias kernels
def _bias_gradient(g):
    """The worked kernel ``_bias_backward`` run on the strided triple ``g``."""
    out = np.zeros(int(g[1][1]))
    fast_conv._bias_backward(out, *g)
    return out


def test_conv1d_bias_gradient_is_the_sum_over_batch_and_positions():
    g = np.random.default_rng(3).normal(size=(2, 3, 5))
    np.testing.assert_allclose(
        _bias_gradient(strided(g, (2, 0, 1))), g.sum(axis=(0, 2))
    )


@pytest.mark.parametrize(
    "x_shape, w_shape, stride, padding, message",
    [
        ((2, 3, 8), (4, 2, 3), 1, 0, r"3 channels but the weight expects 2"),
        ((2, 3, 2), (4, 3, 5), 1, 1, r"larger than the padded input"),
        ((2, 3), (4, 3, 1), 1, 0, r"input must have 3 dims"),
        ((2, 3, 8), (4, 3, 3), 0, 0, r"stride must be positive"),
        ((2, 3, 8), (4, 3, 3), 1, -1, r"padding must be non-negative"),
    ],
)
def test_conv1d_rejects_bad_shapes(x_shape, w_shape, stride, padding, message):
    out, _ = empty_strided((1,))
    with pytest.raises(ValueError, match=message):
        fast_conv.conv1d_forward(
            out,
            strided(np.zeros(x_shape)),
            strided(np.zeros(w_shape)),
            stride,
            padding,
        )


def test_conv1d_rejects_an_out_of_the_wrong_shape():
    out, _ = empty_strided((1, 4, 5))
    with pytest.raises(ValueError, match=r"out has shape \(1, 4, 5\), expected"):
        fast_conv.conv1d_forward(
            out, strided(np.zeros((1, 2, 8))), strided(np.zeros((4, 2, 3)))
        )


def test_conv2d_bias_gradient_is_the_sum_over_batch_and_positions():
    g = np.random.default_rng(4).normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(
        _bias_gradient(strided(g, (3, 1, 0, 2))), g.sum(axis=(0, 2, 3))
    )


@pytest.mark.parametrize(
    "x_shape, w_shape, stride, padding, error, message",
    [
        ((1, 3, 8, 8), (4, 2, 3, 3), 1, 0, ValueError, r"3 channels but the weight"),
        ((1, 3, 8, 2), (4, 3, 3, 3), 1, 0, ValueError, r"larger than the padded"),
        ((1, 3, 8, 8), (4, 3, 3), 1, 0, ValueError, r"weight must have 4 dims"),
        ((1, 3, 8, 8), (4, 3, 3, 3), (1, 2, 3), 0, TypeError, r"pair of ints"),
        ((1, 3, 8, 8), (4, 3, 3, 3), (1, 0), 0, ValueError, r"stride must be"),
    ],
)
def test_conv2d_rejects_bad_arguments(
    x_shape, w_shape, stride, padding, error, message
):
    out, _ = empty_strided((1,))
    with pytest.raises(error, match=message):
        fast_conv.conv2d_forward(
            out,
            strided(np.zeros(x_shape)),
            strided(np.zeros(w_shape)),
            stride,
            padding,
        )


# ----------------------------------------------------- losses: argument checks
@pytest.mark.task2_1
def test_a_bad_reduction_is_rejected():
    with pytest.raises(ValueError, match=r"reduction must be one of"):
        F.nll_loss(make(np.zeros((2, 3))), [0, 1], reduction="average")


@pytest.mark.task2_1
def test_mse_loss_refuses_to_broadcast():
    with pytest.raises(ValueError, match=r"\(4, 1\) and target of shape \(4,\)"):
        F.mse_loss(make(np.zeros((4, 1))), make(np.zeros(4)))


# ---------------------------------------- max, softmax, dropout: argument checks
@pytest.mark.task2_1
def test_max_rejects_bad_dims_and_empty_tensors():
    with pytest.raises(IndexError, match=r"dim=2 is out of range.*2 dimensions"):
        F.max(make(np.zeros((2, 3))), 2)
    with pytest.raises(ValueError, match=r"max\(\) of an empty tensor"):
        F.max(make(np.zeros((0, 3))), 0)


@pytest.mark.task4_4
def test_max_along_a_dim_of_an_empty_batch_is_empty():
    # As torch.max: along a dim that is not empty, an empty result (no raise).
    values, indices = F.max(make(np.zeros((0, 3))), 1)
    assert values.shape == indices.shape == (0,) and indices.dtype is kt.int64


@pytest.mark.task2_1
def test_softmax_rejects_a_bad_dim():
    with pytest.raises(IndexError, match=r"softmax: dim=-3 is out of range"):
        F.softmax(make(np.zeros((2, 2))), -3)


@pytest.mark.task2_1
@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_rejects_p_outside_0_1(p):
    with pytest.raises(ValueError, match=r"between 0 and 1, but got"):
        F.dropout(make(np.ones(3)), p)


# -------------------------------------------------- optimizers: argument checks
@pytest.mark.task2_1
@pytest.mark.parametrize(
    "build, message",
    [
        (lambda ps: optim.SGD(ps, lr=-1.0), r"Invalid learning rate: -1.0"),
        (lambda ps: optim.SGD(ps, lr=0.1, nesterov=True), r"Nesterov momentum"),
        (lambda ps: optim.Adam(ps, betas=(0.9, 1.0)), r"beta parameter at index 1"),
        (lambda ps: optim.RMSprop(ps, eps=-1.0), r"Invalid epsilon value"),
        (lambda ps: optim.AdamW([]), r"empty parameter list"),
    ],
)
def test_bad_hyperparameters_are_rejected(build, message):
    with pytest.raises(ValueError, match=message):
        build([make(np.zeros(1), requires_grad=True)])


def test_only_tensors_and_parameters_can_be_optimized():
    with pytest.raises(TypeError, match=r"got float"):
        optim.SGD([1.0], lr=0.1)


# ----------------------------------------------------- pooling: argument checks
@pytest.mark.task2_1
@pytest.mark.parametrize(
    "shape, kernel, stride, message",
    [
        ((1, 2, 4), 2, None, r"input must have 4 dims"),
        ((1, 1, 4, 4), 5, None, r"kernel \(5, 5\) does not fit"),
        ((1, 1, 4, 4), 2, 0, r"sizes positive"),  # overlapping windows are fine
    ],
)
def test_avg_pool2d_rejects_bad_arguments(shape, kernel, stride, message):
    with pytest.raises(ValueError, match=message):
        F.avg_pool2d(make(np.zeros(shape)), kernel, stride)


# ---------------------------------------------- the scripts: data and batching
def idx(array: np.ndarray) -> bytes:
    header = struct.pack(">BBBB", 0, 0, 8, array.ndim)
    header += b"".join(struct.pack(">I", n) for n in array.shape)
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def test_mnist_t10k_split_trains_on_the_first_four_fifths(tmp_path):
    images = np.arange(10 * 28 * 28).reshape(10, 28, 28) % 256
    labels = np.arange(10) % 10
    (tmp_path / "t10k-images-idx3-ubyte.gz").write_bytes(idx(images))
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(idx(labels))
    x_train, y_train, x_test, y_test = mnist.load_mnist_split(str(tmp_path), None)
    assert x_train.shape == (8, 28, 28) and x_test.shape == (2, 28, 28)
    np.testing.assert_array_equal(y_test, [8, 9])
    np.testing.assert_allclose(x_train[1], images[1] / 255.0)


def test_length_batches_cover_everything_once_and_group_lengths():
    rows = [[1] * n for n in np.random.default_rng(0).integers(1, 30, size=100)]
    batches = sentiment.length_batches(rows, 10, np.random.default_rng(1))
    assert sorted(np.concatenate(batches).tolist()) == list(range(100))
    spread = [
        max(len(rows[i]) for i in b) - min(len(rows[i]) for i in b) for b in batches
    ]
    assert np.mean(spread) < 10  # sorted within pools: similar lengths together
