"""``TensorBackend`` and ``matmul_shape`` (given complete; no task edits them).

``tensor_ops.py`` holds what Task 2.3 asks for (the kernels and the ops
classes) and uses both names; the package exports them
(``module2_tensors.TensorBackend``).

Interface: :class:`TensorBackend` (``TensorBackend(ops)``: the specialised
functions of one backend) and :func:`matmul_shape`. This module imports neither
``tensor_ops`` nor ``tensor``.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Tuple, Type

from module0_fundamentals import operators

from .ieee import exp, inv, inv_back, log, log_back, maximum, power, relu, select
from .tensor_data import shape_broadcast

if TYPE_CHECKING:
    from .tensor_ops import TensorOps


#: Pairs of shapes whose answers are remembered (here and in FastOps' wrappers): a
#: training step broadcasts and multiplies the same few pairs every time.
SHAPE_PAIRS = 4096


@functools.lru_cache(maxsize=SHAPE_PAIRS)  # (every product checks its shapes)
def matmul_shape(a_shape: Tuple[int, ...], b_shape: Tuple[int, ...]) -> tuple:
    """The shape of ``a @ b`` for tensors of at least 2 dimensions:
    ``batch + (n, p)`` for ``a_shape = (..., n, m)`` and ``b_shape = (..., m, p)``,
    where ``batch`` broadcasts the leading dimensions. The shapes are tuples (a
    tensor's ``.shape``); each pair's answer is remembered.

    Raises:
        ValueError: the inner sizes differ (naming both shapes), or the batch
            shapes do not broadcast (:func:`shape_broadcast`'s message). ``a @ b``
            checks its operands' dimensions first and names both shapes in either
            case.
    """
    if a_shape[-1] != b_shape[-2]:
        raise ValueError(
            f"cannot multiply shapes {a_shape} and {b_shape}: the inner sizes "
            f"{a_shape[-1]} and {b_shape[-2]} differ"
        )
    return shape_broadcast(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])


class TensorBackend:
    """The specialised tensor functions of one backend.

    ``TensorBackend(ops)`` calls ``ops.map``, ``ops.zip`` and ``ops.reduce`` once per
    scalar function, so a compiling backend (Numba) compiles each kernel once and
    reuses it. It only uses the :class:`TensorOps` interface, so any ops class works.

    The scalar functions are Module 0's operators, except where those raise and
    IEEE arithmetic does not (the numeric policy of ``ieee.py``): ``exp``,
    ``log``, ``inv``, ``relu`` (NaN stays NaN), ``log_back``, ``inv_back`` and
    ``power`` come from ``ieee.py``, and ``maximum_zip`` and ``max_reduce``
    use :func:`maximum`, which propagates NaN.

    Attributes:
        ops: the ops class.
        name: a short name (``"simple"`` for ``SimpleOps``, ``"fast"`` for
            ``FastOps``), shown by ``repr`` of tensors on other backends.
        cuda: whether the kernels run on a GPU.
        neg_map, sigmoid_map, relu_map, log_map, exp_map, id_map, inv_map,
        tanh_map: ``(a, out=None) -> Tensor``.
        add_zip, mul_zip, lt_zip, eq_zip, is_close_zip, relu_back_zip,
        log_back_zip, inv_back_zip, pow_zip, select_zip,
        maximum_zip: ``(a, b) -> Tensor``.
        add_reduce, max_reduce: ``(a, dim) -> Tensor``.
        matrix_multiply: ``(a, b) -> Tensor``.
    """

    def __init__(self, ops: Type[TensorOps]) -> None:
        self.ops = ops
        self.name = ops.__name__.removesuffix("Ops").lower()
        self.cuda = bool(getattr(ops, "cuda", False))

        self.neg_map = ops.map(operators.neg)
        self.sigmoid_map = ops.map(operators.sigmoid)
        self.relu_map = ops.map(relu)
        self.log_map = ops.map(log)
        self.exp_map = ops.map(exp)
        self.id_map = ops.map(operators.id)
        self.inv_map = ops.map(inv)
        self.tanh_map = ops.map(operators.tanh)

        self.add_zip = ops.zip(operators.add)
        self.mul_zip = ops.zip(operators.mul)
        self.lt_zip = ops.zip(operators.lt)
        self.eq_zip = ops.zip(operators.eq)
        self.is_close_zip = ops.zip(operators.is_close)
        self.relu_back_zip = ops.zip(operators.relu_back)
        self.log_back_zip = ops.zip(log_back)
        self.inv_back_zip = ops.zip(inv_back)
        self.pow_zip = ops.zip(power)
        self.select_zip = ops.zip(select)
        self.maximum_zip = ops.zip(maximum)

        self.add_reduce = ops.reduce(operators.add, 0.0)
        self.max_reduce = ops.reduce(maximum, -math.inf)

        self.matrix_multiply = ops.matrix_multiply
