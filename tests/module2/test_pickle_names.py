"""Pickles name the functions that rebuild a dtype, a backend and a tensor by
module and name; those written before the engine moved into
``module2_tensors/engine/`` still load. These tests belong to no task: they
check given code."""

import pickle

import module2_tensors as kt


def _global_call(module: str, name: str, argument: str) -> bytes:
    """A protocol-0 pickle of ``module.name(argument)``, as pickle writes for an
    object whose ``__reduce__`` returns ``(module.name, (argument,))``."""
    return f"c{module}\n{name}\n(V{argument}\ntR.".encode()


def test_a_dtype_pickled_before_the_engine_moved_loads():
    data = _global_call("module2_tensors._dtype", "_by_name", "float32")
    assert pickle.loads(data) is kt.float32


def test_a_backend_pickled_before_the_engine_moved_loads():
    for module in ("module2_tensors._device", "module2_tensors.serialization"):
        data = _global_call(module, "backend_named", "simple")
        assert pickle.loads(data) is kt.SimpleBackend


def test_dtypes_and_backends_pickle_and_load_as_themselves():
    for value in (kt.float32, kt.int64, kt.SimpleBackend):
        assert pickle.loads(pickle.dumps(value)) is value
