"""Points from values checked outside the sandbox (``kindling/grade_values.py``).

For a probed task, the sandbox sends out only values (the student's functions on
inputs drawn from this run's seed) and the grader compares them with the
reference's in its own process: a forged pytest report, a patched Hypothesis or a
rewritten assertion earns nothing, because none of them changes a value. The
end-to-end tests grade real submissions against the instructor source (which holds
the reference and the probes) on the cheap Module 0 tasks and on the training
tasks (whose values are trajectories of a few steps); they need bubblewrap, as the
grader itself does. The channel's limits are checked on the parser itself.
"""

import json
import math
from pathlib import Path

import pytest

from kindling.grade import grade
from kindling.grade_values import (
    CASE_LIMIT,
    LINE_BYTES,
    VALUES_BYTES,
    ValueStream,
    Values,
    compare,
    encode,
    exception_name,
    probed_tasks,
    same,
)
from kindling_staff.release import release
from kindling.sandbox import probe, why_not
from tests.kindling.editions import FORGE_REPORTS, reference, submission

ROOT = Path(__file__).resolve().parents[2]
OPERATORS = "module0_fundamentals/operators.py"

needs_sandbox = pytest.mark.skipif(probe() is None, reason=f"no sandbox: {why_not()}")


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("values") / "edition"
    release(ROOT, out)
    return out


def by_id(report) -> dict:
    return {t.id: t for t in report.tasks}


# -- end to end ------------------------------------------------------------------


@needs_sandbox
def test_the_reference_earns_full_marks_with_every_value_checked(monkeypatch):
    monkeypatch.setenv("KINDLING_VALUES_SEED", "1234")
    report = grade(ROOT, source=ROOT, tasks="0.1,0.3")
    for task in report.tasks:
        values = task.details["values"]
        assert task.status == "done" and task.points == task.max_points, task
        assert values["checked"] > 20 and values["matched"] == values["checked"]
    assert report.values_seed == 1234
    assert "values checked outside the sandbox for Tasks 0.1, 0.3" in report.sandbox


@needs_sandbox
def test_a_fresh_edition_earns_nothing(edition, tmp_path):
    student = submission(edition, tmp_path, {})
    report = grade(student, source=ROOT, tasks="0.1,0.3")
    assert report.score == 0
    assert {t.status for t in report.tasks} == {"todo"}


@needs_sandbox
def test_forged_pass_reports_earn_nothing_on_a_probed_task(edition, tmp_path):
    """Stubs and a forger of every pytest report: the session
    says every test passed, and the values say the functions are stubs."""
    attack = (edition / OPERATORS).read_text() + FORGE_REPORTS
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert task.passed == task.total  # the forged session: all "passed"
    assert task.points == 0 and task.status == "failing", task
    values = task.details["values"]
    assert values["matched"] == 0 and values["checked"] > 20
    assert "values checked outside the sandbox" in task.message


# A log_back wrong only far from 1 (x >= 20), and Hypothesis's engine patched to
# try one example per test: the attack that took Task 0.1 from 0/10 to 10/10.
PATCH_HYPOTHESIS = """

_right_log_back = log_back


def log_back(x, d):
    if x >= 20:
        return d * x
    return _right_log_back(x, d)


from hypothesis.internal.conjecture import engine as _engine  # noqa: E402

_init = _engine.ConjectureRunner.__init__


def _one_example(self, *args, settings=None, **kwargs):
    if settings is not None:
        import hypothesis

        settings = hypothesis.settings(settings, max_examples=1)
    _init(self, *args, settings=settings, **kwargs)


_engine.ConjectureRunner.__init__ = _one_example
"""


@needs_sandbox
def test_a_patched_hypothesis_earns_nothing_on_a_probed_task(edition, tmp_path):
    attack = reference(OPERATORS) + PATCH_HYPOTHESIS
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert task.points == 0 and task.status != "done", task
    wrong = task.details["values"]["wrong"]
    assert wrong and all(name.startswith("log_back(large") for name in wrong), wrong


WRONG_SIGN = """

_right_inv_back = inv_back


def inv_back(x, d):  # the sign is wrong for negative x
    return _right_inv_back(x, d) if x > 0 else -_right_inv_back(x, d)
"""


