"""`kindling mutants`: mutation testing of the course's own tests."""

import textwrap

import pytest

from kindling_staff.course_mutants import (
    killed_before,
    verdicts_before,
    load_equivalents,
    main,
    mutants_of,
    run_task_mutants,
    sample,
    score,
)
from kindling.registry import load_registry

from .tiny_project import write_tiny_project

LIBRARY = '''
def clip(x, low):
    """Not a mutant: the docstring."""
    # BEGIN SOLUTION 0.1
    if x < low:
        x = low + 0
    return max(x, low)
    # END SOLUTION


def untouched(x):
    return x < 1
'''

TESTS = """
import pytest

from lib import clip


@pytest.mark.task0_1
def test_clip():
    assert clip(-2, 0) == 0
    assert clip(3, 0) == 3
"""


@pytest.fixture
def tiny(tmp_path):
    write_tiny_project(tmp_path, LIBRARY, TESTS, ("task0_1",))
    return tmp_path


def _tiny_mutants(tmp_path, library, tests, *ids):
    """The tiny project of ``library`` and ``tests`` in ``tmp_path``, and its
    mutants named ``ids`` (in that order)."""
    write_tiny_project(tmp_path, library, tests, ("task0_1",))
    mutants = mutants_of(
        (tmp_path / "lib.py").read_text(), "lib.py", "0.1", load_registry()
    )
    by_id = {m.id: m for m in mutants}
    assert set(ids) <= set(by_id), sorted(by_id)
    return [by_id[i] for i in ids]


def test_mutants_are_made_inside_the_tasks_regions_only():
    text = textwrap.dedent(LIBRARY)
    ids = {m.id for m in mutants_of(text, "lib.py", "0.1", load_registry())}
    assert ids == {
        "lib.py:clip:cmp:<-><=",
        "lib.py:clip:op:+->-",
        "lib.py:clip:const:0->1",
        "lib.py:clip:del:x = low + 0->pass",
        "lib.py:clip:args:x, low->low, x",
    }
    # Each applies exactly where the tree says, and nothing else changes.
    for mutant in mutants_of(text, "lib.py", "0.1", load_registry()):
        changed = mutant.apply(text)
        assert text[mutant.start : mutant.end] == mutant.old
        assert changed[: mutant.start] == text[: mutant.start]
        assert changed[mutant.start + len(mutant.new) :] == text[mutant.end :]
    assert mutants_of(text, "lib.py", "0.3", load_registry()) == []


def test_survivors_are_reported_and_equivalents_are_not_judged(tiny, capsys):
    registry = load_registry()
    mutants = mutants_of((tiny / "lib.py").read_text(), "lib.py", "0.1", registry)
    outcomes = run_task_mutants(
        tiny,
        "0.1",
        mutants,
        registry,
        {"lib.py:clip:args:x, low->low, x": "max is symmetric"},
        echo=lambda line: None,
    )
    verdicts = {o.mutant.id: o.verdict for o in outcomes}
    assert verdicts == {
        # max(x, low) repairs every one of these: the test cannot see them
        "lib.py:clip:cmp:<-><=": "survived",
        "lib.py:clip:op:+->-": "survived",
        "lib.py:clip:const:0->1": "killed",  # clip(-2, 0) == 1
        "lib.py:clip:del:x = low + 0->pass": "survived",
        "lib.py:clip:args:x, low->low, x": "equivalent",
    }
    assert score(outcomes) == (1, 4)
    # The source itself is untouched.
    assert "x = low + 0" in (tiny / "lib.py").read_text()
    assert main(tiny, "0.1", echo=lambda line: None) == 1


def test_equivalents_are_data_read_without_importing(tmp_path):
    folder = tmp_path / "tests" / "mutants"
    folder.mkdir(parents=True)
    (folder / "module0.py").write_text(
        "# kindling: instructor-only\nimport sys\nsys.exit(3)\n"
        'EQUIVALENT = {"a.py:f:op:+->-": "x + 0 == x - 0"}\n'
    )
    assert load_equivalents(tmp_path) == {"a.py:f:op:+->-": "x + 0 == x - 0"}


def test_a_sample_is_the_same_on_every_run():
    items = list(range(50))
    assert sample(items, 5, seed=1) == sample(items, 5, seed=1)
    assert len(sample(items, 5)) == 5 and sample(items, 0) == items


