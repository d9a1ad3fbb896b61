"""``nn.MultiheadAttention``'s padding masks against ``torch`` itself with the same
weights: on unbatched input (a query of shape ``(L, E)``, keys and values of shape
``(S, E)``, a ``key_padding_mask`` of shape ``(S,)``: a NumPy bool array, a bool
tensor or additive floats) the outputs, the attention weights (averaged over the
heads and per head) and the gradients of the inputs and of every parameter; on a
batch, bool tensors made by comparisons (``tokens == pad``, a causal
``triu(...).bool()``). Skips, with the install command, where PyTorch is absent."""

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
E, HEADS, L, S = 4, 2, 3, 5


def _pair(torch, **options):
    """Kindling's layer and torch's (float64) with Kindling's weights copied."""
    ours = nn.MultiheadAttention(E, HEADS, **options)
    theirs = torch.nn.MultiheadAttention(E, HEADS, **options).double()
    copy_parameters(ours, theirs)
    return ours, theirs


def _padding(lib, kind):
    """The mask ignoring the last two keys, as ``lib`` takes it: a NumPy bool
    array, a bool tensor, or the additive float form (``-inf`` at padding)."""
    padding = np.zeros(S, dtype=bool)
    padding[-2:] = True
    if kind == "numpy_bool":
        return padding
    if kind == "bool_tensor":
        return lib.tensor(padding)
    return lib.tensor(np.where(padding, -np.inf, 0.0))


KINDS = ["numpy_bool", "bool_tensor", "float"]


@pytest.mark.parametrize("average", [True, False])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input_with_a_key_padding_mask_matches_pytorch(
    batch_first, kind, average
):
    torch = import_torch()
    ours, theirs = _pair(torch, batch_first=batch_first)
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(L, E)), rng.normal(size=(S, E)), rng.normal(size=(S, E))]
    ks = [kt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, weights = ours(
        *ks, key_padding_mask=_padding(kt, kind), average_attn_weights=average
    )
    t_out, t_weights = theirs(
        *ts,
        key_padding_mask=torch.as_tensor(_padding(torch, kind)),
        average_attn_weights=average,
    )
    assert out.shape == tuple(t_out.shape) == (L, E)
    assert weights.shape == tuple(t_weights.shape)
    np.testing.assert_allclose(out.to_numpy(), t_out.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(
        weights.to_numpy(), t_weights.detach().numpy(), atol=1e-12
    )
    np.testing.assert_array_equal(weights.to_numpy()[..., -2:], 0.0)  # padded keys
    assert_same_backward(out, t_out, ks, ts, rng)
    assert_parameter_grads_match(ours, theirs)


def test_unbatched_query_gradient_matches_central_differences():
    torch = import_torch()
    ours, _ = _pair(torch)
    rng = np.random.default_rng(1)
    query, key = rng.normal(size=(L, E)), rng.normal(size=(S, E))
    padding = _padding(kt, "numpy_bool")
    weights = rng.normal(size=(L, E))

    def loss(q):
        out, _ = ours(
            kt.tensor(q), kt.tensor(key), kt.tensor(key), key_padding_mask=padding
        )
        return float((out.to_numpy() * weights).sum())

    q = kt.tensor(query, requires_grad=True)
    out, _ = ours(q, kt.tensor(key), kt.tensor(key), key_padding_mask=padding)
    (out * kt.tensor(weights)).sum().backward()
    numeric = np.zeros_like(query)
    h = 1e-6
    for index in np.ndindex(query.shape):
        up, down = query.copy(), query.copy()
        up[index] += h
        down[index] -= h
        numeric[index] = (loss(up) - loss(down)) / (2 * h)
    np.testing.assert_allclose(q.grad.to_numpy(), numeric, rtol=1e-5, atol=1e-7)


def test_batched_masks_made_by_comparisons_match_pytorch():
    """PyTorch's idioms: ``key_padding_mask = tokens == pad`` and a causal
    ``attn_mask`` of ``triu(ones, 1).bool()``, both bool tensors, batch first."""
    torch = import_torch()
    ours, theirs = _pair(torch, batch_first=True)
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, S, E))
    tokens = np.array([[3, 1, 4, 0, 0], [2, 7, 1, 8, 0]])
    out, weights = ours(
        *[kt.tensor(x)] * 3,
        key_padding_mask=kt.tensor(tokens) == 0,
        attn_mask=kt.ones(S, S).triu(1).bool(),
    )
    t_out, t_weights = theirs(
        *[torch.tensor(x)] * 3,
        key_padding_mask=torch.tensor(tokens) == 0,
        attn_mask=torch.ones(S, S).triu(1).bool(),
    )
    np.testing.assert_allclose(out.to_numpy(), t_out.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(
        weights.to_numpy(), t_weights.detach().numpy(), atol=1e-12
    )
