"""``F.pad`` with ``mode='reflect' | 'replicate' | 'circular'``, ``F.unfold``
(im2col), ``F.softmax``/``F.log_softmax`` with ``dtype=``, and BatchNorm's
``num_batches_tracked`` as a 0-d int64 tensor buffer, with PyTorch's semantics.
Values are worked by hand (and, for ``unfold``, a direct loop over the
windows); gradients are checked by central differences; where PyTorch is
installed the same calls run on it too. Given code (``_padding.py``,
``_unfold.py``); each test carries the marker of the task whose code it runs."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from module4_networks.nn import functional as F
from tests.pytorch_reference import import_torch


def central_gradient(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """$(f(x + h e_i) - f(x - h e_i)) / 2h$ for each entry of ``x``."""
    grad = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


def _checks_gradient(f, x0: np.ndarray) -> None:
    """The gradient of ``sum(f(x) * w)`` against central differences."""
    w = np.random.default_rng(0).standard_normal(f(kt.tensor(x0)).shape)

    def loss(x):
        return (f(kt.tensor(x)) * kt.tensor(w)).sum().item()

    x = kt.tensor(x0, requires_grad=True)
    (f(x) * kt.tensor(w)).sum().backward()
    assert np.allclose(x.grad.to_numpy(), central_gradient(loss, x0), atol=1e-6)


# ------------------------------------------------------------------- F.pad


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "mode, expected",
    [
        ("reflect", [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]),
        ("replicate", [1.0, 1.0, 1.0, 2.0, 3.0, 3.0]),
        ("circular", [2.0, 3.0, 1.0, 2.0, 3.0, 1.0]),
        ("constant", [0.0, 0.0, 1.0, 2.0, 3.0, 0.0]),
    ],
)
def test_pad_modes_by_hand(mode, expected):
    x = kt.tensor([[[1.0, 2.0, 3.0]]])
    assert F.pad(x, (2, 1), mode=mode).tolist() == [[expected]]


@pytest.mark.task2_6
def test_constant_pad_keeps_the_dtype():
    """``F.pad`` of an int64 tensor is int64 (the value cast), of a mask a mask
    that still selects, of float32 float32, as PyTorch's."""
    labels = F.pad(kt.tensor([1, 2]), (1, 1), value=-1)
    assert labels.dtype is kt.int64 and labels.tolist() == [-1, 1, 2, -1]
    x = kt.tensor([5.0, 6.0, 7.0])
    mask = F.pad(kt.tensor([True, False]), (0, 1), value=1)
    assert mask.dtype is kt.bool and x[mask].tolist() == [5.0, 7.0]
    assert F.pad(x.float(), (1, 0)).dtype is kt.float32


@pytest.mark.task2_6
def test_pad_two_dimensions_reflects_rows_and_columns():
    x = kt.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])
    # columns padded (1, 0), then rows (0, 1): reflect without the edge
    assert F.pad(x, (1, 0, 0, 1), mode="reflect").tolist() == [
        [[2.0, 1.0, 2.0], [4.0, 3.0, 4.0], [6.0, 5.0, 6.0], [4.0, 3.0, 4.0]]
    ]
    assert F.pad(x, (1, 1), value=9.0)[0, 0].tolist() == [9.0, 1.0, 2.0, 9.0]


@pytest.mark.task2_6
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_mode_gradients_by_central_differences(mode):
    """An entry copied several times gets the sum of its copies' gradients."""
    x0 = np.random.default_rng(1).standard_normal((1, 2, 3, 4))
    _checks_gradient(lambda x: F.pad(x, (2, 1, 1, 2), mode=mode), x0)


