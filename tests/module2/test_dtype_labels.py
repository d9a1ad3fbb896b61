"""Dtype labels that never disagree with the values they label: ``full``
infers its dtype from the fill value and an integer dtype truncates, as
``torch.full`` does; ``from_numpy`` reports the array's dtype; indexing keeps
the dtype of what it reads, and so do views and copies (``view``, ``reshape``,
``detach``, ``clone`` ...: a mask stays a mask that selects); ``argmax`` and
``max(dim).indices`` are ``int64``. Expected values are PyTorch's documented
behaviour; where PyTorch is installed the same calls run on it too. Given
code; each test carries the marker of the task whose code it runs."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from module2_tensors.engine.dtypes import INTEGER_KINDS
from tests.pytorch_reference import import_torch


@pytest.mark.task2_6
def test_full_with_an_integer_dtype_truncates_toward_zero():
    filled = kt.full((2,), 2.7, dtype=kt.int64)
    assert filled.dtype is kt.int64 and filled.tolist() == [2, 2]
    assert kt.full((3,), -2.7, dtype=kt.int64).tolist() == [-2, -2, -2]
    assert kt.full((1,), 0.5, dtype=kt.bool).tolist() == [True]


@pytest.mark.task2_6
def test_full_infers_the_dtype_from_the_fill_value():
    assert kt.full((2,), 3).dtype is kt.int64
    assert kt.full((2,), 3).tolist() == [3, 3]
    assert kt.full((2,), True).dtype is kt.bool and kt.full((2,), False).tolist() == [
        False,
        False,
    ]
    assert kt.full((2,), 2.5).dtype is kt.float64
    assert kt.full((2,), 3, dtype=kt.float32).dtype is kt.float32
    with pytest.raises(RuntimeError, match="floating point"):
        kt.full((2,), 3, requires_grad=True)  # an int64 tensor cannot


@pytest.mark.task2_1
def test_integers_beyond_int64_are_rejected_as_pytorch_does():
    assert kt.tensor(2**63 - 1).dtype is kt.int64
    assert kt.tensor([-(2**63), 0]).dtype is kt.int64
    # ([1, 2**63] and [-1, 2**63]: NumPy reads these as float64 and [2**63] as
    # uint64, so the check cannot rest on NumPy's dtype alone.)
    beyond = ([2**63], [1, 2**63], [-1, 2**63], [[0], [-(2**63) - 1]], [True, 2**64])
    for data in (2**70,) + beyond:
        with pytest.raises(ValueError, match="Overflow"):  # (torch's message)
            kt.tensor(data)
    with pytest.raises(ValueError, match="Overflow"):
        kt.full((2,), 2**70)
    # With a float among them the numbers are floats, as torch's tensor([1.5, 2**70]).
    assert kt.tensor([1.5, 2**70]).dtype is kt.float64


@pytest.mark.task2_1
def test_from_numpy_reports_the_arrays_dtype():
    for name in ("float32", "float16", "int32", "int64", "float64"):
        made = kt.from_numpy(np.arange(3).astype(name))
        assert made.dtype.name == name
        np.testing.assert_array_equal(made.to_numpy(), [0.0, 1.0, 2.0])
    assert kt.from_numpy(np.array([True, False])).dtype is kt.bool


@pytest.mark.task2_6
def test_tensor_of_a_numpy_array_reports_its_dtype():
    """``torch.tensor(array)`` keeps a NumPy array's (or scalar's) dtype, as
    ``from_numpy`` does: a float32 batch stays float32."""
    assert kt.tensor(np.array([1.5], dtype=np.float32)).dtype is kt.float32
    assert kt.tensor(np.float32(2.5)).dtype is kt.float32
    assert kt.tensor(np.array([1, 2], dtype=np.int32)).tolist() == [1, 2]
    assert kt.tensor(np.array([1, 2], dtype=np.int32)).dtype is kt.int32
    assert kt.tensor(np.array([1.5, 2.0])).dtype is kt.float64
    assert kt.tensor(np.array([True])).dtype is kt.bool
    assert kt.tensor(np.array([3], dtype=np.uint8)).dtype is kt.int64  # (no uint8)


@pytest.mark.task2_6
def test_numpy_gives_an_array_of_the_tensors_dtype():
    """``t.numpy()`` of int64 labels is an int64 array (it indexes NumPy
    arrays), of a mask a bool array, of float32 float32, as PyTorch's."""
    labels = kt.tensor([2, 0])
    assert labels.numpy().dtype == np.int64
    assert np.array([10.0, 20.0, 30.0])[labels.numpy()].tolist() == [30.0, 10.0]
    assert (kt.tensor([1.0, 2.0]) > 1.5).numpy().tolist() == [False, True]
    assert kt.tensor([1.5]).float().numpy().dtype == np.float32
    assert kt.tensor([1.5]).numpy().dtype == np.float64


