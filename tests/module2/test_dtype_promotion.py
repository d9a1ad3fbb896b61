"""Dtype labels of results, as PyTorch's type promotion gives them: integer
arithmetic stays ``int64`` (``/`` gives a float), a float operand makes a float,
``bool + bool`` is a bool, comparisons are bools; index results (``sort``,
``topk``, ``argsort``, ``nonzero``, ``max(dim)``) are ``int64``; sums of integers
are ``int64``; ``new_*`` and ``*_like`` keep the source's dtype; ``dtype=`` on
reductions and factories; ``get_default_dtype``/``set_default_dtype``. Every
label agrees with its values (integer dtypes hold whole numbers). Expected
values are PyTorch's documented rules, worked by hand; where PyTorch is
installed the same expressions run on it too. Given code (the ``Tensor`` mixins
and ``engine/dtypes.py``); the tests carry Task 2.6's marker, whose operations
they run."""

from __future__ import annotations

import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6


def _name(d) -> str:
    return str(d).split(".")[-1]


#: name -> (expression on a library, the dtype PyTorch's rules give).
CASES = {
    "int + int": (lambda L: L.tensor([1, 2]) + L.tensor([3, 4]), "int64"),
    "int * python int": (lambda L: L.tensor([1, 2]) * 3, "int64"),
    "python int - int": (lambda L: 3 - L.tensor([1, 2]), "int64"),
    "int * python float": (lambda L: L.tensor([1, 2]) * 2.5, "float64"),
    "int * float tensor": (
        lambda L: L.tensor([1, 2]) * L.tensor([0.5, 1.0]),
        "float64",
    ),
    "int / int": (lambda L: L.tensor([1, 2]) / L.tensor([2, 2]), "float64"),
    "int // int": (lambda L: L.tensor([7, -7]) // 2, "int64"),
    "int % int": (lambda L: L.tensor([7, -7]) % 3, "int64"),
    "int ** 2": (lambda L: L.tensor([1, 2]) ** 2, "int64"),
    "int ** 0.5": (lambda L: L.tensor([1, 4]) ** 0.5, "float64"),
    "-int": (lambda L: -L.tensor([1, 2]), "int64"),
    "abs(int)": (lambda L: L.tensor([-1, 2]).abs(), "int64"),
    "int @ int": (lambda L: L.tensor([[1, 2]]) @ L.tensor([[3], [4]]), "int64"),
    "bool + bool": (
        lambda L: L.tensor([True, False]) + L.tensor([True, False]),
        "bool",
    ),
    "bool * bool": (lambda L: L.tensor([True, True]) * L.tensor([True, False]), "bool"),
    "bool + python int": (lambda L: L.tensor([True, False]) + 1, "int64"),
    "bool * int": (lambda L: L.tensor([True, False]) * L.tensor([3, 4]), "int64"),
    "bool * float": (
        lambda L: L.tensor([True, False]) * L.tensor([3.0, 4.0]),
        "float64",
    ),
    "int < int": (lambda L: L.tensor([1, 2]) < L.tensor([2, 2]), "bool"),
    "int32 + python int": (lambda L: L.tensor([1, 2]).int() + 1, "int32"),
    "int32 + int64": (lambda L: L.tensor([1, 2]).int() + L.tensor([1, 2]), "int64"),
    "int32 + int64 0-d": (lambda L: L.tensor([1, 2]).int() + L.tensor(5), "int32"),
    "float32 + python float": (lambda L: L.tensor([1.0]).float() + 2.5, "float32"),
    "float32 + float64": (
        lambda L: L.tensor([1.0]).float() + L.tensor([1.0]),
        "float64",
    ),
    "float32 + float64 0-d": (
        lambda L: L.tensor([1.0]).float() + L.tensor(1.0),
        "float32",
    ),
    "int + float32 0-d": (
        lambda L: L.tensor([1, 2]) + L.tensor(1.0).float(),
        "float32",
    ),
    "int clamp(0.5)": (lambda L: L.tensor([0, 2]).clamp(min=0.5), "float64"),
    "int clamp(1)": (lambda L: L.tensor([0, 2]).clamp(min=1), "int64"),
    "float32 clamp": (lambda L: L.tensor([0.0, 2.0]).float().clamp(max=1), "float32"),
    "int masked_fill(2.7)": (
        lambda L: L.tensor([1, 2]).masked_fill(L.tensor([False, True]), 2.7),
        "int64",
    ),
    "bool masked_fill": (
        lambda L: L.tensor([True, False]).masked_fill(L.tensor([True, True]), 0),
        "bool",
    ),
    "float32 masked_fill": (
        lambda L: L.tensor([1.0]).float().masked_fill(L.tensor([True]), 3),
        "float32",
    ),
    "int where 2.5": (
        lambda L: L.tensor([1, 2]).where(L.tensor([True, False]), 2.5),
        "float64",
    ),
    "bool where 3": (
        lambda L: L.tensor([True, False]).where(L.tensor([True, False]), 3),
        "int64",
    ),
    "int masked_fill_(2.7)": (
        lambda L: L.tensor([1, 2]).masked_fill_(L.tensor([False, True]), 2.7),
        "int64",
    ),
    "float32 exp": (lambda L: L.tensor([1.0]).float().exp(), "float32"),
    "int exp": (lambda L: L.tensor([1, 2]).exp(), "float64"),
    "int relu": (lambda L: L.tensor([-1, 2]).relu(), "int64"),
    "int sum": (lambda L: L.tensor([1, 2]).sum(), "int64"),
    "bool sum": (lambda L: L.tensor([True, True]).sum(), "int64"),
    "int32 cumsum": (lambda L: L.tensor([1, 2]).int().cumsum(0), "int64"),
    "float32 sum": (lambda L: L.tensor([1.0]).float().sum(), "float32"),
    "float32 mean": (lambda L: L.tensor([1.0]).float().mean(), "float32"),
    "int amax": (lambda L: L.tensor([1, 5]).amax(), "int64"),
    "int max(dim) values": (lambda L: L.tensor([[1, 5]]).max(1).values, "int64"),
    "float32 softmax": (lambda L: L.tensor([1.0, 2.0]).float().softmax(0), "float32"),
    "sort values": (lambda L: L.tensor([3, 1]).sort().values, "int64"),
    "sort indices": (lambda L: L.tensor([3.0, 1.0]).sort().indices, "int64"),
    "topk indices": (lambda L: L.tensor([3.0, 1.0, 2.0]).topk(2).indices, "int64"),
    "argsort": (lambda L: L.tensor([3.0, 1.0]).argsort(), "int64"),
    "nonzero": (lambda L: L.tensor([0.0, 1.0]).nonzero(), "int64"),
    "min(dim) indices": (lambda L: L.tensor([[3.0, 1.0]]).min(1).indices, "int64"),
    "float32 new_zeros": (lambda L: L.tensor([1.0]).float().new_zeros(2, 3), "float32"),
    "float32 new_ones": (lambda L: L.tensor([1.0]).float().new_ones((2,)), "float32"),
    "float32 new_full": (
        lambda L: L.tensor([1.0]).float().new_full((2,), 3),
        "float32",
    ),
    "float32 new_tensor": (
        lambda L: L.tensor([1.0]).float().new_tensor([2]),
        "float32",
    ),
    "float64 new_tensor of ints": (
        lambda L: L.tensor([1.0]).new_tensor([2]),
        "float64",
    ),
    "int new_tensor": (lambda L: L.tensor([1]).new_tensor([2]), "int64"),
    "new_zeros dtype=": (
        lambda L: L.tensor([1.0]).new_zeros(2, dtype=L.int64),
        "int64",
    ),
    "float32 zeros_like": (lambda L: L.zeros_like(L.tensor([1.0]).float()), "float32"),
    "zeros_like dtype=": (
        lambda L: L.zeros_like(L.tensor([1.0]), dtype=L.int64),
        "int64",
    ),
    "ones_like dtype=": (
        lambda L: L.ones_like(L.tensor([1]), dtype=L.float32),
        "float32",
    ),
    "full_like dtype=": (
        lambda L: L.full_like(L.tensor([1.0]), 2.5, dtype=L.float32),
        "float32",
    ),
    "sum dtype=": (lambda L: L.tensor([1, 2]).sum(dtype=L.float32), "float32"),
    "mean dtype=": (lambda L: L.tensor([1, 2]).mean(dtype=L.float32), "float32"),
    "cumsum dtype=": (lambda L: L.tensor([1, 2]).cumsum(0, dtype=L.float32), "float32"),
    "softmax dtype=": (
        lambda L: L.tensor([1.0, 2.0]).softmax(0, dtype=L.float32),
        "float32",
    ),
    # Copies and selections keep the dtype; joins promote (labels through
    # Task 2.6's functions: kt.cat([labels, labels])[0].item() is an int).
    "cat of ints": (lambda L: L.cat([L.tensor([1, 2]), L.tensor([3])]), "int64"),
    "cat of int and float": (
        lambda L: L.cat([L.tensor([1, 2]), L.tensor([0.5])]),
        "float64",
    ),
    "stack of bools": (
        lambda L: L.stack([L.tensor([True]), L.tensor([False])]),
        "bool",
    ),
    "where of ints": (
        lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2]), 0),
        "int64",
    ),
    "gather of ints": (
        lambda L: L.gather(L.tensor([5, 6]), 0, L.tensor([1, 0])),
        "int64",
    ),
    "index_select of ints": (
        lambda L: L.tensor([5, 6]).index_select(0, L.tensor([1])),
        "int64",
    ),
    "tril of ints": (lambda L: L.tril(L.tensor([[1, 2], [3, 4]])), "int64"),
    "prod of ints": (lambda L: L.prod(L.tensor([2, 3])), "int64"),
    "prod of bools": (lambda L: L.tensor([True, True]).prod(), "int64"),
    "maximum of ints": (lambda L: L.tensor([1, 5]).maximum(L.tensor([3, 2])), "int64"),
    "minimum of float32s": (
        lambda L: L.tensor([1.0, 5.0]).float().minimum(L.tensor([3.0, 2.0]).float()),
        "float32",
    ),
    "minimum of bools": (
        lambda L: L.minimum(L.tensor([True, False]), L.tensor([True, True])),
        "bool",
    ),
    "minimum of bool and float": (
        lambda L: L.tensor([True, False]).minimum(L.tensor([0.5, 0.5])),
        "float64",
    ),
    "min of bools": (lambda L: L.tensor([True, False]).min(), "bool"),
    "amin of bools": (lambda L: L.tensor([[True, False]]).amin(1), "bool"),
    "min(dim) of bools": (lambda L: L.tensor([[True, False]]).min(1).values, "bool"),
    "~int": (lambda L: ~L.tensor([3, 0, -1]), "int64"),
    "int & python int": (lambda L: L.tensor([3, 4, -1]) & 1, "int64"),
    "int32 | int32": (
        lambda L: L.tensor([1, 4]).int() | L.tensor([2, 4]).int(),
        "int32",
    ),
    "bool ^ int": (lambda L: L.tensor([True, False]) ^ L.tensor([3, 3]), "int64"),
    "~bool": (lambda L: ~L.tensor([True, False]), "bool"),
    "python int % int": (lambda L: 3 % L.tensor([2, -2]), "int64"),
    "any of floats": (lambda L: L.tensor([0.0, 2.0]).any(), "bool"),
    "chunk of ints": (lambda L: L.tensor([1, 2, 3]).chunk(2)[1], "int64"),
    "split of a mask": (lambda L: L.split(L.tensor([1, -2]) > 0, 1)[0], "bool"),
    "contiguous copy of a mask": (
        lambda L: (L.tensor([[1, -2], [3, 0]]) > 0).T.contiguous(),
        "bool",
    ),
    "kt.squeeze of ints": (lambda L: L.squeeze(L.tensor([[1, 2]])), "int64"),
    "kt.tile of a mask": (lambda L: L.tile(L.tensor([True, False]), (2,)), "bool"),
    "tile of ints": (lambda L: L.tensor([1, 2]).tile((2, 1)), "int64"),
    "roll of ints": (lambda L: L.tensor([1, 2, 3]).roll(1), "int64"),
    "kt.roll of a mask": (lambda L: L.roll(L.tensor([1, -2]) > 0, 1), "bool"),
    "kt.flip of ints": (lambda L: L.flip(L.tensor([1, 2]), [0]), "int64"),
    "kt.narrow of ints": (lambda L: L.narrow(L.tensor([1, 2]), 0, 1, 1), "int64"),
    "kt.unsqueeze of ints": (lambda L: L.unsqueeze(L.tensor([1, 2]), 0), "int64"),
    "kt.reshape of ints": (lambda L: L.reshape(L.tensor([[1, 2]]), (2,)), "int64"),
    "kt.transpose of a mask": (
        lambda L: L.transpose(L.tensor([[1, -2]]) > 0, 0, 1),
        "bool",
    ),
    "kt.flatten of ints": (lambda L: L.flatten(L.tensor([[1, 2]])), "int64"),
    "kt.nonzero": (lambda L: L.nonzero(L.tensor([0.0, 3.0])), "int64"),
    "kt.broadcast_to of ints": (
        lambda L: L.broadcast_to(L.tensor([1, 2]), (2, 2)).contiguous(),
        "int64",
    ),
    "broadcast_to of ints": (
        lambda L: L.tensor([1, 2]).broadcast_to((2, 2)).contiguous(),
        "int64",
    ),
    "scatter of ints": (
        lambda L: L.tensor([1, 2, 3]).scatter(0, L.tensor([0, 2]), 7),
        "int64",
    ),
    "scatter of float32": (
        lambda L: L.tensor([1.0, 2.0]).float().scatter(0, L.tensor([1]), 7.5),
        "float32",
    ),
    "scatter_add of ints": (
        lambda L: L.tensor([1, 2]).scatter_add(0, L.tensor([1, 1]), L.tensor([3, 4])),
        "int64",
    ),
    "index_add of ints": (
        lambda L: L.index_add(L.tensor([1, 2]), 0, L.tensor([0]), L.tensor([5])),
        "int64",
    ),
    "all(dim) of bools": (lambda L: L.tensor([[True, False]]).all(1), "bool"),
    "any(dim) of ints": (lambda L: L.tensor([[0, 3], [0, 0]]).any(1), "bool"),
    "int ** negative ints": (
        lambda L: L.tensor([2, -1, 1, 0]) ** L.tensor([-1, -3, -2, -1]),
        "int64",
    ),
    "python int ** int": (lambda L: 2 ** L.tensor([-1, 2]), "int64"),
    "bool & bool": (lambda L: L.tensor([True, False]) & L.tensor([True, True]), "bool"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_dtypes_follow_pytorchs_promotion(name):
    make, expected = CASES[name]
    assert _name(make(kt).dtype) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_dtypes_match_pytorch(name):
    """PyTorch run with this library's default float dtype (float64; see the
    Module 4 guide's deliberate differences): every label agrees."""
    torch = import_torch()
    make, _ = CASES[name]
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        theirs = make(torch)
    finally:
        torch.set_default_dtype(before)
    ours = make(kt)
    assert _name(ours.dtype) == _name(theirs.dtype)
    assert ours.view(-1).tolist() == pytest.approx(theirs.reshape(-1).tolist())


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_and_bool_labels_hold_their_values(name):
    """An int64 result holds whole numbers and gives Python ints, a bool result
    gives bools (never a 2 labelled bool)."""
    out = CASES[name][0](kt)
    values = out.view(-1).tolist()
    if out.dtype is kt.bool:
        assert all(type(v) is bool for v in values)
    elif not out.dtype.is_floating_point:
        assert all(type(v) is int for v in values)


def test_minima_of_bools_are_false_where_any_entry_is():
    """A mask has no negation (PyTorch raises for ``-mask``), so the minima,
    $-\\max(-x)$ elsewhere, must not negate one: ``-True`` labelled bool is True."""
    b = kt.tensor([True, False])
    assert b.min().item() is False and b.amin().item() is False
    assert b.min(0).values.item() is False and b.min(0).indices.item() == 1
    assert kt.minimum(b, kt.tensor([True, True])).tolist() == [True, False]
    assert b.minimum(kt.tensor([0.5, 0.5])).tolist() == [0.5, 0.0]
    assert kt.tensor([1, 5]).minimum(kt.tensor([3, 2])).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="bool"):
        -b
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        kt.tensor([1.0, 2.0]) - b  # (PyTorch's message for a - mask)


