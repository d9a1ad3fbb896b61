"""More in-place forms of the methods (``sinc_``, ``deg2rad_``, ``square_``, ``lerp_``,
``atan2_``, ``fmod_``, ``remainder_``, ``floor_divide_``, ``clamp_min_``,
``clamp_max_``, ``cumsum_``, ``tril_``, ``nan_to_num_``, the comparisons ``eq_``,
``lt_``, ... and ``logical_and_``, ...) and PyTorch's other names of in-place forms
(``arcsin_``, ``absolute_``, ``multiply_``, ``divide_``, ``swapaxes_``, ...): each
writes what its method computes into the tensor, as ``torch``'s does, and inside a
graph sends the method's gradient back (checked against ``torch`` and against
central differences of the out-of-place method). Given code (the ``Tensor`` mixins)
built on Task 2.6's ``where``: Task 2.6's marker."""

from __future__ import annotations

import numpy as np
import pytest

import module2_tensors as kt
from tests.pytorch_reference import import_torch

pytestmark = pytest.mark.task2_6

X = np.array([[0.3, -0.7, 0.45], [-0.2, 0.9, 0.05]])
Y = np.array([[0.5, 0.25, -0.6], [0.8, -0.35, 0.4]])

#: name: the arguments after ``self`` (a tensor of Y's values, or numbers).
FORMS = {
    "sinc_": (),
    "deg2rad_": (),
    "rad2deg_": (),
    "square_": (),
    "lerp_": ("Y", 0.3),
    "atan2_": ("Y",),
    "fmod_": ("Y",),
    "remainder_": ("Y",),
    "floor_divide_": ("Y",),
    "clamp_min_": (0.1,),
    "clamp_max_": ("Y",),
    "arcsin_": (),
    "arccos_": (),
    "arctan_": (),
    "arctan2_": ("Y",),
    "absolute_": (),
    "negative_": (),
    "multiply_": ("Y",),
    "subtract_": ("Y",),
    "divide_": ("Y",),
    "true_divide_": ("Y",),
    "cumsum_": (1,),
    "cumprod_": (0,),
    "tril_": (),
    "triu_": (1,),
    "nan_to_num_": (),
}


def _args(lib, names):
    return [lib.tensor(Y) if a == "Y" else a for a in names]


@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_form_writes_its_method_into_the_tensor_as_pytorchs(name):
    torch = import_torch()
    ours = kt.tensor(X)
    assert getattr(ours, name)(*_args(kt, FORMS[name])) is ours
    theirs = torch.tensor(X)
    getattr(theirs, name)(*_args(torch, FORMS[name]))
    np.testing.assert_allclose(ours.to_numpy(), theirs.numpy(), rtol=1e-14)
    # ... and it is its method's result (written in place)
    method = getattr(kt.tensor(X), name[:-1])(*_args(kt, FORMS[name]))
    np.testing.assert_array_equal(ours.to_numpy(), method.to_numpy())


# (torch has no derivative for floor_divide: its backward raises)
@pytest.mark.parametrize("name", sorted(set(FORMS) - {"floor_divide_"}))
def test_in_a_graph_the_form_sends_back_its_methods_gradient(name):
    torch = import_torch()
    leaf = kt.tensor(X, requires_grad=True)
    (getattr(leaf * 1.0, name)(*_args(kt, FORMS[name])) * kt.tensor(Y)).sum().backward()
    t_leaf = torch.tensor(X, requires_grad=True)
    t_out = getattr(t_leaf * 1.0, name)(*_args(torch, FORMS[name]))
    (t_out * torch.tensor(Y)).sum().backward()
    np.testing.assert_allclose(leaf.grad.to_numpy(), t_leaf.grad.numpy(), atol=1e-12)
    # the out-of-place method's gradient, by central differences
    kt.grad_check(
        lambda x: getattr(x, name[:-1])(*_args(kt, FORMS[name])),
        kt.tensor(X, requires_grad=True),
    )


def test_a_leaf_that_requires_grad_refuses_them():
    with pytest.raises(RuntimeError, match="leaf"):
        kt.tensor(X, requires_grad=True).sinc_()


def test_an_integer_tensor_refuses_a_float_result_as_pytorchs():
    torch = import_torch()
    for lib in (kt, torch):
        with pytest.raises(RuntimeError, match="can't be cast"):
            lib.tensor([1, 2, 3]).deg2rad_()
    ours = kt.tensor([7, -7, 9])
    ours.fmod_(kt.tensor([3, 3, 4]))
    assert ours.tolist() == [1, -1, 1] and ours.dtype == kt.int64


def test_swapaxes_and_swapdims_in_place_transpose_the_tensor():
    for name in ("swapaxes_", "swapdims_"):
        x = kt.tensor(X)
        assert getattr(x, name)(0, 1) is x
        assert x.shape == (3, 2)
        np.testing.assert_array_equal(x.to_numpy(), X.T)


COMPARISONS = (
    "eq_ ne_ lt_ le_ gt_ ge_ greater_ greater_equal_ less_ less_equal_ not_equal_"
)
LOGICAL = "logical_and_ logical_or_ logical_xor_ logical_not_"


@pytest.mark.parametrize("name", (COMPARISONS + " " + LOGICAL).split())
@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_comparisons_in_place_write_zeros_and_ones_in_the_tensors_dtype(name, dtype):
    torch = import_torch()
    a, b = np.array([[0, 2, 3], [1, 0, 5]]), np.array([[0, 1, 3], [2, 0, 4]])
    args = () if name == "logical_not_" else ("B",)
    out = {}
    for lib in (kt, torch):
        x = lib.tensor(a).to(getattr(lib, dtype))
        other = [lib.tensor(b).to(getattr(lib, dtype)) for _ in args]
        assert getattr(x, name)(*other) is x
        out[lib] = x
    assert out[kt].dtype.name == str(out[torch].dtype).split(".")[1]
    assert out[kt].tolist() == out[torch].tolist()


@pytest.mark.parametrize("name", ["eq_", "lt_", "logical_not_", "logical_xor_"])
def test_in_a_graph_a_comparison_in_place_sends_no_gradient_through_it(name):
    """y = x * 2; y.eq_(4) is 0/1 in y's place: what made y gets zeros from it,
    so d/dx sum(x * y) is y's new values alone (torch's EqBackward). PyTorch
    records no logical_*_: y keeps its history, 2 x goes back as well."""
    torch = import_torch()
    grads = []
    for lib in (kt, torch):
        x = lib.tensor(X, requires_grad=True)
        y = x * 2
        getattr(y, name)(*(() if name == "logical_not_" else (lib.tensor(Y),)))
        (y * x).sum().backward()
        through = 2 * X if name.startswith("logical") else 0
        np.testing.assert_allclose(
            x.grad.tolist(), np.add(y.detach().tolist(), through)
        )
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]
