"""``repr`` (through ``extra_repr``) of ``nn.Linear``, ``nn.Embedding``,
``nn.RNNCell``, ``nn.GRUCell`` and ``nn.LSTMCell``, with their default and
non-default options, equal to ``torch``'s own for the same arguments, alone
and inside a container. Skips, with the install command, where PyTorch is
absent."""

from __future__ import annotations

import pytest

from module4_networks import nn
from tests.pytorch_reference import import_torch

#: (id, layer, positional arguments, options, the task whose layer it is)
TABLE = [
    ("linear", "Linear", (3, 4), {}, "task4_6"),
    ("linear_no_bias", "Linear", (3, 4), dict(bias=False), "task4_6"),
    ("embedding", "Embedding", (5, 3), {}, "task4_6"),
    ("embedding_padding_idx", "Embedding", (5, 3), dict(padding_idx=1), "task4_6"),
    ("rnn_cell", "RNNCell", (3, 4), {}, "task4_7"),
    ("rnn_cell_no_bias", "RNNCell", (3, 4), dict(bias=False), "task4_7"),
    (
        "rnn_cell_relu",
        "RNNCell",
        (3, 4),
        dict(bias=False, nonlinearity="relu"),
        "task4_7",
    ),
    ("gru_cell", "GRUCell", (3, 4), {}, "task4_7"),
    ("gru_cell_no_bias", "GRUCell", (3, 4), dict(bias=False), "task4_7"),
    ("lstm_cell", "LSTMCell", (3, 4), {}, "task4_7"),
    ("lstm_cell_no_bias", "LSTMCell", (3, 4), dict(bias=False), "task4_7"),
]
CASES = [
    pytest.param(name, args, options, marks=getattr(pytest.mark, task), id=case)
    for case, name, args, options, task in TABLE
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
