"""Tasks 3.3 and 3.4: every CUDA kernel fits a real GPU, checked without one.

The simulator runs any kernel, however many registers it would need; a real GPU
refuses to launch a block whose threads need more than the 65,536 registers of a
streaming multiprocessor. ``kindling.kernels`` compiles each kernel to PTX for
sm_75, sm_80 and sm_90 (Numba with the simulator off, in a child process) and reads
``ptxas -v``; these tests assert that each kernel fits the block it is launched with,
and that every scalar function the kernels compile in compiles for a GPU at all.
In a student edition an unfinished task's kernel cannot be built: its test fails
with that task's ``NotImplementedError``.
"""

import contextlib
from typing import List

import pytest

from kindling import kernels

from .kernels import measured_resources, require_cuda_tools

SMS = {"sm_75": (7, 5), "sm_80": (8, 0), "sm_90": (9, 0)}


def check_task(task: str, names: List[str], sm: str) -> None:
    rows = measured_resources(task)
    for row in rows:
        if "error" in row:
            if row["error_type"] == "NotImplementedError":
                raise NotImplementedError(row["error"])
            pytest.fail(f"kernel {row['name']} could not be built: {row['error']}")
    found = [row for row in rows if tuple(row["cc"]) == SMS[sm]]
    assert sorted(row["name"] for row in found) == sorted(names)
    for row in found:
        assert kernels.problems(row) == [], f"{row['name']} on {sm}"
        blocks, _ = kernels.occupancy(
            row["registers"], row["shared"], row["threads"], SMS[sm]
        )
        assert blocks >= 1


@pytest.mark.task3_3
@pytest.mark.parametrize("sm", SMS)
def test_map_zip_reduce_kernels_fit_resources(sm):
    names = ["map(sigmoid)", "zip(mul)", "reduce(add)", "sum_practice"]
    check_task("3.3", names, sm)


@pytest.mark.task3_3
@pytest.mark.parametrize("sm", SMS)
def test_elementwise_kernels_decompose_an_index_once_and_divide_in_32_bits(sm):
    """Issue 40: the broadcast zip decomposed each index once per operand, in
    64-bit divisions. Through ``three_positions`` the zip (out and two inputs)
    divides no more often than the map (out and one input): one decomposition
    shared by every operand. And each 64-bit division has a 32-bit twin that
    runs whenever the sizes allow (``kernels.divisions``)."""
    rows = {
        row["name"]: row
        for row in measured_resources("3.3")
        if "error" not in row and tuple(row["cc"]) == SMS[sm]
    }
    map_row, zip_row = rows["map(sigmoid)"], rows["zip(mul)"]
    assert 0 < zip_row["divisions_64"] <= map_row["divisions_64"]
    for name in ("map(sigmoid)", "zip(mul)", "reduce(add)"):
        row = rows[name]
        assert row["divisions_32"] >= row["divisions_64"], (name, row)


def test_divisions_counts_64_and_32_bit_divisions_and_remainders():
    ptx = "div.s64 %rd1; rem.u64 %rd2; div.u32 %r1; rem.s32 %r2; rem.u32 %r3;"
    ptx += " mul.lo.s64 %rd3; div.rn.f64 %fd1;"
    assert kernels.divisions(ptx) == {"divisions_64": 2, "divisions_32": 3}


@pytest.mark.task3_4
@pytest.mark.parametrize("sm", SMS)
def test_matmul_kernels_fit_resources(sm):
    check_task("3.4", ["mm_practice", "matmul"], sm)


@pytest.mark.task3_4
@pytest.mark.parametrize("sm", SMS)
def test_matmul_kernels_stage_their_tiles_in_shared_memory(sm):
    """Task 3.4's point: a block loads each tile from global memory once, into
    ``cuda.shared.array`` tiles, and its threads read the tiles from there. A kernel
    that multiplies straight from global memory computes the right numbers (every
    other test passes) but needs no shared memory at all, which ptxas reports."""
    rows = {
        row["name"]: row
        for row in measured_resources("3.4")
        if "error" not in row and tuple(row["cc"]) == SMS[sm]
    }
    if not rows:  # an unfinished task: its own test reports the stub
        check_task("3.4", ["mm_practice", "matmul"], sm)
    # mm_practice's docstring asks for two PRACTICE_TILE x PRACTICE_TILE tiles of
    # float64 (the size on a GPU: 32, whatever the simulator uses).
    practice = 2 * 32 * 32 * 8
    assert rows["mm_practice"]["shared"] >= practice, (
        f"mm_practice uses {rows['mm_practice']['shared']} bytes of shared memory on "
        f"{sm}; its two tiles of a and b should take {practice}: load them into "
        "cuda.shared.array tiles, syncthreads, then multiply from the tiles"
    )
    assert rows["matmul"]["shared"] > 0, (
        f"the matmul kernel uses no shared memory on {sm}: it reads a and b from "
        "global memory for every product; stage TILE x SIDE tiles of a and "
        "SIDE x TILE tiles of b in cuda.shared.array, as its docstring describes"
    )


