"""A linear classifier whose three weights you tune by hand (Task 0.5).

Before Module 1 teaches a computer to find weights, find some yourself: pick
$(w_1, w_2, b)$ so that the line $w_1 x_1 + w_2 x_2 + b = 0$ separates the two classes
of ``simple``, ``diag`` and ``split``. The dashboard (``streamlit run project/app.py``)
has sliders for the three numbers and draws the line over the points.
"""

from __future__ import annotations

from module0_fundamentals import operators
from module0_fundamentals.datasets import Graph


class ManualClassifier:
    r"""$\hat y = 1$ if $w_1 x_1 + w_2 x_2 + b > 0$ else $0$.

    Built from the Task 0.1 operators, so it works once they do.
    """

    def __init__(self, w1: float, w2: float, b: float) -> None:
        self.w1, self.w2, self.b = w1, w2, b

    def score(self, x1: float, x2: float) -> float:
        """The signed score $s = w_1 x_1 + w_2 x_2 + b$ (positive means class 1)."""
        wx = operators.add(operators.mul(self.w1, x1), operators.mul(self.w2, x2))
        return operators.add(wx, self.b)

    def probability(self, x1: float, x2: float) -> float:
        r"""The score as a probability of class 1: $\sigma(s)$."""
        return operators.sigmoid(self.score(x1, x2))

    def predict(self, x1: float, x2: float) -> int:
        """The predicted label: 1 if the score is positive, else 0."""
        return 1 if operators.lt(0.0, self.score(x1, x2)) == 1.0 else 0

    def accuracy(self, graph: Graph) -> float:
        """The fraction of the points of ``graph`` predicted right (1.0 if empty)."""
        right = [self.predict(*point) == y for point, y in zip(graph.X, graph.y)]
        return sum(right) / graph.n if graph.n else 1.0


def hand_tuned_weights() -> dict[str, tuple[float, float, float]]:
    """Your weights ``(w1, w2, b)`` for ``"simple"``, ``"diag"`` and ``"split"``.

    Each must classify at least 95% of the points of its dataset correctly (the tests
    try several seeds). Read the labelling rules in ``datasets.py``, or tune the
    sliders in the dashboard.
    """
    # BEGIN SOLUTION 0.5: a dict: name -> (w1, w2, b) for simple, diag and split
    return {
        # x1 < 0.5  <=>  -x1 + 0.5 > 0
        "simple": (-1.0, 0.0, 0.5),
        # x1 + x2 < 1  <=>  -x1 - x2 + 1 > 0
        "diag": (-1.0, -1.0, 1.0),
        # x1 + 2 x2 > 1.4  <=>  x1 + 2 x2 - 1.4 > 0
        "split": (1.0, 2.0, -1.4),
    }
    # END SOLUTION
