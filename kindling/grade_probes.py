# kindling: instructor-only (the graded probes: no student edition ships them)
"""The graded probes: per task, the values the grader checks outside the sandbox.

Instructor-only (``[release] exclude`` in ``kindling/tasks.toml``): no student
edition ships it. :mod:`kindling.grade_values` runs these cases *inside* the task's
sandbox (the student's code) and over the reference source, and compares what they
return; see ``docs/GRADING.md``, "Values checked outside the sandbox".

Each ``_task_X_Y(rng)`` returns :class:`~kindling.grade_values.Case` objects whose
inputs are drawn from ``rng`` (a generator seeded by the grader for this run) and
whose ``call`` runs the student's functions. A case's *name* says which function
and which kind of input (never the drawn numbers, so that a report is the same for
every seed); the tolerance is the case's. Inputs are chosen where a wrong solution
plausibly goes wrong: both branches of every condition, large arguments (a naive
sigmoid overflows, a ``log_back`` that forgets the ``1/x`` is wrong far from 1),
broadcasting over size-1 and missing dimensions, non-contiguous (permuted) views,
reductions along every dimension, ties for a maximum. Only behaviour the published
tests and docstrings define is probed (no NaN conventions, no kinks).

Nothing here runs at import but the definitions: the course's modules are imported
inside each case's ``call``, so a stub that fails to import fails its cases only.
"""

from __future__ import annotations

import importlib
import math
from typing import Callable, Dict, List

import numpy as np

from kindling.grade_values import Case

# The tasks with probes (read by the grader from this literal, never imported).
TASKS = (
    "0.1",
    "0.3",
    "0.4",
    "0.5",
    "1.1",
    "1.2",
    "1.3",
    "1.4",
    "1.5",
    "1.6",
    "1.7",
    "2.1",
    "2.2",
    "2.3",
    "2.4",
    "2.5",
    "2.6",
    "3.1",
    "3.2",
    "3.3",
    "3.4",
    "3.5",
    "4.1",
    "4.2",
    "4.3",
    "4.4",
    "4.5",
    "4.6",
    "4.7",
    "4.8",
)

# Tasks whose probes run with Numba's compiler off (``NUMBA_DISABLE_JIT=1``, set by
# kindling.grade_values before Numba is imported): the student's kernels run as the
# Python they are written in (``prange`` is ``range``), so a probe run compiles
# nothing (seconds, where compiling the kernels in every sandbox costs minutes).
# The values checked are the kernels' arithmetic and indexing; whether they compile
# and run in parallel is the task's tests' part (which can only take points away).
# The training scripts of Tasks 3.5 and 4.5 run on the FastBackend: without the JIT
# their probes take under a second, where compiling a submission's kernels takes
# 30 s on a quiet core.
WITHOUT_JIT = ("3.1", "3.2", "3.5", "4.1", "4.2", "4.5")

# Tasks whose probes launch CUDA kernels: on a machine without a GPU they run in
# Numba's CUDA simulator (kindling.cudasim, as the tests do), so shapes stay small.
CUDA = ("3.3", "3.4")


def _floats(rng: np.random.Generator, low: float, high: float, n: int) -> List[float]:
    return [float(x) for x in rng.uniform(low, high, n)]


# ---------------------------------------------------------------------------------
# Module 0
# ---------------------------------------------------------------------------------


def _task_0_1(rng: np.random.Generator) -> List[Case]:
    from module0_fundamentals import operators as ops

    cases: List[Case] = []

    def add(name: str, fn: Callable, *args: float) -> None:
        # Every operator is a line or two of float arithmetic or math.*: any
        # right way of writing it agrees to far better than 1e-9 relative.
        cases.append(Case(f"{name} #{len(cases)}", lambda: fn(*args), 1e-9, 0.0))

    regions = {
        "small": (-3.0, 3.0),
        "positive": (0.5, 20.0),
        "negative": (-20.0, -0.5),
        "large": (20.0, 700.0),
        "large negative": (-700.0, -20.0),
    }
    unary = ("id", "neg", "relu", "sigmoid", "sin", "cos", "tanh")
    for region, (low, high) in regions.items():
        for x in _floats(rng, low, high, 2):
            for name in unary:
                add(f"{name}({region})", getattr(ops, name), x)
            # log and log_back at |x| (every region, so that the cases are the same
            # whatever the seed: a report then has the same names run after run).
            add(f"log({region})", ops.log, abs(x))
            add(f"inv({region})", ops.inv, x)
            add(f"exp({region})", ops.exp, min(x, 600.0))
            d = float(rng.uniform(-3, 3))
            add(f"relu_back({region})", ops.relu_back, x, d)
            add(f"inv_back({region})", ops.inv_back, x, d)
            add(f"log_back({region})", ops.log_back, abs(x), d)
    for x, y in zip(_floats(rng, -50, 50, 8), _floats(rng, -50, 50, 8)):
        for name in ("add", "mul", "lt", "eq", "max"):
            add(f"{name}(x, y)", getattr(ops, name), x, y)
            add(f"{name}(x, x)", getattr(ops, name), x, x)
    for x in _floats(rng, -10, 10, 4):
        for gap in (0.0, 0.004, -0.006, 0.02, -0.5, 3.0):
            add("is_close(near and far)", ops.is_close, x, x + gap)
    # The documented errors.
    add("inv(0) raises", ops.inv, 0.0)
    add("log(0) raises", ops.log, 0.0)
    add("log(negative) raises", ops.log, -float(rng.uniform(0.5, 5)))
    add("inv_back(0) raises", ops.inv_back, 0.0, 1.0)
    add("log_back(negative) raises", ops.log_back, -float(rng.uniform(0.5, 5)), 1.0)
    return cases


def _task_0_3(rng: np.random.Generator) -> List[Case]:
    from module0_fundamentals import operators as ops

    cases: List[Case] = []

    def add(name: str, fn: Callable[[], object]) -> None:
        cases.append(Case(f"{name} #{len(cases)}", fn))

    for size in (0, 1, 2, 7):
        a = _floats(rng, -5, 5, size)
        b = _floats(rng, -5, 5, size)
        add(f"map(neg) of {size}", lambda a=a: ops.map(ops.neg)(a))
        add(f"map(square) of {size}", lambda a=a: ops.map(lambda x: x * x)(a))
        add(f"zip_with(add) of {size}", lambda a=a, b=b: ops.zip_with(ops.add)(a, b))
        add(
            f"zip_with(x - 2y) of {size}",
            lambda a=a, b=b: ops.zip_with(lambda x, y: x - 2 * y)(a, b),
        )
        add(f"reduce(add, 0) of {size}", lambda a=a: ops.reduce(ops.add, 0.0)(a))
        add(
            f"reduce(x - y, 1) of {size}",  # order matters: a left fold
            lambda a=a: ops.reduce(lambda x, y: x - y, 1.0)(a),
        )
        add(f"neg_list of {size}", lambda a=a: ops.neg_list(a))
        add(f"add_lists of {size}", lambda a=a, b=b: ops.add_lists(a, b))
        add(f"sum of {size}", lambda a=a: ops.sum(a))
        add(f"prod of {size}", lambda a=a: ops.prod(a))
    add("map over a generator", lambda: ops.map(ops.neg)(x for x in (1.0, -2.0)))
    return cases


def _task_0_4(rng: np.random.Generator) -> List[Case]:
    def tree():
        from module0_fundamentals import Module

        values = iter(_floats(rng, -5, 5, 8))

        class Leaf(Module):
            def __init__(self) -> None:
                super().__init__()
                self.weight = self.add_parameter("weight", next(values))
                self.bias = self.add_parameter("bias", next(values))

        class Middle(Module):
            def __init__(self) -> None:
                super().__init__()
                self.left, self.right = Leaf(), Leaf()
                self.scale = self.add_parameter("scale", next(values))

        class Top(Module):
            def __init__(self) -> None:
                super().__init__()
                self.middle, self.last = Middle(), Leaf()

        return Top()

    top = [None]

    def build():
        top[0] = tree()
        return top[0]

    def named():
        return [[n, float(p.value)] for n, p in build().named_parameters()]

    def flags(mode: str):
        module = build()
        getattr(module, mode)()
        return [m.training for m in module.modules()]

    return [
        Case("named_parameters of a 3-level tree", named),
        Case("parameters count", lambda: len(list(build().parameters()))),
        Case("modules count", lambda: len(build().modules())),
        Case("children count", lambda: len(build().children())),
        Case(
            "named_modules names",
            lambda: [n for n, _ in build().named_modules()],
        ),
        Case("training after eval()", lambda: flags("eval")),
        Case("training after train()", lambda: flags("train")),
        Case(
            "training after eval() then train()",
            lambda: (build().eval(), [m.training for m in top[0].train().modules()])[1],
        ),
    ]