def test_bitwise_operators_on_integers_work_on_their_bits():
    """``&``, ``|``, ``^``, ``~`` of integer tensors are PyTorch's bitwise
    operators (two's complement: ``~x`` is $-x - 1$); of masks, logical."""
    i = kt.tensor([3, 4, -1])
    assert (~i).tolist() == [-4, -5, 0]
    assert (i & 1).tolist() == [1, 0, 1] and (6 & i).tolist() == [2, 4, 6]
    assert (i | 2).tolist() == [3, 6, -1] and (i ^ i).tolist() == [0, 0, 0]
    assert (~(i > 0)).tolist() == [False, False, True]


def test_integer_powers_and_remainders_stay_whole():
    """Integer powers with negative exponents are whole, as PyTorch's: $2^{-1}$
    is 0 (toward zero), $(-1)^{-3} = -1$, $1^{-2} = 1$ (and $0^{-1}$ is 0, not
    inf); a Python int's remainder by an integer tensor is an integer."""
    powers = kt.tensor([2, -1, 1, 0]) ** kt.tensor([-1, -3, -2, -1])
    assert powers.tolist() == [0, -1, 1, 0]
    assert (2 ** kt.tensor([-1, 3])).tolist() == [0, 8]
    assert (kt.tensor([2.0]) ** kt.tensor([-1])).tolist() == [0.5]
    assert (3 % kt.tensor([2, -2])).tolist() == [1, -1]