@needs_sandbox
def test_a_planted_bug_costs_points_in_proportion_to_its_wrong_values(
    edition, tmp_path
):
    """An inv_back wrong for negative x: with --partial, most of the points, and
    every wrong value is inv_back's."""
    buggy = reference(OPERATORS) + WRONG_SIGN
    student = submission(edition, tmp_path, {OPERATORS: buggy})
    report = grade(student, source=ROOT, tasks="0.1", partial=True)
    (task,) = report.tasks
    assert 0 < task.points < task.max_points, task
    wrong = task.details["values"]["wrong"]
    assert wrong and all(name.startswith("inv_back(") for name in wrong), wrong
    (strict,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert strict.points == 0


# Writes on every descriptor a probe run may hold, when imported by one: the
# values file it forges is malformed, oversized, or repeats the cases.
FLOOD = """

import os as _os
import sys as _sys


def _flood():
    if "grade_probes" not in " ".join(_sys.argv):  # only in a probe run
        return
    payload = {payload}
    for fd in range(3, 64):
        try:
            _os.write(fd, payload)
        except OSError:
            pass


_flood()
"""


@needs_sandbox
@pytest.mark.parametrize(
    "payload",
    [
        "b'not json\\n'",
        "b'x' * (3 << 20) + b'\\n'",
        '(b\'{"case": "neg(small) #0", "value": ["f", "0x0p+0"]}\\n\') * 2',
    ],
    ids=["malformed", "oversized", "repeated"],
)
def test_a_forged_values_channel_fails_the_task(edition, tmp_path, payload):
    attack = (edition / OPERATORS).read_text() + FORGE_REPORTS
    attack += FLOOD.replace("{payload}", payload)
    student = submission(edition, tmp_path, {OPERATORS: attack})
    (task,) = grade(student, source=ROOT, tasks="0.1").tasks
    assert task.points == 0 and task.status == "failing", task
    assert task.details["values"]["matched"] == 0
    assert task.details["values"]["problem"]


def test_the_probes_are_not_in_an_edition_and_grading_from_one_says_so(
    edition, tmp_path
):
    assert "0.1" in probed_tasks(ROOT)
    assert not (edition / "kindling/grade_probes.py").exists()
    assert probed_tasks(edition) == ()
    if probe() is None:
        return
    student = submission(edition, tmp_path, {OPERATORS: reference(OPERATORS)})
    report = grade(student, source=edition, tasks="0.1")
    assert "values checking skipped" in report.sandbox
    assert report.values_seed is None
    (task,) = report.tasks
    assert task.status == "done" and "values" not in task.details


# -- the channel: bounded, and nothing in it raises ------------------------------


def feed_all(data: bytes, chunk: int = 1 << 16) -> Values:
    stream = ValueStream()
    for start in range(0, len(data), chunk):
        if not stream.feed(data[start : start + chunk]):
            break
    return stream.close()


def line(name: str, value, tol=(1e-6, 1e-9)) -> bytes:
    return (
        json.dumps({"case": name, "value": value, "tol": list(tol)}) + "\n"
    ).encode()


def test_values_are_read_back_with_their_tolerances():
    data = (
        line("a", encode(1.5)) + line("b", encode([1, 2.0]), (0.1, 0)) + b'{"end": 2}\n'
    )
    values = feed_all(data)
    assert values.problem is None and values.ended
    assert values.order == ["a", "b"] and values.tolerances["b"] == (0.1, 0.0)


def test_an_oversized_line_is_skipped_as_it_arrives_and_fails_the_run():
    stream = ValueStream()
    for _ in range(64):  # 64 MB of one line, a megabyte at a time
        stream.feed(b"x" * (1 << 20))
        assert len(stream._line) <= LINE_BYTES  # never held whole
    values = stream.close()
    assert values.problem and not values.values


def test_reading_stops_after_the_byte_limit():
    stream, fed = ValueStream(), 0
    while stream.feed(b"\n" * (1 << 20)):  # blank lines: nothing to parse
        fed += 1 << 20
        assert fed <= VALUES_BYTES + (1 << 20)
    assert stream.close().problem


@pytest.mark.parametrize(
    "data, why",
    [
        (b"not json\n", "not JSON"),
        (b"[1, 2]\n", "not a case"),
        (line("a", ["f", "0x1p+0"]) * 2, "two values"),
        (b'{"end": 0}\n' + line("a", ["f", "0x1p+0"]), "after the end"),
        (b"[" * 100_000 + b"\n", "not JSON"),
    ],
)
def test_a_malformed_stream_is_a_problem_and_every_case_wrong(data, why):
    student = feed_all(data)
    assert why in student.problem
    reference = feed_all(line("a", encode(1.0)) + b'{"end": 1}\n')
    verdict = compare(reference, student)
    assert verdict.matched == 0 and verdict.wrong == ["a"]


def test_too_many_cases_stop_the_reading():
    data = b"".join(line(f"c{i}", ["i", i]) for i in range(CASE_LIMIT + 10))
    values = feed_all(data)
    assert values.problem and len(values.order) == CASE_LIMIT


# -- the comparison ---------------------------------------------------------------


def test_floats_compare_within_the_reference_tolerance_and_nan_equals_nan():
    assert same(encode(1.0), encode(1.0 + 1e-9), 1e-6, 0)
    assert not same(encode(1.0), encode(1.001), 1e-6, 0)
    assert same(encode(math.nan), encode(math.nan), 1e-6, 0)
    assert not same(encode(math.nan), encode(0.0), 1e-6, 0)
    assert not same(encode(math.inf), encode(-math.inf), 1e-6, 0)
    assert same(encode(2.0), encode(2), 1e-6, 0)  # an int where a float is due


def test_kinds_shapes_and_exception_names_must_match():
    import numpy as np

    a = np.arange(6.0).reshape(2, 3)
    assert same(encode(a), encode(a.copy()), 0, 0)
    assert not same(encode(a), encode(a.reshape(3, 2)), 0, 0)
    assert not same(encode([1.0, 2.0]), encode([1.0]), 0, 0)
    assert not same(encode(True), encode(1), 0, 0)
    assert not same(["e", "ValueError"], ["e", "ZeroDivisionError"], 0, 0)
    assert same(["e", "ValueError"], ["e", "ValueError"], 0, 0)
    assert not same(["e", "ValueError"], encode(0.0), 0, 0)
    assert not same(encode(1.0), ["f", "not hex"], 0, 0)
    assert not same(encode(1.0), {"f": 1}, 0, 0)


def test_an_exception_is_sent_as_the_nearest_builtin_class_name():
    class Mine(ValueError):
        pass

    class Odd(Exception):
        pass

    assert exception_name(Mine()) == "ValueError"
    assert exception_name(ZeroDivisionError()) == "ZeroDivisionError"
    assert exception_name(Odd()) == "Exception"


def test_a_missing_case_is_wrong_and_the_student_tolerance_is_ignored():
    reference = feed_all(line("a", encode(1.0), (0, 0)) + line("b", encode(2.0)))
    student = feed_all(line("a", encode(1.5), (10, 10)))
    verdict = compare(reference, student)
    assert verdict.checked == 2 and verdict.matched == 0
    assert verdict.wrong == ["a", "b"]


# -- every probed task: the reference agrees with itself, stubs and bugs do not ---


def probe_values(tree: Path, task_id: str, seed: int, scratch: Path) -> Values:
    from kindling.grade import Runner, read_registry
    from kindling.grade_values import probe_job

    task = read_registry(ROOT)[task_id]
    with Runner(tree, probe(), scratch) as runner:
        return runner.run(probe_job(task_id, seed, 300, 4096, task.cuda)).session


@pytest.fixture(scope="module")
def stubs(edition, tmp_path_factory) -> Path:
    """The fresh edition with the probes copied in (its stubs answer them)."""
    import shutil

    out = tmp_path_factory.mktemp("stubs") / "edition"
    shutil.copytree(edition, out)
    shutil.copy(ROOT / "kindling/grade_probes.py", out / "kindling/grade_probes.py")
    return out


@needs_sandbox
@pytest.mark.parametrize("task_id", probed_tasks(ROOT))
def test_every_probed_task_tells_the_reference_from_its_stubs(task_id, stubs, tmp_path):
    """Two runs of the task's reference at one seed agree on every value, and a
    fresh edition's stubs get none right. (One test a task: about 70 s in all,
    which pytest -n 2 shares between its workers.)"""
    first = probe_values(ROOT, task_id, 99, tmp_path / "a")
    again = probe_values(ROOT, task_id, 99, tmp_path / "b")
    assert first.problem is None and first.ended and first.order
    verdict = compare(first, again)
    assert verdict.matched == verdict.checked, verdict.wrong[:5]
    fresh = compare(first, probe_values(stubs, task_id, 99, tmp_path / "stubs"))
    assert fresh.matched == 0, sorted(set(first.order) - set(fresh.wrong))


BROADCAST_WITHOUT_CHECKS = """

def shape_broadcast(shape1, shape2):  # never says two shapes cannot broadcast
    n = max(len(shape1), len(shape2))
    a = (1,) * (n - len(shape1)) + tuple(shape1)
    b = (1,) * (n - len(shape2)) + tuple(shape2)
    return tuple(max(x, y) for x, y in zip(a, b))
"""


@needs_sandbox
def test_a_planted_bug_is_wrong_exactly_where_it_differs(tmp_path):
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__")
    )
    data = tree / "module2_tensors/tensor_data.py"
    data.write_text(data.read_text() + BROADCAST_WITHOUT_CHECKS)
    reference_values = probe_values(ROOT, "2.2", 5, tmp_path / "ref")
    verdict = compare(reference_values, probe_values(tree, "2.2", 5, tmp_path / "bug"))
    assert 0 < verdict.matched < verdict.checked
    assert sorted(verdict.wrong) == [
        "shape_broadcast (2, 3) (2,)",
        "shape_broadcast (2,) (2, 3)",
        "shape_broadcast (3, 2) (4, 3, 3)",
        "shape_broadcast (4, 3, 3) (3, 2)",
    ]