@pytest.mark.task2_6
def test_indexing_keeps_the_dtype():
    labels = kt.tensor([[3, 1], [2, 0]])
    assert labels[0].dtype is kt.int64 and labels[1, 0].dtype is kt.int64
    assert labels[:, 1].tolist() == [1, 0]
    mask = labels > 1
    assert mask[0].dtype is kt.bool and mask[0].tolist() == [True, False]
    assert kt.tensor([1.0, 2.0]).float()[0].dtype is kt.float32


@pytest.mark.task2_6
def test_item_assignment_casts_to_the_tensors_dtype():
    """``x[i] = v`` writes ``v`` converted to ``x``'s dtype, as PyTorch's (and
    as ``fill_``/``copy_`` here): 2.7 into int64 is 2, 2 into bool is True."""
    labels = kt.tensor([1, 2, 3])
    labels[0] = 2.7
    labels[[1, 2]] = kt.tensor([-1.5, 4.9])
    assert labels.tolist() == [2, -1, 4]
    mask = kt.tensor([True, False, False])
    mask[1] = 2
    mask[mask.logical_not()] = 0.5
    assert mask.tolist() == [True, True, True]
    floats = kt.tensor([1.0, 2.0])
    floats[0] = 2.7
    assert floats.tolist() == [2.7, 2.0]


@pytest.mark.task2_6
@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.view(-1),
        lambda t: t.reshape(4),
        lambda t: t.detach(),
        lambda t: t.clone(),
        lambda t: t.flatten(),
        lambda t: t.T,
        lambda t: t.unsqueeze(0).squeeze(0),
        lambda t: t.permute(1, 0),
        lambda t: t.flip(0),
    ],
)
def test_views_and_copies_keep_the_dtype(op):
    assert op(kt.tensor([[3, 1], [2, 0]])).dtype is kt.int64
    assert op(kt.tensor([[1.0, 2.0], [3.0, 4.0]]).float()).dtype is kt.float32
    assert op(kt.tensor([[1.0, -1.0], [2.0, 3.0]]) > 0).dtype is kt.bool
    assert op(kt.tensor([[1.0, 2.0], [3.0, 4.0]])).dtype is kt.float64


@pytest.mark.task2_6
def test_a_reshaped_mask_still_selects():
    x = kt.tensor([[5.0, 6.0], [7.0, 8.0]])
    mask = x > 5.5
    # Selection (PyTorch), not positions 0 and 1 read from a float tensor.
    assert x.view(-1)[mask.view(-1)].tolist() == [6.0, 7.0, 8.0]
    assert x.reshape(4)[mask.reshape(4).detach()].tolist() == [6.0, 7.0, 8.0]


@pytest.mark.task2_6
def test_index_results_report_int64():
    x = kt.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 1.0]])
    assert x.argmax().dtype is kt.int64 and x.argmax().item() == 3
    assert type(x.argmax().item()) is int
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(0, keepdim=True).tolist() == [
        [0, 1, 1]
    ]
    assert x.max(1).indices.dtype is kt.int64 and x.min(1).indices.tolist() == [0, 1]
    assert x.max(1).values.dtype is kt.float64
    names = ["cat", "dog", "bird"]
    assert names[x[0].argmax().item()] == "dog"


@pytest.mark.task2_6
def test_factory_dtypes_match_pytorch():
    torch = import_torch()

    def report(lib):
        return [
            str(t.dtype).split(".")[-1]
            for t in (
                lib.full((2,), 3),
                lib.full((2,), True),
                lib.full((2,), 2.5, dtype=lib.float64),
                lib.full((2,), 2.7, dtype=lib.int64),
                lib.from_numpy(np.ones(2, np.float32)),
                lib.from_numpy(np.ones(2, np.int32)),
                lib.tensor([[3, 1]])[0],
                lib.tensor([[1.0, 5.0]]).argmax(1),
                lib.tensor([[1.0, 5.0]]).max(1).indices,
                lib.tensor([[3, 1]]).view(-1).detach(),
                (lib.tensor([[3, 1]]) > 2).reshape(2),
            )
        ]

    assert report(kt) == report(torch)
    assert (
        kt.full((2,), -2.7, dtype=kt.int64).tolist()
        == torch.full((2,), -2.7, dtype=torch.int64).tolist()
    )