@pytest.mark.task3_4
@pytest.mark.parametrize("sm", SMS)
def test_matmul_holds_two_blocks_per_sm_without_spilling(sm):
    """The matmul's 8 x 4 sums per thread fill registers: at the block size it is
    launched with, two blocks must fit one SM (at 256 threads, at most 128
    registers per thread), or half the SM's blocks cannot hide each other's
    memory latency; and no register may spill to local memory, whose every
    access is a trip to DRAM in the innermost loop (``MATMUL_OPTIONS``' launch
    bounds ask the compiler for both)."""
    rows = [
        row
        for row in measured_resources("3.4")
        if row["name"] == "matmul" and tuple(row.get("cc", ())) == SMS[sm]
    ]
    if not rows:  # an unfinished task: its own test reports the stub
        check_task("3.4", ["mm_practice", "matmul"], sm)
    (row,) = rows
    assert (row["spill_stores"], row["spill_loads"], row["stack"]) == (0, 0, 0), row
    need = kernels.registers_per_block(row["registers"], row["threads"])
    assert 2 * need <= kernels.REGISTERS_PER_SM, (
        f"{row['registers']} registers x {row['threads']} threads on {sm}: "
        "fewer than 2 blocks per SM"
    )
    assert (
        kernels.occupancy(row["registers"], row["shared"], row["threads"], SMS[sm])[0]
        >= 2
    )


@pytest.mark.task3_3
def test_every_scalar_function_compiled_into_the_kernels_compiles_for_a_gpu():
    """The simulator runs any Python inside a kernel; a GPU runs what Numba's CUDA
    target compiles. Every function that a backend maps, zips or reduces with
    (Task 0.1's operators among them) is compiled for sm_75 as a device function."""
    require_cuda_tools()
    from module3_fast_ops._cuda_specs import device_functions

    for _, fn, arity in device_functions():
        # An unfinished Task 0.1 operator stops the test here, at its own stub.
        with contextlib.suppress(ArithmeticError, ValueError):
            fn(*[0.5] * arity)
    rows = kernels.report(ccs=[(7, 5)], device=True)
    assert {"sigmoid", "add", "maximum", "_erf"} <= {row["name"] for row in rows}
    refused = {row["name"]: row.get("error", row.get("stub")) for row in rows}
    refused = {name: why for name, why in refused.items() if why}
    assert not refused, refused


# ------------------------------------------- the arithmetic of kindling.kernels
PTXAS_OUTPUT = """\
ptxas info    : Compiling entry function '_matmul' for 'sm_90'
ptxas info    : Function properties for _matmul
    768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 112 registers, used 1 barriers, 16384 bytes smem, 400 bytes cmem[0]
"""


def test_parse_ptxas_reads_registers_shared_and_stack():
    assert kernels.parse_ptxas(PTXAS_OUTPUT) == {
        "registers": 112,
        "shared": 16384,
        "stack": 768,
        "spill_stores": 0,
        "spill_loads": 0,
    }


def test_the_issue_kernel_does_not_fit_a_block_of_1024():
    """112 registers x 1024 threads = 114,688 > 65,536: the launch that failed."""
    row = {"threads": 1024, **kernels.parse_ptxas(PTXAS_OUTPUT)}
    wrong = kernels.problems(row)
    assert any("registers" in reason for reason in wrong)
    assert any("stack" in reason for reason in wrong)
    assert kernels.occupancy(112, 16384, 1024, (9, 0)) == (0, 0.0)
    row["threads"] = 256  # 112 x 256 = 28,672 fits
    assert not any("registers" in reason for reason in kernels.problems(row))