def test_case_names_are_the_same_for_every_seed_and_the_inputs_are_not():
    """Reports name the same cases whatever the seed (so a grade's message is the
    same run after run); the values, drawn from the seed, differ."""
    from kindling import grade_probes

    for task_id in grade_probes.TASKS:
        names = {tuple(c.name for c in grade_probes.cases(task_id, s)) for s in (1, 2)}
        assert len(names) == 1, task_id
        (unique,) = names
        assert len(set(unique)) == len(unique), task_id  # each name once
    first, second = (
        [encode(c.call()) for c in grade_probes.cases("0.3", s)] for s in (1, 2)
    )
    assert first != second


HANG_IN_PROBES = """

import sys as _sys
import time as _time

_right_sigmoid = sigmoid


def sigmoid(x):
    if "grade_probes" in " ".join(_sys.argv):  # only in a probe run
        _time.sleep(3600)
    return _right_sigmoid(x)
"""


@pytest.mark.long
@needs_sandbox
def test_probes_that_run_out_of_time_leave_the_cases_not_reached_wrong(
    edition, tmp_path
):
    student = submission(
        edition, tmp_path, {OPERATORS: reference(OPERATORS) + HANG_IN_PROBES}
    )
    (task,) = grade(student, source=ROOT, tasks="0.1", timeout=40).tasks
    values = task.details["values"]
    assert values["timed_out"] and 0 < values["matched"] < values["checked"]
    assert task.points == 0 and task.status == "failing", task
    assert "ran out of time" in task.message


