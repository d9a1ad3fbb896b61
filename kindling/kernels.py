"""``kindling kernels``: what each CUDA kernel costs a real GPU, measured without one.

For every kernel of ``module3_fast_ops.cuda_ops`` (and ``module4_networks.cuda_conv``,
``module4_networks._cuda_optim_kernels``: ``--task conv``, ``optim``) Numba
compiles the kernel to PTX for a compute capability (``cuda.compile_ptx``, with the
simulator off; no GPU is needed), and NVIDIA's assembler ``ptxas -v`` (from the
``nvidia-cuda-nvcc-cu12`` wheel) reports what one thread of the machine code uses:

- **registers** per thread: a streaming multiprocessor (SM) has 65,536, shared by
  all the threads resident on it, so a block of ``T`` threads needs about
  ``T x registers`` of them (allocated per warp of 32 threads, in units of 256);
  a block that needs more than 65,536 cannot launch at all
  (``CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES``);
- **shared** memory per block (static, at most 48 KiB);
- **stack** frame per thread: per-thread arrays the compiler could not keep in
  registers, in slow *local* memory; **spills**: bytes of registers that did not
  fit, stored to and loaded back from local memory (``spills`` adds the two);
- **divisions** (in the JSON rows, read from the PTX): 64-bit integer divisions and
  remainders, and their 32-bit twins (:func:`divisions`).

From these and the block size a kernel is launched with follows its *occupancy*: how
many blocks fit on one SM at once, and the fraction of the SM's warp slots they fill.
The resource tests (``tests/module3/test_cuda_resources.py``,
``tests/module4/test_cuda_conv.py``, ``test_fused_optim_cuda.py``) assert that
every kernel fits.

The measurement runs in a child process (``python -m kindling.kernels --json``)
because Numba decides once per process whether CUDA code is simulated.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

#: The compute capabilities checked by default: Turing (T4), Ampere (A100), Hopper.
CCS: Tuple[Tuple[int, int], ...] = ((7, 5), (8, 0), (9, 0))
#: Registers of one SM (every compute capability of CCS), and per block at most.
REGISTERS_PER_SM = 65536
#: Static shared memory a block may declare.
MAX_STATIC_SHARED = 48 * 1024
MAX_THREADS_PER_BLOCK = 1024
_REGISTER_UNIT = 256  # registers are given to a warp in units of 256
_MARK = "KINDLING-KERNELS-JSON "


@dataclass(frozen=True)
class Machine:
    """The per-SM limits of one compute capability (CUDA C Programming Guide,
    "Technical Specifications per Compute Capability")."""

    threads: int  # resident threads per SM
    blocks: int  # resident blocks per SM
    shared: int  # shared memory per SM usable by blocks, bytes


MACHINES: Dict[Tuple[int, int], Machine] = {
    (7, 5): Machine(1024, 16, 64 * 1024),
    (8, 0): Machine(2048, 32, 164 * 1024),
    (8, 6): Machine(1536, 16, 100 * 1024),
    (8, 9): Machine(1536, 24, 100 * 1024),
    (9, 0): Machine(2048, 32, 228 * 1024),
}


def find_ptxas() -> Optional[str]:
    """The ``ptxas`` of the ``nvidia-cuda-nvcc-cu12`` wheel, else one on the PATH."""
    spec = importlib.util.find_spec("nvidia")
    for folder in list(spec.submodule_search_locations or []) if spec else []:
        for name in ("ptxas", "ptxas.exe"):  # the Windows wheel's has a suffix
            candidate = Path(folder) / "cuda_nvcc" / "bin" / name
            if candidate.is_file():
                return str(candidate)
    return shutil.which("ptxas")


#: How to get the compilers, where NVIDIA publishes them.
INSTALL_TOOLS = (
    'pip install -e ".[cuda]" (Linux and Windows; NVIDIA ships no macOS compilers)'
)


def missing_tools() -> Optional[str]:
    """Why kernels cannot be compiled for a real GPU here, or None when they can:
    that needs numba-cuda (its NVVM front end) and ``ptxas``, which a student's
    ``.[dev]`` install leaves out (0.3 GB, for the resource checks and real GPUs)."""
    if importlib.util.find_spec("numba_cuda") is None:
        return f"numba-cuda is not installed: {INSTALL_TOOLS}"
    if find_ptxas() is None:
        return f"NVIDIA's ptxas is not installed: {INSTALL_TOOLS}"
    return _missing_library()


def _missing_library() -> Optional[str]:
    """numba-cuda compiles through NVIDIA's NVVM and NVRTC libraries, found by
    cuda-pathfinder (the wheels of the cuda extra, else a system CUDA toolkit). A
    machine with ``ptxas`` on its PATH may still lack one of them."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except ImportError:  # an older numba-cuda finds its libraries itself
        return None
    for name in ("nvvm", "nvrtc"):
        try:
            load_nvidia_dynamic_lib(name)
        except Exception as error:  # noqa: BLE001 - DynamicLibNotFoundError and kin
            first = str(error).splitlines()[0][:120]
            return (
                f"NVIDIA's {name} library is not installed ({first}): {INSTALL_TOOLS}"
            )
    return None


