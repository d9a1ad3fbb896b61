"""``kindling doctor``: is this machine ready for the course?

Prints what a student or an instructor needs to know before a first run: the Python
and package versions, whether CUDA code will run on a GPU or under the simulator,
whether the checkout is the instructor source or a student edition, and whether the
task registry loads.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys
from pathlib import Path
from typing import List, Tuple

from kindling.cudasim import SIMULATOR_VARIABLE, float64_note, gpu_present
from kindling.registry import load_registry
from kindling.regions import MANIFEST

# (distribution, why it matters, required)
PACKAGES = [
    ("numpy", "tensor storage", True),
    ("numba", "Module 3-4 kernels", True),
    (
        "numba-cuda",
        "CUDA tasks 3.3-3.4 on Linux and Windows; macOS uses Numba's own simulator",
        False,
    ),
    (
        "nvidia-cuda-nvcc-cu12",
        "NVVM and ptxas, the cuda extra: a real GPU, kindling kernels, resource tests",
        False,
    ),
    ("tqdm", "the training scripts' progress bars", True),
    ("pytest", "checking tasks", True),
    ("pytest-xdist", "pytest's options in pyproject.toml load its plugin", True),
    ("hypothesis", "property tests", True),
    ("streamlit", "the dashboard", False),
    ("torch", "optional benchmark comparison", False),
]


def gpu_description() -> str:
    """Which GPU CUDA code runs on, with its compute capability, or why none."""
    if not gpu_present():
        return f"no GPU: CUDA tests run under the simulator ({SIMULATOR_VARIABLE}=1)"
    if os.environ.get(SIMULATOR_VARIABLE) == "1":
        return f"a GPU is present, but {SIMULATOR_VARIABLE}=1 selects the simulator"
    os.environ.setdefault(SIMULATOR_VARIABLE, "0")
    try:
        from numba import cuda

        device = cuda.get_current_device()
        name = device.name  # bytes in older numba, str in numba-cuda 0.30
        name = name.decode() if isinstance(name, bytes) else str(name)
        major, minor = device.compute_capability
    except Exception as error:  # noqa: BLE001 - no numba-cuda, driver errors
        return f"an NVIDIA driver and device are present, but CUDA fails: {error}"
    return (
        f"an NVIDIA GPU is present: {name}, compute capability {major}.{minor}; "
        f"CUDA tests run on it ('kindling kernels --cc {major}.{minor}' shows what "
        f"the kernels use); {float64_note(major, minor)}"
    )


def checks(root: Path) -> List[Tuple[str, bool, str]]:
    """(what, ok, detail) rows; a row that is not ok and required fails the doctor."""
    rows = []
    version = sys.version.split()[0]
    rows.append(("python >= 3.10", sys.version_info >= (3, 10), version))
    for name, why, required in PACKAGES:
        try:
            found = importlib.metadata.version(name)
            rows.append((name, True, f"{found} ({why})"))
        except importlib.metadata.PackageNotFoundError:
            detail = f"missing ({why})" + ("" if required else "; optional")
            rows.append((name, not required, detail))
    rows.append(("cuda", True, gpu_description()))
    edition = "student edition" if (root / MANIFEST).exists() else "instructor source"
    rows.append(("checkout", True, f"{root} ({edition})"))
    try:
        registry = load_registry()
        rows.append(("registry", True, f"{len(registry)} tasks"))
    except Exception as error:  # noqa: BLE001 - any failure is worth reporting
        rows.append(("registry", False, str(error)))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    rows.append(("chromium", True, browser or "absent (browser test will skip)"))
    return rows


def main(root: Path = Path(".")) -> int:
    failed = False
    for what, ok, detail in checks(root.resolve()):
        print(f"{'ok ' if ok else 'BAD'}  {what:<15} {detail}")
        failed |= not ok
    return 1 if failed else 0