@pytest.mark.task2_6
def test_pad_mode_errors():
    x = kt.zeros(1, 2, 3)
    with pytest.raises(ValueError, match="size 3"):
        F.pad(x, (3, 0), mode="reflect")  # reflect needs amounts below the size
    with pytest.raises(ValueError, match="size 3"):
        F.pad(x, (4, 0), mode="circular")
    with pytest.raises(ValueError, match="last k"):
        F.pad(kt.zeros(3), (1, 1), mode="replicate")  # the first dim is not padded
    with pytest.raises(ValueError, match="unknown mode"):
        F.pad(x, (1, 1), mode="mirror")


@pytest.mark.task2_6
def test_pad_modes_match_pytorch():
    torch = import_torch()
    x0 = np.random.default_rng(2).standard_normal((2, 3, 4, 5, 6))
    cases = [
        ((4, 5, 6), (2, 1)),
        ((3, 4, 5, 6), (1, 2, 3, 0)),
        ((2, 3, 4, 5, 6), (1, 2, 0, 3, 2, 1)),
        ((4, 5, 6), (0, 5, 4, 1)),
    ]
    for mode in ("reflect", "replicate", "circular", "constant"):
        for shape, amounts in cases:
            data = x0.reshape(-1)[: int(np.prod(shape))].reshape(shape)
            if mode == "reflect" and amounts == (0, 5, 4, 1):
                amounts = (0, 5, 3, 1)  # reflect: below the size 5
            ours = F.pad(kt.tensor(data), amounts, mode=mode).to_numpy()
            theirs = torch.nn.functional.pad(torch.tensor(data), amounts, mode=mode)
            assert np.allclose(ours, theirs.numpy()), (mode, shape, amounts)


# ---------------------------------------------------------------- F.unfold


def _unfold_by_loops(x, k, d, p, s):
    """im2col from its definition: one column per window, rows (c, i, j)."""
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for r in range(oh):
        for q in range(ow):
            for ch in range(c):
                for i in range(k[0]):
                    for j in range(k[1]):
                        row = (ch * k[0] + i) * k[1] + j
                        value = padded[:, ch, s[0] * r + d[0] * i, s[1] * q + d[1] * j]
                        out[:, row, r * ow + q] = value
    return out


UNFOLD_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=(2, 3), stride=(2, 1)),
    dict(kernel_size=(3, 2), dilation=(1, 2), padding=(1, 0), stride=(1, 2)),
    dict(kernel_size=1, padding=1),
]


def _pairs(kw):
    def two(v):
        return (v, v) if isinstance(v, int) else v

    return (
        two(kw["kernel_size"]),
        two(kw.get("dilation", 1)),
        two(kw.get("padding", 0)),
        two(kw.get("stride", 1)),
    )


@pytest.mark.task2_6
@pytest.mark.parametrize("case", range(len(UNFOLD_CASES)))
def test_unfold_lays_out_windows_as_columns(case):
    kw = UNFOLD_CASES[case]
    x0 = np.arange(2 * 3 * 5 * 6, dtype=np.float64).reshape(2, 3, 5, 6)
    expected = _unfold_by_loops(x0, *_pairs(kw))
    assert np.array_equal(F.unfold(kt.tensor(x0), **kw).to_numpy(), expected)
    # without a batch dimension: the same columns, (C * kh * kw, L)
    assert np.array_equal(F.unfold(kt.tensor(x0[0]), **kw).to_numpy(), expected[0])


