"""``repr`` (through ``extra_repr``) of ``nn.Linear``, ``nn.Embedding``,
``nn.RNNCell``, ``nn.GRUCell`` and ``nn.LSTMCell``, with their default and
non-default options, equal to ``torch``'s own for the same arguments, alone
and inside a container. Skips, with the install command, where PyTorch is
absent."""

from __future__ import annotations

import pytest

from module4_networks import nn
from tests.pytorch_reference import import_torch

CASES = [
    pytest.param("Linear", (3, 4), {}, marks=pytest.mark.task4_6, id="linear"),
    pytest.param(
        "Linear",
        (3, 4),
        dict(bias=False),
        marks=pytest.mark.task4_6,
        id="linear_no_bias",
    ),
    pytest.param("Embedding", (5, 3), {}, marks=pytest.mark.task4_6, id="embedding"),
    pytest.param(
        "Embedding",
        (5, 3),
        dict(padding_idx=1),
        marks=pytest.mark.task4_6,
        id="embedding_padding_idx",
    ),
    pytest.param("RNNCell", (3, 4), {}, marks=pytest.mark.task4_7, id="rnn_cell"),
    pytest.param(
        "RNNCell",
        (3, 4),
        dict(bias=False),
        marks=pytest.mark.task4_7,
        id="rnn_cell_no_bias",
    ),
    pytest.param(
        "RNNCell",
        (3, 4),
        dict(bias=False, nonlinearity="relu"),
        marks=pytest.mark.task4_7,
        id="rnn_cell_relu",
    ),
    pytest.param("GRUCell", (3, 4), {}, marks=pytest.mark.task4_7, id="gru_cell"),
    pytest.param(
        "GRUCell",
        (3, 4),
        dict(bias=False),
        marks=pytest.mark.task4_7,
        id="gru_cell_no_bias",
    ),
    pytest.param("LSTMCell", (3, 4), {}, marks=pytest.mark.task4_7, id="lstm_cell"),
    pytest.param(
        "LSTMCell",
        (3, 4),
        dict(bias=False),
        marks=pytest.mark.task4_7,
        id="lstm_cell_no_bias",
    ),
]


@pytest.mark.parametrize("name, args, options", CASES)
def test_repr_equals_pytorchs(name, args, options):
    torch = import_torch()
    ours = getattr(nn, name)(*args, **options)
    theirs = getattr(torch.nn, name)(*args, **options)
    assert repr(ours) == repr(theirs)


@pytest.mark.task4_7
def test_repr_inside_a_container_equals_pytorchs():
    torch = import_torch()
    ours = nn.Sequential(nn.Linear(2, 3), nn.Embedding(4, 2), nn.GRUCell(3, 4, False))
    theirs = torch.nn.Sequential(
        torch.nn.Linear(2, 3), torch.nn.Embedding(4, 2), torch.nn.GRUCell(3, 4, False)
    )
    assert repr(ours) == repr(theirs)
