"""Error paths no other test runs, each against ``torch`` itself: for a bad
argument to an activation, a loss, a convolution, a normalization, attention, a
recurrent layer, an embedding, a Transformer layer, an optimizer or a
scheduler, Kindling raises (the type PyTorch raises, or a ``ValueError``,
``TypeError`` or ``RuntimeError``) with a message naming the problem; and where
PyTorch raises one of those three, Kindling raises the same type, or a
``ValueError`` where PyTorch's C++ checks raise ``RuntimeError`` (the Module 4
guide's section 14 lists that difference). Skips, with the
install command, where PyTorch is absent."""

from __future__ import annotations

import re

import numpy as np
import pytest

import module4_networks as kt
from module4_networks.nn import functional as F
from tests.pytorch_reference import import_torch

BUILTIN = (ValueError, TypeError, RuntimeError)
RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 3))
IMAGE, KERNEL = RNG.normal(size=(1, 2, 5, 5)), RNG.normal(size=(3, 2, 3, 3))
SEQ = RNG.normal(size=(2, 3, 4))


def _param(lib):
    return lib.nn.Parameter(lib.ones(3, dtype=lib.float64))


def _sgd(lib, **options):
    return lib.optim.SGD([_param(lib)], lr=0.1, **options)


# name: (task, call(lib, F, t) where t makes lib's tensor, Kindling's message)
CASES = {
    "gelu_approximate": (
        "task2_6",
        lambda lib, F, t: F.gelu(t(X), approximate="bad"),
        "approximate",
    ),
    "hardtanh_min_above_max": (
        "task2_6",
        lambda lib, F, t: F.hardtanh(t(X), 1.0, -1.0),
        "min_val.*max_val",
    ),
    "smooth_l1_negative_beta": (
        "task4_6",
        lambda lib, F, t: F.smooth_l1_loss(t(X), t(X), beta=-1.0),
        "beta",
    ),
    "huber_zero_delta": (
        "task4_6",
        lambda lib, F, t: F.huber_loss(t(X), t(X), delta=0.0),
        "delta",
    ),
    "huber_negative_delta": (
        "task4_6",
        lambda lib, F, t: F.huber_loss(t(X), t(X), delta=-1.0),
        "delta",
    ),
    "label_smoothing_above_one": (
        "task4_6",
        lambda lib, F, t: F.cross_entropy(
            t(X), t(np.array([0, 2])), label_smoothing=1.5
        ),
        "label_smoothing",
    ),
    "conv2d_dilation_zero": (
        "task4_2",
        lambda lib, F, t: F.conv2d(t(IMAGE), t(KERNEL), dilation=0),
        "dilation",
    ),
    "conv2d_padding_string": (
        "task4_2",
        lambda lib, F, t: F.conv2d(t(IMAGE), t(KERNEL), padding="bad"),
        "padding.*'bad'",
    ),
    "group_norm_groups_not_dividing_channels": (
        "task4_6",
        lambda lib, F, t: F.group_norm(t(SEQ), 2),
        "divisible by num_groups",
    ),
    "group_norm_layer_groups_not_dividing_channels": (
        "task4_6",
        lambda lib, F, t: lib.nn.GroupNorm(2, 3),
        "divisible by num_groups",
    ),
    "sdpa_attn_mask_and_is_causal": (
        "task4_8",
        lambda lib, F, t: F.scaled_dot_product_attention(
            t(SEQ), t(SEQ), t(SEQ), attn_mask=t(np.ones((3, 3), bool)), is_causal=True
        ),
        "attn_mask.*is_causal|is_causal.*attn_mask",
    ),
    # is_causal only says that the mask given is the causal one: ignored without a
    # mask, it let every position see the later ones, silently.
    "transformer_layer_is_causal_without_a_mask": (
        "task4_8",
        lambda lib, F, t: lib.nn.TransformerEncoderLayer(4, 2, 8).double()(
            t(SEQ), is_causal=True
        ),
        "is_causal.*src_mask",
    ),
    "transformer_encoder_is_causal_without_a_mask": (
        "task4_8",
        lambda lib, F, t: lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(4, 2, 8), 2
        ).double()(t(SEQ), is_causal=True),
        "is_causal.*src_mask",
    ),
    "multihead_attention_wrong_embedding_size": (
        "task4_8",
        lambda lib, F, t: lib.nn.MultiheadAttention(4, 2).double()(
            t(RNG.normal(size=(3, 2, 5))),
            t(RNG.normal(size=(3, 2, 5))),
            t(RNG.normal(size=(3, 2, 5))),
        ),
        "4 features.*5",
    ),
    "rnn_cell_hx_shape": (
        "task4_7",
        lambda lib, F, t: lib.nn.RNNCell(3, 4).double()(t(X), t(np.zeros((2, 5)))),
        r"state.*\(2, 4\).*\(2, 5\)",
    ),
    "rnn_zero_layers": (
        "task4_7",
        lambda lib, F, t: lib.nn.RNN(3, 4, num_layers=0),
        "num_layers",
    ),
    "rnn_nonlinearity": (
        "task4_7",
        lambda lib, F, t: lib.nn.RNN(3, 4, nonlinearity="bad"),
        "nonlinearity 'bad'",
    ),
    "embedding_padding_idx_too_large": (
        "task4_6",
        lambda lib, F, t: lib.nn.Embedding(5, 3, padding_idx=5),
        "padding_idx 5.*5",
    ),
    "embedding_padding_idx_too_negative": (
        "task4_6",
        lambda lib, F, t: lib.nn.Embedding(5, 3, padding_idx=-6),
        "padding_idx -6.*5",
    ),
    "transformer_encoder_layer_activation": (
        "task4_8",
        lambda lib, F, t: lib.nn.TransformerEncoderLayer(4, 2, activation="bad"),
        "activation.*relu.*gelu.*bad",
    ),
    "add_param_group_not_a_dict": (
        "task4_6",
        lambda lib, F, t: _sgd(lib).add_param_group([_param(lib)]),
        "dict",
    ),
    "rmsprop_negative_alpha": (
        "task4_6",
        lambda lib, F, t: lib.optim.RMSprop([_param(lib)], alpha=-1),
        "alpha",
    ),
    "warm_restarts_t_mult_zero": (
        "task2_1",
        lambda lib, F, t: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            _sgd(lib), T_0=2, T_mult=0
        ),
        "T_mult",
    ),
    "one_cycle_without_total_steps_or_epochs": (
        "task2_1",
        lambda lib, F, t: lib.optim.lr_scheduler.OneCycleLR(
            _sgd(lib, momentum=0.9), max_lr=0.1
        ),
        "total_steps.*epochs",
    ),
    "one_cycle_anneal_strategy": (
        "task2_1",
        lambda lib, F, t: lib.optim.lr_scheduler.OneCycleLR(
            _sgd(lib, momentum=0.9), max_lr=0.1, total_steps=10, anneal_strategy="bad"
        ),
        "anneal_strategy.*'bad'",
    ),
}

