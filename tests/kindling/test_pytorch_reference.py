"""The PyTorch comparisons skip on a student's install, saying how to run them,
and fail where the instructors' CI requires PyTorch (``KINDLING_REQUIRE_TORCH``)."""

from __future__ import annotations

import sys

import pytest

from tests.pytorch_reference import REQUIRE_TORCH, import_torch


def test_without_torch_a_comparison_skips_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch: ImportError
    monkeypatch.delenv(REQUIRE_TORCH, raising=False)
    with pytest.raises(pytest.skip.Exception, match="not installed.*pip install torch"):
        import_torch()


def test_where_ci_requires_torch_a_missing_torch_fails(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setenv(REQUIRE_TORCH, "1")
    with pytest.raises(pytest.fail.Exception, match="KINDLING_REQUIRE_TORCH=1"):
        import_torch()