@needs_sandbox
def test_a_batch_shares_one_seed_and_jobs_1_and_2_give_the_same_grades(
    edition, tmp_path
):
    """Every child grader of ``--jobs 2`` checks values at the batch's one seed;
    the grades are those of ``--jobs 1`` (a seed of its own), the attack at 0."""
    from kindling_staff.grade_batch import grade_batch

    batch = tmp_path / "batch"
    batch.mkdir()
    for name, text in (
        ("ada", reference(OPERATORS)),
        ("bob", reference(OPERATORS) + PATCH_HYPOTHESIS),
    ):
        student = submission(edition, tmp_path / name, {OPERATORS: text})
        student.rename(batch / name)
    graded = {
        jobs: grade_batch(batch, jobs=jobs, source=ROOT, tasks="0.1") for jobs in (1, 2)
    }
    for jobs, reports in graded.items():
        seeds = {report.values_seed for report in reports.values()}
        assert len(seeds) == 1 and None not in seeds, (jobs, seeds)
        assert reports["ada"].score == 10 and reports["bob"].score == 0, jobs
    one, two = (
        {n: [t.to_json() for t in r.tasks] for n, r in graded[j].items()}
        for j in (1, 2)
    )
    assert one == two
    assert one["bob"][0]["details"]["values"]["matched"] > 0


# -- the training tasks: trajectories, not reported accuracies ---------------------

TRAINING_TASKS = ("1.5", "2.5", "3.5", "4.5")


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory) -> Path:
    """A copy of the instructor source that a test plants one bug in (and takes
    it out again), so that each bug costs a probe run, not a copy."""
    import shutil

    tree = tmp_path_factory.mktemp("training") / "tree"
    shutil.copytree(
        ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__")
    )
    return tree


