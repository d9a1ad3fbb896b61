"""Dtypes as PyTorch spells them (private: the tensor modules use it).

Every tensor stores float64 numbers (one kernel signature for Modules 2-3). A
dtype is what the tensor *reports* and how a conversion *behaves*: ``.long()``
truncates, ``.bool()`` makes a mask that indexes by selection, a tensor made from
Python ints reports ``int64``. Arithmetic computes in float64 and its results
report the dtype PyTorch's type promotion gives (:func:`result_type`).
"""

from __future__ import annotations

import numbers
from typing import Any, List, Optional, Tuple

import numpy as np


class dtype:
    """``torch.dtype``: a name (``kt.float32`` prints as ``torch``'s would,
    ``float32``), whether it is a floating-point type, and its size in bytes."""

    __slots__ = ("name", "is_floating_point", "itemsize")

    def __init__(self, name: str, is_floating_point: bool, itemsize: int) -> None:
        self.name = name
        self.is_floating_point = is_floating_point
        self.itemsize = itemsize

    def __repr__(self) -> str:
        return f"kindling.{self.name}"

    def __reduce__(self) -> Any:
        return (_by_name, (self.name,))


float16 = dtype("float16", True, 2)
float32 = dtype("float32", True, 4)
float64 = dtype("float64", True, 8)
int32 = dtype("int32", False, 4)
int64 = dtype("int64", False, 8)
bool_ = dtype("bool", False, 1)

#: PyTorch's names, the short ones included (``kt.long``, ``kt.double``...).
NAMES = {d.name: d for d in (float16, float32, float64, int32, int64, bool_)}
NAMES.update(half=float16, float=float32, double=float64, int=int32, long=int64)


def _by_name(name: str) -> dtype:
    return NAMES[name]


#: The dtype of float factories and of Python floats in arithmetic (one entry).
_DEFAULT: List[dtype] = [float64]


def get_default_dtype() -> dtype:
    """``torch.get_default_dtype``: ``float64`` here unless changed (see the
    Module 4 guide's deliberate differences; PyTorch's is ``float32``)."""
    return _DEFAULT[0]


def set_default_dtype(d: dtype) -> None:
    """``torch.set_default_dtype``: the dtype that float factories (``tensor``,
    ``zeros``, ``randn`` ...) report from now on. Only the label changes: the
    numbers are float64 whatever it says.

    Raises:
        TypeError: ``d`` is not a floating-point dtype.
    """
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types can be the default, got {d!r}")
    _DEFAULT[0] = d


def result_type(*operands: Any) -> dtype:
    """``torch.result_type``: the dtype of an arithmetic result of ``operands``
    (tensors, Python numbers), by PyTorch's promotion rules. The highest category
    (bool < integer < float) wins; within it, tensors with dimensions outrank
    0-d tensors, which outrank Python numbers, and among equals the wider dtype
    wins. A category reached only by Python numbers gives ``int64``, or the
    default dtype for a float: ``int64 tensor + 2.5`` is float, ``float32
    tensor + 2.5`` stays float32, ``int32 tensor + int64 0-d`` stays int32."""

    def rank(x: Any) -> Tuple[Tuple[int, int, int], dtype]:
        if hasattr(x, "dtype") and hasattr(x, "dims"):  # a tensor
            d, priority = x.dtype, 2 if x.dims else 1
        else:
            d = bool_ if isinstance(x, bool) else int64
            d = d if isinstance(x, numbers.Integral) else _DEFAULT[0]
            priority = 0
        category = 2 if d.is_floating_point else int(d is not bool_)
        return (category, priority, d.itemsize), d

    return max(rank(x) for x in operands)[1]


#: The dtype kinds ``np.issubdtype(kind, np.integer)`` accepts (signed, unsigned,
#: timedelta), read from ``dtype.kind``: ``np.issubdtype`` is Python, called twice
#: per ``tensor(array)``, which a training loop calls every batch (``tensor`` of a
#: (10, 2) array: 2.58 -> 1.61 us). tests/module2/test_dtype_labels.py checks
#: that the two agree on every NumPy type.
INTEGER_KINDS = "ium"


def of_data(data: Any) -> Optional[dtype]:
    """The dtype ``kt.tensor(data)`` reports for data other than floats, as
    PyTorch infers it: :data:`bool_` if ``data`` holds bools only (a NumPy bool
    array, a Python bool, or nested lists of them), :data:`int64` if integers
    only, :data:`float32` (or ``float16``) for NumPy numbers of that type, else
    ``None`` (floats, an empty list).

    Raises:
        ValueError: Python integers beyond int64's range, as PyTorch.
    """
    try:  # (NumPy's own inference: bool, integer, float or object arrays)
        array = np.asarray(data)
        kind = array.dtype.kind
    except (ValueError, TypeError):  # ragged lists
        return None
    if not isinstance(data, np.ndarray) and (
        kind in "uO" or (kind == "f" and np.abs(array).max(initial=0) >= 2.0**63)
    ):
        # NumPy holds Python ints beyond int64 as uint64, objects or (beside
        # smaller ints) floats; PyTorch raises where they are all integers (with
        # a float they become floats).
        values = np.asarray(data, dtype=object).ravel()
        if all(isinstance(v, int) for v in values) and any(
            not -(2**63) <= v < 2**63 for v in values
        ):
            raise ValueError("Overflow when unpacking long long")
    if kind == "b" or (kind == "f" and array.dtype.itemsize < 8):
        # bool, or float16/float32 (NumPy float32 numbers in a list make
        # float32, as in PyTorch): the dtype of that name
        return NAMES[array.dtype.name]
    return int64 if kind in INTEGER_KINDS else None
