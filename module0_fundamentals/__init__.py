"""Module 0: fundamentals.

Scalar operators and higher-order functions (``operators``), the ``Module`` /
``Parameter`` tree, the 2-D toy datasets and a hand-tuned linear classifier. Later
modules re-export everything here, so ``import module4_networks as kt`` reaches it too.
"""

from module0_fundamentals import datasets, operators
from module0_fundamentals.datasets import DATASETS, Graph
from module0_fundamentals.manual_classifier import ManualClassifier, hand_tuned_weights
from module0_fundamentals.module import Module, ModuleList, Parameter, Sequential

__all__ = [
    "operators",
    "datasets",
    "DATASETS",
    "Graph",
    "ManualClassifier",
    "hand_tuned_weights",
    "Module",
    "ModuleList",
    "Parameter",
    "Sequential",
]
