"""Decide, before Numba is imported, whether CUDA code runs on a GPU or the simulator.

Numba reads ``NUMBA_ENABLE_CUDASIM`` once, when ``numba.cuda`` is first imported, so the
decision has to be made without importing Numba: we look for the NVIDIA driver library
and a device node instead of asking the CUDA runtime.
"""

from __future__ import annotations

import ctypes.util
import os

SIMULATOR_VARIABLE = "NUMBA_ENABLE_CUDASIM"


def gpu_present() -> bool:
    """True when an NVIDIA driver library and a GPU device node are both present."""
    has_node = os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")
    return has_node and ctypes.util.find_library("cuda") is not None


def configure_cuda_simulator() -> bool:
    """Turn the CUDA simulator on when no GPU is present; return whether it is on.

    An explicit ``NUMBA_ENABLE_CUDASIM`` (``0`` or ``1``) set by the user always wins.
    """
    if SIMULATOR_VARIABLE not in os.environ and not gpu_present():
        os.environ[SIMULATOR_VARIABLE] = "1"
    return os.environ.get(SIMULATOR_VARIABLE) == "1"
