"""The decoys of Task 0.2's mutation grading (instructor source only).

Rewrites of the reference operators of Task 0.1 that are *correct*, planted among
the mutants in the same form (:mod:`kindling.mutation`): a suite that fails on one
tests the text of the code, not what it computes, and scores 0. Each grading draws
its decoys with the grading's seed (:func:`draw`) from a large family generated
from the reference text (:func:`family`). This module never reaches a student
edition (no staff module does; the grader finds :func:`draw` by its entry point,
``decoys`` of the group ``kindling.grading``: :func:`kindling.mutation.decoys`).

The family is made by rules on the syntax tree of each function's body that are
exact for every IEEE 754 double by the standard's own rules, applied once (at
every place they fit) and composed (two to four in a row, at random places, from a
generator seeded by the reference text):

* ``a + b`` and ``a * b`` commute; ``a - b`` is ``a + (-b)``; ``a + b`` is
  ``a - (-b)``; ``a / b`` is ``(-a) / (-b)``;
* an operand times ``1.0`` (on either side); ``-a`` is ``-1.0 * a``, ``a * -1.0``
  or ``-(-(-a))``;
* a constant written differently but equal (``0`` for ``0.0``, ``(-0.0)`` for
  ``0.0`` where it is compared, ``1`` for ``1.0``);
* ``x < y`` is ``y > x`` (and so for every comparison), ``x == y`` is ``y == x``
  and ``not x != y``;
* a condition negated with its branches swapped (conditional expressions and
  ``if`` statements alike); ``if``/``else`` statements and conditional
  expressions turned into each other;
* a subexpression split off into a named temporary; adjacent independent
  assignments reordered.

Whatever a rule gives is kept only if the function then computes *exactly* what
the reference does (:class:`_Checker`): on the dense inputs of the mutants' family
(:data:`kindling_staff.grade_mutants.INPUTS`: zeros of both signs, ties, tiny and
huge values, infinities, NaN; every pair for two arguments), the same value bit for
bit and of the same type (any NaN equal to any NaN), or an exception of the same
type *with the same message*; and on integers (``0``, ``3``, ``2**53 + 1``, ...,
which an honest suite may pass) the same value. So a rule that turns ``-0.0`` into
``0.0``, loses an integer's precision or changes an error message is dropped on its
own. Some decoys (:func:`near`) are one edit that reads like a mutant of the
kinds the grading guide names (a comparison's sides swapped, a constant written
otherwise, a condition negated), and the first decoy of a grading is one of them
where its function has any: a test that blacklists "the reference with such an
edit" fails on it and scores 0.
"""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import math
import random
import struct
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from kindling.mutation import TARGET_FILE, Mutant
from kindling_staff.grade_mutants import INPUTS, TASK, _functions, _module

#: How many decoys one grading plants by default (``kindling.mutation`` asks for
#: its own ``DECOYS_PER_RUN``).
COUNT = 2
#: Integers an honest suite may pass to a float operator: the decoy must give the
#: same value for them (``2**53 + 1`` is not a float: ``x * 1.0`` loses it).
INTEGERS: Tuple[int, ...] = (0, 1, -1, 3, -7, 2**53 + 1, -(2**53 + 1))
#: Random compositions tried per function (the family is a function of the text).
ATTEMPTS = 200
#: At most this many decoys per function (so that no function's family costs a
#: grading more than a second to check).
PER_FUNCTION = 60
#: Names a temporary may take (those the function already uses are skipped).
TEMPORARIES = ("t", "u", "v", "w", "s", "r", "p", "q", "a", "b", "c", "k", "m")
TEMPORARIES += ("value", "result", "out", "tmp", "num", "den", "ex", "lhs", "rhs")


def _copy(node: Any) -> Any:
    return copy.deepcopy(node)


def _const(value: Any) -> ast.expr:
    if isinstance(value, (int, float)) and math.copysign(1.0, value) < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _neg(node: ast.expr) -> ast.expr:
    return ast.UnaryOp(ast.USub(), _copy(node))


