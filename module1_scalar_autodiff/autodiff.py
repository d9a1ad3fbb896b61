"""The autodiff engine shared by ``Scalar`` (Module 1) and ``Tensor`` (Module 2).

A computation builds a directed acyclic graph: every value made by a function
remembers the function and its inputs (its *parents*). To differentiate an output
$y$ with respect to every leaf $x_i$ at once (reverse mode), we

1. order the graph so that every node comes before all of its parents
   (:func:`topological_sort`), and
2. walk that order once, starting from $\\partial y / \\partial y = d$, handing each
   node's total derivative to its parents by the chain rule and *adding* the
   contributions that arrive along different paths (:func:`backpropagate`):

$$\\frac{\\partial y}{\\partial u} = \\sum_{v \\in \\mathrm{children}(u)}
\\frac{\\partial y}{\\partial v} \\frac{\\partial v}{\\partial u}.$$

The engine only talks to the :class:`Variable` protocol below, so it works for any
derivative type that supports ``+``: floats for scalars, tensors later.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Protocol, Tuple, runtime_checkable

__all__ = ["Variable", "topological_sort", "backpropagate"]


@runtime_checkable
class Variable(Protocol):
    """What the engine needs from a value in a computation graph.

    Attributes:
        unique_id: an integer that identifies the variable (two distinct objects
            never share one), used as the key of the visited set and of the
            derivative table.
        retains_grad: a non-leaf that keeps its derivative (``retain_grad()``).
    """

    unique_id: int
    retains_grad: bool

    @property
    def is_leaf(self) -> bool:
        """True for a variable made by the user (no function produced it); a
        property, as ``Tensor.is_leaf`` in PyTorch."""

    def is_constant(self) -> bool:
        """True for a variable that takes no derivative at all (no history)."""

    @property
    def parents(self) -> Iterable["Variable"]:
        """The inputs of the function that produced this variable."""

    def chain_rule(self, d_output: Any) -> Iterable[Tuple["Variable", Any]]:
        """Pairs ``(input, d_output * d self / d input)``, constants skipped."""

    def accumulate_derivative(self, d: Any) -> None:
        """Add ``d`` into this variable's stored derivative."""


def topological_sort(variable: Variable) -> List[Variable]:
    """Order the graph behind ``variable`` for the backward pass.

    Returns every non-constant variable that ``variable`` depends on (itself
    included, once each), ordered from the output back to the leaves: a variable
    always comes before all of its parents, so when the backward pass reaches it,
    every path into it has already delivered its derivative.

    The walk is iterative (an explicit stack, not recursion), so a chain of 10,000
    operations does not hit Python's recursion limit.
    """
    # BEGIN SOLUTION 1.4: iterative depth-first search; emit a node after its parents
    if variable.is_constant():
        return []
    finished: List[Variable] = []  # post-order: parents before children
    seen = set()
    # (node, expanded): a node is pushed once to expand its parents and once more,
    # below them, to be emitted after all of them are done.
    stack: List[Tuple[Variable, bool]] = [(variable, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            finished.append(node)
            continue
        if node.unique_id in seen:
            continue
        seen.add(node.unique_id)
        stack.append((node, True))
        if node.is_leaf:
            continue
        for parent in node.parents:
            if not parent.is_constant() and parent.unique_id not in seen:
                stack.append((parent, False))
    finished.reverse()
    return finished
    # END SOLUTION


def backpropagate(variable: Variable, deriv: Any) -> None:
    """Run the backward pass from ``variable``, seeded with ``deriv``.

    ``deriv`` is $\\partial L / \\partial \\text{variable}$ (``1.0`` for a scalar
    loss). Every leaf $x$ that ``variable`` depends on receives
    $\\partial L / \\partial x$ through ``accumulate_derivative``, summed over all
    paths; so does every non-leaf with ``retains_grad`` set. Each variable is
    visited once, and the derivatives in flight are kept in a dict keyed by
    ``unique_id``. Works for any derivative type supporting ``+``.
    """
    # BEGIN SOLUTION 1.4: walk topological_sort once, summing derivatives per node
    derivatives: Dict[int, Any] = {variable.unique_id: deriv}
    for node in topological_sort(variable):
        d = derivatives.pop(node.unique_id, None)
        if d is None:  # a parent the chain rule chose to skip
            continue
        if node.is_leaf:
            node.accumulate_derivative(d)
            continue
        if getattr(node, "retains_grad", False):
            node.accumulate_derivative(d)
        for parent, d_parent in node.chain_rule(d):
            if parent.is_constant():
                continue
            key = parent.unique_id
            if key in derivatives:
                derivatives[key] = derivatives[key] + d_parent
            else:
                derivatives[key] = d_parent
    # END SOLUTION