@pytest.mark.task2_1
def test_integer_kinds_are_those_numpy_calls_integer():
    # tensor() reads dtype.kind instead of calling np.issubdtype (a speed trick):
    # the two agree on every NumPy scalar type.
    for scalar in set(np.sctypeDict.values()):
        kind = np.dtype(scalar)
        expected = np.issubdtype(kind, np.integer)
        assert (kind.kind in INTEGER_KINDS) == expected, kind
    for values, dtype in [
        (np.arange(3, dtype=np.uint8), kt.int64),
        (np.arange(3, dtype=np.int32), kt.int32),
        (np.array([True, False]), kt.bool),
        (np.arange(3.0), kt.float64),
        (np.arange(3, dtype=np.float32), kt.float32),
    ]:
        assert kt.tensor(values).dtype == dtype


@pytest.mark.task2_1
def test_only_floating_point_tensors_can_require_gradients():
    # PyTorch raises for every way of asking: the factory, the flag, the
    # in-place switch and nn.Parameter (here Module 2's Parameter).
    asks = (
        lambda: kt.tensor([1, 2], requires_grad=True),
        lambda: kt.tensor([1, 2]).requires_grad_(),
        lambda: setattr(kt.tensor([True]), "requires_grad", True),
        lambda: kt.Parameter(kt.tensor([1, 2])),
    )
    for ask in asks:
        with pytest.raises(RuntimeError, match="floating point and complex dtype"):
            ask()
    frozen = kt.Parameter(kt.tensor([1, 2]), requires_grad=False)
    assert frozen.dtype is kt.int64 and not frozen.requires_grad
    assert kt.tensor([1.0, 2.0], requires_grad=True).requires_grad
    assert kt.tensor([1, 2]).requires_grad_(False).dtype is kt.int64


@pytest.mark.task2_1
def test_a_list_of_numpy_float_scalars_keeps_their_dtype():
    # torch.tensor([np.float32(1.5)]) is float32; a Python float among them
    # makes NumPy's (and, with a float64 default, PyTorch's) float64.
    assert kt.tensor([np.float32(1.5)]).dtype is kt.float32
    assert kt.tensor([[np.float16(1.0)], [np.float16(2.0)]]).dtype is kt.float16
    assert kt.tensor([np.float32(1.5), 2.0]).dtype is kt.float64
    assert kt.tensor([1.5, 2.0]).dtype is kt.float64


@pytest.mark.task2_6
def test_a_pickled_or_copied_tensor_keeps_its_dtype(tmp_path):
    # pickle, copy.deepcopy and kt.save wrote the float64 storage alone, so an
    # int64 count came back float64 and a mask indexed positions instead of
    # selecting (torch.save keeps the dtype).
    import copy
    import pickle

    x = kt.tensor([10.0, 20.0, 30.0])
    mask = kt.tensor([True, False, True])
    counts = kt.tensor([3, 1])
    halves = kt.tensor([0.1, 0.2], dtype=kt.float32)
    kt.save({"mask": mask, "counts": counts}, tmp_path / "state.pt")
    loaded = kt.load(tmp_path / "state.pt")
    for original, copied in [
        (mask, pickle.loads(pickle.dumps(mask))),
        (counts, copy.deepcopy(counts)),
        (halves, copy.deepcopy(halves)),
        (mask, loaded["mask"]),
        (counts, loaded["counts"]),
    ]:
        assert copied.dtype is original.dtype
        assert copied.tolist() == original.tolist()
    assert x[loaded["mask"]].tolist() == [10.0, 30.0]  # selects, as a mask
    # A float32 tensor's numbers are float64's (one stored type): kept exactly.
    np.testing.assert_array_equal(copy.deepcopy(halves).to_numpy(), [0.1, 0.2])