def test_the_table_shows_spills_and_occupancy():
    """``kindling kernels`` prints the spilled bytes (stores and loads) beside the
    registers, and the occupancy, and says NO for a kernel that spills."""
    row = {"name": "matmul", "task": "3.4", "cc": [8, 0], "threads": 256}
    row.update(
        kernels.parse_ptxas(PTXAS_OUTPUT.replace("768 bytes stack", "0 bytes stack"))
    )
    row.update(blocks=2, occupancy=0.25, spill_stores=12, spill_loads=20)
    header, line = kernels.format_rows([row]).splitlines()
    assert header.split()[7:10] == ["spills", "blocks/SM", "occupancy"]
    assert line.split()[7:10] == ["32", "2", "25%"]
    assert "NO: register spills" in line


def test_occupancy_takes_the_tightest_limit():
    # 32 registers x 256 threads: 8 blocks by registers, 8 by threads on sm_90.
    assert kernels.occupancy(32, 0, 256, (9, 0)) == (8, 1.0)
    # 64 registers: registers allow 4 blocks of 256 threads, half the SM.
    assert kernels.occupancy(64, 0, 256, (9, 0)) == (4, 0.5)
    # 40 KiB of shared memory: sm_75's 64 KiB hold one block.
    assert kernels.occupancy(16, 40 * 1024, 128, (7, 5)) == (1, 0.125)
    # Registers are given per warp in units of 256: 33 x 32 = 1056 -> 1280.
    assert kernels.registers_per_block(33, 64) == 2 * 1280


# ------------------------------------- where NVIDIA's compilers are not installed
def test_without_the_compilers_a_resource_check_skips_and_says_how_to_get_them(
    monkeypatch,
):
    from . import kernels as helpers

    monkeypatch.delenv(helpers.REQUIRE_TOOLS, raising=False)
    monkeypatch.setattr(kernels, "find_ptxas", lambda: None)
    assert kernels.missing_tools() is not None
    with pytest.raises(pytest.skip.Exception, match=r'pip install -e "\.\[cuda\]"'):
        helpers.require_cuda_tools()


def test_ci_turns_a_missing_compiler_into_a_failure(monkeypatch):
    from . import kernels as helpers

    monkeypatch.setenv(helpers.REQUIRE_TOOLS, "1")
    monkeypatch.setattr(kernels, "missing_tools", lambda: "ptxas is not installed")
    with pytest.raises(pytest.fail.Exception, match="ptxas is not installed"):
        helpers.require_cuda_tools()
    monkeypatch.setattr(kernels, "missing_tools", lambda: None)
    helpers.require_cuda_tools()  # tools present: nothing to say


def test_ptxas_is_found_in_the_windows_wheel_by_its_exe_name(tmp_path, monkeypatch):
    import importlib.util
    import types

    wheel = tmp_path / "nvidia" / "cuda_nvcc" / "bin"
    wheel.mkdir(parents=True)
    (wheel / "ptxas.exe").write_bytes(b"MZ")
    spec = types.SimpleNamespace(submodule_search_locations=[str(tmp_path / "nvidia")])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: spec)
    assert kernels.find_ptxas() == str(wheel / "ptxas.exe")


def test_a_ptxas_without_nvidias_libraries_is_not_enough(monkeypatch):
    """A system ptxas on the PATH, but no NVRTC: the check must skip, not fail."""
    pathfinder = pytest.importorskip("cuda.pathfinder")

    def not_found(name):
        if name == "nvrtc":
            raise OSError('Failure finding "libnvrtc.so.12"')
        return None

    monkeypatch.setattr(kernels, "find_ptxas", lambda: "/usr/local/bin/ptxas")
    monkeypatch.setattr(pathfinder, "load_nvidia_dynamic_lib", not_found)
    why = kernels.missing_tools()
    assert why is not None and "nvrtc" in why and ".[cuda]" in why


def test_a_kernel_with_another_argument_list_is_named_with_both_lists():
    """The resource check compiles each kernel with the argument types it is
    launched with (``kernel_specs``); a student kernel that takes its arguments
    another way is told so, with both lists, instead of a Numba typing error."""
    from kindling.kernels import argument_mismatch
    from module3_fast_ops import cuda_ops
    from module3_fast_ops._cuda_specs import kernel_specs

    spec = next(s for s in kernel_specs(cuda_ops) if s.name == "map(sigmoid)")

    def _map(out, out_shape, out_strides, in_storage, in_shape, in_strides):
        pass

    message = argument_mismatch(_map, spec.argtypes)
    assert message is not None
    assert "_map(out, out_shape, out_strides, in_storage" in message
    assert "takes 6 argument(s)" in message and "launched with 5" in message

    def _map_as_documented(out, size, same, packed, in_storage):
        pass

    assert argument_mismatch(_map_as_documented, spec.argtypes) is None