def _bin(left: ast.expr, op: ast.operator, right: ast.expr) -> ast.expr:
    return ast.BinOp(_copy(left), op, _copy(right))


# Expression rules: each maps a node to its rewrite, or None where it does not fit.
ExprRule = Callable[[ast.AST], Optional[ast.expr]]

_FLIPPED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
_FLIPPED.update({ast.Eq: ast.Eq, ast.NotEq: ast.NotEq})
_OPPOSITE = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt}
_OPPOSITE.update({ast.Eq: ast.NotEq, ast.NotEq: ast.Eq})


def _is(op: type) -> Callable[[ast.AST], bool]:
    return lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, op)


def _arith(node: ast.AST) -> bool:
    """An operand worth scaling: arithmetic, a call, a name (not a bare
    constant, not a comparison or a condition, not one scaled already)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        sides = (node.left, node.right)
        if any(isinstance(s, ast.Constant) and s.value == 1 for s in sides):
            return False
    return isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Name)) and not (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


def _commute(n: ast.AST) -> Optional[ast.expr]:
    if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Mult)):
        return _bin(n.right, type(n.op)(), n.left)
    return None


def _sub_as_add(n: ast.AST) -> Optional[ast.expr]:
    if _is(ast.Sub)(n):
        return _bin(n.left, ast.Add(), _neg(n.right))
    return None


def _add_as_sub(n: ast.AST) -> Optional[ast.expr]:
    if _is(ast.Add)(n):
        return _bin(n.left, ast.Sub(), _neg(n.right))
    return None


def _div_negated(n: ast.AST) -> Optional[ast.expr]:
    if _is(ast.Div)(n):
        return _bin(_neg(n.left), ast.Div(), _neg(n.right))
    return None


def _scaled(op: type, value: Any, left: bool) -> ExprRule:
    def rule(n: ast.AST) -> Optional[ast.expr]:
        if not _arith(n) or isinstance(n, ast.Name) and n.id == "math":
            return None
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            return None
        if left:
            return ast.BinOp(_const(value), op(), _copy(n))
        return ast.BinOp(_copy(n), op(), _const(value))

    return rule


def _neg_forms(form: int) -> ExprRule:
    def rule(n: ast.AST) -> Optional[ast.expr]:
        if not (isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub)):
            return None
        if isinstance(n.operand, ast.Constant):
            return None
        if form == 0:
            return _bin(_const(-1.0), ast.Mult(), n.operand)
        if form == 1:
            return _bin(n.operand, ast.Mult(), _const(-1.0))
        return _neg(_neg(_neg(n.operand)))

    return rule


def _constant(old: float, new: Any, compared_only: bool) -> ExprRule:
    def rule(n: ast.AST) -> Optional[ast.expr]:
        if isinstance(n, ast.Constant) and type(n.value) is float:
            if n.value == old and math.copysign(1.0, n.value) > 0:
                return _const(new)
        return None

    rule.compared_only = compared_only  # type: ignore[attr-defined]
    return rule


def _flip(n: ast.AST) -> Optional[ast.expr]:
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _FLIPPED:
        op = _FLIPPED[type(n.ops[0])]()
        return ast.Compare(_copy(n.comparators[0]), [op], [_copy(n.left)])
    return None


def _not_opposite(n: ast.AST) -> Optional[ast.expr]:
    """``not (a >= b)`` for ``a < b``: exact for ``==``/``!=`` only (NaN makes
    every ordering false); the check drops the others."""
    if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _OPPOSITE:
        op = _OPPOSITE[type(n.ops[0])]()
        inner = ast.Compare(_copy(n.left), [op], [_copy(n.comparators[0])])
        return ast.UnaryOp(ast.Not(), inner)
    return None


def _ifexp_negated(n: ast.AST) -> Optional[ast.expr]:
    if isinstance(n, ast.IfExp):
        test = _copy(n.test)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            negated = test.operand
        else:
            negated = ast.UnaryOp(ast.Not(), test)
        return ast.IfExp(negated, _copy(n.orelse), _copy(n.body))
    return None


EXPRESSION_RULES: Dict[str, ExprRule] = {
    "commute": _commute,
    "sub_as_add": _sub_as_add,
    "add_as_sub": _add_as_sub,
    "div_negated": _div_negated,
    "times_one": _scaled(ast.Mult, 1.0, False),
    "one_times": _scaled(ast.Mult, 1.0, True),
    "neg_times": _neg_forms(0),
    "neg_times_right": _neg_forms(1),
    "neg_thrice": _neg_forms(2),
    "zero_int": _constant(0.0, 0, False),
    "zero_negative": _constant(0.0, -0.0, True),
    "one_int": _constant(1.0, 1, False),
    "flip": _flip,
    "not_opposite": _not_opposite,
    "ifexp_negated": _ifexp_negated,
}


class _Rewriter(ast.NodeTransformer):
    """Applies ``rule`` at its ``target``-th place (pre-order), counting them."""

    def __init__(self, rule: ExprRule, target: int) -> None:
        self.rule, self.target, self.seen = rule, target, 0
        self.in_compare = 0
        self.callees: set = set()

    def visit(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Call):  # the called function stays as it is
            self.callees.add(id(node.func))
        if id(node) in self.callees:
            return node
        if isinstance(node, ast.expr):
            fits = not getattr(self.rule, "compared_only", False) or self.in_compare
            new = self.rule(node) if fits else None
            if new is not None:
                self.seen += 1
                if self.seen - 1 == self.target:
                    return new
        compare = isinstance(node, ast.Compare)
        self.in_compare += compare
        try:
            return self.generic_visit(node)
        finally:
            self.in_compare -= compare


def _places(body: List[ast.stmt], rule: ExprRule) -> int:
    counter = _Rewriter(rule, -1)
    counter.visit(ast.Module(body, []))  # counts, changes nothing
    return counter.seen


def _apply_expression(body: List[ast.stmt], rule: ExprRule, at: int) -> List[ast.stmt]:
    module = _Rewriter(rule, at).visit(ast.Module(_copy(body), []))
    return module.body


# Statement rules: each yields the rewritten bodies, one per place it fits.
StmtRule = Callable[[List[ast.stmt], Callable[[], str]], Iterator[List[ast.stmt]]]


def _blocks(body: List[ast.stmt]) -> Iterator[Tuple[List[ast.stmt], Callable]]:
    """Every statement list of ``body`` (itself and those nested in ``if``s),
    with a function that puts a new version of it back into a copy of ``body``."""
    yield body, lambda new: new
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If):
            for field in ("body", "orelse"):
                for inner, put in _blocks(getattr(stmt, field)):

                    def back(new, i=i, field=field, put=put):
                        out = _copy(body)
                        setattr(out[i], field, put(new))
                        return out

                    yield inner, back


def _ends(statements: List[ast.stmt]) -> bool:
    return bool(statements) and isinstance(statements[-1], (ast.Return, ast.Raise))


def _return_temporary(body, fresh):
    for block, put in _blocks(body):
        for i, stmt in enumerate(block):
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                if isinstance(stmt.value, (ast.Name, ast.Constant)):
                    continue
                name = fresh()
                new = _copy(block)
                new[i : i + 1] = [
                    ast.Assign([ast.Name(name, ast.Store())], _copy(stmt.value)),
                    ast.Return(ast.Name(name, ast.Load())),
                ]
                yield put(new)


def _splittable(value: ast.expr) -> List[ast.expr]:
    """The proper subexpressions of ``value`` that may be computed first, in a
    fixed order: arithmetic and calls, none inside a conditional expression's
    branch (computing it first could raise where the reference does not)."""
    found: List[ast.expr] = []

    def walk(node: ast.expr, top: bool) -> None:
        if isinstance(node, ast.IfExp):
            walk(node.test, False)
            return
        if not top and isinstance(node, (ast.BinOp, ast.Call, ast.UnaryOp)):
            if not isinstance(getattr(node, "op", None), ast.Not):
                found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                walk(child, False)

    walk(value, True)
    return found


class _Replace(ast.NodeTransformer):
    """Puts ``new`` in place of the node ``old`` (by identity)."""

    def __init__(self, old: ast.AST, new: ast.expr) -> None:
        self.old, self.new = old, new

    def visit(self, node: ast.AST) -> Any:
        return self.new if node is self.old else self.generic_visit(node)


def _split(body, fresh):
    """A subexpression of a ``return`` or an assignment, computed first into a
    temporary."""
    for block, put in _blocks(body):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, (ast.Return, ast.Assign)) or stmt.value is None:
                continue
            for target in range(len(_splittable(stmt.value))):
                name = fresh()
                new_stmt = _copy(stmt)
                chosen = _splittable(new_stmt.value)[target]
                assign = ast.Assign([ast.Name(name, ast.Store())], _copy(chosen))
                new_stmt = _Replace(chosen, ast.Name(name, ast.Load())).visit(new_stmt)
                new = _copy(block)
                new[i : i + 1] = [assign, new_stmt]
                yield put(new)


def _ifexp_to_if(body, fresh):
    """``return A if c else B`` as an ``if`` statement (with or without
    ``else``)."""
    for block, put in _blocks(body):
        for i, stmt in enumerate(block):
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.IfExp):
                expression = stmt.value
                then = [ast.Return(_copy(expression.body))]
                other = [ast.Return(_copy(expression.orelse))]
                test = _copy(expression.test)
                for form in (0, 1):
                    new = _copy(block)
                    if form == 0:
                        new[i : i + 1] = [ast.If(test, then, other)]
                    else:
                        new[i : i + 1] = [ast.If(test, then, [])] + other
                    yield put(new)


def _if_to_ifexp(body, fresh):
    """``if c: return A`` then ``return B`` (or ``else: return B``) as
    ``return A if c else B``."""
    for block, put in _blocks(body):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.If) or len(stmt.body) != 1:
                continue
            (then,) = stmt.body
            if not isinstance(then, ast.Return) or then.value is None:
                continue
            if stmt.orelse:
                rest, drop = stmt.orelse, 1
            else:
                rest, drop = block[i + 1 :], len(block) - i
            if len(rest) != 1 or not isinstance(rest[0], ast.Return):
                continue
            if rest[0].value is None:
                continue
            value = ast.IfExp(_copy(stmt.test), _copy(then.value), _copy(rest[0].value))
            new = _copy(block)
            new[i : i + drop] = [ast.Return(value)]
            yield put(new)


def _if_negated(body, fresh):
    """``if c: A`` (ending in a return or raise) then the rest ``B`` (ending so
    too) as ``if not c: B`` then ``A``; ``if c: A else: B`` as
    ``if not c: B else: A``."""
    for block, put in _blocks(body):
        for i, stmt in enumerate(block):
            if not isinstance(stmt, ast.If) or not _ends(stmt.body):
                continue
            test = _copy(stmt.test)
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                negated = test.operand
            else:
                negated = ast.UnaryOp(ast.Not(), test)
            new = _copy(block)
            if stmt.orelse:
                new[i] = ast.If(negated, _copy(stmt.orelse), _copy(stmt.body))
                yield put(new)
                continue
            rest = block[i + 1 :]
            if not _ends(rest):
                continue
            new[i:] = [ast.If(negated, _copy(rest), [])] + _copy(stmt.body)
            yield put(new)


def _names(node: ast.AST, context: type) -> set:
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, context)
    }


def _reorder(body, fresh):
    """Two adjacent assignments, neither reading nor writing what the other
    writes, swapped."""
    for block, put in _blocks(body):
        for i in range(len(block) - 1):
            a, b = block[i], block[i + 1]
            if not (isinstance(a, ast.Assign) and isinstance(b, ast.Assign)):
                continue
            wrote_a, wrote_b = _names(a, ast.Store), _names(b, ast.Store)
            if wrote_a & (wrote_b | _names(b, ast.Load)):
                continue
            if wrote_b & _names(a, ast.Load):
                continue
            new = _copy(block)
            new[i], new[i + 1] = new[i + 1], new[i]
            yield put(new)


STATEMENT_RULES: Dict[str, StmtRule] = {
    "return_temporary": _return_temporary,
    "split": _split,
    "ifexp_to_if": _ifexp_to_if,
    "if_to_ifexp": _if_to_ifexp,
    "if_negated": _if_negated,
    "reorder": _reorder,
}


RULES = sorted(EXPRESSION_RULES) + sorted(STATEMENT_RULES)
#: Single rewrites that read like a mutant of a kind the grading guide names
#: (``cmp``, ``swap``, ``const``, ``branch``): one of each grading's decoys is
#: one of these where its function has any, so that a test that fails on "the
#: reference with one such edit" fails on a decoy too.
NEAR = frozenset(
    ("flip", "not_opposite", "zero_int", "zero_negative", "one_int")
    + ("ifexp_negated", "if_negated")
)


def _rewrites(
    body: List[ast.stmt], fresh: Callable[[], str], rule: Optional[str] = None
) -> List[List[ast.stmt]]:
    """Every single rewrite of ``body`` by ``rule`` (default: every rule), at
    each place it fits."""
    out = []
    for name, expression_rule in EXPRESSION_RULES.items():
        if rule in (None, name):
            for at in range(_places(body, expression_rule)):
                out.append(_apply_expression(body, expression_rule, at))
    for name, statement_rule in STATEMENT_RULES.items():
        if rule in (None, name):
            out.extend(statement_rule(body, fresh))
    return out


def _text(body: List[ast.stmt]) -> str:
    module = ast.fix_missing_locations(ast.Module(_copy(body), []))
    return ast.unparse(module)


def _bits(value: Any) -> Any:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack("<d", value)
    return value


def _outcomes(function: Callable[..., Any], cases: Sequence[tuple]) -> Iterator:
    for args in cases:
        try:
            value = function(*args)
        except Exception as error:  # noqa: BLE001 - any exception is an outcome
            yield ("raises", type(error).__name__, str(error))
            continue
        yield (type(value).__name__, _bits(value))


def _value(outcome: tuple) -> tuple:
    """An outcome for integer inputs: the value (its type aside), or the error."""
    if outcome[0] == "raises":
        return outcome
    value = outcome[1]
    if isinstance(value, bytes):
        value = struct.unpack("<d", value)[0]
    return ("value", value)


def _cases(arity: int) -> Tuple[List[tuple], List[tuple]]:
    floats = [(x,) for x in INPUTS]
    ints = [(x,) for x in INTEGERS]
    if arity == 2:
        floats = [(x, y) for x in INPUTS for y in INPUTS]
        numbers = INPUTS[:8] + INTEGERS
        ints = [
            (x, y) for x in numbers for y in numbers if type(x) is int or type(y) is int
        ]
    return floats, ints


class _Checker:
    """Whether a body of one function computes exactly what the reference's does."""

    def __init__(self, text: str, name: str) -> None:
        self.reference = _module(text, "reference_operators")
        node = _functions(ast.parse(text))[name]
        self.name, self.signature = name, ast.unparse(node.args)
        function = getattr(self.reference, name)
        self.floats, self.ints = _cases(function.__code__.co_argcount)
        self.want_floats = list(_outcomes(function, self.floats))
        self.want_ints = [_value(o) for o in _outcomes(function, self.ints)]

    def __call__(self, body: str) -> bool:
        source = f"def {self.name}({self.signature}):\n"
        source += "\n".join("    " + line for line in body.split("\n"))
        namespace = dict(self.reference.__dict__)
        try:
            exec(compile(source, "<decoy>", "exec"), namespace)
        except (SyntaxError, ValueError):
            return False
        function = namespace[self.name]
        for got, want in zip(_outcomes(function, self.floats), self.want_floats):
            if got != want:
                return False
        got_ints = (_value(o) for o in _outcomes(function, self.ints))
        return all(g == w for g, w in zip(got_ints, self.want_ints))


