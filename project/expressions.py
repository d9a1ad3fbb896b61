"""A small, safe expression language for the dashboard's sandboxes.

Learners type formulas like ``sigmoid(2*x - y) * log(z + 3)``; the dashboard never
hands that text to Python. This module reads it with a whitelist grammar

    expression := sum
    sum        := product (("+" | "-") product)*
    product    := unary (("*" | "/") unary)*
    unary      := ("-" | "+") unary | power
    power      := atom ("**" unary)?            (right-associative: 2**3**2 = 2**9)
    atom       := number | variable | function "(" expression ")" | "(" expression ")"

so the only things an expression can do are arithmetic on numbers and on the allowed
variables, and calls of the course's functions (:data:`FUNCTIONS`). As in Python,
``-x**2`` is ``-(x**2)``.

The result is a tree of small frozen dataclasses that :func:`evaluate` walks with any
number type that supports ``+ - * /``: floats, NumPy arrays (to plot a curve), and the
course's ``Scalar``, ``Dual`` and ``Tensor`` (to differentiate it). Every mistake in
the text raises :class:`ExpressionError`, whose message names the column and says what
was expected; :meth:`ExpressionError.pointer` draws a caret under the spot.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence

import numpy as np

__all__ = [
    "Expr",
    "Number",
    "Variable",
    "Negate",
    "BinaryOp",
    "Call",
    "ExpressionError",
    "EvaluationError",
    "FUNCTIONS",
    "FLOAT_FUNCTIONS",
    "NUMPY_FUNCTIONS",
    "METHOD_FUNCTIONS",
    "parse",
    "evaluate",
    "evaluate_nodes",
    "to_callable",
]

#: The functions an expression may call, each with a one-line meaning.
FUNCTIONS: Dict[str, str] = {
    "log": "natural logarithm, x > 0",
    "exp": "exponential",
    "sin": "sine (radians)",
    "cos": "cosine (radians)",
    "tanh": "hyperbolic tangent",
    "sigmoid": "logistic sigmoid 1 / (1 + exp(-x))",
    "relu": "max(x, 0)",
    "inv": "reciprocal 1 / x",
    "neg": "negation -x",
}

#: Longest accepted expression, in characters, and deepest nesting.
MAX_LENGTH = 400
MAX_DEPTH = 60
#: Integer powers up to this size are expanded into repeated products (exact, and
#: differentiable by any number type); other powers use exp(b * log(a)).
MAX_INTEGER_POWER = 16


class ExpressionError(ValueError):
    """The text is not a valid expression.

    Attributes:
        text: the expression as typed.
        position: the 0-based column of the problem (``None`` when it is the whole
            text, e.g. an empty expression).
    """

    def __init__(self, message: str, text: str = "", position: Optional[int] = None):
        where = f" (column {position + 1})" if position is not None else ""
        super().__init__(message + where)
        self.message = message
        self.text = text
        self.position = position

    def pointer(self) -> str:
        """The expression with a caret under the offending column."""
        if self.position is None:
            return self.text
        return f"{self.text}\n{' ' * self.position}^"


class EvaluationError(ValueError):
    """A valid expression cannot be evaluated at the given point (e.g. ``log(-1)``)."""


# --------------------------------------------------------------------- the tree
class Expr:
    """A node of an expression tree."""

    def children(self) -> Sequence["Expr"]:
        return ()

    def walk(self) -> Iterator["Expr"]:
        """Every node of the tree, parents before children."""
        yield self
        for child in self.children():
            yield from child.walk()

    def variables(self) -> List[str]:
        """The variable names used, sorted."""
        return sorted({n.name for n in self.walk() if isinstance(n, Variable)})

    def size(self) -> int:
        """The number of nodes."""
        return sum(1 for _ in self.walk())


@dataclass(frozen=True)
class Number(Expr):
    value: float

    def __str__(self) -> str:
        return f"{self.value:g}"


@dataclass(frozen=True)
class Variable(Expr):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Negate(Expr):
    operand: Expr

    def children(self) -> Sequence[Expr]:
        return (self.operand,)

    def __str__(self) -> str:
        return f"-{_wrap(self.operand, 3)}"


@dataclass(frozen=True)
class BinaryOp(Expr):
    op: str  # one of + - * / **
    left: Expr
    right: Expr

    def children(self) -> Sequence[Expr]:
        return (self.left, self.right)

    def __str__(self) -> str:
        level = _PRECEDENCE[self.op]
        if self.op == "**":  # right-associative
            return f"{_wrap(self.left, level + 1)}**{_wrap(self.right, level)}"
        return f"{_wrap(self.left, level)} {self.op} {_wrap(self.right, level + 1)}"


@dataclass(frozen=True)
class Call(Expr):
    function: str
    argument: Expr

    def children(self) -> Sequence[Expr]:
        return (self.argument,)

    def __str__(self) -> str:
        return f"{self.function}({self.argument})"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}


def _level(expr: Expr) -> int:
    if isinstance(expr, BinaryOp):
        return _PRECEDENCE[expr.op]
    if isinstance(expr, Negate):
        return 3
    if isinstance(expr, Number) and expr.value < 0:
        return 3
    return 5


def _wrap(expr: Expr, level: int) -> str:
    text = str(expr)
    return f"({text})" if _level(expr) < level else text


# ------------------------------------------------------------------- the parser
_TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op>\*\*|[-+*/()])"
    r"|(?P<other>\S))"
)


@dataclass(frozen=True)
class _Token:
    kind: str  # number, name, op, end
    text: str
    position: int


def _tokenize(text: str) -> List[_Token]:
    tokens: List[_Token] = []
    position = 0
    while True:
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:  # only whitespace is left
            break
        kind = match.lastgroup or "other"
        # A character outside the grammar becomes an "other" token: the parser
        # complains when it reaches it, so errors are reported in reading order.
        tokens.append(_Token(kind, match.group(kind), match.start(kind)))
        position = match.end()
    tokens.append(_Token("end", "", len(text.rstrip())))
    return tokens


class _Parser:
    def __init__(self, text: str, variables: Sequence[str]) -> None:
        self.text = text
        self.variables = tuple(variables)
        self.tokens = _tokenize(text)
        self.index = 0
        self.depth = 0

    @property
    def token(self) -> _Token:
        return self.tokens[self.index]

    def error(self, message: str, token: Optional[_Token] = None) -> ExpressionError:
        token = token or self.token
        return ExpressionError(message, self.text, token.position)

    def stray(self, token: _Token) -> ExpressionError:
        """The error for a character outside the grammar, with a hint."""
        hint = {
            "^": "write powers as x**2",
            ",": "functions take one argument",
            "=": "type an expression, not an equation",
        }.get(token.text, "use numbers, variables, + - * / ** and parentheses")
        return self.error(f"unexpected character {token.text!r}: {hint}", token)

    def take(self) -> _Token:
        token = self.token
        self.index += 1
        return token

    def describe(self, token: _Token) -> str:
        return "the end of the expression" if token.kind == "end" else repr(token.text)

    def parse(self) -> Expr:
        expr = self.sum()
        token = self.token
        if token.kind != "end":
            if token.kind == "other":
                raise self.stray(token)
            if token.text == ")":
                raise self.error("unmatched ')'")
            if token.kind in ("number", "name") or token.text == "(":
                raise self.error(
                    f"missing operator before {token.text!r} (write 2*x, not 2x)"
                )
            raise self.error(f"unexpected {self.describe(token)}")
        return expr

    def sum(self) -> Expr:
        expr = self.product()
        while self.token.text in ("+", "-") and self.token.kind == "op":
            op = self.take().text
            expr = BinaryOp(op, expr, self.product())
        return expr

    def product(self) -> Expr:
        expr = self.unary()
        while self.token.text in ("*", "/") and self.token.kind == "op":
            op = self.take().text
            expr = BinaryOp(op, expr, self.unary())
        return expr

    def unary(self) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"the expression is nested too deeply (over {MAX_DEPTH})")
        try:
            if self.token.kind == "op" and self.token.text in ("-", "+"):
                sign = self.take().text
                operand = self.unary()
                if sign == "+":
                    return operand
                if isinstance(operand, Number):
                    return Number(-operand.value)
                return Negate(operand)
            return self.power()
        finally:
            self.depth -= 1

    def power(self) -> Expr:
        base = self.atom()
        if self.token.kind == "op" and self.token.text == "**":
            self.take()
            # -x**2 is -(x**2) and 2**-1 is 2**(-1), as in Python.
            return BinaryOp("**", base, self.unary())
        return base

    def atom(self) -> Expr:
        token = self.token
        if token.kind == "number":
            self.take()
            value = float(token.text)
            if not math.isfinite(value):
                raise self.error(f"the number {token.text} is too large", token)
            return Number(value)
        if token.kind == "name":
            self.take()
            if token.text in FUNCTIONS:
                return self.call(token)
            if token.text in self.variables:
                if self.token.text == "(" and self.token.kind == "op":
                    raise self.error(
                        f"{token.text} is a variable, not a function "
                        f"(write {token.text}*(...))"
                    )
                return Variable(token.text)
            allowed = ", ".join(self.variables) or "none"
            functions = ", ".join(FUNCTIONS)
            raise self.error(
                f"unknown name {token.text!r}: variables are {allowed}; "
                f"functions are {functions}",
                token,
            )
        if token.kind == "op" and token.text == "(":
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(
                    f"the expression is nested too deeply (over {MAX_DEPTH})"
                )
            expr = self.sum()
            self.depth -= 1
            if self.token.kind == "other":
                raise self.stray(self.token)
            if self.token.text != ")":
                raise self.error(
                    f"expected ')' to close the '(' at column {token.position + 1}, "
                    f"found {self.describe(self.token)}"
                )
            self.take()
            return expr
        if token.kind == "end":
            raise self.error("the expression ends too early: a value is missing")
        if token.kind == "other":
            raise self.stray(token)
        raise self.error(f"expected a number, a variable or '(', found {token.text!r}")

    def call(self, name: _Token) -> Expr:
        if not (self.token.kind == "op" and self.token.text == "("):
            raise self.error(f"{name.text} is a function: write {name.text}(...)")
        opening = self.take()
        if self.token.text == ")":
            raise self.error(f"{name.text}() needs an argument")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"the expression is nested too deeply (over {MAX_DEPTH})")
        argument = self.sum()
        self.depth -= 1
        if self.token.kind == "other":
            raise self.stray(self.token)
        if self.token.text != ")":
            raise self.error(
                f"expected ')' to close {name.text}( at column "
                f"{opening.position + 1}, found {self.describe(self.token)}"
            )
        self.take()
        return Call(name.text, argument)


def parse(text: str, variables: Sequence[str] = ("x",)) -> Expr:
    """Parse ``text`` into an expression tree over the given variable names.

    Raises:
        ExpressionError: for anything outside the grammar, with the column and a
            hint (``"missing operator before 'x' (write 2*x, not 2x)"``).
    """
    if not isinstance(text, str):
        raise ExpressionError(f"an expression is text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"the expression is too long ({len(text)} characters, at most "
            f"{MAX_LENGTH})",
            text[:MAX_LENGTH],
        )
    if not text.strip():
        raise ExpressionError("type an expression, e.g. x * sin(x)", text)
    for name in variables:
        if name in FUNCTIONS or not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise ValueError(f"{name!r} cannot be a variable name")
    return _Parser(text, variables).parse()


# ------------------------------------------------------------------ evaluation
def _sigmoid(x: float) -> float:
    # The two-branch form never exponentiates a positive number, so it cannot
    # overflow.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _log(x: float) -> float:
    if x <= 0:
        raise EvaluationError(f"log needs a positive number, got {x:g}")
    return math.log(x)


def _inv(x: float) -> float:
    if x == 0:
        raise EvaluationError("inv(0): division by zero")
    return 1.0 / x


#: Reference implementations on plain floats (Python's ``math``).
FLOAT_FUNCTIONS: Dict[str, Callable[[float], float]] = {
    "log": _log,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
    "sigmoid": _sigmoid,
    "relu": lambda x: x if x > 0 else 0.0,
    "inv": _inv,
    "neg": lambda x: -x,
}


def _np_sigmoid(x: Any) -> Any:
    # tanh form: no overflow warning for large |x|.
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=float)))


def _np_log(x: Any) -> Any:
    x = np.asarray(x, dtype=float)
    return np.log(np.where(x > 0, x, np.nan))


def _np_inv(x: Any) -> Any:
    x = np.asarray(x, dtype=float)
    return 1.0 / np.where(x != 0, x, np.nan)


#: Vectorised versions on NumPy arrays (invalid points give ``nan``, not errors),
#: for plotting an expression over a grid.
NUMPY_FUNCTIONS: Dict[str, Callable[[Any], Any]] = {
    "log": _np_log,
    "exp": np.exp,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "sigmoid": _np_sigmoid,
    "relu": lambda x: np.maximum(x, 0.0),
    "inv": _np_inv,
    "neg": np.negative,
}


def _method(name: str) -> Callable[[Any], Any]:
    def apply(value: Any) -> Any:
        if isinstance(value, (int, float)):
            return FLOAT_FUNCTIONS[name](float(value))
        if name == "neg":
            return -value
        if name == "inv":
            return 1.0 / value
        method = getattr(value, name, None)
        if method is None:
            raise EvaluationError(
                f"{type(value).__name__} has no method {name}() to evaluate {name}(...)"
            )
        return method()

    apply.__name__ = name
    return apply


#: Calls the method of the same name (``x.log()``, ``x.sigmoid()``): for the
#: course's ``Scalar``, ``Dual`` and ``Tensor``; plain numbers use
#: :data:`FLOAT_FUNCTIONS`.
METHOD_FUNCTIONS: Dict[str, Callable[[Any], Any]] = {
    name: _method(name) for name in FUNCTIONS
}


def _power(base: Any, value: Any, functions: Mapping) -> Any:
    """``base ** exponent`` from ``* / exp log`` only, so any number type works."""
    # A constant integer exponent (a literal, or 3**2 in 2**3**2) is exact.
    if isinstance(value, (int, float)) and float(value).is_integer():
        n = int(value)
        if abs(n) <= MAX_INTEGER_POWER:
            if n == 0:
                return 1.0
            result = base
            for _ in range(abs(n) - 1):
                result = result * base
            return result if n > 0 else 1.0 / result
    if isinstance(base, (int, float)) and isinstance(value, (int, float)):
        if base < 0:
            raise EvaluationError(
                f"({base:g})**{value:g}: a negative number to a non-integer power"
            )
        if base == 0:
            return 0.0 if value > 0 else _inv(0.0)
    return functions["exp"](value * functions["log"](base))


def evaluate_nodes(
    expr: Expr,
    env: Mapping[str, Any],
    functions: Mapping[str, Callable[[Any], Any]] = FLOAT_FUNCTIONS,
    on_node: Optional[Callable[[Expr, Any], None]] = None,
) -> Any:
    """Evaluate ``expr``; ``on_node(node, value)`` is called for every node.

    Args:
        expr: a tree from :func:`parse`.
        env: a value for every variable of the tree.
        functions: how to compute each function of :data:`FUNCTIONS` on the values
            (:data:`FLOAT_FUNCTIONS`, :data:`NUMPY_FUNCTIONS`,
            :data:`METHOD_FUNCTIONS`, or your own).
        on_node: an optional observer, e.g. to label a graph.

    Raises:
        EvaluationError: division by zero, log of a negative number, overflow, or a
            variable without a value. ``NotImplementedError`` from a stubbed task
            is *not* caught: the dashboard shows which task to do.
    """

    def visit(node: Expr) -> Any:
        if isinstance(node, Number):
            value: Any = node.value
        elif isinstance(node, Variable):
            if node.name not in env:
                raise EvaluationError(f"no value for the variable {node.name!r}")
            value = env[node.name]
        elif isinstance(node, Negate):
            value = -visit(node.operand)
        elif isinstance(node, Call):
            value = functions[node.function](visit(node.argument))
        elif isinstance(node, BinaryOp):
            left = visit(node.left)
            right = visit(node.right)
            if node.op == "+":
                value = left + right
            elif node.op == "-":
                value = left - right
            elif node.op == "*":
                value = left * right
            elif node.op == "/":
                value = left / right
            else:
                value = _power(left, right, functions)
        else:  # pragma: no cover - parse() makes only the nodes above
            raise TypeError(f"not an expression node: {node!r}")
        if on_node is not None:
            on_node(node, value)
        return value

    try:
        return visit(expr)
    except ZeroDivisionError:
        raise EvaluationError(f"division by zero in {expr}") from None
    except OverflowError:
        raise EvaluationError(f"{expr} overflows (the numbers get too large)") from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps trees shallow
        raise EvaluationError("the expression is too deep to evaluate") from None


def evaluate(
    expr: Expr,
    env: Mapping[str, Any],
    functions: Mapping[str, Callable[[Any], Any]] = FLOAT_FUNCTIONS,
) -> Any:
    """The value of ``expr`` with the variables bound by ``env``.

    >>> evaluate(parse("x**2 + 1"), {"x": 3.0})
    10.0
    """
    return evaluate_nodes(expr, env, functions)


def to_callable(
    expr: Expr,
    variables: Sequence[str],
    functions: Mapping[str, Callable[[Any], Any]] = FLOAT_FUNCTIONS,
) -> Callable[..., Any]:
    """``expr`` as a function of positional arguments in the order of
    ``variables``: ``to_callable(parse("x*y", ("x", "y")), ("x", "y"))(2, 3) == 6``.
    """
    names = tuple(variables)

    def f(*values: Any) -> Any:
        if len(values) != len(names):
            raise TypeError(f"expected {len(names)} values, got {len(values)}")
        return evaluate(expr, dict(zip(names, values)), functions)

    return f