def test_every_recorded_equivalent_names_a_mutant_of_the_course():
    from pathlib import Path

    from kindling.regions import find_regions

    root = Path(__file__).resolve().parents[2]
    registry = load_registry()
    equivalents = load_equivalents(root)
    assert equivalents, "tests/mutants/ records the equivalent mutants"
    ids = set()
    for file in {key.split(":", 1)[0] for key in equivalents}:
        text = (root / file).read_text(encoding="utf-8")
        for task in {r.task for r in find_regions(text, file, registry)}:
            ids |= {m.id for m in mutants_of(text, file, task, registry)}
    stale = sorted(set(equivalents) - ids)
    assert stale == [], "recorded as equivalent, but no longer a mutant: " + str(stale)
    assert all(len(reason) > 20 for reason in equivalents.values())


@pytest.mark.long
def test_a_sample_of_the_course_mutants_is_killed():
    # CI's sample: two of Task 0.1's mutants, by a fixed seed, run for real. The
    # whole list is `kindling mutants` (minutes a task).
    from pathlib import Path

    from kindling_staff.course_mutants import task_mutants

    root = Path(__file__).resolve().parents[2]
    registry = load_registry()
    equivalents = load_equivalents(root)
    candidates = [
        m for m in task_mutants(root, "0.1", registry) if m.id not in equivalents
    ]
    chosen = sample(candidates, 2, seed=0)
    outcomes = run_task_mutants(
        root, "0.1", chosen, registry, equivalents, echo=lambda line: None
    )
    assert [o.verdict for o in outcomes] == ["killed", "killed"], [
        (o.mutant.id, o.verdict) for o in outcomes
    ]


def test_a_survivor_listed_as_later_is_run_under_the_later_tasks_marker(tmp_path):
    # clip's second line is only checked by a Task 0.3 test: Task 0.1's tests miss
    # the mutant, Task 0.3's kill it, and only that run makes it count as killed.
    write_tiny_project(
        tmp_path,
        "def pair(x):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    return x, x * 3\n"
        "    # END SOLUTION\n",
        "import pytest\n\nfrom lib import pair\n\n\n"
        "@pytest.mark.task0_1\ndef test_first():\n    assert pair(2)[0] == 2\n\n\n"
        "@pytest.mark.task0_3\ndef test_second():\n    assert pair(2)[1] == 6\n",
        ("task0_1", "task0_3"),
    )
    registry = load_registry()
    text = (tmp_path / "lib.py").read_text()
    (mutant,) = [
        m for m in mutants_of(text, "lib.py", "0.1", registry) if m.kind == "op"
    ]
    quiet = dict(echo=lambda line: None)
    alone = run_task_mutants(tmp_path, "0.1", [mutant], registry, **quiet)
    assert [o.verdict for o in alone] == ["survived"]
    later = run_task_mutants(
        tmp_path, "0.1", [mutant], registry, later={mutant.id: "0.3"}, **quiet
    )
    assert [o.verdict for o in later] == ["killed-by-0.3"]
    assert score(later) == (1, 1)


def test_a_mutant_that_crashes_the_tests_counts_as_killed(tmp_path):
    """A mutated kernel that writes outside its arrays makes the C runtime abort
    the test process (a signal, no exit code): the tests did not pass."""
    library = (
        "import os\n\n\ndef guard(x):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    if x > 99 + 1:\n"
        "        os.abort()\n"
        "    return x\n"
        "    # END SOLUTION\n"
    )
    tests = (
        "import pytest\n\nfrom lib import guard\n\n\n"
        "@pytest.mark.task0_1\ndef test_guard():\n    assert guard(100 - 1) == 99\n"
    )
    chosen = _tiny_mutants(tmp_path, library, tests, "lib.py:guard:op:+->-")  # x > 98
    registry = load_registry()
    outcomes = run_task_mutants(tmp_path, "0.1", chosen, registry, {}, lambda _: None)
    assert [o.verdict for o in outcomes] == ["killed-crash"]
    assert score(outcomes) == (1, 1)


