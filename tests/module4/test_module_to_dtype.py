"""``model.to(dtype)`` as ``torch.nn.Module.to``: a floating-point dtype
converts the floating-point parameters and buffers only, and an integer or bool
dtype raises ``TypeError``. Given code; each test carries
the marker of the task whose code it runs."""

from __future__ import annotations

import pytest

import module4_networks as kt
from module4_networks import nn
from tests.pytorch_reference import import_torch


class _Counted(nn.Module):
    """A weight and an integer buffer (as BatchNorm's step count in PyTorch)."""

    def __init__(self, lib):
        super().__init__()
        self.weight = lib.nn.Parameter(lib.ones(2))
        self.register_buffer("count", lib.tensor([3]))


@pytest.mark.task4_6
def test_an_integer_or_bool_dtype_raises():
    model = nn.Linear(2, 2)
    for dtype in (kt.int64, kt.int32, kt.bool):
        with pytest.raises(TypeError, match="only accepts floating point"):
            model.to(dtype)
        with pytest.raises(TypeError, match="only accepts floating point"):
            model.to("cpu", dtype=dtype)
    assert {p.dtype for p in model.parameters()} == {kt.float64}  # unchanged


@pytest.mark.task4_6
def test_a_float_dtype_converts_only_the_floating_point_values():
    model = _Counted(kt)
    assert model.to(kt.float32) is model
    assert model.weight.dtype is kt.float32
    assert model.count.dtype is kt.int64 and model.count.tolist() == [3]


@pytest.mark.task4_6
def test_state_dict_reports_the_converted_dtype():
    model = nn.Linear(2, 2).float()
    assert {v.dtype for v in model.state_dict().values()} == {kt.float32}
    assert model.weight.detach().new_zeros(2).shape == (2,)


@pytest.mark.task4_6
def test_module_to_matches_pytorch():
    torch = import_torch()
    with pytest.raises(TypeError, match="only accepts floating point"):
        torch.nn.Linear(2, 2).to(torch.int64)

    class Counted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(2, dtype=torch.float64))
            self.register_buffer("count", torch.tensor([3]))

    theirs = Counted().to(torch.float32)
    ours = _Counted(kt).to(kt.float32)
    assert str(theirs.weight.dtype)[6:] == ours.weight.dtype.name
    assert str(theirs.count.dtype)[6:] == ours.count.dtype.name


@pytest.mark.task4_6
def test_a_gradient_follows_its_parameter_to_the_new_dtype():
    # torch converts .grad with the parameter: after model.float() the next
    # backward adds into a float32 gradient, and an optimizer's buffers that
    # copy it are float32 too.
    model = nn.Linear(3, 2)
    model(kt.ones(1, 3)).sum().backward()
    model.float()
    assert model.weight.grad.dtype is kt.float32
    model(kt.ones(1, 3, dtype=kt.float32)).sum().backward()
    assert model.weight.grad.dtype is kt.float32
    assert model.weight.grad.tolist() == [[2.0] * 3] * 2
    model.double()
    assert model.weight.grad.dtype is kt.float64