def parse_ptxas(text: str) -> Dict[str, int]:
    """registers, shared, stack, spill_stores, spill_loads from ``ptxas -v`` output
    (one kernel per PTX file)."""
    found = {"registers": 0, "shared": 0, "stack": 0, "spill_stores": 0}
    found["spill_loads"] = 0
    patterns = {
        "registers": r"Used (\d+) registers",
        "shared": r"(\d+) bytes smem",
        "stack": r"(\d+) bytes stack frame",
        "spill_stores": r"(\d+) bytes spill stores",
        "spill_loads": r"(\d+) bytes spill loads",
    }
    for key, pattern in patterns.items():
        match = re.search(pattern, text)
        if match:
            found[key] = int(match.group(1))
    if not re.search(patterns["registers"], text):
        raise ValueError(f"no register count in the ptxas output:\n{text}")
    return found


#: Integer divisions and remainders in PTX, 64-bit and 32-bit.
_DIVISIONS = {
    "divisions_64": re.compile(r"\b(?:div|rem)\.[su]64\b"),
    "divisions_32": re.compile(r"\b(?:div|rem)\.[su]32\b"),
}


def divisions(ptx: str) -> Dict[str, int]:
    """How many 64-bit and 32-bit integer divisions (and remainders) ``ptx``
    holds. A GPU divides 64-bit integers in software (tens of instructions);
    NVVM gives each 64-bit division a 32-bit twin that runs when both operands
    fit in 32 bits (LLVM's "bypass slow division", checked per division at run
    time), so a kernel divides in 32 bits wherever the sizes allow when every
    64-bit division has its twin."""
    return {key: len(pattern.findall(ptx)) for key, pattern in _DIVISIONS.items()}