def test_the_tests_that_killed_the_latest_mutants_run_first(tmp_path):
    """``test_late`` kills every mutant of ``scale``; ``test_early`` never does.
    After the first kill, a mutant runs ``test_late`` alone first (and is killed
    there), so ``test_early`` runs only for the first mutant, and for a survivor,
    which then runs the whole marker."""
    log = tmp_path / "ran.txt"
    library = (
        "def scale(x):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    y = x * 2\n"
        "    return y + 0 * x\n"
        "    # END SOLUTION\n"
    )
    tests = (
        "import pytest\n\nfrom lib import scale\n\n\n"
        "def _ran(name):\n"
        f"    with open({str(log)!r}, 'a') as f:\n"
        "        f.write(name + '\\n')\n\n\n"
        "@pytest.mark.task0_1\ndef test_early():\n    _ran('early')\n\n\n"
        "@pytest.mark.task0_1\ndef test_late():\n"
        "    _ran('late')\n    assert scale(3) == 6\n"
    )
    (tmp_path / "project").mkdir()
    write_tiny_project(tmp_path / "project", library, tests, ("task0_1",))
    registry = load_registry()
    text = (tmp_path / "project" / "lib.py").read_text()
    mutants = mutants_of(text, "lib.py", "0.1", registry)
    by_id = {m.id: m for m in mutants}
    chosen = [
        by_id["lib.py:scale:op:*->/"],  # killed by test_late
        by_id["lib.py:scale:const:2->3"],  # killed by test_late, which runs first
        by_id["lib.py:scale:op:+->-"],  # y - 0 * x: survives
    ]
    outcomes = run_task_mutants(
        tmp_path / "project", "0.1", chosen, registry, {}, lambda _: None
    )
    assert [o.verdict for o in outcomes] == ["killed", "killed", "survived"]
    runs = log.read_text().split()
    # the unmutated run, the first mutant, the second (test_late alone), the
    # survivor (test_late alone, then the whole marker)
    assert runs == ["early", "late"] * 2 + ["late"] + ["late", "early", "late"]


def test_resume_takes_the_kills_of_an_earlier_run_and_runs_the_rest(tiny, tmp_path):
    """``--resume LOG``: a mutant that LOG reports killed is not run again; one it
    reports surviving is (the tests may have grown since)."""
    registry = load_registry()
    mutants = mutants_of((tiny / "lib.py").read_text(), "lib.py", "0.1", registry)
    by_id = {m.id: m for m in mutants}
    chosen = [by_id["lib.py:clip:cmp:<-><="], by_id["lib.py:clip:op:+->-"]]
    log = tmp_path / "earlier.txt"
    log.write_text(
        "task 0.1: 2 mutant(s)\n"
        "killed     lib.py:clip:cmp:<-><= (4 s)\n"
        "SURVIVED   lib.py:clip:op:+->- (3 s)\n"
    )
    known = killed_before([log])
    assert known == {"lib.py:clip:cmp:<-><=": "killed"}
    outcomes = run_task_mutants(
        tiny, "0.1", chosen, registry, {}, lambda _: None, known=known
    )
    # the first is the earlier run's kill (the tests themselves cannot see it);
    # the second ran again, and still survives
    assert [(o.verdict, o.detail) for o in outcomes][0] == ("killed", "earlier run")
    assert outcomes[1].verdict == "survived" and outcomes[1].seconds > 0


def test_a_kill_stays_a_kill_and_a_later_log_replaces_any_other_verdict(tmp_path):
    """Logs are read oldest first: a survivor run again after a new test takes
    the new verdict; a kill is never taken back by a later (flaky) survival."""
    first, second = tmp_path / "first.log", tmp_path / "second.log"
    first.write_text(
        "task 0.1: 3 mutant(s)\n"
        "killed     lib.py:a:op:+->- (4 s)\n"
        "SURVIVED   lib.py:b:op:+->- (3 s)\n"
        "SURVIVED   lib.py:c:cmp:<-><= (3 s)\n"
        "killed-by-0.3 lib.py:d:const:0->1 (9 s)\n"
    )
    second.write_text(
        "SURVIVED   lib.py:a:op:+->- (2 s)\n"
        "TIMEOUT    lib.py:b:op:+->- (150 s)\n"
        "killed-crash lib.py:c:cmp:<-><= (1 s)\n"
        "equivalent lib.py:e:op:+->- (0 s)\n"  # records say that, not logs
    )
    assert verdicts_before([first, second]) == {
        "lib.py:a:op:+->-": "killed",
        "lib.py:b:op:+->-": "timeout",
        "lib.py:c:cmp:<-><=": "killed-crash",
        "lib.py:d:const:0->1": "killed-by-0.3",
    }
    assert verdicts_before([second, first])["lib.py:b:op:+->-"] == "survived"
    assert killed_before([first, second]) == {
        "lib.py:a:op:+->-": "killed",
        "lib.py:c:cmp:<-><=": "killed-crash",
        "lib.py:d:const:0->1": "killed-by-0.3",
    }


