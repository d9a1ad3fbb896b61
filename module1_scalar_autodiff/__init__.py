"""Module 1: scalar autodiff, forward mode and symbolic differentiation.

Re-exports Module 0's public API, so ``import module1_scalar_autodiff as kt`` gives
everything built so far: ``kt.operators``, ``kt.Module``, ``kt.Scalar``, ...

The expression-tree node classes of :mod:`.symbolic` (``Add``, ``Mul``, ...) share
names with the ScalarFunctions, so they stay in ``kt.symbolic``; the tools that
measure expression swell are in ``kt.swell``.
"""

import module0_fundamentals as _module0
from module0_fundamentals import *
from module0_fundamentals import (
    DATASETS,
    Graph,
    ManualClassifier,
    Module,
    ModuleList,
    Parameter,
    Sequential,
    datasets,
    hand_tuned_weights,
    operators,
)

from . import swell, symbolic
from .autodiff import Variable, backpropagate, topological_sort
from .context import Context
from .differences import (
    StepSizeStudy,
    central_difference,
    forward_difference,
    step_size_study,
)
from .dual import Dual, JacobianResult, jacobian, jvp
from .optim import SGD, Optimizer
from .scalar import Scalar, ScalarHistory
from .scalar_functions import (
    EQ,
    GT,
    LT,
    Add,
    Cos,
    Exp,
    Inv,
    Log,
    Mul,
    Neg,
    ReLU,
    ScalarFunction,
    Sigmoid,
    Sin,
    Tanh,
)

__all__ = list(_module0.__all__) + [
    # the engine
    "Variable",
    "Context",
    "topological_sort",
    "backpropagate",
    # numerical derivatives
    "central_difference",
    "forward_difference",
    "step_size_study",
    "StepSizeStudy",
    # Scalar and its functions
    "Scalar",
    "ScalarHistory",
    "ScalarFunction",
    "Add",
    "Mul",
    "Inv",
    "Neg",
    "Sigmoid",
    "ReLU",
    "Log",
    "Exp",
    "Sin",
    "Cos",
    "Tanh",
    "LT",
    "GT",
    "EQ",
    # training
    "Optimizer",
    "SGD",
    # forward mode and symbolic differentiation
    "Dual",
    "jvp",
    "jacobian",
    "JacobianResult",
    "symbolic",
    "swell",
]