def _task_0_5(rng: np.random.Generator) -> List[Case]:
    from module0_fundamentals import datasets

    cases = []
    points = rng.uniform(0.0, 1.0, (40, 2))
    for name in ("simple", "diag", "split", "xor", "circle"):
        rule = f"{name}_label"
        cases.append(
            Case(
                f"{rule} at 40 points",
                lambda r=rule: [
                    getattr(datasets, r)(float(a), float(b)) for a, b in points
                ],
            )
        )
    ts = rng.uniform(0.0, 1.0, 12)
    for curve in ("spiral_point", "moons_point"):
        for label in (0, 1):
            cases.append(
                Case(
                    f"{curve} label {label}",
                    lambda c=curve, k=label: [
                        list(getattr(datasets, c)(float(t), k)) for t in ts
                    ],
                )
            )
    seed = int(rng.integers(1 << 20))
    for name in ("simple", "diag", "split", "xor", "circle", "spiral", "moons"):
        cases.append(
            Case(
                f"{name}(30, seed)",
                lambda f=name: (lambda g: [g.n, g.X, g.y])(
                    getattr(datasets, f)(30, seed=seed)
                ),
            )
        )
    fresh = int(rng.integers(1 << 20))

    def good_enough(name: str) -> bool:
        # A threshold, not the reference's accuracy: any weights that separate
        # the dataset are right (the tests ask 95% too).
        from module0_fundamentals import ManualClassifier, hand_tuned_weights

        w1, w2, b = hand_tuned_weights()[name]
        graph = getattr(datasets, name)(500, seed=fresh)
        return ManualClassifier(w1, w2, b).accuracy(graph) >= 0.95

    for name in ("simple", "diag", "split"):
        cases.append(
            Case(
                f"hand-tuned weights for {name}: 95% of 500 points",
                lambda n=name: good_enough(n),
            )
        )
    return cases


# ---------------------------------------------------------------------------------
# Module 1
# ---------------------------------------------------------------------------------


def _points(rng: np.random.Generator, case, n: int) -> List[List[float]]:
    low, high = case.domain
    return [_floats(rng, low, high, case.arity) for _ in range(n)]


def _catalog():
    from module0_fundamentals.catalog import CATALOG

    return CATALOG


def _task_1_1(rng: np.random.Generator) -> List[Case]:
    from module1_scalar_autodiff import central_difference, forward_difference

    cases = []
    for case in _catalog():
        for i, point in enumerate(_points(rng, case, 2)):
            for arg in range(case.arity):
                for method, fn in (
                    ("central", central_difference),
                    ("forward", forward_difference),
                ):
                    cases.append(
                        Case(
                            f"{method}_difference of {case.name} #{i} arg {arg}",
                            lambda fn=fn, f=case.reference, p=point, a=arg: fn(
                                f, *p, arg=a, epsilon=1e-3
                            ),
                            rel=1e-7,
                            abs=1e-9,
                        )
                    )
    return cases


def _task_1_2(rng: np.random.Generator) -> List[Case]:
    from module1_scalar_autodiff import Scalar

    cases = []
    for case in _catalog():
        for i, point in enumerate(_points(rng, case, 3)):
            cases.append(
                Case(
                    f"Scalar forward of {case.name} #{i}",
                    lambda f=case.fn, p=point: f(*(Scalar(v) for v in p)).data,
                    rel=1e-9,
                )
            )
    x, y = _floats(rng, -3, 3, 2)
    cases.append(Case("Scalar x < y", lambda: (Scalar(x) < Scalar(y)).data))
    cases.append(Case("Scalar x > y", lambda: (Scalar(x) > Scalar(y)).data))
    cases.append(Case("Scalar x == x", lambda: (Scalar(x) == Scalar(x)).data))
    return cases


def _chain(op: Callable, values: List[float]):
    from module1_scalar_autodiff import Scalar

    leaves = [Scalar(v) for v in values]
    out = op(*leaves)
    d = 1.5
    found = []
    for parent, derivative in out.chain_rule(d):
        index = next((i for i, leaf in enumerate(leaves) if leaf is parent), -1)
        found.append([index, float(derivative)])
    return sorted(found)


def _task_1_3(rng: np.random.Generator) -> List[Case]:
    ops: Dict[str, Callable] = {
        "x * y": lambda x, y: x * y,
        "x + y": lambda x, y: x + y,
        "-x": lambda x, y: -x,
        "log": lambda x, y: x.log(),
        "exp": lambda x, y: x.exp(),
        "sigmoid": lambda x, y: x.sigmoid(),
        "sin": lambda x, y: x.sin(),
        "cos": lambda x, y: x.cos(),
        "tanh": lambda x, y: x.tanh(),
        "relu": lambda x, y: x.relu(),
    }
    cases = []
    for name, op in ops.items():
        for i in range(2):
            values = _floats(rng, 0.2, 4.0, 2)
            if i == 1 and name not in ("log", "relu"):
                values[0] = -values[0]
            cases.append(
                Case(f"chain_rule of {name} #{i}", lambda o=op, v=values: _chain(o, v))
            )
    return cases


def _backward(fn: Callable, values: List[float]) -> List[float]:
    from module1_scalar_autodiff import Scalar

    leaves = [Scalar(v) for v in values]
    fn(*leaves).backward()
    return [leaf.derivative for leaf in leaves]


def _task_1_4(rng: np.random.Generator) -> List[Case]:
    cases = []
    for case in _catalog():
        for i, point in enumerate(_points(rng, case, 2)):
            cases.append(
                Case(
                    f"backward of {case.name} #{i}",
                    lambda f=case.fn, p=point: _backward(f, p),
                    rel=1e-7,
                )
            )
    # A shared sub-expression (a diamond): derivatives must accumulate.
    x, y = _floats(rng, 0.5, 2.0, 2)

    def diamond(a, b):
        shared = a * b
        return shared.sigmoid() * shared + shared.exp() * a

    cases.append(
        Case("backward through a shared node", lambda: _backward(diamond, [x, y]))
    )
    return cases


def _task_1_6(rng: np.random.Generator) -> List[Case]:
    from module1_scalar_autodiff import Dual, jvp

    cases = []
    for case in _catalog():
        for i, point in enumerate(_points(rng, case, 2)):
            tangents = _floats(rng, -2, 2, case.arity)
            cases.append(
                Case(
                    f"jvp of {case.name} #{i}",
                    lambda f=case.fn, p=point, t=tangents: [
                        float(v) for v in jvp(f, p, t)
                    ],
                    rel=1e-7,
                )
            )
            cases.append(
                Case(
                    f"Dual tangent of {case.name} #{i}",
                    lambda f=case.fn, p=point: f(
                        *(Dual(v, 1.0 if k == 0 else 0.0) for k, v in enumerate(p))
                    ).tangent,
                    rel=1e-7,
                )
            )
    return cases


def _task_1_7(rng: np.random.Generator) -> List[Case]:
    from module1_scalar_autodiff import symbolic as sym

    x, y = sym.Var("x"), sym.Var("y")
    exprs = {
        "x * y + x": x * y + x,
        "sin(x) * cos(y)": sym.sin(x) * sym.cos(y),
        "exp(x * x) / y": sym.exp(x * x) / y,
        "log(x * x + 1) - y": sym.log(x * x + 1.0) - y,
        "x * x * x - 2 * x * y": x * x * x - 2.0 * x * y,
    }
    cases = []
    for name, expr in exprs.items():
        for i in range(2):
            a, b = _floats(rng, 0.5, 2.0, 2)
            for var in ("x", "y"):
                cases.append(
                    Case(
                        f"d/d{var} of {name} #{i}",
                        lambda e=expr, v=var, a=a, b=b: sym.evaluate(
                            sym.diff(e, v), x=a, y=b
                        ),
                        rel=1e-9,
                    )
                )
    return cases


# ---------------------------------------------------------------------------------
# Module 2
# ---------------------------------------------------------------------------------

SHAPES = [(1,), (5,), (1, 4), (3, 1), (2, 3), (2, 1, 3), (3, 2, 4), (1, 1, 1, 2)]


