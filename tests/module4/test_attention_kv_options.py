"""``nn.MultiheadAttention``'s ``kdim``/``vdim``, ``add_bias_kv`` and
``add_zero_attn`` (given code in Task 4.8's layer), against ``torch`` itself:
the same parameters (names, shapes, order), and with the same numbers the same
outputs, attention weights and gradients, with and without masks. Skips, with
the install command, where PyTorch is absent; the structural checks run
everywhere."""

from __future__ import annotations

import numpy as np
import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import (
    assert_parameter_grads_match,
    assert_same_backward,
    copy_parameters,
    import_torch,
)

pytestmark = pytest.mark.task4_8
E, HEADS, N, L, S = 4, 2, 2, 3, 5

CASES = {
    "kdim_vdim": dict(kdim=3, vdim=6),
    "bias_kv": dict(add_bias_kv=True),
    "zero_attn": dict(add_zero_attn=True),
    "all": dict(kdim=3, vdim=6, add_bias_kv=True, add_zero_attn=True),
    "all_no_bias": dict(kdim=3, vdim=6, add_bias_kv=True, bias=False),
}


def test_parameters_are_pytorchs():
    mha = nn.MultiheadAttention(E, HEADS, kdim=3, vdim=6, add_bias_kv=True)
    shapes = {name: p.shape for name, p in mha.named_parameters()}
    assert shapes == {
        "q_proj_weight": (4, 4),
        "k_proj_weight": (4, 3),
        "v_proj_weight": (4, 6),
        "in_proj_bias": (12,),
        "bias_k": (1, 1, 4),
        "bias_v": (1, 1, 4),
        "out_proj.weight": (4, 4),
        "out_proj.bias": (4,),
    }
    assert mha.in_proj_weight is None
    assert nn.MultiheadAttention(E, HEADS).bias_k is None


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("masks", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name, masks, batch_first):
    torch = import_torch()
    options = dict(CASES[name], batch_first=batch_first)
    ours = nn.MultiheadAttention(E, HEADS, **options)
    theirs = torch.nn.MultiheadAttention(E, HEADS, **options).double()
    copy_parameters(ours, theirs)
    rng = np.random.default_rng(0)
    kdim, vdim = options.get("kdim", E), options.get("vdim", E)
    arrays = [rng.normal(size=(L, N, E)), rng.normal(size=(S, N, kdim))]
    arrays.append(rng.normal(size=(S, N, vdim)))
    if batch_first:
        arrays = [a.transpose(1, 0, 2) for a in arrays]
    mask_args = [{}, {}]
    if masks:
        padding = np.zeros((N, S), dtype=bool)
        padding[1, -2:] = True
        additive = rng.normal(size=(L, S))
        mask_args = [
            dict(key_padding_mask=padding, attn_mask=additive),
            dict(
                key_padding_mask=torch.tensor(padding),
                attn_mask=torch.tensor(additive),
            ),
        ]
    ks = [kt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, weights = ours(*ks, **mask_args[0])
    t_out, t_weights = theirs(*ts, **mask_args[1])
    np.testing.assert_allclose(out.to_numpy(), t_out.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(
        weights.to_numpy(), t_weights.detach().numpy(), atol=1e-12
    )
    assert_same_backward(out, t_out, ks, ts, rng)
    assert_parameter_grads_match(ours, theirs)
