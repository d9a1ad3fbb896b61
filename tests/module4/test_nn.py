"""Task 4.6: the layers, against NumPy and central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from module0_fundamentals import Module
from module2_tensors import manual_seed, no_grad, tensor
import module4_networks as kt
from module4_networks import nn
from tests.messages import assert_names
from tests.module4.helpers import (
    BACKEND,
    check_grad_through_update,
    check_module_grad,
    make,
)
from tests.module4.reference import conv1d_ref, conv2d_ref

pytestmark = pytest.mark.task4_6


def value(p) -> np.ndarray:
    return p.value.to_numpy()


# ------------------------------------------------------------------ Linear
def test_linear_computes_x_w_transpose_plus_b():
    layer = nn.Linear(4, 3, backend=BACKEND)
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    assert layer.weight.value.shape == (3, 4) and layer.bias.value.shape == (3,)
    x = np.random.default_rng(0).normal(size=(5, 4))
    expected = x @ value(layer.weight).T + value(layer.bias)
    np.testing.assert_allclose(layer(make(x)).to_numpy(), expected, atol=1e-12)
    batched = np.random.default_rng(1).normal(size=(2, 5, 4))
    out = layer(make(batched)).to_numpy()
    np.testing.assert_allclose(out, batched @ value(layer.weight).T + value(layer.bias))


def test_linear_initialisation_is_pytorchs():
    manual_seed(0)
    layer = nn.Linear(50, 40, backend=BACKEND)
    bound = 1.0 / math.sqrt(50)
    for p in (layer.weight, layer.bias):
        assert np.all(np.abs(value(p)) <= bound)
        assert np.abs(value(p)).max() > 0.8 * bound
    assert abs(value(layer.weight).var() - bound**2 / 3) < 0.1 * bound**2 / 3


@pytest.mark.parametrize(
    "make_layer, fan_in",
    [
        (lambda: nn.Conv2d(8, 16, 3, backend=BACKEND), 8 * 3 * 3),
        (lambda: nn.Conv1d(6, 32, 5, groups=2, backend=BACKEND), 6 // 2 * 5),
    ],
    ids=["conv2d", "conv1d-groups"],
)
def test_conv_initialisation_is_pytorchs(make_layer, fan_in):
    """As torch: kaiming_uniform_(a=sqrt(5)) for the weight and U(-b, b) for the
    bias, both with b = 1 / sqrt(fan_in), fan_in = in_channels / groups * kernel
    entries."""
    manual_seed(0)
    layer = make_layer()
    bound = 1.0 / math.sqrt(fan_in)
    for p in (layer.weight, layer.bias):
        assert np.all(np.abs(value(p)) <= bound)
        assert np.abs(value(p)).max() > 0.8 * bound
    assert abs(value(layer.weight).var() - bound**2 / 3) < 0.1 * bound**2 / 3


def test_linear_gradients_and_no_bias():
    layer = nn.Linear(3, 2, backend=BACKEND)
    check_module_grad(layer, np.random.default_rng(2).normal(size=(4, 3)))
    plain = nn.Linear(3, 2, bias=False, backend=BACKEND)
    assert plain.bias is None and len(list(plain.parameters())) == 1
    check_module_grad(plain, np.random.default_rng(3).normal(size=(2, 3)))


def _layers_with_parameters():
    rng = np.random.default_rng(8)
    return [
        ("Linear", lambda: nn.Linear(3, 2, backend=BACKEND), rng.normal(size=(4, 3))),
        (
            "Conv1d",
            lambda: nn.Conv1d(2, 3, 2, padding=1, backend=BACKEND),
            rng.normal(size=(2, 2, 4)),
        ),
        (
            "Conv2d",
            lambda: nn.Conv2d(2, 2, 2, stride=2, backend=BACKEND),
            rng.normal(size=(1, 2, 4, 3)),
        ),
        (
            "Embedding",
            lambda: nn.Embedding(5, 3, backend=BACKEND),
            lambda: tensor(np.array([[1, 4, 0], [2, 1, 3]]), backend=BACKEND),
        ),
        (
            "BatchNorm1d",
            lambda: nn.BatchNorm1d(3, backend=BACKEND),
            rng.normal(size=(4, 3)),
        ),
        (
            "BatchNorm2d",
            lambda: nn.BatchNorm2d(2, backend=BACKEND),
            rng.normal(size=(2, 2, 2, 3)),
        ),
        (
            "LayerNorm",
            lambda: nn.LayerNorm((2, 3), backend=BACKEND),
            rng.normal(size=(2, 2, 3)),
        ),
        (
            "GroupNorm",
            lambda: nn.GroupNorm(2, 4, backend=BACKEND),
            rng.normal(size=(2, 4, 3)),
        ),
        (
            "InstanceNorm2d",
            lambda: nn.InstanceNorm2d(2, affine=True, backend=BACKEND),
            rng.normal(size=(2, 2, 2, 3)),
        ),
        (
            "ConvTranspose2d",
            lambda: nn.ConvTranspose2d(2, 3, 2, stride=2, backend=BACKEND),
            rng.normal(size=(1, 2, 2, 3)),
        ),
        (
            "PReLU",
            lambda: nn.PReLU(3, backend=BACKEND),
            rng.normal(size=(2, 3, 4)),
        ),
    ]


@pytest.mark.parametrize(
    "make_layer, x",
    [pytest.param(m, x, id=name) for name, m, x in _layers_with_parameters()],
)
def test_every_layer_reads_its_parameters_through_value(make_layer, x):
    """The contract stated in ``layers.py``: a forward reads each parameter as
    ``self.<name>.value``. Module 1's optimizer and a gradient check give a
    parameter a new value with ``p.update(leaf)``; from then on ``p.value`` is
    that leaf, and its gradient must reach it (checked against central
    differences for every parameter of every layer)."""
    layer = make_layer()
    check_grad_through_update(layer, x() if callable(x) else x)


def test_linear_rejects_the_wrong_input_size():
    with pytest.raises(ValueError, match=r"input of shape \(2, 5\).*\(3, 4\)"):
        nn.Linear(4, 3, backend=BACKEND)(make(np.zeros((2, 5))))


# ------------------------------------------------------------- convolutions
def test_conv1d_layer():
    layer = nn.Conv1d(2, 3, kernel_size=3, stride=2, padding=1, backend=BACKEND)
    w, b = value(layer.weight), value(layer.bias)
    assert w.shape == (3, 2, 3) and b.shape == (3,)
    assert np.all(np.abs(w) <= 1 / math.sqrt(6)) and np.all(
        np.abs(b) <= 1 / math.sqrt(6)
    )
    x = np.random.default_rng(4).normal(size=(2, 2, 7))
    expected = conv1d_ref(x, w, 2, 1) + b[:, None]
    np.testing.assert_allclose(layer(make(x)).to_numpy(), expected, atol=1e-12)
    check_module_grad(layer, x[:1, :, :5])


def test_conv2d_layer():
    layer = nn.Conv2d(2, 2, kernel_size=(2, 3), padding=(1, 0), backend=BACKEND)
    w, b = value(layer.weight), value(layer.bias)
    assert w.shape == (2, 2, 2, 3)
    assert np.all(np.abs(w) <= 1 / math.sqrt(12))
    x = np.random.default_rng(5).normal(size=(1, 2, 4, 5))
    expected = conv2d_ref(x, w, (1, 1), (1, 0)) + b[:, None, None]
    np.testing.assert_allclose(layer(make(x)).to_numpy(), expected, atol=1e-12)
    check_module_grad(layer, x[:, :, :3, :4])


# ---------------------------------------------------------------- Embedding
def test_embedding_looks_up_rows_and_scatter_adds_gradients():
    layer = nn.Embedding(5, 3, backend=BACKEND)
    table = value(layer.weight)
    index = np.array([[1, 4, 1], [0, 1, 2]])
    out = layer(tensor(index, backend=BACKEND))  # (int64 indices)
    np.testing.assert_array_equal(out.to_numpy(), table[index])
    upstream = np.random.default_rng(6).normal(size=(2, 3, 3))
    (out * make(upstream)).sum().backward()
    expected = np.zeros((5, 3))
    np.add.at(expected, index, upstream)  # row 1 is used three times
    np.testing.assert_allclose(layer.weight.value.grad.to_numpy(), expected)


def test_embedding_padding_row_is_zero_and_frozen():
    layer = nn.Embedding(4, 2, padding_idx=0, backend=BACKEND)
    np.testing.assert_array_equal(value(layer.weight)[0], [0.0, 0.0])
    assert np.count_nonzero(value(layer.weight)[1:]) == 6
    out = layer(np.array([0, 2, 0]))
    out.sum().backward()
    np.testing.assert_array_equal(
        layer.weight.value.grad.to_numpy(), [[0, 0], [0, 0], [1, 1], [0, 0]]
    )
    with pytest.raises(IndexError, match=r"index 4 is out of range for 4"):
        layer(np.array([4]))


def test_embedding_from_pretrained():
    table = np.arange(6.0).reshape(3, 2)
    layer = nn.Embedding.from_pretrained(table, backend=BACKEND)
    np.testing.assert_array_equal(layer(np.array([2])).to_numpy(), [[4.0, 5.0]])
    assert not layer.weight.value.requires_grad
    trainable = nn.Embedding.from_pretrained(table, freeze=False, backend=BACKEND)
    assert trainable.weight.value.requires_grad
    assert layer.weight.dtype is kt.float64 and layer.weight.backend is BACKEND
    # A float32 table (an array or a tensor) makes a float32 layer, as PyTorch's
    # (it reported float64).
    for table32 in (table.astype(np.float32), kt.tensor(table, dtype=kt.float32)):
        layer32 = nn.Embedding.from_pretrained(table32, backend=BACKEND)
        assert layer32.weight.dtype is kt.float32 and not layer32.weight.requires_grad
        assert layer32(np.array([1])).dtype is kt.float32
        assert layer32(np.array([1])).tolist() == [[2.0, 3.0]]


# ---------------------------------------------------------- normalisation
def batch_norm_ref(x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    axes = tuple(d for d in range(x.ndim) if d != 1)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize(
    "layer_class, shape",
    [
        (nn.BatchNorm1d, (6, 3)),
        (nn.BatchNorm1d, (4, 3, 5)),
        (nn.BatchNorm2d, (2, 3, 4, 2)),
    ],
)
def test_batch_norm_training_and_running_statistics(layer_class, shape):
    layer = layer_class(3, momentum=0.2, backend=BACKEND)
    rng = np.random.default_rng(7)
    running_mean, running_var = np.zeros(3), np.ones(3)
    axes = tuple(d for d in range(len(shape)) if d != 1)
    for _ in range(3):
        x = rng.normal(loc=2.0, scale=3.0, size=shape)
        out = layer(make(x))
        np.testing.assert_allclose(out.to_numpy(), batch_norm_ref(x), atol=1e-10)
        running_mean = 0.8 * running_mean + 0.2 * x.mean(axis=axes)
        running_var = 0.8 * running_var + 0.2 * x.var(axis=axes, ddof=1)
    np.testing.assert_allclose(layer.running_mean.to_numpy(), running_mean)
    np.testing.assert_allclose(layer.running_var.to_numpy(), running_var)
    assert layer.num_batches_tracked == 3
    layer.eval()
    x = rng.normal(size=shape)
    view = [1] * len(shape)
    view[1] = 3
    expected = (x - running_mean.reshape(view)) / np.sqrt(
        running_var.reshape(view) + 1e-5
    )
    np.testing.assert_allclose(layer(make(x)).to_numpy(), expected, atol=1e-10)
    np.testing.assert_allclose(layer.running_mean.to_numpy(), running_mean)


def test_batch_norm_of_two_values_and_of_inputs_far_from_zero():
    """Two values per channel are enough in training (PyTorch's rule is "more
    than 1"). The variance is the mean squared deviation, computed from x - mean:
    inputs near 1e7 with a spread of 1 keep their digits there, where
    E[x^2] - E[x]^2 would lose them to round-off."""
    layer = nn.BatchNorm1d(3, backend=BACKEND)
    for seed, rows in ((10, 2), (11, 16)):
        x = np.random.default_rng(seed).normal(loc=1e7, size=(rows, 3))
        np.testing.assert_allclose(
            layer(make(x)).to_numpy(), batch_norm_ref(x), atol=1e-6
        )


def test_batch_norm_momentum_none_keeps_a_cumulative_average():
    """momentum=None, as torch: the k-th batch weighs 1/k, so the running
    statistics are the plain means of the batches' means and unbiased
    variances (the initial 0 and 1 are forgotten at the first batch)."""
    layer = nn.BatchNorm1d(3, momentum=None, backend=BACKEND)
    rng = np.random.default_rng(12)
    xs = [rng.normal(loc=k, scale=k + 1.0, size=(5, 3)) for k in range(3)]
    for x in xs:
        layer(make(x))
    np.testing.assert_allclose(
        layer.running_mean.to_numpy(), np.mean([x.mean(0) for x in xs], axis=0)
    )
    np.testing.assert_allclose(
        layer.running_var.to_numpy(),
        np.mean([x.var(0, ddof=1) for x in xs], axis=0),
    )


def test_batch_norm_uses_running_statistics_while_it_has_them():
    """As torch's BatchNorm: evaluation uses the running estimates whenever they
    exist, also with track_running_stats switched off after construction (then
    training leaves them alone); without them (None) it uses the batch's."""
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    layer = nn.BatchNorm1d(2, backend=BACKEND)
    layer.track_running_stats = False
    layer(make(x))  # training, not tracking: the estimates stay 0 and 1
    np.testing.assert_array_equal(layer.running_mean.to_numpy(), [0.0, 0.0])
    layer.eval()
    np.testing.assert_allclose(layer(make(x)).to_numpy(), x / np.sqrt(1 + 1e-5))
    layer.running_mean = layer.running_var = None
    np.testing.assert_allclose(layer(make(x)).to_numpy(), batch_norm_ref(x))


def test_batch_norm_gradients_in_training():
    layer = nn.BatchNorm1d(2, backend=BACKEND)
    rng = np.random.default_rng(8)
    # Move the affine parameters off their initial 1 and 0 for a stronger check.
    with no_grad():
        layer.weight.value.copy_(make(rng.normal(size=2)))
        layer.bias.value.copy_(make(rng.normal(size=2)))
    x = rng.normal(size=(4, 2, 2))
    w, b = (p.value.to_numpy().reshape(1, 2, 1) for p in (layer.weight, layer.bias))
    np.testing.assert_allclose(
        layer(make(x)).to_numpy(), batch_norm_ref(x) * w + b, atol=1e-10
    )
    check_module_grad(layer, x, atol=1e-5)


def test_batch_norm_without_running_stats_and_errors():
    layer = nn.BatchNorm2d(2, affine=False, track_running_stats=False, backend=BACKEND)
    assert list(layer.parameters()) == []
    layer.eval()
    x = np.random.default_rng(9).normal(size=(2, 2, 2, 2))
    np.testing.assert_allclose(layer(make(x)).to_numpy(), batch_norm_ref(x), atol=1e-10)
    with pytest.raises(ValueError, match=r"BatchNorm2d\(2\) expects .* got shape"):
        layer(make(np.zeros((2, 3, 2, 2))))
    # One value per channel has no variance to normalise by: in training this is
    # an error (the BatchNorm docstring), naming the input's shape, as PyTorch's
    # "Expected more than 1 value per channel when training, got input size
    # torch.Size([1, 2])" does.
    with pytest.raises(ValueError) as error:
        nn.BatchNorm1d(2, backend=BACKEND)(make(np.zeros((1, 2))))
    assert_names(error.value, (1, 2))


def test_layer_norm():
    layer = nn.LayerNorm((2, 3), backend=BACKEND)
    rng = np.random.default_rng(10)
    x = rng.normal(size=(4, 2, 3)) * 5 + 1
    flat = x.reshape(4, 6)
    expected = (flat - flat.mean(1, keepdims=True)) / np.sqrt(
        flat.var(1, keepdims=True) + 1e-5
    )
    np.testing.assert_allclose(
        layer(make(x)).to_numpy(), expected.reshape(4, 2, 3), atol=1e-10
    )
    with no_grad():
        layer.weight.value.copy_(make(rng.normal(size=(2, 3))))
        layer.bias.value.copy_(make(rng.normal(size=(2, 3))))
    w, b = layer.weight.value.to_numpy(), layer.bias.value.to_numpy()
    np.testing.assert_allclose(
        layer(make(x)).to_numpy(), expected.reshape(4, 2, 3) * w + b, atol=1e-10
    )
    # Near 1e7 the variance must come from x - mean (E[x^2] - E[x]^2 loses it).
    far = (flat + 1e7).reshape(4, 2, 3)
    np.testing.assert_allclose(
        layer(make(far)).to_numpy(), expected.reshape(4, 2, 3) * w + b, atol=1e-6
    )
    check_module_grad(layer, x[:2], atol=1e-5)
    with pytest.raises(ValueError, match=r"last dims to be \(2, 3\), got shape"):
        layer(make(np.zeros((2, 3, 2))))


# ---------------------------------------------------- containers and others
def test_dropout_layer_follows_train_and_eval():
    manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3, backend=BACKEND), nn.Dropout(0.5))
    x = make(np.ones((10, 3)))
    assert model[1].training
    assert np.count_nonzero(model(x).to_numpy() == 0.0) > 0
    model.eval()
    assert not model[1].training
    expected = np.ones((10, 3)) @ value(model[0].weight).T + value(model[0].bias)
    np.testing.assert_allclose(model(x).to_numpy(), expected)
    with pytest.raises(ValueError, match=r"between 0 and 1"):
        nn.Dropout(2.0)