def _task_2_1(rng: np.random.Generator) -> List[Case]:
    from module2_tensors import tensor_data as td

    cases = []
    for shape in SHAPES:
        cases.append(
            Case(
                f"strides_from_shape {shape}", lambda s=shape: td.strides_from_shape(s)
            )
        )
        size = int(np.prod(shape))
        for ordinal in (0, size - 1, int(rng.integers(0, size))):

            def index(s=shape, o=ordinal):
                out = np.zeros(len(s), dtype=np.int32)
                td.to_index(o, np.array(s, dtype=np.int32), out)
                return out

            cases.append(Case(f"to_index in {shape}", index))
        strides = [int(v) for v in rng.integers(1, 9, len(shape))]
        idx = [int(rng.integers(0, n)) for n in shape]
        cases.append(
            Case(
                f"index_to_position in {shape}",
                lambda i=idx, st=strides: td.index_to_position(
                    np.array(i, dtype=np.int32), np.array(st, dtype=np.int32)
                ),
            )
        )
        order = [int(v) for v in rng.permutation(len(shape))]

        def permuted(s=shape, o=order):
            data = td.TensorData(list(range(int(np.prod(s)))), s)
            view = data.permute(*o)
            return [list(view.shape), list(view.strides), view.is_contiguous()]

        cases.append(Case(f"permute of {shape}", permuted))
    return cases


def _task_2_2(rng: np.random.Generator) -> List[Case]:
    from module2_tensors import tensor_data as td

    pairs = [
        ((1,), (5,)),
        ((2, 3), (3,)),
        ((3, 1), (1, 4)),
        ((2, 1, 3), (4, 1)),
        ((5, 1, 1), (1, 2, 1)),
        ((1,), (1,)),
        ((4,), (1, 1, 4)),
        ((2, 3), (2,)),  # incompatible
        ((3, 2), (4, 3, 3)),  # incompatible
    ]
    cases = []
    for a, b in pairs:
        cases.append(
            Case(f"shape_broadcast {a} {b}", lambda a=a, b=b: td.shape_broadcast(a, b))
        )
        cases.append(
            Case(f"shape_broadcast {b} {a}", lambda a=a, b=b: td.shape_broadcast(b, a))
        )
    for big, small in [((2, 3, 4), (3, 1)), ((4, 5), (5,)), ((3, 1, 2), (1, 1, 2))]:
        big_index = [int(rng.integers(0, n)) for n in big]

        def bindex(b=big, s=small, i=big_index):
            out = np.zeros(len(s), dtype=np.int32)
            td.broadcast_index(
                np.array(i, dtype=np.int32),
                np.array(b, dtype=np.int32),
                np.array(s, dtype=np.int32),
                out,
            )
            return out

        cases.append(Case(f"broadcast_index {big} -> {small}", bindex))
    return cases


def _t(values: np.ndarray, requires_grad: bool = False):
    from module2_tensors import tensor

    return tensor(values.tolist(), requires_grad=requires_grad)


def _out(t) -> object:
    return np.asarray(t.to_numpy())


def _grad(t) -> object:
    return None if t.grad is None else np.asarray(t.grad.to_numpy())


def _task_2_3(rng: np.random.Generator) -> List[Case]:
    cases = []
    for case in _catalog():
        for shape in ((4,), (2, 3)):
            low, high = case.domain
            arrays = [rng.uniform(low, high, shape) for _ in range(case.arity)]
            cases.append(
                Case(
                    f"tensor forward of {case.name} {shape}",
                    lambda f=case.fn, a=arrays: _out(f(*(_t(x) for x in a))),
                )
            )
    for sa, sb in [
        ((2, 3), (3,)),
        ((3, 1), (1, 4)),
        ((2, 1, 3), (4, 1)),
        ((1,), (2, 2)),
    ]:
        a, b = rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)
        cases.append(
            Case(f"a * b broadcast {sa} {sb}", lambda a=a, b=b: _out(_t(a) * _t(b)))
        )
        cases.append(
            Case(f"a + b broadcast {sa} {sb}", lambda a=a, b=b: _out(_t(a) + _t(b)))
        )
        cases.append(
            Case(f"a < b broadcast {sa} {sb}", lambda a=a, b=b: _out(_t(a) < _t(b)))
        )
    x = rng.uniform(-3, 3, (3, 2, 4))
    for dim in range(3):
        cases.append(Case(f"sum(dim={dim})", lambda d=dim: _out(_t(x).sum(d))))
        cases.append(Case(f"mean(dim={dim})", lambda d=dim: _out(_t(x).mean(d))))
    cases.append(Case("sum()", lambda: _out(_t(x).sum())))
    cases.append(Case("permute(2, 0, 1)", lambda: _out(_t(x).permute(2, 0, 1))))
    cases.append(
        Case(
            "a permuted view times a contiguous tensor",
            lambda: _out(_t(x).permute(2, 0, 1) * _t(np.ones((4, 3, 2)) * 2.0)),
        )
    )
    cases.append(Case("view(4, 6)", lambda: _out(_t(x).contiguous().view(4, 6))))
    for sa, sb in [
        ((2, 3), (3, 4)),
        ((1, 3), (3, 1)),
        ((2, 2, 3), (3, 2)),
        ((1, 3, 2), (4, 2, 3)),
    ]:
        a, b = rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)
        cases.append(Case(f"matmul {sa} @ {sb}", lambda a=a, b=b: _out(_t(a) @ _t(b))))
    ties = np.array([[1.0, 3.0, 3.0], [2.0, -1.0, 0.5]])
    cases.append(
        Case("eq and is_close", lambda: _out(_t(ties).is_close(_t(ties + 1e-9))))
    )
    return cases


def _task_2_4(rng: np.random.Generator) -> List[Case]:
    def grads(fn, *arrays):
        leaves = [_t(a, requires_grad=True) for a in arrays]
        fn(*leaves).sum().backward()
        return [_grad(leaf) for leaf in leaves]

    cases = []
    for case in _catalog():
        low, high = case.domain
        arrays = [rng.uniform(low, high, (2, 3)) for _ in range(case.arity)]
        cases.append(
            Case(
                f"tensor gradient of {case.name}",
                lambda f=case.fn, a=arrays: grads(f, *a),
                rel=1e-6,
                abs=1e-9,
            )
        )
    for sa, sb in [
        ((2, 3), (3,)),
        ((3, 1), (1, 4)),
        ((2, 1, 3), (4, 1)),
        ((1,), (2, 2)),
    ]:
        a, b = rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)
        cases.append(
            Case(
                f"grad of a * b broadcast {sa} {sb}",
                lambda a=a, b=b: grads(lambda p, q: p * q, a, b),
            )
        )
        cases.append(
            Case(
                f"grad of a + b broadcast {sa} {sb}",
                lambda a=a, b=b: grads(lambda p, q: p + q, a, b),
            )
        )
    for sa, sb in [((2, 3), (3, 4)), ((2, 2, 3), (3, 2)), ((1, 3, 2), (4, 2, 3))]:
        a, b = rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)
        cases.append(
            Case(
                f"grad of matmul {sa} @ {sb}",
                lambda a=a, b=b: grads(lambda p, q: p @ q, a, b),
            )
        )
    x = rng.uniform(-3, 3, (3, 2, 4))
    w = rng.uniform(-1, 1, (4, 3, 2))
    for dim in range(3):
        cases.append(
            Case(
                f"grad of sum(dim={dim}) squared",
                lambda d=dim: grads(lambda p: p.sum(d) * p.sum(d), x),
            )
        )
    cases.append(
        Case(
            "grad through permute",
            lambda: grads(lambda p: p.permute(2, 0, 1) * _t(w), x),
        )
    )
    cases.append(
        Case(
            "grad through view",
            lambda: grads(lambda p: p.contiguous().view(4, 6).exp(), x),
        )
    )
    ties = np.array([[1.0, 3.0, 3.0], [2.0, -1.0, 0.5]])
    cases.append(
        Case("grad of max with ties", lambda: grads(lambda p: _values(p.max(1)), ties))
    )
    return cases


