"""``kindling grade --expect``: what CI's edition checks accept."""

from types import SimpleNamespace

from kindling.cli import _as_expected


def graded(status: str, points: float, max_points: float = 10) -> SimpleNamespace:
    return SimpleNamespace(status=status, points=points, max_points=max_points)


def test_a_fresh_edition_is_todo_even_where_an_earlier_stub_stops_a_task():
    assert _as_expected(graded("todo", 0), "todo")
    assert _as_expected(graded("blocked-by 2.1", 0), "todo")
    assert not _as_expected(graded("failing", 0), "todo")
    assert not _as_expected(graded("done", 10), "todo")
    assert not _as_expected(graded("todo", 2), "todo")  # points for a stub: wrong


def test_done_means_full_points():
    assert _as_expected(graded("done", 10), "done")
    assert not _as_expected(graded("done", 9), "done")
    assert not _as_expected(graded("blocked-by 2.1", 0), "done")
