"""Compile kernels into the disk cache now, in parallel processes.

    python -m module3_fast_ops.precompile              # every FastOps kernel
    python -m module3_fast_ops.precompile --jobs 2     # in two processes
    python -m module3_fast_ops.precompile MODULE [LABEL ...]

Later runs then load the kernels instead of compiling them (for instance once after
editing ``fast_ops.py``, or in CI before the tests). The compile helpers that a run
starts on idle cores are this command, one job per idle core. See
:func:`module3_fast_ops.kernel_cache.main`.
"""

import sys

from module3_fast_ops.kernel_cache import main

if __name__ == "__main__":
    sys.exit(main())