def _task_2_6(rng: np.random.Generator) -> List[Case]:
    import module2_tensors as kt

    x = rng.uniform(-3, 3, (2, 3, 4))
    y = rng.uniform(-3, 3, (2, 3, 4))

    def both(fn, *arrays):
        leaves = [_t(a, requires_grad=True) for a in arrays]
        out = fn(*leaves)
        shape = tuple(out.shape)
        weights = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
        (out * _t(weights)).sum().backward()
        return [_out(out), [_grad(leaf) for leaf in leaves]]

    index = [int(v) for v in rng.integers(0, 3, 4)]
    return [
        Case(
            "squeeze/unsqueeze",
            lambda: both(lambda p: p.unsqueeze(1).squeeze(1) * 1.0, x),
        ),
        Case("cat along dim 1", lambda: both(lambda p, q: kt.cat([p, q], 1), x, y)),
        Case("stack along dim 2", lambda: both(lambda p, q: kt.stack([p, q], 2), x, y)),
        Case("transpose(0, 2)", lambda: both(lambda p: kt.transpose(p, 0, 2), x)),
        Case("flatten", lambda: both(lambda p: kt.flatten(p) * 1.0, x)),
        Case("where", lambda: both(lambda p, q: kt.where(p > q, p, q), x, y)),
        Case("pad (1, 2)", lambda: both(lambda p: kt.pad(p, (1, 2)), x)),
        Case(
            "index_select along dim 1",
            lambda: both(lambda p: kt.index_select(p, 1, kt.tensor(index)), x),
        ),
        Case(
            "expand", lambda: both(lambda p: kt.expand(p[:, :1, :], (2, 3, 4)) * 1.0, x)
        ),
        Case(
            "requires_grad under no_grad",
            lambda: (lambda p: [bool((p * 2.0).requires_grad), _no_grad(p)])(
                _t(x, requires_grad=True)
            ),
        ),
    ]


def _no_grad(p) -> bool:
    import module2_tensors as kt

    with kt.no_grad():
        return bool((p * 2.0).requires_grad)


# ---------------------------------------------------------------------------------
# Module 3 (run with the JIT off: see WITHOUT_JIT)
# ---------------------------------------------------------------------------------