@pytest.fixture(scope="module")
def reference_at_11(tmp_path_factory):
    """The reference's probe values of a task at seed 11, one sandboxed run per
    task, shared by the planted bugs of that task (two for 1.5, 3.5 and 4.5 each:
    three probe runs fewer). At one seed the reference agrees with itself on every
    value (``test_every_probed_task_tells_the_reference_from_its_stubs``), so a
    second run of it would be compared with the same numbers."""
    scratch = tmp_path_factory.mktemp("reference-at-11")
    runs = {}

    def values(task_id: str) -> Values:
        if task_id not in runs:
            runs[task_id] = probe_values(ROOT, task_id, 11, scratch / task_id)
        return runs[task_id]

    return values


# Each: the file, code appended to it (a plausible wrong solution, as a student
# might write it, replacing the reference's), and the cases it must get wrong: the
# ones that take a step with it, and no other.
SIGN_FLIPPED = """

def _ascent(self):  # theta + lr * d: uphill
    for p in self.parameters:
        d = _derivative(p.value)
        if d is not None:
            p.update(Scalar(p.value.data + self.lr * d, name=p.value.name))


SGD.step = _ascent
"""

LR_IGNORED = """

def _unit_step(self):  # theta - d: the learning rate forgotten
    for p in self.parameters:
        d = _derivative(p.value)
        if d is not None:
            p.update(Scalar(p.value.data - d, name=p.value.name))


SGD.step = _unit_step
"""

SCALAR_STEPS = [
    "SGD: the parameters after each of 4 steps",
    "train: 3 epochs on xor",
    "train_epoch: 3 epochs from stale derivatives",
]

NO_ZERO_GRAD = """

def train_epoch(model, optimizer, x, y):  # gradients of every epoch add up
    z = model(x)
    loss = loss_fn(z, y)
    loss.backward()
    optimizer.step()
    return loss.item(), int(((z > 0.0) == y).sum().item())
"""

# (zero_grad once per epoch rather than per batch is no such solution here: Task
# 1.5's SGD.step replaces every value by a fresh leaf without a gradient, so it
# computes the same numbers. One step per epoch on the summed batches does not.)
ONE_STEP_PER_EPOCH = """

def train_epoch(model, optimizer, X, y, batch, order, backend):
    optimizer.zero_grad()
    total, correct, batches = 0.0, 0, 0
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        xb, yb = batch_tensors(X, y, idx, backend)
        z = model(xb)
        loss = loss_fn(z, yb)
        loss.backward()  # the batches' gradients add up ...
        total += loss.item()
        batches += 1
        correct += int(np.sum((z.to_numpy() > 0.0) == (y[idx] > 0.5)))
    optimizer.step()  # ... into one step
    return total / max(batches, 1), correct
"""

BATCHES_IN_INDEX_ORDER = """

def train_epoch(model, optimizer, X, y, batch, order, backend):
    total, correct, batches = 0.0, 0, 0
    for start in range(0, len(order), batch):
        idx = np.arange(len(order))[start : start + batch]  # not the shuffle
        xb, yb = batch_tensors(X, y, idx, backend)
        optimizer.zero_grad()
        z = model(xb)
        loss = loss_fn(z, yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
        correct += int(np.sum((z.to_numpy() > 0.0) == (y[idx] > 0.5)))
    return total / max(batches, 1), correct
"""

SEVERAL_BATCHES = [
    "train: 2 epochs on split in batches of 4",
    "train_epoch: 2 epochs of 5 points in batches of 1",
    "train_epoch: 2 epochs of 7 points in batches of 3",
]

CNN_STEP_WITHOUT_ZERO_GRAD = """

def train_step(model, optimizer, x, y):  # the last batch's gradients stay
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
"""

DROPOUT_ON_THE_WORDS = """

def _forward(self, ids):  # dropout on the word vectors, not before fc
    x = self.dropout(self.embedding(ids)).permute(0, 2, 1)
    pooled = [F.max(conv(x).relu(), dim=2).values for conv in self.convs]
    return self.fc(cat(pooled, dim=1))


SentimentCNN.forward = _forward
"""