#: Where PyTorch raises a RuntimeError and Kindling a ValueError.
RUNTIME_NOT_VALUE = {
    "gelu_approximate": "approximate argument must be either none or tanh.",
    "label_smoothing_above_one": (
        "label_smoothing must be between 0.0 and 1.0. Got: 1.5"
    ),
    "conv2d_dilation_zero": "dilation should be greater than zero, but got [0, 0]",
    "conv2d_padding_string": "Invalid padding string: 'bad'",
    "group_norm_groups_not_dividing_channels": (
        "Expected number of channels in input to be divisible by num_groups, ..."
    ),
    "sdpa_attn_mask_and_is_causal": (
        "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
        "is_causal=True"
    ),
    "rnn_cell_hx_shape": "hidden0 has inconsistent hidden_size: got 5, expected 4",
    "transformer_encoder_layer_activation": "activation should be relu/gelu, not bad",
}


#: Where PyTorch raises none of the three (so no type to compare): an
#: AssertionError.
TORCH_RAISES_OTHER = {
    "multihead_attention_wrong_embedding_size",
    "embedding_padding_idx_too_large",
    "embedding_padding_idx_too_negative",
}


def _cases(same_type=False):
    params = []
    for name, (task, _, _) in CASES.items():
        if same_type and name in TORCH_RAISES_OTHER:
            continue
        marks = [getattr(pytest.mark, task)]
        params.append(pytest.param(name, marks=marks, id=name))
    return params


