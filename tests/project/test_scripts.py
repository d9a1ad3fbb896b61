"""The scripts of ``project/``: bad arguments are usage errors, ``--help`` shows the
defaults, ``--epochs 0`` only evaluates, and the training scripts share one progress
display and one plot (``project/script_tools.py``)."""

from __future__ import annotations

import io
import re
from importlib import import_module
from pathlib import Path

import pytest

from project.script_tools import LOG_INTERVAL, StepBudget, progress_bar, save_curves

ROOT = Path(__file__).resolve().parents[2]
# The module whose library each script needs. An edition of the first modules only
# (``kindling release --through N``) lacks the later ones: the tests of their
# scripts are left out with them.
NEEDS = {
    "run_scalar": 1,
    "run_tensor": 2,
    "run_fast_tensor": 3,
    "run_mnist_multiclass": 4,
    "run_sentiment": 4,
    "parallel_check": 3,
}
SCRIPTS = [
    name
    for name, module in NEEDS.items()
    if (ROOT / "project" / f"{name}.py").exists()
    and any(p.is_dir() for p in ROOT.glob(f"module{module}_*"))
]
BAD_ARGUMENTS = {
    "run_scalar": [
        ["--epochs", "-3"],
        ["--epochs", "many"],
        ["--hidden", "0"],
        ["--lr", "0"],
        ["--lr", "nan"],
        ["--pts", "0"],
        ["--test-pts", "-1"],
        ["--seed", "-1"],
        ["--dataset", "nope"],
    ],
    "run_tensor": [
        ["--epochs", "-3"],
        ["--hidden", "-2"],
        ["--lr", "-0.5"],
        ["--pts", "0"],
        ["--backend", "tpu"],
    ],
    "run_fast_tensor": [
        ["--epochs", "-1"],
        ["--batch", "0"],
        ["--hidden", "0"],
        ["--lr", "inf"],
        ["--pts", "1.5"],
    ],
    "run_mnist_multiclass": [
        ["--epochs", "-2"],
        ["--batch-size", "0"],
        ["--lr", "0"],
        ["--channels", "0", "8"],
        ["--hidden", "0"],
        ["--dropout", "1.5"],
        ["--train-size", "0"],
        ["--dataset", "cifar"],
        ["--backend", "tpu"],
    ],
    "run_sentiment": [
        ["--epochs", "-1"],
        ["--batch-size", "0"],
        ["--widths", "3", "0"],
        ["--filters", "0"],
        ["--dropout", "-0.1"],
        ["--min-freq", "0"],
        ["--embedding-dim", "0"],
    ],
    "parallel_check": [["--level", "5"], ["--kernel", "nope"]],
}


def script(name: str):
    return import_module(f"project.{name}")