@needs_sandbox
@pytest.mark.parametrize(
    "task_id, relative, bug, wrong",
    [
        ("1.5", "module1_scalar_autodiff/optim.py", SIGN_FLIPPED, SCALAR_STEPS),
        ("1.5", "module1_scalar_autodiff/optim.py", LR_IGNORED, SCALAR_STEPS),
        (
            "2.5",
            "project/run_tensor.py",
            NO_ZERO_GRAD,
            ["train_epoch: 3 epochs from stale gradients"],
        ),
        ("3.5", "project/run_fast_tensor.py", ONE_STEP_PER_EPOCH, SEVERAL_BATCHES),
        ("3.5", "project/run_fast_tensor.py", BATCHES_IN_INDEX_ORDER, SEVERAL_BATCHES),
        (
            "4.5",
            "project/run_mnist_multiclass.py",
            CNN_STEP_WITHOUT_ZERO_GRAD,
            ["CNN: 3 train_steps with Adam from stale gradients"],
        ),
        (
            "4.5",
            "project/run_sentiment.py",
            DROPOUT_ON_THE_WORDS,
            ["SentimentCNN: training with dropout 1 leaves fc's bias"],
        ),
    ],
    ids=[
        "sgd-sign-flipped",
        "sgd-lr-ignored",
        "tensor-epoch-without-zero-grad",
        "one-step-per-epoch",
        "batches-in-index-order",
        "cnn-step-without-zero-grad",
        "sentiment-dropout-on-the-words",
    ],
)
def test_a_wrong_training_step_is_wrong_exactly_in_the_cases_that_take_it(
    source_copy, reference_at_11, tmp_path, task_id, relative, bug, wrong
):
    """The reference's trajectory at one seed against a plausible wrong solution's:
    the cases whose numbers the wrong code changes differ, the others still
    match (a single batch, no step; and for a missing zero_grad, ``train``, which
    starts without stale gradients: SGD.step leaves fresh leaves without any)."""
    path = source_copy / relative
    original = path.read_text()
    path.write_text(original + bug)
    try:
        planted = probe_values(source_copy, task_id, 11, tmp_path / "bug")
    finally:
        path.write_text(original)
    right = reference_at_11(task_id)
    assert planted.problem is None and planted.ended
    verdict = compare(right, planted)
    assert sorted(verdict.wrong) == wrong
    assert verdict.matched == verdict.checked - len(wrong) > 0


@needs_sandbox
def test_the_reference_earns_full_values_on_the_scalar_and_tensor_training(
    monkeypatch,
):
    """Graded end to end (the tests in the sandbox, then the values): full points,
    every value matched. (Tasks 3.5 and 4.5, whose tests take minutes, are matched
    against themselves in ``test_every_probed_task_tells_the_reference_from_its_stubs``
    and by the planted bugs above.)"""
    monkeypatch.setenv("KINDLING_VALUES_SEED", "2025")
    report = grade(ROOT, source=ROOT, tasks="1.5,2.5")
    for task in report.tasks:
        values = task.details["values"]
        assert task.status == "done" and task.points == task.max_points, task
        assert values["checked"] >= 4 and values["matched"] == values["checked"]


@pytest.fixture(scope="module")
def trusted_training_kernels() -> Path:
    """The instructor source as a trusted kernel cache (``kindling grade
    --kernel-cache``, docs/GRADING.md), holding the Numba kernels of Task 3.5's
    training on the fast backend: the 13 that tests/module3/test_fast_training.py
    compiles too. This process, trusted, compiles them from the source's own code
    where that file has not run yet (which then loads them), or loads them. The
    graded submission's library files are the reference's: without this, its Task
    3.5 sandbox compiled them afresh, about 60 s of the test's 75."""
    from project.run_fast_tensor import train

    train("xor", backend="fast", epochs=1, pts=12, batch=4, hidden=3, seed=1)
    return ROOT


@pytest.mark.long
@needs_sandbox
def test_forged_pass_reports_earn_nothing_on_the_training_tasks(
    edition, trusted_training_kernels, tmp_path
):
    """Every library file solved, the four training tasks' files left as stubs,
    and every pytest report forged to "passed": the tests' session
    says all passed; the trajectories say the training code is a stub."""
    from kindling.grade import Grader, read_registry

    registry = read_registry(ROOT)
    stubbed = {f for t in TRAINING_TASKS for f in registry[t].files}
    solved = {
        f: reference(f)
        for task in registry
        for f in task.files
        if f not in stubbed and f.endswith(".py")
    }
    solved[OPERATORS] = reference(OPERATORS) + FORGE_REPORTS
    student = submission(edition, tmp_path, solved)
    tasks = ",".join(TRAINING_TASKS)
    report = Grader(student, ROOT, tasks, kernel_cache=trusted_training_kernels).run()
    assert [t.id for t in report.tasks] == list(TRAINING_TASKS)
    for task in report.tasks:
        assert task.passed == task.total > 0, task  # the forged session
        assert task.points == 0 and task.status == "failing", task
        values = task.details["values"]
        assert values["matched"] == 0 and values["checked"] >= 4, (task.id, values)