@pytest.mark.task2_6
def test_copy_and_fill_convert_to_the_tensors_dtype():
    # PyTorch's copy_/fill_ cast the source to the destination's dtype: 1.7
    # into int64 is 1 (toward zero), 3 into bool is True. Here they wrote the
    # float64 numbers under the old label (an int64 tensor holding 0.5).
    counts = kt.tensor([5, 5, 5])
    counts.copy_(kt.tensor([1.7, -2.5, 3.0]))
    assert counts.dtype is kt.int64 and counts.tolist() == [1, -2, 3]
    # (tolist() truncates what it reports; arithmetic shows the stored numbers)
    assert counts.double().tolist() == [1.0, -2.0, 3.0]
    assert (counts == 1).tolist() == [True, False, False]
    mask = kt.tensor([True, True, False])
    mask.copy_(kt.tensor([0.0, 3.0, -0.5]))
    assert mask.dtype is kt.bool and mask.tolist() == [False, True, True]
    assert mask.long().tolist() == [0, 1, 1] and mask.sum().item() == 2
    assert kt.tensor([10.0, 20.0])[mask[:2]].tolist() == [20.0]  # still selects
    assert kt.tensor([1, 2]).fill_(2.7).double().tolist() == [2.0, 2.0]
    assert kt.tensor([False]).fill_(2).long().tolist() == [1]
    floats = kt.tensor([1.0, 2.0], dtype=kt.float32).copy_(kt.tensor([0.5, 1.5]))
    assert floats.dtype is kt.float32 and floats.tolist() == [0.5, 1.5]


@pytest.mark.task2_6
def test_in_place_integer_results_into_a_bool_tensor_raise():
    # b += 2 would hold 3 labelled bool; PyTorch: "result type Long can't be
    # cast to the desired output type Bool". A bool result stays allowed.
    for update in (
        lambda b: b.add_(2),
        lambda b: b.mul_(kt.tensor([2, 3])),
        lambda b: b.__iadd__(kt.tensor([1, 1])),
        lambda b: b.clamp_(0, 2),
    ):
        with pytest.raises(RuntimeError, match="can't be cast to the desired output"):
            update(kt.tensor([True, False]))
    flags = kt.tensor([True, False])
    flags.add_(kt.tensor([False, True]))  # bool + bool is logical or
    assert flags.dtype is kt.bool and flags.tolist() == [True, True]


@pytest.mark.task2_6
def test_a_number_modulo_an_integer_zero_raises():
    # 2 % x read the number as float64 and so let nan through, labelled int64;
    # PyTorch raises as for x % 0.
    for divide in (lambda: 2 % kt.tensor([3, 0]), lambda: True % kt.tensor([0])):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            divide()
    assert (7 % kt.tensor([2, -3])).tolist() == [1, -2]  # divisor's sign
    assert (7 % kt.tensor([2, -3])).dtype is kt.int64


@pytest.mark.task2_6
def test_square_of_a_bool_tensor_is_int64():
    # torch.square(bool) is int64 (a power promotes a bool), not a bool mask.
    flags = kt.tensor([True, False])
    for squared in (flags.square(), kt.square(flags)):
        assert squared.dtype is kt.int64 and squared.tolist() == [1, 0]
    assert kt.tensor([-3]).square().tolist() == [9]
    assert kt.tensor([1.5], dtype=kt.float32).square().dtype is kt.float32


@pytest.mark.task2_6
def test_scatter_of_bool_tensors_keeps_bool():
    # scatter subtracted the bool source and raised (PyTorch scatters it).
    x = kt.tensor([[True, False, True], [False, False, False]])
    index = kt.tensor([[0, 1, 0], [1, 0, 1]])
    src = kt.tensor([[False, True, True], [True, True, True]])
    out = x.scatter(1, index, src)
    # row 0 writes src[0][0], then src[0][2] at 0 (last wins) and src[0][1] at 1;
    # row 1 writes src[1][1] at 0 and src[1][0], src[1][2] at 1.
    assert out.dtype is kt.bool and out.tolist() == [
        [True, True, True],
        [True, True, False],
    ]


@pytest.mark.task2_6
def test_arange_of_an_integer_tensor_is_int64():
    n = kt.tensor(3)
    assert kt.arange(n).dtype is kt.int64 and kt.arange(n).tolist() == [0, 1, 2]
    assert kt.arange(kt.tensor(0.5), 2).tolist() == [0.5, 1.5]
    assert kt.arange(kt.tensor(0.5), 2).dtype is kt.float64


