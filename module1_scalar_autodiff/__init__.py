"""Module 1: scalar autodiff, forward mode and symbolic differentiation.

Re-exports Module 0's public API, so ``import module1_scalar_autodiff as kt`` gives
everything built so far: ``kt.operators``, ``kt.Module``, ``kt.Scalar``, ...

The expression-tree node classes of :mod:`.symbolic` (``Add``, ``Mul``, ...) share
names with the ScalarFunctions, so they stay in ``kt.symbolic``; the tools that
measure expression swell are in ``kt.swell``.
"""

import module0_fundamentals as _module0
from module0_fundamentals import *

from . import scalar_functions, swell, symbolic
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
from .scalar_functions import *

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
    # Scalar and its functions (ScalarFunction, Add, Mul, ..., EQ)
    "Scalar",
    "ScalarHistory",
    *scalar_functions.__all__,
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
