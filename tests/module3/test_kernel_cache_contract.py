"""The contract between ``module3_fast_ops/kernel_cache.py`` and Numba's private
caching API.

``kernel_cache`` subclasses classes of ``numba.core.caching`` that Numba does not
document (its locator, cache implementation, index file and function cache),
overrides ``_index_key`` and fills in the attributes that ``Cache.__init__`` would
set. ``pyproject.toml`` bounds Numba from above (``numba<0.69``: the newest release
checked); these tests are what to run before raising that bound. Each one names the
piece of Numba that moved, so a new release that breaks the cache fails here, loudly,
instead of silently compiling every kernel again (or, worse, loading a stale one).

They belong to no task: they check given code.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path
from typing import Any, Callable, List, Set

import numba
import pytest
from numba import njit
from numba.core import caching, dispatcher

from module3_fast_ops import kernel_cache

ROOT = Path(__file__).resolve().parents[2]


def _broken(what: str) -> str:
    return (
        f"numba {numba.__version__} changed {what}, which "
        f"module3_fast_ops/kernel_cache.py relies on: keep numba below this release "
        f"in pyproject.toml, or update kernel_cache.py (see docs/DESIGN.md, "
        f"'Backends')"
    )


def _parameters(fn: Callable[..., Any]) -> List[str]:
    return list(inspect.signature(fn).parameters)


def _self_attributes(fn: Callable[..., Any]) -> Set[str]:
    """The names ``self.X`` that the source of method ``fn`` reads or calls."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def _plus_one(x: float) -> float:
    return x + 1.0


@pytest.fixture
def cache(tmp_path: Path) -> kernel_cache.KernelCache:
    return kernel_cache.KernelCache(
        _plus_one, "contract probe", ("probe", "stamp"), {"nopython": True}
    )


def test_the_private_classes_are_still_there() -> None:
    for name in (
        "FunctionCache",
        "CompileResultCacheImpl",
        "IndexDataCacheFile",
        "_CacheLocator",
    ):
        assert hasattr(caching, name), _broken(f"numba.core.caching.{name} (gone)")


def test_the_locator_methods_overridden_are_the_ones_numba_calls() -> None:
    for name in (
        "ensure_cache_path",
        "get_cache_path",
        "get_source_stamp",
        "get_disambiguator",
    ):
        method = getattr(caching._CacheLocator, name, None)
        assert method is not None, _broken(f"_CacheLocator.{name} (gone)")
        assert _parameters(method) == ["self"], _broken(f"_CacheLocator.{name}")


def test_the_cache_impl_names_its_files_as_before(cache: Any) -> None:
    impl = caching.CompileResultCacheImpl
    assert _parameters(impl.get_filename_base) == [
        "self",
        "fullname",
        "abiflags",
    ], _broken("CacheImpl.get_filename_base's arguments")
    # kernel_cache._Impl skips CacheImpl.__init__ and sets _lineno, _locator and
    # _filename_base itself: the properties must read exactly those.
    assert cache._impl.locator is cache._impl._locator, _broken("CacheImpl.locator")
    assert cache._impl.filename_base == cache._impl._filename_base, _broken(
        "CacheImpl.filename_base"
    )
    assert cache._impl.filename_base.startswith(
        "test_kernel_cache_contract._plus_one-"
    ), _broken("CacheImpl.get_filename_base's file names")


def test_the_index_file_keeps_its_constructor_and_helpers(cache: Any) -> None:
    index = caching.IndexDataCacheFile
    assert _parameters(index.__init__) == [
        "self",
        "cache_path",
        "filename_base",
        "source_stamp",
    ], _broken("IndexDataCacheFile.__init__'s arguments")
    for name in ("_load_index", "_save_index", "_save_data", "load", "save"):
        assert callable(getattr(index, name, None)), _broken(
            f"IndexDataCacheFile.{name} (gone)"
        )
    assert _parameters(index._save_index) == ["self", "overloads"], _broken(
        "IndexDataCacheFile._save_index's arguments"
    )
    assert _parameters(index._save_data) == ["self", "name", "data"], _broken(
        "IndexDataCacheFile._save_data's arguments"
    )
    # _DataFiles.save formats this pattern with number=...
    pattern = cache._cache_file._data_name_pattern
    assert pattern.format(number=7).endswith(".7.nbc"), _broken(
        "IndexDataCacheFile._data_name_pattern"
    )


def test_the_function_cache_methods_overridden_keep_their_signatures() -> None:
    cls = caching.FunctionCache
    expected = {
        "_index_key": ["self", "sig", "codegen"],
        "load_overload": ["self", "sig", "target_context"],
        "save_overload": ["self", "sig", "data"],
    }
    for name, parameters in expected.items():
        method = getattr(cls, name, None)
        assert method is not None, _broken(f"Cache.{name} (gone)")
        assert _parameters(method) == parameters, _broken(f"Cache.{name}'s arguments")


def test_numbas_cache_reads_only_attributes_kernel_cache_sets(cache: Any) -> None:
    """KernelCache never calls Cache.__init__; the methods it inherits must read
    nothing that only Cache.__init__ would set."""
    for name in ("load_overload", "_load_overload", "save_overload", "_save_overload"):
        method = getattr(caching.Cache, name)
        missing = {a for a in _self_attributes(method) if not hasattr(cache, a)}
        assert missing == set(), _broken(f"Cache.{name}, which now reads {missing}")


def test_a_cache_not_enabled_saves_nothing() -> None:
    """KernelCache.save_overload passes every save on to Numba's, which must
    return at once for a cache that is not enabled (a kernel without a key)."""
    cache = kernel_cache.KernelCache(_plus_one, "contract probe", None)
    assert not cache._enabled
    # Past that check, Numba would ask this stand-in result whether it is cachable.
    caching.Cache.save_overload(cache, None, object())


def test_dispatchers_still_consult_the_cache_attribute() -> None:
    kernel = njit(_plus_one)
    for name in ("_cache", "targetoptions", "overloads", "py_func", "compile"):
        assert hasattr(kernel, name), _broken(f"Dispatcher.{name} (gone)")
    source = inspect.getsource(dispatcher.Dispatcher.compile)
    for call in ("self._cache.load_overload(", "self._cache.save_overload("):
        assert call in source, _broken(f"Dispatcher.compile (no {call}...))")


def test_a_persisted_kernel_is_compiled_once_and_loaded_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end-to-end check of the above in one process: a kernel given the cache
    writes its index and data files, and a second dispatcher of the same function
    loads them instead of compiling."""
    monkeypatch.setenv("KINDLING_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KINDLING_QUIET", "1")
    first = kernel_cache.persist(njit(_plus_one), "contract probe")
    assert first(1.0) == 2.0
    assert list(tmp_path.rglob("*.nbi")) and list(tmp_path.rglob("*.nbc")), _broken(
        "how the cache writes its files"
    )
    second = kernel_cache.persist(njit(_plus_one), "contract probe")
    assert second(2.0) == 3.0
    assert second.stats.cache_hits, _broken("how the cache loads a saved kernel")