def _raised(call):
    """The exception ``call()`` raises (``None`` where it raises none)."""
    try:
        call()
    except Exception as error:
        return error
    return None


def _torch_error(torch, name):
    call = CASES[name][1]
    return _raised(lambda: call(torch, torch.nn.functional, torch.tensor))


def _our_error(name):
    """The exception Kindling raises in case ``name``. A stub's
    ``NotImplementedError`` (a ``RuntimeError``: a task not done yet) is raised,
    not compared, so that a grade reads that task as to do, not as failing."""
    try:
        CASES[name][1](kt, F, kt.tensor)
    except NotImplementedError:
        raise
    except Exception as error:
        return error
    return None


@pytest.mark.parametrize("name", _cases())
def test_kindling_raises_with_a_message_naming_the_problem(name):
    torch = import_torch()
    theirs = _torch_error(torch, name)
    allowed = BUILTIN if theirs is None else BUILTIN + (type(theirs),)
    ours = _our_error(name)
    assert isinstance(ours, allowed), f"Kindling: {ours!r}"
    assert re.search(CASES[name][2], str(ours)), f"Kindling: {ours!r}"


@pytest.mark.parametrize("name", _cases(same_type=True))
def test_kindling_raises_the_exception_type_pytorch_does(name):
    torch = import_torch()
    theirs = _torch_error(torch, name)
    assert isinstance(theirs, BUILTIN), f"torch: {theirs!r}"
    ours = _our_error(name)
    # (the Module 4 guide, section 14: a bad argument's value is a ValueError here
    # where PyTorch's C++ checks raise RuntimeError)
    expected = ValueError if name in RUNTIME_NOT_VALUE else type(theirs)
    assert type(ours) is expected, f"torch: {theirs!r}; Kindling: {ours!r}"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=getattr(pytest.mark, CASES[name][0]), id=name)
        for name in sorted(TORCH_RAISES_OTHER)
    ],
)
def test_torch_raises_none_of_the_three_in_the_cases_left_uncompared(name):
    torch = import_torch()
    assert not isinstance(_torch_error(torch, name), BUILTIN)


@pytest.mark.task4_6
@pytest.mark.parametrize("targets", ["indices", "probabilities"])
def test_a_negative_label_smoothing_is_ignored_as_pytorch_does(targets):
    """torch checks only label_smoothing <= 1 and smooths only with a positive
    one: -0.1 gives the unsmoothed loss, and so does Kindling."""
    torch = import_torch()
    rng = np.random.default_rng(4)
    logits, weight = rng.normal(size=(4, 3)), np.array([0.5, 1.0, 2.0])
    if targets == "indices":
        target = np.array([0, 2, 1, 0])
    else:
        target = rng.dirichlet(np.ones(3), size=4)
    for smoothing in (-0.1, -0.5):
        ours = F.cross_entropy(
            kt.tensor(logits),
            kt.tensor(target),
            weight=kt.tensor(weight),
            label_smoothing=smoothing,
        )
        theirs = torch.nn.functional.cross_entropy(
            torch.tensor(logits),
            torch.tensor(target),
            weight=torch.tensor(weight),
            label_smoothing=smoothing,
        )
        plain = F.cross_entropy(kt.tensor(logits), kt.tensor(target), kt.tensor(weight))
        assert ours.item() == pytest.approx(float(theirs), rel=1e-12)
        assert ours.item() == pytest.approx(plain.item(), rel=1e-12)