def task_functions(text: str) -> List[str]:
    """The functions of Task 0.1 in ``text``, in the text's order."""
    from kindling.regions import find_regions
    from kindling.registry import parse_registry

    registry_path = Path(__file__).resolve().parents[1] / "kindling" / "tasks.toml"
    registry = parse_registry(registry_path.read_text(encoding="utf-8"))
    inside = set()
    for region in find_regions(text, TARGET_FILE, registry):
        if region.task == TASK:
            inside.update(range(region.begin + 1, region.end))
    return [
        name
        for name, node in _functions(ast.parse(text)).items()
        if any(s.lineno in inside for s in node.body)
    ]


@functools.lru_cache(maxsize=64)
def family_of(text: str, name: str) -> Tuple[Mutant, ...]:
    """The decoys of one function: exact rewrites of its reference body, in a
    fixed order (single rewrites first, then compositions)."""
    node = _functions(ast.parse(text))[name]
    body = node.body
    if (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
        and len(body) > 1
    ):
        body = body[1:]
    key = hashlib.sha256(f"decoy-family:{name}:{text}".encode("utf-8")).hexdigest()
    rng = random.Random(key)
    used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    used |= {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)}
    used |= set(_functions(ast.parse(text)))

    def fresh_for(current: List[ast.stmt]) -> Callable[[], str]:
        taken = used | {
            n.id for s in current for n in ast.walk(s) if isinstance(n, ast.Name)
        }
        free = [t for t in TEMPORARIES if t not in taken]
        return lambda: rng.choice(free)

    check = _Checker(text, name)
    seen = {_text(body)}
    kept: List[Tuple[str, str]] = []  # (body, how it was made)

    def consider(candidate: List[ast.stmt], how: str) -> None:
        spelled = _text(candidate)
        if spelled in seen or len(kept) >= PER_FUNCTION:
            return
        seen.add(spelled)
        if check(spelled):
            kept.append((spelled, how))

    for rule in RULES:
        for candidate in _rewrites(body, fresh_for(body), rule):
            consider(candidate, rule)
    for _ in range(ATTEMPTS):
        if len(kept) >= PER_FUNCTION:
            break
        # A rule first, then a place: rules that fit in many places (a factor
        # 1.0 fits every operand) do not crowd out the others.
        current, steps, rules = body, rng.randint(2, 4), []
        for _ in range(4 * steps):
            rule = rng.choice(RULES)
            options = _rewrites(current, fresh_for(current), rule)
            if options:
                current = options[rng.randrange(len(options))]
                rules.append(rule)
                if len(rules) == steps:
                    break
        consider(current, " + ".join(rules))
    return tuple(
        Mutant(f"decoy_{name}_{number}", f"exact rewrite: {how}", {name: spelled})
        for number, (spelled, how) in enumerate(kept, 1)
    )