@pytest.mark.parametrize(
    "name, argv",
    [
        (name, argv)
        for name, cases in BAD_ARGUMENTS.items()
        if name in SCRIPTS
        for argv in cases
    ],
    ids=lambda value: value if isinstance(value, str) else " ".join(value),
)
def test_bad_arguments_are_usage_errors(name, argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        script(name).main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and f"argument {argv[0]}" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_shows_the_defaults(name, capsys):
    with pytest.raises(SystemExit) as stopped:
        script(name).main(["--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out  # no raw reST
    if name != "parallel_check":
        assert re.search(r"--epochs EPOCHS\s+training epochs", out), out
    assert "(default: " in out


@pytest.mark.task1_5
def test_zero_epochs_evaluates_the_scalar_network(tmp_path, capsys):
    history = script("run_scalar").main(
        ["--epochs", "0", "--hidden", "2", "--pts", "6", "--test-pts", "6"]
        + ["--plot", str(tmp_path / "curves.png")]
    )
    out = capsys.readouterr().out
    assert history.losses == [] and history.accuracies == []
    assert "no training: accuracy of the untrained network" in out
    assert re.search(r"held-out accuracy: \d+\.\d% on 6 new points", out)
    assert not (tmp_path / "curves.png").exists()  # no curves without epochs


if "run_tensor" in SCRIPTS:

    @pytest.mark.task2_5
    def test_the_tensor_script_logs_a_few_lines_a_plot_and_a_held_out_accuracy(
        tmp_path, capsys
    ):
        plot = tmp_path / "curves.png"
        argv = ["--dataset", "simple", "--epochs", "40", "--pts", "8", "--hidden", "2"]
        history = script("run_tensor").main(argv + ["--plot", str(plot)])
        captured = capsys.readouterr()
        out = captured.out
        # The bar goes to stderr (as tqdm's do); in a log, its last state stays.
        assert re.search(r"epoch: 100%\|.*\| 40/40 \[.*loss \d", captured.err)
        assert len(history.losses) == 40
        assert re.search(r"held-out accuracy: \d+\.\d% on 50 new points", out)
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    @pytest.mark.task2_5
    def test_zero_epochs_evaluates_the_tensor_network(capsys):
        history = script("run_tensor").main(
            ["--epochs", "0", "--pts", "5", "--plot", ""]
        )
        assert history.losses == []
        assert (
            "no training: accuracy of the untrained network" in capsys.readouterr().out
        )


if "run_mnist_multiclass" in SCRIPTS:

    @pytest.mark.task4_5
    def test_zero_epochs_evaluates_the_cnn(tmp_path, capsys):
        mnist = script("run_mnist_multiclass")
        argv = ["--epochs", "0", "--channels", "2", "2", "--hidden", "4"]
        assert mnist.main(argv + ["--plot", str(tmp_path / "c.png")]) == 0
        captured = capsys.readouterr()
        out = captured.out
        assert "no training: test accuracy of the untrained network" in out
        assert "epoch 1/" not in captured.err and not (tmp_path / "c.png").exists()


if "run_sentiment" in SCRIPTS:

    @pytest.mark.task4_5
    def test_zero_epochs_evaluates_the_sentiment_cnn(tmp_path, capsys):
        from tests.module4.test_training import write_toy_sst

        write_toy_sst(tmp_path)
        sentiment = script("run_sentiment")
        argv = ["--data-dir", str(tmp_path), "--epochs", "0", "--filters", "2"]
        assert sentiment.main(argv + ["--embedding-dim", "4"]) == 0
        out = capsys.readouterr().out
        assert "no training: test accuracy of the untrained network" in out


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_tqdm_bar_redrawn_on_a_terminal_and_sparse_in_a_log():
    from tqdm import tqdm

    terminal = Terminal()
    bar = progress_bar(range(250), desc="epoch", file=terminal)
    assert isinstance(bar, tqdm) and bar.mininterval < 1
    for _ in bar:
        pass
    last = terminal.getvalue().split("\r")[-1]
    assert re.match(r"epoch: 100%\|.*\| 250/250 \[", last), last

    log = io.StringIO()
    bar = progress_bar(total=250, desc="epoch", file=log)
    assert bar.mininterval == LOG_INTERVAL  # a log keeps few refreshes
    for epoch in range(250):
        bar.set_postfix_str(f"loss {1 / (epoch + 1):.4f}", refresh=False)
        bar.update()
    bar.close()
    final = log.getvalue().split("\r")[-1]
    assert "250/250" in final and final.rstrip().endswith("loss 0.0040]")
    assert log.getvalue().count("\r") < 10  # not one refresh per epoch


def test_a_step_budget_bar_counts_toward_the_time_limit_when_time_ends_the_run():
    """A 10-second run of at most 100,000 steps, one step a second: the bar shows
    n/10 (not n/100000, with hours left), and ends full at the steps taken."""
    now = [0.0]
    log = Terminal()
    budget = StepBudget(100_000, 10.0, file=log, clock=lambda: now[0])
    totals = []
    while budget.running:
        now[0] += 1.0
        budget.advance(f"t {now[0]:g}")
        totals.append(budget.bar.total)
    budget.close()
    assert budget.taken == 10 and totals == [10] * 10
    assert re.search(r"step: 100%\|.*\| 10/10 \[", log.getvalue().split("\r")[-1])


def test_a_step_budget_bar_counts_steps_when_steps_end_the_run():
    """Fast steps: the step cap ends the run, and the bar's total stays the cap;
    a slowdown half-way re-estimates what fits."""
    now = [0.0]
    budget = StepBudget(8, 100.0, file=io.StringIO(), clock=lambda: now[0])
    while budget.running:
        now[0] += 0.5
        budget.advance()
        assert budget.bar.total == 8
    assert budget.taken == 8
    now[0] = 0.0
    slow = StepBudget(1000, 100.0, file=io.StringIO(), clock=lambda: now[0])
    now[0] = 10.0
    slow.advance()  # 1 step in 10 s: 1 + 90 * 1 / 10 = 10 fit
    assert slow.bar.total == 10
    now[0] = 11.0
    slow.advance()  # 2 steps in 11 s: 2 + int(89 * 2 / 11) = 18
    assert slow.bar.total == 18


def test_save_curves_plots_sequences_and_single_points(tmp_path: Path):
    path = save_curves(
        {"train_loss": [0.9, 0.5, 0.2], "train_acc": [0.5, 0.8, 0.9]}
        | {"held-out_acc": {3: 0.85}},
        tmp_path / "sub" / "curves.png",
        "title",
    )
    assert path is not None and path.read_bytes()[:4] == b"\x89PNG"
    assert save_curves({"train_loss": []}, tmp_path / "none.png", "t") is None
    assert not (tmp_path / "none.png").exists()