@pytest.mark.task4_2  # (against Task 4.2's conv2d)
def test_unfold_is_how_a_convolution_multiplies():
    """conv2d(x, w) == w.view(out, -1) @ unfold(x), viewed back as an image."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((4, 3, 2, 3))
    columns = F.unfold(kt.tensor(x), (2, 3))  # (2, 18, 4 * 2)
    product = (kt.tensor(w).view(4, 18) @ columns).view(2, 4, 4, 2)
    assert np.allclose(
        product.to_numpy(), F.conv2d(kt.tensor(x), kt.tensor(w)).to_numpy()
    )


@pytest.mark.task2_6
@pytest.mark.parametrize("case", [1, 2])
def test_unfold_gradient_by_central_differences(case):
    """An entry in several windows gets the sum of their gradients."""
    x0 = np.random.default_rng(4).standard_normal((1, 2, 4, 5))
    _checks_gradient(lambda x: F.unfold(x, **UNFOLD_CASES[case]), x0)


@pytest.mark.task2_6
def test_unfold_errors():
    with pytest.raises(ValueError, match="3-D or 4-D"):
        F.unfold(kt.zeros(2, 3), 2)
    with pytest.raises(ValueError, match="no window"):
        F.unfold(kt.zeros(1, 1, 2, 2), 3)
    for stride in (0, (1, 0), -1):  # (named in the message; 0 divided by zero)
        with pytest.raises(ValueError, match=r"stride \("):
            F.unfold(kt.zeros(1, 1, 4, 4), 2, stride=stride)


@pytest.mark.task2_6
def test_unfold_matches_pytorch():
    torch = import_torch()
    x0 = np.random.default_rng(5).standard_normal((2, 3, 7, 6))
    for kw in UNFOLD_CASES + [dict(kernel_size=(2, 2), dilation=2, padding=2)]:
        ours = F.unfold(kt.tensor(x0), **kw).to_numpy()
        theirs = torch.nn.functional.unfold(torch.tensor(x0), **kw).numpy()
        assert ours.shape == theirs.shape and np.allclose(ours, theirs), kw


# ------------------------------------------------- softmax dtype, BatchNorm


@pytest.mark.task4_4
def test_softmax_and_log_softmax_take_a_dtype():
    x = kt.tensor([[1.0, 2.0, 3.0]])
    out = F.softmax(x, dim=1, dtype=kt.float32)
    assert out.dtype is kt.float32
    e = np.exp([1.0, 2.0, 3.0])
    assert np.allclose(out.to_numpy(), [e / e.sum()])
    logs = F.log_softmax(kt.tensor([[1, 2, 3]]), dim=1, dtype=kt.float32)
    assert logs.dtype is kt.float32
    assert np.allclose(logs.to_numpy(), [np.log(e / e.sum())])
    assert F.softmax(x, 1).dtype is kt.float64


@pytest.mark.task4_6
def test_num_batches_tracked_is_a_0d_int64_tensor_buffer():
    bn = nn.BatchNorm1d(2)
    count = bn.num_batches_tracked
    assert (
        isinstance(count, kt.Tensor) and count.shape == () and count.dtype is kt.int64
    )
    x = kt.tensor([[1.0, 2.0], [3.0, 5.0]])
    bn(x)
    bn(x)
    assert (
        bn.num_batches_tracked.item() == 2
        and type(bn.num_batches_tracked.item()) is int
    )
    assert bn.state_dict()["num_batches_tracked"].dtype is kt.int64
    cumulative = nn.BatchNorm1d(2, momentum=None)
    for batch in ([[1.0, 2.0], [3.0, 6.0]], [[5.0, 0.0], [7.0, 2.0]]):
        cumulative(kt.tensor(batch))
    # momentum=None: the running mean is the plain average of the batch means
    assert np.allclose(cumulative.running_mean.to_numpy(), [(2.0 + 6.0) / 2, 2.5])


@pytest.mark.task4_6
def test_batchnorm_buffers_match_pytorch():
    """(PyTorch with this library's default float64: the float buffers agree.)"""
    torch = import_torch()
    reports, before = [], torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for lib in (kt, torch):
            bn = lib.nn.BatchNorm2d(3)
            bn(lib.ones(2, 3, 2, 2) * lib.arange(4.0).view(1, 1, 2, 2))
            reports.append(
                [
                    (name, str(b.dtype).split(".")[-1], tuple(b.shape), b.tolist())
                    for name, b in bn.named_buffers()
                ]
            )
    finally:
        torch.set_default_dtype(before)
    assert reports[0] == reports[1]