def registers_per_block(registers: int, threads: int) -> int:
    """Registers a block of ``threads`` threads takes from its SM: per warp,
    ``32 x registers`` rounded up to a multiple of 256."""
    warps = -(-threads // 32)
    per_warp = -(-registers * 32 // _REGISTER_UNIT) * _REGISTER_UNIT
    return warps * per_warp


def occupancy(
    registers: int, shared: int, threads: int, cc: Tuple[int, int]
) -> Tuple[int, float]:
    """(blocks resident per SM, fraction of the SM's thread slots they fill) for a
    kernel using ``registers`` per thread and ``shared`` bytes per block, launched
    with ``threads`` per block: the smallest of the thread, block, register and
    shared-memory limits."""
    machine = MACHINES.get(cc, MACHINES[(8, 0)])
    limits = [machine.threads // threads, machine.blocks]
    need = registers_per_block(registers, threads)
    limits.append(REGISTERS_PER_SM // need if need else machine.blocks)
    if shared:
        limits.append(machine.shared // shared)
    blocks = max(0, min(limits))
    return blocks, blocks * threads / machine.threads


def problems(row: Dict[str, Any]) -> List[str]:
    """Why the kernel of ``row`` would not launch (or would run badly) with its
    block size: empty when it fits."""
    found = []
    threads = row["threads"]
    if threads > MAX_THREADS_PER_BLOCK:
        found.append(f"{threads} threads per block > {MAX_THREADS_PER_BLOCK}")
    need = registers_per_block(row["registers"], threads)
    if need > REGISTERS_PER_SM:
        found.append(
            f"{row['registers']} registers x {threads} threads needs {need} "
            f"registers > {REGISTERS_PER_SM} per block"
        )
    if row["shared"] > MAX_STATIC_SHARED:
        found.append(f"{row['shared']} bytes of shared memory > {MAX_STATIC_SHARED}")
    if row["stack"]:
        found.append(f"a {row['stack']}-byte stack frame (per-thread arrays)")
    if row["spill_stores"] or row["spill_loads"]:
        found.append("register spills")
    return found


def _fake_device(cc: Tuple[int, int]) -> None:
    # Without a GPU, compiling a device function asks the driver for the current
    # device's compute capability; answer for it. Device functions are compiled to
    # LLVM IR once and linked into each kernel, which NVVM then compiles for the
    # capability given to compile_ptx.
    from numba.cuda import dispatcher

    class _Device:
        compute_capability = cc

    dispatcher.get_current_device = lambda: _Device()


def _cuda_compiler(cc: Tuple[int, int]) -> Any:
    """``numba.cuda`` with the simulator off, able to compile for ``cc`` without a
    GPU (the child process of :func:`report` runs this first)."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    from numba import cuda

    if cuda.config.ENABLE_CUDASIM:
        raise RuntimeError(
            "compiling for a GPU needs NUMBA_ENABLE_CUDASIM=0 before Numba loads"
        )
    from kindling.cudasim import gpu_present

    if not gpu_present():
        _fake_device(cc)
    return cuda


def _kernel_specs() -> List[Any]:
    specs = []
    if importlib.util.find_spec("module3_fast_ops.cuda_ops") is not None:
        specs_of = importlib.import_module("module3_fast_ops._cuda_specs")
        cuda_ops = importlib.import_module("module3_fast_ops.cuda_ops")
        specs += specs_of.kernel_specs(cuda_ops)  # the kernels, as an argument
    for given in ("cuda_conv", "_cuda_optim_kernels"):
        if importlib.util.find_spec(f"module4_networks.{given}") is not None:
            module = importlib.import_module(f"module4_networks.{given}")
            specs += module.KERNEL_SPECS  # Module 4's given kernels
    return specs


def argument_mismatch(py_func: Any, argtypes: Sequence[Any]) -> Optional[str]:
    """Why a kernel cannot be compiled with the argument types it is launched with
    (its parameter count differs), or ``None``. Numba's own error would only say
    that the types do not match; this names both lists and where the contract is."""
    names = list(inspect.signature(py_func).parameters)
    if len(names) == len(argtypes):
        return None
    return (
        f"the kernel {py_func.__name__}({', '.join(names)}) takes {len(names)} "
        f"argument(s), but it is launched with {len(argtypes)}: keep the argument "
        f"list that the docstring of its task's factory gives"
    )


def measure(
    tasks: Optional[Sequence[str]] = None, ccs: Sequence[Tuple[int, int]] = CCS
) -> List[Dict[str, Any]]:
    """Compile every kernel (of ``tasks``, or all) for every ``cc`` and read its
    resources; a kernel that cannot be built (an unfinished task) gives one row with
    ``error``. Must run in a process where the CUDA simulator is off."""
    cuda = _cuda_compiler(min(ccs))
    ptxas = find_ptxas()
    if ptxas is None:
        raise RuntimeError(f"ptxas not found: {INSTALL_TOOLS}")
    rows: List[Dict[str, Any]] = []
    for spec in _kernel_specs():
        if tasks and spec.task not in tasks:
            continue
        base = {"name": spec.name, "task": spec.task, "threads": spec.threads}
        try:
            kernel = spec.build()
        except Exception as error:  # noqa: BLE001 - reported per kernel
            rows.append(
                {**base, "error": str(error), "error_type": type(error).__name__}
            )
            continue
        mismatch = argument_mismatch(kernel.py_func, spec.argtypes)
        if mismatch:
            rows.append({**base, "error": mismatch, "error_type": "TypeError"})
            continue
        for cc in ccs:
            ptx, _ = cuda.compile_ptx(
                kernel.py_func,
                spec.argtypes,
                cc=cc,
                launch_bounds=kernel.targetoptions.get("launch_bounds"),
            )
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "kernel.ptx"
                path.write_text(ptx, encoding="utf-8")
                arch = f"-arch=sm_{cc[0]}{cc[1]}"
                command = [ptxas, arch, "-v", str(path), "-o", os.devnull]
                done = subprocess.run(
                    command, capture_output=True, text=True, encoding="utf-8"
                )
            if done.returncode:
                raise RuntimeError(f"ptxas failed on {spec.name}: {done.stderr}")
            found = parse_ptxas(done.stdout + done.stderr)
            found.update(divisions(ptx))
            blocks, fraction = occupancy(
                found["registers"], found["shared"], spec.threads, cc
            )
            rows.append(
                {**base, "cc": list(cc), **found, "blocks": blocks}
                | {"occupancy": fraction}
            )
    return rows


def measure_device_functions(cc: Tuple[int, int] = CCS[0]) -> List[Dict[str, Any]]:
    """Compile every scalar function that CUDA kernels compile in
    (``_cuda_specs.device_functions()``) for a GPU of capability ``cc``: one row per
    function, ``{"name", "arity"}`` and ``"error"`` (why Numba's CUDA target refused
    it) or ``"stub"`` (the task message of an unfinished stub, which is not
    compiled). Must run where the CUDA simulator is off."""
    import numba

    from kindling.progress import stub_task
    from module3_fast_ops._cuda_specs import device_functions

    cuda = _cuda_compiler(cc)
    rows: List[Dict[str, Any]] = []
    for name, fn, arity in device_functions():
        row: Dict[str, Any] = {"name": name, "arity": arity}
        try:
            fn(*[0.5] * arity)
        except NotImplementedError as error:
            if stub_task(error):
                rows.append({**row, "stub": str(error)})
                continue
        except Exception:  # noqa: BLE001 - a domain error says nothing of compiling
            pass
        try:
            cuda.compile_ptx(fn, (numba.float64,) * arity, device=True, cc=cc)
        except Exception as error:  # noqa: BLE001 - reported per function
            row["error"] = f"{type(error).__name__}: {error}".strip()
        rows.append(row)
    return rows


def report(
    tasks: Optional[Sequence[str]] = None,
    ccs: Sequence[Tuple[int, int]] = CCS,
    timeout: float = 600,
    device: bool = False,
) -> List[Dict[str, Any]]:
    """:func:`measure` in a child process with the simulator off (with ``device``:
    :func:`measure_device_functions` for the first of ``ccs``)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    spec = importlib.util.find_spec("module3_fast_ops")
    if spec is not None and spec.origin:
        root = str(Path(spec.origin).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(
            [root, *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    command = [sys.executable, "-m", "kindling.kernels", "--json"]
    if device:
        command.append("--device-functions")
    for task in tasks or []:
        command += ["--task", task]
    for cc in ccs:
        command += ["--cc", f"{cc[0]}.{cc[1]}"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=dict(env, PYTHONIOENCODING="utf-8"),
        timeout=timeout,
    )
    for line in done.stdout.splitlines():
        if line.startswith(_MARK):
            return json.loads(line[len(_MARK) :])
    raise RuntimeError(
        f"kindling kernels failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    )


def format_rows(rows: List[Dict[str, Any]]) -> str:
    lines = [
        f"{'kernel':<18}{'task':<6}{'sm':<5}{'threads':>8}{'regs':>6}{'shared':>8}"
        f"{'stack':>7}{'spills':>7}{'blocks/SM':>10}{'occupancy':>10}  fits"
    ]
    for row in rows:
        if "error" in row:
            lines.append(f"{row['name']:<18}{row['task']:<6}not built: {row['error']}")
            continue
        wrong = problems(row)
        sm = f"{row['cc'][0]}{row['cc'][1]}"
        spills = row["spill_stores"] + row["spill_loads"]  # bytes, both ways
        lines.append(
            f"{row['name']:<18}{row['task']:<6}{sm:<5}{row['threads']:>8}"
            f"{row['registers']:>6}{row['shared']:>8}{row['stack']:>7}"
            f"{spills:>7}{row['blocks']:>10}{row['occupancy']:>10.0%}  "
            + ("yes" if not wrong else "NO: " + "; ".join(wrong))
        )
    return "\n".join(lines)


def format_device_rows(rows: List[Dict[str, Any]], cc: Tuple[int, int]) -> str:
    """One line for the scalar functions compiled into the kernels, then one per
    function that a GPU's compiler refused or that is still a stub."""
    refused = [row for row in rows if "error" in row]
    stubs = [row for row in rows if "stub" in row]
    compiled = len(rows) - len(refused) - len(stubs)
    lines = [
        f"scalar functions compiled into the kernels: {compiled} of {len(rows)} "
        f"compile for sm_{cc[0]}{cc[1]}"
    ]
    lines += [f"  {row['name']}: NO: {row['error'][:300]}" for row in refused]
    lines += [f"  {row['name']}: not written yet ({row['stub']})" for row in stubs]
    return "\n".join(lines)


def _parse_cc(text: str) -> Tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="kindling kernels",
        description="registers, shared memory, stack and occupancy of every CUDA "
        "kernel, compiled for real GPUs (no GPU needed)",
    )
    parser.add_argument("--task", action="append", help="only this task's kernels")
    parser.add_argument(
        "--cc",
        action="append",
        type=_parse_cc,
        help="compute capability such as 9.0 (default: 7.5, 8.0 and 9.0)",
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--device-functions", action="store_true", help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    ccs = tuple(args.cc or CCS)
    if args.json:  # the child process of report()
        if args.device_functions:
            rows = measure_device_functions(ccs[0])
        else:
            rows = measure(args.task, ccs)
        print(_MARK + json.dumps(rows), flush=True)
        return 0
    try:
        rows = report(args.task, ccs)
        scalar = report(ccs=ccs[:1], device=True)
    except RuntimeError as error:
        print(f"kindling kernels: {error}", file=sys.stderr)
        return 2
    print(format_rows(rows))
    print(format_device_rows(scalar, ccs[0]))
    built = [row for row in rows if "error" not in row]
    refused = [row for row in scalar if "error" in row]
    return 1 if refused or any(problems(row) for row in built) else 0


if __name__ == "__main__":
    sys.exit(main())
