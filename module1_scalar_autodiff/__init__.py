"""Module 1: scalar autodiff, forward mode and symbolic differentiation.

Re-exports Module 0's public API, so ``import module1_scalar_autodiff as kt`` gives
everything built so far: ``kt.operators``, ``kt.Module``, ``kt.Scalar``, ...

The expression-tree node classes of :mod:`.symbolic` (``Add``, ``Mul``, ...) share
names with the ScalarFunctions, so they stay in ``kt.symbolic``; the tools that
measure expression swell are in ``kt.swell``.
"""

import module0_fundamentals as _module0
from module0_fundamentals import *

from . import autodiff, differences, dual, optim, scalar_functions, swell, symbolic
from .autodiff import *
from .context import Context
from .differences import *
from .dual import *
from .optim import *
from .scalar import Scalar, ScalarHistory
from .scalar_functions import *

# Each file's __all__ lists its public names (the ScalarFunctions: ScalarFunction,
# Add, Mul, ..., EQ); the node classes of symbolic stay in kt.symbolic.
__all__ = [
    *_module0.__all__,
    *autodiff.__all__,  # the engine
    "Context",
    *differences.__all__,  # numerical derivatives
    "Scalar",
    "ScalarHistory",
    *scalar_functions.__all__,
    *optim.__all__,  # training
    *dual.__all__,  # forward mode
    "symbolic",
    "swell",
]
