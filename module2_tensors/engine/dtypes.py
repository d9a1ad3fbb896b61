"""Dtypes as PyTorch spells them (private: the tensor modules use it).

Every tensor stores float64 numbers (one kernel signature for Modules 2-3). A
dtype is what the tensor *reports* and how a conversion *behaves*: ``.long()``
truncates, ``.bool()`` makes a mask that indexes by selection, a tensor made from
Python ints reports ``int64``. Arithmetic computes in float64 and its results
report ``float64`` (masks: ``bool``).
"""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["dtype", "float16", "float32", "float64", "int32", "int64", "bool_"]


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
NAMES: Dict[str, dtype] = {
    "float16": float16,
    "half": float16,
    "float32": float32,
    "float": float32,
    "float64": float64,
    "double": float64,
    "int32": int32,
    "int": int32,
    "int64": int64,
    "long": int64,
    "bool": bool_,
}


def _by_name(name: str) -> dtype:
    return NAMES[name]
