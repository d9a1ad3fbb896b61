"""Module 0: fundamentals.

Scalar operators and higher-order functions (``operators``), the ``Module`` /
``Parameter`` tree, the 2-D toy datasets, a hand-tuned linear classifier and the math
test catalog (``catalog``) that Modules 1 and 2 check their number types against. Later
modules re-export everything here, so ``import module4_networks as kt`` reaches it too.
"""

from module0_fundamentals import catalog, containers, datasets, operators
from module0_fundamentals.datasets import DATASETS, Graph
from module0_fundamentals.manual_classifier import ManualClassifier, hand_tuned_weights
from module0_fundamentals.containers import *
from module0_fundamentals.module import Module, ModuleList, Parameter, Sequential

# A facade defines nothing: it exports every public name it imports (and the
# submodules it loads, ``kt.operators``, ``kt.catalog``, ...).
__all__ = [name for name in dir() if not name.startswith("_")]