@pytest.mark.task2_6
def test_numpy_conversion_and_lists_of_tensors_keep_integer_dtypes():
    # np.asarray(t) gave the float64 storage, so tensor([t0, t1]) of int64 0-d
    # tensors (labels gathered one by one) reported float64; PyTorch: int64.
    labels = [kt.tensor(3), kt.tensor(1)]
    gathered = kt.tensor(labels)
    assert gathered.dtype is kt.int64 and gathered.tolist() == [3, 1]
    assert kt.tensor([kt.tensor(True), kt.tensor(False)]).dtype is kt.bool
    assert np.asarray(kt.tensor([2, 5])).dtype == np.int64
    assert np.asarray(kt.tensor([True])).dtype == np.bool_
    assert np.asarray(kt.tensor([0.5])).dtype == np.float64
    assert np.asarray(kt.tensor([2, 5]), dtype=np.float32).dtype == np.float32


@pytest.mark.task2_6
def test_norm_of_a_float32_tensor_that_requires_grad_is_float32():
    # The recorded result of norm's root (a result its forward saves) was a new
    # Tensor that reported float64; without gradients it was float32 already.
    x = kt.tensor([3.0, 4.0], dtype=kt.float32, requires_grad=True)
    for norm in (x.norm(), kt.norm(x), kt.linalg.vector_norm(x), x.norm(p=3)):
        assert norm.dtype is kt.float32
    n = x.norm()
    assert n.item() == 5.0
    n.backward()  # d|x|/dx = x / |x|
    assert x.grad.dtype is kt.float32
    np.testing.assert_allclose(x.grad.to_numpy(), [0.6, 0.8])
    assert kt.tensor([3.0, 4.0], requires_grad=True).norm().dtype is kt.float64


@pytest.mark.task2_6
def test_float32_tensors_convert_to_float32_numbers():
    # np.asarray of a float32 tensor gave its float64 storage, so tensor([t0,
    # t1]) of float32 0-d tensors reported float64, and item()/tolist() gave
    # numbers that no float32 holds; PyTorch: float32, rounded to float32.
    third = np.float64(np.float32(1.0 / 3.0))
    a, b = kt.tensor(1.0 / 3.0, dtype=kt.float32), kt.tensor(2.0, dtype=kt.float32)
    assert kt.tensor([a, b]).dtype is kt.float32
    assert np.asarray(a).dtype == np.float32
    assert a.item() == third != 1.0 / 3.0 and kt.tensor([1.0 / 3.0]).item() == 1.0 / 3.0
    assert kt.stack([a, b]).tolist() == [third, 2.0]
    assert kt.tensor([a, b], dtype=kt.float64).dtype is kt.float64


@pytest.mark.task2_6
def test_einsum_reports_the_promoted_dtype():
    x, y = kt.ones(2, 3, dtype=kt.float32), kt.ones(3, 2, dtype=kt.float32)
    assert kt.einsum("ij,jk->ik", x, y).dtype is kt.float32
    assert kt.einsum("ij,jk->ik", x, y.double()).dtype is kt.float64
    ints = kt.einsum("i,i->", kt.tensor([1, 2]), kt.tensor([3, 4]))
    assert ints.dtype is kt.int64 and ints.item() == 11


@pytest.mark.task2_6
def test_hooks_see_gradients_in_the_tensors_dtype():
    # A hook's gradient reported float64 for a float32 tensor (PyTorch: float32).
    x = kt.tensor([1.0, 2.0], dtype=kt.float32, requires_grad=True)
    seen = []
    y = x * 2.0
    y.register_hook(lambda g: seen.append(("y", g.dtype)))
    x.register_hook(lambda g: seen.append(("x", g.dtype)))
    (y * y).sum().backward()
    assert seen == [("y", kt.float32), ("x", kt.float32)]
    np.testing.assert_allclose(x.grad.to_numpy(), [8.0, 16.0])  # 8x
    seen.clear()
    x = kt.tensor([1.0, 2.0], dtype=kt.float32, requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: seen.append(("y", g.dtype)))
    (grad,) = kt.autograd.grad((y * y).sum(), x, create_graph=True)
    assert seen == [("y", kt.float32)] and grad.dtype is kt.float32