def _strided(array: np.ndarray, layout) -> tuple:
    """``array`` stored with its dimensions in ``layout`` order: (storage, shape,
    strides), the raw arguments of a kernel."""
    array = np.asarray(array, dtype=np.float64)
    laid_out = np.array(array.transpose(layout), order="C")
    view = laid_out.transpose(tuple(int(k) for k in np.argsort(layout)))
    strides = [step // 8 for step in view.strides]
    shape = np.array(array.shape, dtype=np.int64)
    return laid_out.reshape(-1).copy(), shape, np.array(strides, dtype=np.int64)


def _read(storage, shape, strides) -> np.ndarray:
    shape = tuple(int(n) for n in shape)
    if len(storage) == 0:
        return np.zeros(shape)
    steps = tuple(int(s) * 8 for s in strides)
    return np.lib.stride_tricks.as_strided(storage, shape, steps).copy()


def _summary(out: np.ndarray, rng: np.random.Generator):
    """A large output, as values small enough to send: its dot product with
    seeded weights (any wrong entry changes it) and 64 entries at seeded places."""
    flat = out.ravel()
    if flat.size <= 4096:
        return out
    weights = rng.uniform(-1.0, 1.0, flat.size)
    places = rng.integers(0, flat.size, 64)
    return [list(out.shape), float(weights @ flat), flat[places]]


def _layouts(ndim: int):
    identity = tuple(range(ndim))
    return [identity, identity[::-1]] if ndim > 1 else [identity]


def _task_3_1(rng: np.random.Generator) -> List[Case]:
    big = 2 * (1 << 15) // 64 + 3  # rows of 64: more work than one slice

    def kernels():
        from module0_fundamentals import operators
        from module3_fast_ops import fast_ops

        return (
            fast_ops.tensor_map(operators.neg),
            fast_ops.tensor_zip(operators.mul),
            fast_ops.tensor_reduce(operators.add),
            fast_ops.tensor_reduce(operators.max),
        )

    def run(kind: str, x, y, layout, out_layout, dim, seed):
        neg, mul, add, top = kernels()
        summary_rng = np.random.default_rng(seed)
        if kind == "map":
            out = _strided(np.zeros(x.shape), out_layout)
            neg(*out, *_strided(x, layout))
        elif kind == "zip":
            out = _strided(np.zeros(np.broadcast_shapes(x.shape, y.shape)), out_layout)
            mul(*out, *_strided(x, layout), *_strided(y, _layouts(y.ndim)[-1]))
        else:
            shape = list(x.shape)
            shape[dim] = 1
            start = 0.0 if kind == "sum" else -np.inf
            out = _strided(np.full(shape, start), out_layout)
            (add if kind == "sum" else top)(*out, *_strided(x, layout), dim)
        return _summary(_read(*out), summary_rng)

    cases = []
    for shape in [(1,), (5,), (3, 4), (2, 3, 4), (1, 1, 7), (big, 64)]:
        x = rng.normal(size=shape)
        for layout in _layouts(len(shape)):
            for out_layout in {tuple(range(len(shape))), layout}:
                seed = int(rng.integers(1 << 30))
                cases.append(
                    Case(
                        f"map(neg) {shape} layout {layout} -> {out_layout}",
                        lambda x=x, a=layout, o=out_layout, s=seed: run(
                            "map", x, None, a, o, 0, s
                        ),
                    )
                )
                y = rng.normal(size=shape)
                cases.append(
                    Case(
                        f"zip(mul) {shape} layout {layout} -> {out_layout}",
                        lambda x=x, y=y, a=layout, o=out_layout, s=seed: run(
                            "zip", x, y, a, o, 0, s
                        ),
                    )
                )
            for dim in range(len(shape)):
                for kind in ("sum", "max"):
                    seed = int(rng.integers(1 << 30))
                    cases.append(
                        Case(
                            f"reduce({kind}) {shape} layout {layout} dim {dim}",
                            lambda x=x, a=layout, d=dim, k=kind, s=seed: run(
                                k, x, None, a, tuple(range(len(x.shape))), d, s
                            ),
                            rel=1e-9,
                            abs=1e-12,
                        )
                    )
    for sa, sb in [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((5, 1, 3), (2, 1))]:
        x, y = rng.normal(size=sa), rng.normal(size=sb)
        ndim = len(np.broadcast_shapes(sa, sb))
        cases.append(
            Case(
                f"zip(mul) broadcast {sa} {sb}",
                lambda x=x, y=y, n=ndim: run(
                    "zip", x, y, tuple(range(x.ndim)), tuple(range(n)), 0, 0
                ),
            )
        )
    return cases


def _matmul_cases(
    rng: np.random.Generator,
    kernels: str,
    label: str,
    shapes: List[tuple],
    summed: bool,
) -> List[Case]:
    """The student's ``tensor_matrix_multiply()`` of ``module3_fast_ops.<kernels>``
    on random matrices of each pair of ``shapes``, in every pair of layouts: the
    product, or with ``summed`` its :func:`_summary`."""

    def run(sa, sb, a, b, la, lb):
        module = importlib.import_module(f"module3_fast_ops.{kernels}")
        kernel = module.tensor_matrix_multiply()
        batch = np.broadcast_shapes(sa[:-2], sb[:-2])
        shape = tuple(batch) + (sa[-2], sb[-1])
        out = _strided(np.zeros(shape), tuple(range(len(shape))))
        kernel(*out, *_strided(a, la), *_strided(b, lb))
        if summed:
            return _summary(_read(*out), np.random.default_rng(len(shape)))
        return _read(*out)

    cases = []
    for sa, sb in shapes:
        a, b = rng.normal(size=sa), rng.normal(size=sb)
        for la, lb in zip(_layouts(len(sa)), _layouts(len(sb))):
            cases.append(
                Case(
                    f"{label} {sa} @ {sb} layouts {la} {lb}",
                    lambda sa=sa, sb=sb, a=a, b=b, la=la, lb=lb: run(
                        sa, sb, a, b, la, lb
                    ),
                    rel=1e-9,
                    abs=1e-12,
                )
            )
    return cases


def _task_3_2(rng: np.random.Generator) -> List[Case]:
    shapes = [
        ((1, 1), (1, 1)),
        ((2, 3), (3, 4)),
        ((1, 5), (5, 1)),
        ((4, 1), (1, 3)),
        ((2, 3, 4), (4, 5)),
        ((1, 3, 2), (4, 2, 3)),
        ((2, 1, 3, 2), (3, 2, 4)),
        ((3, 17, 9), (9, 13)),
        ((2, 40, 33), (33, 50)),  # more rows and columns than one block
    ]
    return _matmul_cases(rng, "fast_matmul", "matmul", shapes, summed=True)


def _task_3_3(rng: np.random.Generator) -> List[Case]:
    def run(kind: str, x, y, layout, out_layout, dim):
        from module0_fundamentals import operators
        from module3_fast_ops import cuda_ops

        if kind == "map":
            out = _strided(np.zeros(x.shape), out_layout)
            cuda_ops.tensor_map(operators.neg)(*out, *_strided(x, layout))
        elif kind == "zip":
            out = _strided(np.zeros(np.broadcast_shapes(x.shape, y.shape)), out_layout)
            kernel = cuda_ops.tensor_zip(operators.mul)
            kernel(*out, *_strided(x, layout), *_strided(y, _layouts(y.ndim)[-1]))
        else:
            shape = list(x.shape)
            shape[dim] = 1
            fn, start = (
                (operators.add, 0.0) if kind == "sum" else (operators.max, -np.inf)
            )
            out = _strided(np.full(shape, np.nan), out_layout)
            cuda_ops.tensor_reduce(fn)(*out, *_strided(x, layout), dim, start)
        return _read(*out)

    cases = []
    for shape in [(1,), (5,), (3, 4), (2, 3, 5), (300,)]:
        x, y = rng.normal(size=shape), rng.normal(size=shape)
        identity = tuple(range(len(shape)))
        for layout in _layouts(len(shape)):
            cases.append(
                Case(
                    f"cuda map(neg) {shape} layout {layout}",
                    lambda x=x, a=layout, o=identity: run("map", x, None, a, o, 0),
                )
            )
            cases.append(
                Case(
                    f"cuda zip(mul) {shape} layout {layout}",
                    lambda x=x, y=y, a=layout, o=identity: run("zip", x, y, a, o, 0),
                )
            )
            for dim in range(len(shape)):
                for kind in ("sum", "max"):
                    cases.append(
                        Case(
                            f"cuda reduce({kind}) {shape} layout {layout} dim {dim}",
                            lambda x=x, a=layout, o=identity, d=dim, k=kind: run(
                                k, x, None, a, o, d
                            ),
                            rel=1e-9,
                            abs=1e-12,
                        )
                    )
    x, y = rng.normal(size=(3, 1)), rng.normal(size=(1, 4))
    cases.append(
        Case(
            "cuda zip(mul) broadcast (3, 1) (1, 4)",
            lambda: run("zip", x, y, (0, 1), (0, 1), 0),
        )
    )
    return cases


def _task_3_4(rng: np.random.Generator) -> List[Case]:
    shapes = [
        ((1, 1), (1, 1)),
        ((2, 3), (3, 4)),
        ((1, 3, 2), (4, 2, 3)),
        ((2, 1, 3, 2), (3, 2, 4)),
        ((5, 7), (7, 3)),
        ((2, 33, 5), (5, 34)),  # more rows and columns than one tile
    ]
    return _matmul_cases(rng, "cuda_ops", "cuda matmul", shapes, summed=False)


# ---------------------------------------------------------------------------------
# Module 4
# ---------------------------------------------------------------------------------


def _t4(values: np.ndarray, requires_grad: bool = False):
    """A tensor on the plain Python backend: Module 4's functions are the same on
    every backend, and this one compiles no kernel (seconds, not minutes, per
    sandbox)."""
    import module4_networks as kt
    from module2_tensors.tensor_ops import SimpleBackend

    return kt.tensor(values.tolist(), SimpleBackend, requires_grad=requires_grad)


def _forward_and_grad(fn, array: np.ndarray, weights: np.ndarray):
    leaf = _t4(array, requires_grad=True)
    out = fn(leaf)
    (out * _t4(weights.reshape(tuple(out.shape)))).sum().backward()
    return [np.asarray(out.to_numpy()), _grad(leaf)]


def _conv_cases(
    rng: np.random.Generator, name: str, settings: List[tuple]
) -> List[Case]:
    """``kt.<name>`` (``conv1d`` or ``conv2d``) with a bias: the output and the
    gradients of input, weight and bias for a fixed weighting of the output, for
    each ``(input shape, weight shape, stride, padding)``."""
    import module4_networks as kt

    conv = getattr(kt, name)
    cases = []
    for shape, wshape, stride, padding in settings:
        x, w = rng.normal(size=shape), rng.normal(size=wshape)
        bias = rng.normal(size=wshape[0])

        def run(x=x, w=w, bias=bias, s=stride, p=padding):
            leaves = [_t4(a, requires_grad=True) for a in (x, w, bias)]
            out = conv(*leaves, stride=s, padding=p)
            shape = tuple(out.shape)
            weights = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
            (out * _t4(weights)).sum().backward()
            return [np.asarray(out.to_numpy())] + [_grad(leaf) for leaf in leaves]

        cases.append(
            Case(
                f"{name} {shape} * {wshape} stride {stride} padding {padding}",
                run,
                rel=1e-9,
                abs=1e-12,
            )
        )
    return cases


def _task_4_1(rng: np.random.Generator) -> List[Case]:
    settings = [
        ((1, 1, 5), (1, 1, 3), 1, 0),
        ((2, 3, 8), (4, 3, 3), 1, 1),
        ((2, 2, 9), (3, 2, 4), 2, 0),
        ((1, 3, 6), (2, 3, 1), 1, 0),
        ((2, 2, 7), (2, 2, 7), 1, 0),  # the kernel as wide as the input
    ]
    return _conv_cases(rng, "conv1d", settings)


def _task_4_2(rng: np.random.Generator) -> List[Case]:
    settings = [
        ((1, 1, 4, 4), (1, 1, 2, 2), 1, 0),
        ((2, 2, 5, 6), (3, 2, 3, 2), 1, 1),
        ((1, 3, 7, 5), (2, 3, 3, 3), 2, (1, 0)),
        ((2, 1, 3, 3), (2, 1, 3, 3), 1, 0),
    ]
    return _conv_cases(rng, "conv2d", settings)


def _task_4_3(rng: np.random.Generator) -> List[Case]:
    import module4_networks as kt

    cases = []
    for shape, kernel in [
        ((1, 1, 4, 4), (2, 2)),
        ((2, 3, 6, 4), (3, 2)),
        ((1, 2, 3, 3), (3, 3)),
    ]:
        x = rng.uniform(-2, 2, shape)
        out_shape = (shape[0], shape[1], shape[2] // kernel[0], shape[3] // kernel[1])
        w = rng.uniform(-1, 1, int(np.prod(out_shape)))
        cases.append(
            Case(
                f"avg_pool2d {shape} kernel {kernel}",
                lambda x=x, k=kernel, w=w: _forward_and_grad(
                    lambda p: kt.avg_pool2d(p, k), x, w
                ),
            )
        )
        cases.append(
            Case(
                f"tile {shape} kernel {kernel}",
                lambda x=x, k=kernel: [
                    np.asarray(t.to_numpy()) if hasattr(t, "to_numpy") else t
                    for t in kt.tile(_t4(x), k)
                ],
            )
        )
    return cases


def _task_4_4(rng: np.random.Generator) -> List[Case]:
    import module4_networks as kt

    cases = []
    x = rng.uniform(-3, 3, (2, 3, 4))
    for dim in range(3):
        w = rng.uniform(-1, 1, x.size)
        cases.append(
            Case(
                f"softmax(dim={dim})",
                lambda d=dim, w=w: _forward_and_grad(lambda p: kt.softmax(p, d), x, w),
            )
        )
        cases.append(
            Case(
                f"log_softmax(dim={dim})",
                lambda d=dim, w=w: _forward_and_grad(
                    lambda p: kt.log_softmax(p, d), x, w
                ),
            )
        )
        cases.append(
            Case(
                f"max(dim={dim}) values",
                lambda d=dim: np.asarray(_values(kt.max(_t4(x), d)).to_numpy()),
            )
        )
    big = x * 300.0  # a softmax that does not subtract the maximum overflows
    cases.append(
        Case(
            "softmax of large inputs",
            lambda: np.asarray(kt.softmax(_t4(big), 2).to_numpy()),
        )
    )
    cases.append(
        Case(
            "log_softmax of large inputs",
            lambda: np.asarray(kt.log_softmax(_t4(big), 2).to_numpy()),
        )
    )
    img = rng.uniform(-2, 2, (2, 2, 4, 6))
    w = rng.uniform(-1, 1, 2 * 2 * 2 * 3)
    cases.append(
        Case(
            "max_pool2d (2, 2)",
            lambda: _forward_and_grad(lambda p: kt.max_pool2d(p, (2, 2)), img, w),
        )
    )
    ones = np.ones((3, 5))
    cases.append(
        Case("dropout p=0", lambda: np.asarray(kt.dropout(_t4(x), 0.0).to_numpy()))
    )
    cases.append(
        Case("dropout p=1", lambda: np.asarray(kt.dropout(_t4(ones), 1.0).to_numpy()))
    )
    cases.append(
        Case(
            "dropout when not training",
            lambda: np.asarray(kt.dropout(_t4(x), 0.5, training=False).to_numpy()),
        )
    )
    return cases


def _leaves_and_grads(fn, *arrays):
    """``fn``'s output on tensors of ``arrays`` and, after a backward pass of the
    output weighted by fixed weights, every input's gradient."""
    leaves = [_t4(a, requires_grad=True) for a in arrays]
    out = fn(*leaves)
    outputs = out if isinstance(out, (tuple, list)) else [out]
    total = None
    for k, tensor in enumerate(outputs):
        shape = tuple(tensor.shape)
        weights = np.linspace(-1.0, 1.0 + k, int(np.prod(shape)) or 1)
        term = (tensor * _t4(weights[: int(np.prod(shape))].reshape(shape))).sum()
        total = term if total is None else total + term
    total.backward()
    return [np.asarray(t.to_numpy()) for t in outputs] + [
        _grad(leaf) for leaf in leaves
    ]


def _task_4_6(rng: np.random.Generator) -> List[Case]:
    import module4_networks as kt
    from module4_networks import losses, optim

    cases = []
    logits = rng.normal(size=(4, 5)) * 3.0
    labels = np.array([0, 4, 2, 2])  # (class indices: int64, as PyTorch's)
    probs = rng.uniform(0.05, 0.95, (3, 4))
    targets = (rng.uniform(0, 1, (3, 4)) > 0.5) * 1.0
    y = rng.normal(size=(3, 4))
    for reduction in ("mean", "sum", "none"):
        cases += [
            Case(
                f"cross_entropy ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.cross_entropy(p, _t4(labels), reduction=r), logits
                ),
            ),
            Case(
                f"nll_loss ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.nll_loss(
                        kt.log_softmax(p, 1), _t4(labels), reduction=r
                    ),
                    logits,
                ),
            ),
            Case(
                f"mse_loss ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.mse_loss(p, _t4(y), reduction=r), probs
                ),
            ),
            Case(
                f"l1_loss ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.l1_loss(p, _t4(y), reduction=r), probs
                ),
            ),
            Case(
                f"binary_cross_entropy ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.binary_cross_entropy(p, _t4(targets), reduction=r),
                    probs,
                ),
            ),
            Case(
                f"binary_cross_entropy_with_logits ({reduction})",
                lambda r=reduction: _leaves_and_grads(
                    lambda p: losses.binary_cross_entropy_with_logits(
                        p, _t4(targets), reduction=r
                    ),
                    logits[:3, :4] * 20.0,  # large logits: the stable formula
                ),
            ),
        ]
    p0 = rng.normal(size=(2, 3))
    grads = [rng.normal(size=(2, 3)) for _ in range(4)]
    settings = {
        "SGD": (optim.SGD, dict(lr=0.1)),
        "SGD momentum": (optim.SGD, dict(lr=0.1, momentum=0.9)),
        "SGD nesterov": (
            optim.SGD,
            dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
        ),
        "RMSprop": (optim.RMSprop, dict(lr=0.01)),
        "RMSprop centered": (
            optim.RMSprop,
            dict(lr=0.01, alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1),
        ),
        "Adam": (optim.Adam, dict(lr=0.01)),
        "Adam with L2": (
            optim.Adam,
            dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
        ),
        "AdamW": (optim.AdamW, dict(lr=0.02, weight_decay=0.1)),
    }

    def steps(cls, kwargs):
        p = _t4(p0, requires_grad=True)
        opt = cls([p], **kwargs)
        values = []
        for g in grads:
            opt.zero_grad()
            p.grad = _t4(g)
            opt.step()
            values.append(np.asarray(p.to_numpy()))
        return values

    for name, (cls, kwargs) in settings.items():
        cases.append(
            Case(
                f"{name}: parameters after 4 steps", lambda c=cls, k=kwargs: steps(c, k)
            )
        )
    x = rng.normal(size=(3, 2, 4)) * 2.0 + 1.0

    def layer_norm():
        from module2_tensors.tensor_ops import SimpleBackend

        norm = kt.nn.LayerNorm(4).to(SimpleBackend)
        return _leaves_and_grads(norm, x)

    cases.append(Case("LayerNorm over the last dimension", layer_norm))
    return cases