def test_a_small_cnn_has_pytorch_like_names_and_shapes():
    class Net(Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 2, 3, padding=1, backend=BACKEND),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Flatten(),
            )
            self.head = nn.Linear(2 * 2 * 2, 3, backend=BACKEND)
            self.out = nn.LogSoftmax(dim=1)

        def forward(self, x):
            return self.out(self.head(self.features(x)))

    net = Net()
    names = [name for name, _ in net.named_parameters()]
    assert names == ["features.0.weight", "features.0.bias", "head.weight", "head.bias"]
    out = net(make(np.random.default_rng(11).normal(size=(2, 1, 4, 4))))
    assert out.shape == (2, 3)
    np.testing.assert_allclose(np.exp(out.to_numpy()).sum(1), 1.0)


def test_parameter_free_layers():
    x = np.array([[-1.0, 2.0], [0.5, -3.0]])
    np.testing.assert_array_equal(nn.ReLU()(make(x)).to_numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(nn.Tanh()(make(x)).to_numpy(), np.tanh(x))
    np.testing.assert_allclose(nn.Sigmoid()(make(x)).to_numpy(), 1 / (1 + np.exp(-x)))
    assert nn.Flatten()(make(np.zeros((2, 3, 4)))).shape == (2, 12)
    assert nn.Flatten(0, 1)(make(np.zeros((2, 3, 4)))).shape == (6, 4)
    assert nn.Identity()(make(x)).tolist() == x.tolist()
    probs = nn.Softmax(dim=0)(make(x)).to_numpy()
    np.testing.assert_allclose(probs.sum(0), 1.0)
    pooled = nn.AvgPool2d(2)(make(np.arange(16.0).reshape(1, 1, 4, 4)))
    assert pooled.tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]


@pytest.mark.parametrize("index", [[-1, 2], [2, -3, 1], [1, 7, -1]])
def test_embedding_names_the_first_index_out_of_range(index):
    """A negative index beside an in-range maximum is the one named (not the
    maximum); PyTorch raises IndexError for negative indices too."""
    layer = nn.Embedding(4, 2, backend=BACKEND)
    bad = next(i for i in index if not 0 <= i < 4)
    with pytest.raises(IndexError, match=rf"index {bad} is out of range for 4"):
        layer(np.array(index))