def test_any_and_all_give_masks_that_select():
    """``m.all(1)`` is a bool tensor, as PyTorch's: indexing with it selects the
    rows (a float 1, 0, 1 would pick rows 1, 0, 1)."""
    x = kt.tensor([[1.0, 2.0], [-1.0, 3.0], [4.0, 5.0]])
    assert x[(x > 0).all(1)].tolist() == [[1.0, 2.0], [4.0, 5.0]]
    assert x[(x < 0).any(1)].tolist() == [[-1.0, 3.0]]
    assert kt.tensor([0.0, 2.0]).any().item() is True
    assert kt.tensor([0, 2]).all().item() is False


def test_pieces_of_a_mask_still_select():
    """``chunk``/``split``/``roll`` of a mask are masks, as PyTorch's bool
    pieces: indexing with one selects (a float 1, 0 would pick rows 1, 0)."""
    x = kt.tensor([[1.0, 2.0], [3.0, 4.0]])
    first, second = (x > 2.5).chunk(2, dim=1)
    assert x[:, 0][first.view(-1)].tolist() == [3.0]
    assert x[:, 1][kt.roll(second.view(-1), 1)].tolist() == [2.0]
    assert kt.tensor([1, 2, 3]).scatter(0, kt.tensor([0, 2]), 7.9).tolist() == [7, 2, 7]
    assert x[(x > 2.5).T.contiguous()].tolist() == [2.0, 4.0]