def _task_4_7(rng: np.random.Generator) -> List[Case]:
    from module4_networks import recurrent

    cases = []
    for batch in ((), (3,), (2, 2)):
        h = 4
        gi, gh = rng.normal(size=batch + (h,)) * 2, rng.normal(size=batch + (h,))
        for nl in ("tanh", "relu"):
            cases.append(
                Case(
                    f"rnn_step {nl} batch {batch}",
                    lambda a=gi, b=gh, n=nl: _leaves_and_grads(
                        lambda p, q: recurrent.rnn_step(p, q, n), a, b
                    ),
                )
            )
        gi4, gh4 = rng.normal(size=batch + (4 * h,)), rng.normal(size=batch + (4 * h,))
        c = rng.normal(size=batch + (h,))
        cases.append(
            Case(
                f"lstm_step batch {batch}",
                lambda a=gi4, b=gh4, c=c: _leaves_and_grads(
                    lambda p, q, r: recurrent.lstm_step(p, q, r), a, b, c
                ),
            )
        )
        gi3, gh3 = rng.normal(size=batch + (3 * h,)), rng.normal(size=batch + (3 * h,))
        hh = rng.normal(size=batch + (h,))
        cases.append(
            Case(
                f"gru_step batch {batch}",
                lambda a=gi3, b=gh3, c=hh: _leaves_and_grads(
                    lambda p, q, r: recurrent.gru_step(p, q, r), a, b, c
                ),
            )
        )
    return cases


def _task_4_8(rng: np.random.Generator) -> List[Case]:
    from module2_tensors.tensor_ops import SimpleBackend
    from module4_networks import attention

    cases = [
        Case(
            f"causal_mask {size}",
            lambda s=size: np.asarray(
                attention.causal_mask(*s, backend=SimpleBackend).to_numpy()
            ),
        )
        for size in ((1,), (4,), (3, 5), (5, 3))
    ]
    cases.append(
        Case(
            "padding_mask",
            lambda: np.asarray(
                attention.padding_mask([3, 0, 5], 5, backend=SimpleBackend).to_numpy()
            ),
        )
    )
    scores = rng.normal(size=(2, 3, 4)) * 3.0
    mask = (rng.uniform(0, 1, (3, 4)) > 0.4) * 1.0
    mask[1] = 0.0  # a row with no key kept: all zeros, never NaN
    additive = rng.normal(size=(3, 4))
    cases += [
        Case(
            "attention_weights without a mask",
            lambda: _leaves_and_grads(lambda p: attention.attention_weights(p), scores),
        ),
        Case(
            "attention_weights with a 0/1 mask and an empty row",
            lambda: _leaves_and_grads(
                lambda p: attention.attention_weights(p, _t4(mask)), scores
            ),
        ),
        Case(
            "attention_weights with a float mask",
            lambda: _leaves_and_grads(
                lambda p: attention.attention_weights(p, _t4(additive)), scores
            ),
        ),
    ]
    q, k, v = (rng.normal(size=(2, 3, 4)) for _ in range(3))
    k5, v5 = rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 2))
    cases += [
        Case(
            "scaled_dot_product_attention",
            lambda: _leaves_and_grads(
                attention.scaled_dot_product_attention, q, k5, v5
            ),
        ),
        Case(
            "scaled_dot_product_attention, causal",
            lambda: _leaves_and_grads(
                lambda a, b, c: attention.scaled_dot_product_attention(
                    a, b, c, is_causal=True
                ),
                q,
                k,
                v,
            ),
        ),
        Case(
            "scaled_dot_product_attention with a mask",
            lambda: _leaves_and_grads(
                lambda a, b, c: attention.scaled_dot_product_attention(
                    a, b, c, attn_mask=_t4(np.tril(np.ones((3, 3))))
                ),
                q,
                k,
                v,
            ),
        ),
    ]
    return cases


# ---------------------------------------------------------------------------------
# Training (Tasks 1.5, 2.5, 3.5, 4.5): trajectories, not accuracies
# ---------------------------------------------------------------------------------
#
# A training script's graded values are what its steps compute, never a score it
# reports: from initial parameters and a small dataset drawn from the seed, a few
# steps of the student's code (its optimizer step, zero_grad, loss and loop, as the
# published stubs define them), and the loss and every parameter after each step.
# A wrong sign, an ignored learning rate, gradients left over from the previous
# batch or batches not taken in the given order all change these numbers; nothing
# the sandbox reports about itself (an accuracy, a verdict) is compared. Parameters
# are listed by name (sorted), so the order in which a student's ``__init__``
# registers them does not matter where no published test fixes it.