def test_tally_runs_nothing_and_counts_what_the_logs_and_records_say(tiny, capsys):
    """``--tally``: the table row from the logs and ``tests/mutants/``, with each
    mutant still to judge listed (survivors, time-outs, mutants no log has)."""
    (tiny / "tests" / "mutants").mkdir(parents=True, exist_ok=True)
    (tiny / "tests" / "mutants" / "tiny.py").write_text(
        'EQUIVALENT = {"lib.py:clip:args:x, low->low, x": "max is symmetric"}\n'
    )
    log = tiny / "earlier.log"
    log.write_text(
        "killed     lib.py:clip:const:0->1 (4 s)\n"
        "SURVIVED   lib.py:clip:op:+->- (3 s)\n"
        "TIMEOUT    lib.py:clip:cmp:<-><= (60 s)\n"
    )
    source = (tiny / "lib.py").read_text()
    assert main(tiny, "0.1", resume=[log], tally=True) == 1  # a survivor
    printed = capsys.readouterr().out
    assert (tiny / "lib.py").read_text() == source
    assert "SURVIVED   lib.py:clip:op:+->-" in printed
    assert "TIMEOUT    lib.py:clip:cmp:<-><=" in printed
    assert "NOT RUN    lib.py:clip:del:x = low + 0->pass" in printed
    assert "lib.py:clip:const:0->1" not in printed  # killed: nothing left to do
    assert "task 0.1: 1 mutant(s) not yet run" in printed
    # 5 mutants: 1 killed, 1 survived, 1 equivalent, 1 time-out (1 not run)
    assert "| 0.1 | 5 | 1 (0) | 1 | 1 | 1 | 50% |" in printed


def test_the_time_limit_can_be_set_for_a_loaded_machine(tmp_path):
    """``--timeout``: a mutant whose run takes longer than the limit is a time-out
    (neither killed nor surviving). With the default limit (at least 20 s) this
    mutant, which only sleeps 3 s, would survive."""
    library = (
        "import time\n\n\ndef wait(x):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    time.sleep(x * 0)\n"
        "    return x\n"
        "    # END SOLUTION\n"
    )
    tests = (
        "import pytest\n\nfrom lib import wait\n\n\n"
        "@pytest.mark.task0_1\ndef test_wait():\n    assert wait(3) == 3 * 0 + 3\n"
    )
    chosen = _tiny_mutants(tmp_path, library, tests, "lib.py:wait:const:0->1")
    registry = load_registry()  # the mutant sleeps 3 s
    outcomes = run_task_mutants(
        tmp_path, "0.1", chosen, registry, {}, lambda _: None, timeout=1.0
    )
    assert [o.verdict for o in outcomes] == ["timeout"]
    assert score(outcomes) == (0, 0)


@pytest.mark.long
def test_a_run_that_falls_silent_is_stopped_as_a_time_out(tmp_path):
    """A mutant whose loop never ends hangs one test: pytest then prints nothing.
    The run is stopped after ``stall`` seconds of silence, long before the time
    limit, while a run whose tests keep printing goes on past ``stall``."""
    library = (
        "import time\n\n\ndef count(n):\n"
        "    # BEGIN SOLUTION 0.1\n"
        "    k = 0\n"
        "    while k < n:\n"
        "        k += 1\n"
        "    return k\n"
        "    # END SOLUTION\n"
    )
    steady = "".join(
        f"@pytest.mark.task0_1\ndef test_{k}():\n    time.sleep(1.0)\n\n\n"
        for k in range(8)
    )
    tests = (
        "import time\n\nimport pytest\n\nfrom lib import count\n\n\n"
        + steady
        + "@pytest.mark.task0_1\ndef test_count():\n    assert count(3) == 3\n"
    )
    loops, wrong = _tiny_mutants(
        tmp_path,
        library,
        tests,
        "lib.py:count:op:+->-",  # k -= 1: never reaches n
        "lib.py:count:cmp:<-><=",  # one too many: killed, after 8 s
    )
    registry = load_registry()
    outcomes = run_task_mutants(
        tmp_path,
        "0.1",
        [loops, wrong],
        registry,
        {},
        lambda _: None,
        timeout=120.0,
        stall=6.0,  # over pytest's start on a loaded machine, under the 8 s of marks
    )
    assert [o.verdict for o in outcomes] == ["timeout", "killed"]
    assert outcomes[0].seconds < 60  # stopped by the silence, not the limit