def near(decoy: Mutant) -> bool:
    """Whether ``decoy`` is one edit of the reference of a kind that reads like
    a mutant of the grading guide's kinds (a comparison or a condition
    rewritten, a constant written otherwise)."""
    return decoy.bug[len("exact rewrite: ") :] in NEAR


def family(text: str) -> Tuple[Mutant, ...]:
    """Every decoy of every Task 0.1 function of the reference ``text``."""
    return tuple(d for name in task_functions(text) for d in family_of(text, name))


def draw(text: str, seed: int, count: int = COUNT) -> Tuple[Mutant, ...]:
    """The decoys one grading plants: ``count`` of the family, a function of
    ``seed`` (the grading's, shared by a batch's jobs and shards) and of the
    reference text alone. One function at a time is drawn among those not yet
    drawn (as :func:`kindling_staff.grade_mutants.draw` draws mutants), then one
    of its decoys: for the first, one that is :func:`near` the reference where
    the function has such decoys. Only the drawn functions' families are
    generated (about 0.3 s)."""
    key = hashlib.sha256(f"decoys:{seed}:{text}".encode("utf-8")).hexdigest()
    rng = random.Random(key)
    left = task_functions(text)
    drawn: List[Mutant] = []
    while len(drawn) < count and left:
        name = left.pop(rng.randrange(len(left)))
        decoys = list(family_of(text, name))
        if not drawn and any(near(d) for d in decoys):
            decoys = [d for d in decoys if near(d)]
        if decoys:
            drawn.append(decoys[rng.randrange(len(decoys))])
    return tuple(drawn)