# Several steps of float arithmetic that right solutions may order differently
# (``b + x w`` or ``x w + b``): agreement to 1e-7 relative is far tighter than any
# wrong step allows (a wrong step is wrong by a sizeable fraction of ``lr * grad``).
TRAINING = dict(rel=1e-7, abs=1e-9)


def _scalar_values(module) -> List[float]:
    """Every parameter's float of a Module of Scalars, sorted by name."""
    named = sorted(module.named_parameters(), key=lambda item: item[0])
    return [float(p.value.data) for _, p in named]


def _tensor_values(module) -> List[object]:
    """Every parameter's array of a Module of tensors, sorted by name."""
    named = sorted(module.named_parameters(), key=lambda item: item[0])
    return [np.asarray(p.value.to_numpy()) for _, p in named]


def _drawn(name: str, shape: tuple, generator: np.random.Generator) -> np.ndarray:
    """A parameter's drawn values: weights uniform in [-1, 1], biases in
    [-0.2, 0.8] (mostly positive, so that few ReLUs start dead: with the scripts'
    own initialisation, a small network at some seeds outputs one constant logit,
    and its forward pass would then be checked at its last bias alone)."""
    low, high = (-0.2, 0.8) if name.rsplit(".", 1)[-1].startswith("bias") else (-1, 1)
    return generator.uniform(low, high, shape)


def _set_scalars(model, seed: int) -> None:
    """Every Scalar parameter of ``model`` drawn from ``seed`` (:func:`_drawn`), in
    the order of their sorted names."""
    from module1_scalar_autodiff.scalar import Scalar

    generator = np.random.default_rng(seed)
    for name, p in sorted(model.named_parameters(), key=lambda item: item[0]):
        p.update(Scalar(float(_drawn(name, (), generator))))


def _set_parameters(model, seed: int, backend) -> None:
    """Every tensor parameter of ``model`` drawn from ``seed`` (:func:`_drawn`),
    in the order of their sorted names, on ``backend``."""
    from module2_tensors import tensor

    generator = np.random.default_rng(seed)
    for name, p in sorted(model.named_parameters(), key=lambda item: item[0]):
        shape = tuple(p.value.shape)
        p.update(tensor(_drawn(name, shape, generator), backend=backend))


def _task_1_5(rng: np.random.Generator) -> List[Case]:
    import random

    def imports():
        from module0_fundamentals import Parameter
        from module1_scalar_autodiff.optim import SGD
        from module1_scalar_autodiff.scalar import Scalar
        from project import run_scalar

        return Parameter, SGD, Scalar, run_scalar

    start = _floats(rng, -2.0, 2.0, 3)
    centre = _floats(rng, -1.0, 1.0, 2)
    scale = _floats(rng, 0.5, 2.0, 3)
    lr = float(rng.uniform(0.05, 0.3))

    def quadratic(steps: int):
        """``steps`` SGD steps on $s_0 (a - c_0)^2 + s_1 (b - c_1)^2 + s_2 a b$;
        a third parameter the loss does not use. The parameters after each."""
        Parameter, SGD, Scalar, _ = imports()
        params = [Parameter(Scalar(v)) for v in start]
        optimizer = SGD(params, lr=lr)
        trajectory = []
        for _ in range(steps):
            optimizer.zero_grad()
            a, b = params[0].value, params[1].value
            loss = (
                scale[0] * (a - centre[0]) * (a - centre[0])
                + scale[1] * (b - centre[1]) * (b - centre[1])
                + scale[2] * a * b
            )
            loss.backward()
            optimizer.step()
            trajectory.append([float(p.value.data) for p in params])
        return trajectory

    def fresh_leaves():
        """After a step, the stepped values are leaves without a derivative."""
        Parameter, SGD, Scalar, _ = imports()
        params = [Parameter(Scalar(v)) for v in start[:2]]
        (params[0].value * params[1].value).backward()
        SGD(params, lr=lr).step()
        return [[p.value.is_leaf, p.value.derivative is None] for p in params]

    def cleared():
        """zero_grad after two backward passes: every derivative ``None``."""
        Parameter, SGD, Scalar, _ = imports()
        params = [Parameter(Scalar(v)) for v in start]
        optimizer = SGD(params, lr=lr)
        for _ in range(2):
            (params[0].value * params[1].value + params[0].value).backward()
        optimizer.zero_grad()
        return [p.value.derivative for p in params]

    layer_seed = int(rng.integers(1 << 30))
    inputs = _floats(rng, -2.0, 2.0, 3)
    output_weights = _floats(rng, -2.0, 2.0, 2)

    def linear():
        """Outputs of a 3 -> 2 layer on two Scalars and a float, and the
        derivatives of every weight, bias and input of a weighted sum of them."""
        _, _, Scalar, run_scalar = imports()
        layer = run_scalar.Linear(3, 2, random.Random(layer_seed))
        leaves = [Scalar(v) for v in inputs[:2]]
        out = layer(leaves + [inputs[2]])
        (output_weights[0] * out[0] + output_weights[1] * out[1]).backward()
        return [
            [float(o.data) for o in out],
            [[row[j].value.derivative for j in range(2)] for row in layer.weights],
            [b.value.derivative for b in layer.biases],
            [leaf.derivative for leaf in leaves],
        ]

    net_seed = int(rng.integers(1 << 30))
    points = [tuple(p) for p in rng.uniform(0.0, 1.0, (8, 2)).tolist()]
    labels = [int(v) for v in rng.integers(0, 2, 8)]

    def scalar_network():
        _, _, _, run_scalar = imports()
        net = run_scalar.Network(hidden=5)
        _set_scalars(net, net_seed)
        return net

    def network():
        net = scalar_network()
        return [float(net(x1, x2).data) for x1, x2 in points]

    def epochs():
        """Three epochs of train_epoch from stale derivatives: loss, correct and
        the parameters after each."""
        _, SGD, _, run_scalar = imports()
        net = scalar_network()
        net(0.5, 0.5).backward()  # derivatives a right epoch clears first
        optimizer = SGD(net.parameters(), lr=lr * 3.0)
        rows = []
        for _ in range(3):
            loss, correct = run_scalar.train_epoch(net, optimizer, points, labels)
            rows.append([float(loss), correct, _scalar_values(net)])
        return rows

    def train():
        _, _, _, run_scalar = imports()
        history = run_scalar.train(
            "xor", hidden=5, lr=lr * 3.0, epochs=3, pts=10, seed=net_seed
        )
        return [history.losses, history.accuracies, _scalar_values(history.model)]

    return [
        Case(
            "SGD: the parameters after each of 4 steps",
            lambda: quadratic(4),
            **TRAINING,
        ),
        Case("SGD: stepped values are fresh leaves", fresh_leaves),
        Case("SGD: zero_grad clears every derivative", cleared),
        Case("Linear: outputs and derivatives", linear, **TRAINING),
        Case("Network: logits of 8 points", network, **TRAINING),
        Case("train_epoch: 3 epochs from stale derivatives", epochs, **TRAINING),
        Case("train: 3 epochs on xor", train, **TRAINING),
    ]


def _task_2_5(rng: np.random.Generator) -> List[Case]:
    def imports():
        from module2_tensors import tensor
        from project import run_tensor

        return tensor, run_tensor

    layer_seed, net_seed = (int(s) for s in rng.integers(1 << 30, size=2))
    x = rng.uniform(-2.0, 2.0, (4, 3))
    out_weights = rng.uniform(-1.0, 1.0, (4, 2))

    def linear():
        """Outputs of a 3 -> 2 layer on a batch of 4, and the gradients of the
        weight, the bias and the input for a weighted sum of them."""
        tensor, run_tensor = imports()
        layer = run_tensor.Linear(3, 2, np.random.default_rng(layer_seed))
        leaf = tensor(x.tolist(), requires_grad=True)
        out = layer(leaf)
        (out * tensor(out_weights.tolist())).sum().backward()
        return [
            _out(out),
            _grad(layer.weight.value),
            _grad(layer.bias.value),
            _grad(leaf),
        ]

    points = rng.uniform(0.0, 1.0, (8, 2))
    labels = rng.integers(0, 2, 8).astype(np.float64)
    lr = float(rng.uniform(0.2, 0.8))

    def tensor_network():
        from module2_tensors import SimpleBackend

        _, run_tensor = imports()
        model = run_tensor.Network(hidden=5)
        _set_parameters(model, net_seed, SimpleBackend)
        return model

    def network():
        tensor, _ = imports()
        return _out(tensor_network()(tensor(points.tolist())))

    def epochs():
        """Three epochs of train_epoch from stale gradients: loss, correct and
        the parameters after each."""
        tensor, run_tensor = imports()
        model = tensor_network()
        xs, ys = tensor(points.tolist()), tensor(labels.tolist())
        run_tensor.loss_fn(model(xs), ys).backward()  # gradients to clear first
        optimizer = run_tensor.SGD(model.parameters(), lr=lr)
        rows = []
        for _ in range(3):
            loss, correct = run_tensor.train_epoch(model, optimizer, xs, ys)
            rows.append([float(loss), correct, _tensor_values(model)])
        return rows

    def train():
        _, run_tensor = imports()
        history = run_tensor.train(
            "split", hidden=5, lr=lr, epochs=3, pts=10, seed=net_seed
        )
        return [history.losses, history.accuracies, _tensor_values(history.model)]

    return [
        Case("Linear: outputs and gradients", linear, **TRAINING),
        Case("Network: logits of 8 points", network, **TRAINING),
        Case("train_epoch: 3 epochs from stale gradients", epochs, **TRAINING),
        Case("train: 3 epochs on split", train, **TRAINING),
    ]