def test_float32_random_likes_and_gradients_report_float32():
    """``rand_like``/``randn_like`` of a float32 tensor and the gradient of a
    float32 leaf are float32, as PyTorch's (the numbers are float64 here)."""
    w = kt.tensor([1.0, 2.0], requires_grad=True).float().detach()
    w.requires_grad_(True)
    (w * kt.tensor([3.0, 4.0])).sum().backward()
    assert w.grad.dtype is kt.float32 and w.grad.tolist() == [3.0, 4.0]
    assert kt.rand_like(w).dtype is kt.float32 and kt.randn_like(w).dtype is kt.float32
    assert kt.rand_like(kt.tensor([1.0])).dtype is kt.float64


def test_integer_division_by_zero_raises_as_pytorch():
    """``//`` and ``%`` of integers by 0 raise (PyTorch: ``RuntimeError:
    ZeroDivisionError``) instead of holding inf or nan labelled int64; floats
    give inf as IEEE arithmetic does."""
    for divide in (
        lambda: kt.tensor([4, 6]) // kt.tensor([0, 2]),
        lambda: kt.tensor([4, 6]) % 0,
        lambda: 7 // kt.tensor([0]),
    ):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            divide()
    assert (kt.tensor([4.0]) // 0).tolist() == [float("inf")]


def test_new_tensors_of_integer_tensors_are_float64():
    """A deliberate difference (the Module 4 guide): the engine's kernels make
    their outputs with ``new_zeros``/``new_full`` of an input, so only a float
    dtype carries over; ``dtype=`` gives any, truncating as PyTorch's."""
    i = kt.tensor([1, 2])
    assert i.new_zeros(2).dtype is kt.float64 and i.new_full((2,), 2.5).tolist() == [
        2.5,
        2.5,
    ]
    assert i.new_full((2,), 2.7, dtype=kt.int64).tolist() == [2, 2]
    assert i.new_ones(2, dtype=kt.bool).tolist() == [True, True]


def test_hand_worked_values_of_integer_arithmetic():
    i = kt.tensor([7, -7])
    assert (i // 2).tolist() == [3, -4]  # floor, as torch.floor_divide
    assert (i % 3).tolist() == [1, 2]  # the divisor's sign
    assert (i / 2).tolist() == [3.5, -3.5]
    b = kt.tensor([True, False])
    assert (b + b).tolist() == [True, False]
    assert (b + 1).tolist() == [2, 1]
    assert kt.tensor([True, True, False]).sum().item() == 2
    # masked_fill keeps the tensor's dtype: the fill is cast (truncated)
    assert kt.tensor([1, 2]).masked_fill(kt.tensor([False, True]), 2.7).tolist() == [
        1,
        2,
    ]


def test_result_type_names_the_promoted_dtype():
    i, f32 = kt.tensor([1, 2]), kt.tensor([1.0]).float()
    assert kt.result_type(i, 2) is kt.int64
    assert kt.result_type(i, 2.5) is kt.float64
    assert kt.result_type(f32, 2.5) is kt.float32
    assert kt.result_type(f32, kt.tensor([1.0])) is kt.float64
    assert kt.result_type(kt.tensor([True]), True) is kt.bool


def test_integer_tensors_refuse_negative_integer_powers():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        kt.tensor([1, 2]) ** -1
    assert (kt.tensor([1.0, 2.0]) ** -1).tolist() == [1.0, 0.5]


@pytest.mark.parametrize("op", ["+=", "/=", "add_", "clamp_"])
def test_in_place_float_results_into_an_integer_tensor_raise(op):
    """``i += 0.5`` cannot keep the int64 label truthfully: PyTorch raises."""
    i = kt.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        if op == "+=":
            i += 0.5
        elif op == "/=":
            i /= 2
        elif op == "clamp_":
            i.clamp_(min=0.5)
        else:
            i.add_(kt.tensor([0.5, 0.5]))
    i += 1
    assert i.dtype is kt.int64 and i.tolist() == [2, 3]


def test_sum_mean_cumsum_dtype_converts_first():
    x = kt.tensor([1.5, 2.5, -1.5])
    assert x.sum(dtype=kt.int64).tolist() == 2  # 1 + 2 - 1: truncated first
    assert x.cumsum(0, dtype=kt.int64).tolist() == [1, 3, 2]
    assert x.mean(dtype=kt.float32).item() == pytest.approx(2.5 / 3)
    # the function forms, as torch.sum(x, dtype=...)
    assert kt.sum(x, dtype=kt.int64).item() == 2
    assert kt.cumsum(x, 0, dtype=kt.int64).tolist() == [1, 3, 2]
    assert kt.mean(x, dtype=kt.float32).dtype is kt.float32


def test_the_default_dtype_is_float64_and_can_be_set():
    assert kt.get_default_dtype() is kt.float64
    assert kt.tensor([1.0]).dtype is kt.float64
    try:
        kt.set_default_dtype(kt.float32)
        assert kt.get_default_dtype() is kt.float32
        assert kt.tensor([1.0]).dtype is kt.float32
        assert kt.zeros(2).dtype is kt.float32 and kt.randn(2).dtype is kt.float32
        assert kt.tensor([1]).dtype is kt.int64  # integers stay int64
        assert (kt.tensor([1, 2]) / 2).dtype is kt.float32
        assert (kt.tensor([1, 2]) * 2.5).dtype is kt.float32
    finally:
        kt.set_default_dtype(kt.float64)
    assert kt.tensor([1.0]).dtype is kt.float64
    with pytest.raises(TypeError, match="floating-point"):
        kt.set_default_dtype(kt.int64)


def test_set_default_dtype_matches_pytorch():
    torch = import_torch()
    before = torch.get_default_dtype()
    try:
        for lib in (kt, torch):
            lib.set_default_dtype(lib.float32)
        pairs = [
            (lib.tensor([1.0]), lib.zeros(2), lib.tensor([1, 2]) / 2)
            for lib in (kt, torch)
        ]
        assert [_name(t.dtype) for t in pairs[0]] == [_name(t.dtype) for t in pairs[1]]
    finally:
        kt.set_default_dtype(kt.float64)
        torch.set_default_dtype(before)


_KINDS = ["bool", "int32", "int64", "float16", "float32", "float64"]
_SCALARS = {"python int": 3, "python float": 2.5, "python bool": True}


def _operand(lib, kind, zero_d):
    if kind in _SCALARS:
        return _SCALARS[kind]
    return lib.tensor(1 if zero_d else [1, 0]).to(getattr(lib, kind))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//"])
def test_every_pair_of_dtypes_promotes_as_pytorch(op):
    """Every dtype against every dtype and Python number, with dimensions or
    0-d, on both sides of ``op``: the result dtype is PyTorch's (run with this
    library's float64 default), wherever PyTorch allows the operation."""
    torch = import_torch()
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    checked = 0
    try:
        for a in _KINDS:
            for b in _KINDS + list(_SCALARS):
                for za in (False, True):
                    for zb in (False, True):
                        x, y = _operand(kt, a, za), _operand(kt, b, zb)
                        tx, ty = _operand(torch, a, za), _operand(torch, b, zb)
                        for first, second, t1, t2 in ((x, y, tx, ty), (y, x, ty, tx)):
                            try:
                                theirs = eval(f"t1 {op} t2").dtype
                            except (RuntimeError, TypeError):
                                continue  # (bool - bool ...: PyTorch refuses)
                            ours = eval(f"first {op} second").dtype
                            assert _name(ours) == _name(theirs), (a, za, op, b, zb)
                            checked += 1
    finally:
        torch.set_default_dtype(before)
    assert checked > 200  # (the loop ran: 280 to 480 cases per operator)


@pytest.mark.parametrize("name", ["cat", "stack"])
def test_cat_or_stack_of_a_generator_raises_as_pytorch(name):
    """``cat`` and ``stack`` take a list or tuple of tensors, as PyTorch's (a
    generator is a TypeError there); a generator here gave the wrong dtype (the
    promotion read it exhausted: int64 pieces reported float64)."""
    pieces = (kt.tensor([1, 2]), kt.tensor([3, 4]))
    assert _name(getattr(kt, name)(pieces).dtype) == "int64"
    assert _name(getattr(kt, name)(list(pieces)).dtype) == "int64"
    with pytest.raises(TypeError):
        getattr(kt, name)(t for t in pieces)
    torch = import_torch()
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.tensor(t.tolist()) for t in pieces)
