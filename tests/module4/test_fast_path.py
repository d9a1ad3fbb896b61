"""Module 4's one fast-path mechanism (``module4_networks.engine.fast_path``): a
verdict per signature, checked once, bounded, stepping aside while the students'
code runs for a check, with counters tests read. Given code: no task marker."""

from __future__ import annotations

import numpy as np
import pytest

from module4_networks import _conv_gemm, _matmul_blas, _pool_fast, _recurrent_fast
from module4_networks.engine import FAST_PATHS, FastPath, fast_path, probe_gradient
from module4_networks.engine import ran_backward


def test_a_signature_is_checked_once_and_its_verdict_counts_each_call():
    path = FastPath("t", "student()")
    checks = []

    def check(verdict):
        def run():
            checks.append(path.checking)
            return verdict

        return run

    assert path.verdict("a", check(True)) is True
    assert path.verdict("a", check(False)) is True  # remembered, not re-checked
    assert path.verdict("b", check(False)) is False
    assert path.verdict("c", check((2, 3))) == (2, 3)  # a verdict may carry data
    assert checks == [True, True, True]  # the flag is up while a check runs
    assert not path.checking
    assert (path.signatures, path.agreed, path.differed) == (3, 2, 1)
    assert (path.served, path.declined) == (3, 1)
    assert path.outcomes == (True, False, (2, 3))
    assert "stands in for student()" in repr(path)


def test_past_the_cap_a_signature_is_checked_every_time():
    path = FastPath("t", "student()", cap=2)
    count = [0]

    def check():
        count[0] += 1
        return True

    for key in ("a", "b", "c", "c", "a"):
        path.verdict(key, check)
    assert count[0] == 4 and path.signatures == 2


def test_a_failing_check_stores_nothing_and_lowers_the_flag():
    path = FastPath("t", "student()")

    def stub():
        raise NotImplementedError("Task 9.9: implement student")

    with pytest.raises(NotImplementedError, match="Task 9.9"):
        path.verdict("a", stub)
    assert path.signatures == 0 and not path.checking


def test_off_restores_what_it_changes_and_reset_forgets():
    path = FastPath("t", "student()")
    path.verdict("a", lambda: True)
    with path.off():
        assert path.checking
    assert not path.checking and path.outcomes == (True,) and path.served == 1
    path.reset()
    assert (path.signatures, path.served, path.declined) == (0, 0, 0)


def test_every_fast_path_is_registered_once_by_name():
    paths = (_conv_gemm, _matmul_blas, _pool_fast, _recurrent_fast)
    assert {m.PATH.name for m in paths} <= set(FAST_PATHS)
    for name, path in FAST_PATHS.items():
        assert path.name == name and path.student
    with pytest.raises(ValueError, match="already registered"):
        fast_path("matmul", "again")


def test_the_probe_gradient_does_not_move_the_seeded_stream():
    np.random.seed(5)
    before = np.random.random()
    np.random.seed(5)
    g = probe_gradient((2, 3))
    assert np.random.random() == before
    np.testing.assert_array_equal(g, np.random.default_rng(0).standard_normal((2, 3)))


def test_a_backward_that_raises_declines_instead_of_raising():
    class Out:
        def backward(self, grad):
            raise NotImplementedError("Task 4.4: implement backward")

    class Fine:
        got = None

        def backward(self, grad):
            Fine.got = grad

    assert ran_backward(Out(), 1.0) is False
    assert ran_backward(Fine(), 2.0) is True and Fine.got == 2.0