def _task_3_5(rng: np.random.Generator) -> List[Case]:
    def imports():
        from module3_fast_ops import FastBackend
        from project import run_fast_tensor

        return FastBackend, run_fast_tensor

    cases = []
    for n, batch in ((7, 3), (6, 6), (5, 1)):
        net_seed = int(rng.integers(1 << 30))
        X = rng.uniform(0.0, 1.0, (n, 2))
        y = rng.integers(0, 2, n).astype(np.float64)
        orders = [rng.permutation(n) for _ in range(2)]
        lr = float(rng.uniform(0.05, 0.5))

        def epochs(X=X, y=y, batch=batch, orders=orders, seed=net_seed, lr=lr):
            """Two epochs of train_epoch in the given orders, from stale
            gradients: the mean batch loss, correct and the parameters after
            each."""
            backend, run = imports()
            model = run.Network(5, backend)
            _set_parameters(model, seed, backend)
            xs, ys = run.batch_tensors(X, y, np.arange(len(y)), backend)
            run.loss_fn(model(xs), ys).backward()  # gradients to clear first
            optimizer = run.SGD(model.parameters(), lr=lr)
            rows = []
            for order in orders:
                loss, correct = run.train_epoch(
                    model, optimizer, X, y, batch, order, backend
                )
                rows.append([float(loss), correct, _tensor_values(model)])
            return rows

        cases.append(
            Case(
                f"train_epoch: 2 epochs of {n} points in batches of {batch}",
                epochs,
                **TRAINING,
            )
        )
    seed = int(rng.integers(1 << 30))

    def train():
        _, run = imports()
        history = run.train(
            "split",
            backend="fast",
            hidden=5,
            lr=0.2,
            epochs=2,
            pts=9,
            batch=4,
            seed=seed,
        )
        return [history.losses, history.accuracies, _tensor_values(history.model)]

    cases.append(Case("train: 2 epochs on split in batches of 4", train, **TRAINING))
    return cases


def _stale_gradients(model) -> None:
    """Gradients an earlier backward left: a right step clears them first."""
    from module2_tensors import tensor

    for p in model.parameters():
        p.grad = tensor(np.full(tuple(p.shape), 5.0), backend=p.backend)


def _task_4_5(rng: np.random.Generator) -> List[Case]:
    def imports():
        from module3_fast_ops.fast_ops import FastBackend
        from module4_networks import optim
        from project import run_mnist_multiclass as mnist
        from project import run_sentiment as sentiment

        return FastBackend, optim, mnist, sentiment

    def shapes(model):
        named = sorted(model.named_parameters(), key=lambda item: item[0])
        return [[name, list(p.value.shape)] for name, p in named]

    cnn_seed = int(rng.integers(1 << 30))
    images = rng.normal(size=(4, 1, 6, 6))
    digits = rng.integers(0, 10, 4)

    def cnn(dropout: float = 0.25):
        backend, _, mnist, _ = imports()
        model = mnist.Network(6, channels=(2, 3), hidden=5, dropout=dropout)
        _set_parameters(model, cnn_seed, backend)
        return model

    def cnn_forward(training: bool, dropout: float):
        from module2_tensors import tensor

        backend, _, _, _ = imports()
        model = cnn(dropout)
        model.train(training)
        return _out(model(tensor(images[:2], backend=backend)))

    def cnn_steps():
        """Three train_steps with Adam from stale gradients (dropout 0): the loss
        of each and the parameters after each."""
        from module2_tensors import tensor

        backend, optim, mnist, _ = imports()
        model = cnn(0.0)
        _stale_gradients(model)
        optimizer = optim.Adam(model.parameters(), lr=0.01)
        x = tensor(images, backend=backend)
        rows = []
        for _ in range(3):
            loss = mnist.train_step(model, optimizer, x, digits)
            rows.append([float(loss), _tensor_values(model)])
        return rows

    text_seed = int(rng.integers(1 << 30))
    ids = rng.integers(1, 12, (3, 5))
    ids[1, 3:] = 0  # padding
    ids[2, 4:] = 0
    sentiment_labels = rng.integers(0, 2, 3)

    def text_cnn(dropout: float = 0.5):
        backend, _, _, sentiment = imports()
        model = sentiment.SentimentCNN(
            12, embedding_dim=3, filters=2, widths=(2, 3), dropout=dropout
        )
        _set_parameters(model, text_seed, backend)
        return model

    def text_forward(training: bool, dropout: float):
        model = text_cnn(dropout)
        model.train(training)
        return _out(model(ids))

    def text_steps():
        _, optim, _, sentiment = imports()
        model = text_cnn(0.0)
        _stale_gradients(model)
        optimizer = optim.Adam(model.parameters(), lr=0.01)
        rows = []
        for _ in range(3):
            loss = sentiment.train_step(model, optimizer, ids, sentiment_labels)
            rows.append([float(loss), _tensor_values(model)])
        return rows

    def text_names():
        return [name for name, _ in text_cnn().named_parameters()]

    return [
        Case("CNN: parameter names and shapes", lambda: shapes(cnn())),
        Case(
            "CNN: log-probabilities in evaluation",
            lambda: cnn_forward(False, 0.25),
            **TRAINING,
        ),
        Case(
            "CNN: training with dropout 1 leaves fc2's bias",
            lambda: cnn_forward(True, 1.0),
            **TRAINING,
        ),
        Case(
            "CNN: 3 train_steps with Adam from stale gradients", cnn_steps, **TRAINING
        ),
        Case("SentimentCNN: parameter names in order", text_names),
        Case("SentimentCNN: shapes", lambda: shapes(text_cnn())),
        Case(
            "SentimentCNN: logits in evaluation",
            lambda: text_forward(False, 0.5),
            **TRAINING,
        ),
        Case(
            "SentimentCNN: training with dropout 1 leaves fc's bias",
            lambda: text_forward(True, 1.0),
            **TRAINING,
        ),
        Case(
            "SentimentCNN: 3 train_steps with Adam from stale gradients",
            text_steps,
            **TRAINING,
        ),
    ]


def _values(result):
    """A max's values (a tensor, or the first of a (values, indices) pair)."""
    if hasattr(result, "values"):
        return result.values
    if isinstance(result, tuple):
        return result[0]
    return result


PROBES: Dict[str, Callable[[np.random.Generator], List[Case]]] = {
    task: globals()[f"_task_{task.replace('.', '_')}"] for task in TASKS
}


def cases(task: str, seed: int) -> List[Case]:
    """The cases of ``task`` for ``seed`` (the same for the student and the
    reference); ``[]`` for a task without probes."""
    maker = PROBES.get(task)
    if maker is None:
        return []
    major, minor = (int(p) for p in task.split("."))
    rng = np.random.default_rng([seed, major, minor])
    made = maker(rng)
    seen: Dict[str, int] = {}
    for case in made:  # every name once (a name sent twice fails the run)
        seen[case.name] = seen.get(case.name, 0) + 1
        if seen[case.name] > 1:
            case.name = f"{case.name} #{seen[case.name]}"
    return made


__all__ = ["TASKS", "PROBES", "cases", "math"]


if __name__ == "__main__":  # the probe job, in the sandbox (kindling.grade_values)
    import sys

    from kindling.grade_values import main

    sys.exit(main(sys.modules[__name__]))
