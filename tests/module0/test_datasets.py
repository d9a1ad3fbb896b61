"""Task 0.5: the toy datasets and the hand-tuned linear classifier."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest
from hypothesis import given

from module0_fundamentals import DATASETS, Graph, ManualClassifier, hand_tuned_weights
from module0_fundamentals import datasets
from tests.module0.strategies import seeds, sizes, unit_floats

Curve = Callable[[float, int], tuple[float, float]]

pytestmark = pytest.mark.task0_5

NAMES = ["simple", "diag", "split", "xor", "circle", "spiral", "moons"]
UNIFORM = ["simple", "diag", "split", "xor", "circle"]
CURVES = ["spiral", "moons"]

# The labelling rules, restated from the docstrings.
RULES = {
    "simple": lambda x1, x2: x1 < 0.5,
    "diag": lambda x1, x2: x1 + x2 < 1.0,
    "split": lambda x1, x2: x1 + 2.0 * x2 > 1.4,
    "xor": lambda x1, x2: (x1 < 0.5) != (x2 < 0.5),
    "circle": lambda x1, x2: (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 < 1.0 / (2 * math.pi),
}


def test_every_dataset_is_registered() -> None:
    assert sorted(DATASETS) == sorted(NAMES)
    for name in NAMES:
        assert DATASETS[name] is getattr(datasets, name)


@pytest.mark.parametrize("name", NAMES)
def test_shape_bounds_and_labels(name: str) -> None:
    graph = DATASETS[name](120, seed=3)
    assert isinstance(graph, Graph)
    assert graph.n == 120 and len(graph.X) == 120 and len(graph.y) == 120
    for x1, x2 in graph.X:
        assert 0.0 <= x1 <= 1.0 and 0.0 <= x2 <= 1.0
    assert set(graph.y) == {0, 1}


@pytest.mark.parametrize("name", NAMES)
@given(n=sizes, seed=seeds)
def test_any_size_and_seed(name: str, n: int, seed: int) -> None:
    graph = DATASETS[name](n, seed=seed)
    assert graph.n == n and len(graph.X) == n and len(graph.y) == n
    assert all(0.0 <= c <= 1.0 for point in graph.X for c in point)
    assert all(label in (0, 1) for label in graph.y)


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_for_a_seed_and_different_across_seeds(name: str) -> None:
    make = DATASETS[name]
    assert make(50, seed=7) == make(50, seed=7)
    assert make(50) == make(50, seed=0)
    assert make(50, seed=7).X != make(50, seed=8).X


@pytest.mark.parametrize("name", NAMES)
def test_does_not_touch_the_global_random_state(name: str) -> None:
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    DATASETS[name](30, seed=5)
    assert random.random() == expected


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_classes_are_roughly_balanced(name: str, seed: int) -> None:
    graph = DATASETS[name](400, seed=seed)
    share = sum(graph.y) / graph.n
    assert 0.35 <= share <= 0.7, f"{name}: {share:.0%} of the points are class 1"


@pytest.mark.parametrize("name", UNIFORM)
@given(x1=unit_floats, x2=unit_floats)
def test_labelling_rules(name: str, x1: float, x2: float) -> None:
    label = getattr(datasets, f"{name}_label")(x1, x2)
    assert label in (0, 1)
    assert label == int(RULES[name](x1, x2))


@pytest.mark.parametrize("name", UNIFORM)
def test_uniform_datasets_follow_their_rule(name: str) -> None:
    graph = DATASETS[name](200, seed=11)
    assert graph.y == [int(RULES[name](x1, x2)) for x1, x2 in graph.X]


@pytest.mark.parametrize(
    "name, x1, x2, label",
    [
        ("simple", 0.1, 0.9, 1),
        ("simple", 0.9, 0.1, 0),
        ("diag", 0.2, 0.3, 1),
        ("diag", 0.8, 0.7, 0),
        ("split", 0.9, 0.9, 1),
        ("split", 0.1, 0.1, 0),
        ("split", 0.0, 0.69, 0),
        ("split", 1.0, 0.21, 1),
        ("xor", 0.1, 0.9, 1),
        ("xor", 0.9, 0.1, 1),
        ("xor", 0.1, 0.1, 0),
        ("xor", 0.9, 0.9, 0),
        ("circle", 0.5, 0.5, 1),
        ("circle", 0.5, 0.85, 1),
        ("circle", 0.05, 0.05, 0),
        ("circle", 0.5, 0.95, 0),
        # On the boundary: each rule is a strict inequality (< or >), so a point
        # exactly on the line is class 0 (for xor: x1 = 0.5 is not below 0.5).
        ("simple", 0.5, 0.3, 0),
        ("diag", 0.5, 0.5, 0),
        ("split", 0.0, 0.7, 0),
        ("xor", 0.5, 0.1, 1),
        ("xor", 0.1, 0.5, 1),
    ],
)
def test_labelling_examples(name: str, x1: float, x2: float, label: int) -> None:
    assert getattr(datasets, f"{name}_label")(x1, x2) == label


def spiral_formula(t: float, label: int) -> tuple[float, float]:
    r, theta = 0.05 + 0.35 * t, 3.0 * math.pi * t + math.pi * label
    return 0.5 + r * math.cos(theta), 0.5 + r * math.sin(theta)


def moons_formula(t: float, label: int) -> tuple[float, float]:
    theta = math.pi * t
    if label == 0:
        u, v = math.cos(theta), math.sin(theta)
    else:
        u, v = 1.0 - math.cos(theta), 0.5 - math.sin(theta)
    return 0.1 + 0.8 * (u + 1.0) / 3.0, 0.1 + 0.8 * (v + 0.5) / 1.5


@pytest.mark.parametrize(
    "point, formula",
    [(datasets.spiral_point, spiral_formula), (datasets.moons_point, moons_formula)],
)
@given(t=unit_floats)
def test_curve_points(point: Curve, formula: Curve, t: float) -> None:
    for label in (0, 1):
        x1, x2 = point(t, label)
        assert (x1, x2) == pytest.approx(formula(t, label), abs=1e-12)
        assert 0.09 <= x1 <= 0.91 and 0.09 <= x2 <= 0.91


def test_curve_examples() -> None:
    # The spiral arms start at radius 0.05 on opposite sides of the centre ...
    assert datasets.spiral_point(0.0, 0) == pytest.approx((0.55, 0.5))
    assert datasets.spiral_point(0.0, 1) == pytest.approx((0.45, 0.5))
    # ... and end at radius 0.4 after 1.5 turns.
    assert datasets.spiral_point(1.0, 0) == pytest.approx((0.1, 0.5))
    # The upper moon spans u in [-1, 1]; the lower one is shifted right and down.
    assert datasets.moons_point(0.0, 0) == pytest.approx(
        (0.1 + 0.8 * 2 / 3, 0.1 + 0.8 / 3)
    )
    assert datasets.moons_point(0.5, 0) == pytest.approx((0.1 + 0.8 / 3, 0.9))
    assert datasets.moons_point(0.5, 1) == pytest.approx((0.1 + 0.8 * 2 / 3, 0.1))


@pytest.mark.parametrize("name", CURVES)
def test_curve_datasets_alternate_labels_near_their_curves(name: str) -> None:
    point = getattr(datasets, f"{name}_point")
    graph = DATASETS[name](60, seed=4)
    assert graph.y == [i % 2 for i in range(60)]
    for (x1, x2), label in zip(graph.X, graph.y):
        # Every point is within the jitter (0.02 per coordinate) of its own curve.
        nearest = min(
            math.hypot(x1 - c1, x2 - c2)
            for c1, c2 in (point(k / 2000, label) for k in range(2001))
        )
        assert nearest <= 0.02 * math.sqrt(2) + 2e-3


def test_graph_checks_its_sizes() -> None:
    with pytest.raises(ValueError, match=r"n = 3 but 2 points and 3 labels"):
        Graph(3, [(0.0, 0.0), (1.0, 1.0)], [0, 1, 0])


@pytest.mark.parametrize("bad", [-1, 2.5])
def test_bad_sizes_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="number of points"):
        datasets.simple(bad)


# -- the classifier ------------------------------------------------------------------


def test_classifier_scores_and_predicts() -> None:
    clf = ManualClassifier(2.0, -1.0, 0.5)
    assert clf.score(1.0, 3.0) == pytest.approx(2.0 - 3.0 + 0.5)
    assert clf.predict(1.0, 3.0) == 0
    assert clf.predict(1.0, 1.0) == 1
    assert clf.predict(0.0, 0.5) == 0  # a score of exactly 0 is class 0
    assert clf.probability(1.0, 1.0) == pytest.approx(1.0 / (1.0 + math.exp(-1.5)))


def test_classifier_accuracy() -> None:
    graph = Graph(4, [(0.1, 0.0), (0.9, 0.0), (0.2, 0.0), (0.8, 0.0)], [1, 0, 0, 0])
    clf = ManualClassifier(-1.0, 0.0, 0.5)  # class 1 left of x1 = 0.5
    assert clf.accuracy(graph) == 0.75
    assert ManualClassifier(1.0, 0.0, -0.5).accuracy(graph) == 0.25
    assert clf.accuracy(Graph(0, [], [])) == 1.0


@pytest.mark.parametrize("name", ["simple", "diag", "split"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hand_tuned_weights_separate_the_linear_datasets(name: str, seed: int) -> None:
    weights = hand_tuned_weights()
    assert set(weights) >= {"simple", "diag", "split"}
    w1, w2, b = weights[name]
    accuracy = ManualClassifier(w1, w2, b).accuracy(DATASETS[name](200, seed=seed))
    assert accuracy >= 0.95, f"{name}, seed {seed}: accuracy {accuracy:.1%}"
