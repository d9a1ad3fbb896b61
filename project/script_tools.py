"""What every training script of ``project/`` shares (given code, not a task).

* :func:`make_parser`: an ``argparse`` parser whose ``--help`` shows the defaults;
* argument types that reject bad values with a usage error (exit status 2):
  :func:`positive_int`, :func:`nonnegative_int`, :func:`positive_float`,
  :func:`probability`;
* :func:`progress_bar`: a ``tqdm`` bar (a widget in notebooks), short in logs;
* :class:`StepBudget`: a run of at most N steps or S seconds, whose bar counts
  toward whichever ends it;
* :func:`save_curves`: the loss and accuracy curves as a PNG;
* :func:`held_out`: fresh points of a toy dataset for a held-out accuracy;
* for the toy-data scripts (``run_tensor``, ``run_fast_tensor``):
  :func:`backend_by_name`, :class:`TrainingHistory` and :func:`epoch_logger`.

The scripts run from any module's edition, so this file imports only the standard
library, NumPy and tqdm (matplotlib when a plot is written, Module 2 or 3 when a
backend is asked for).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping
from typing import Optional, Sequence, Tuple, TypeVar, Union

if TYPE_CHECKING:
    from tqdm import tqdm

T = TypeVar("T")

#: Held-out points are drawn with ``seed + HELD_OUT_SEED``: same distribution,
#: other points.
HELD_OUT_SEED = 10_000


# ----------------------------------------------------------------- arguments
class HelpFormatter(
    argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter
):
    """Shows each option's default (unless it has none) and keeps the description's
    line breaks."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if default is None or default is False or "%(default)" in text:
            return text
        return super()._get_help_string(action) or text


def make_parser(doc: Optional[str], examples: bool = True) -> argparse.ArgumentParser:
    """A parser described by a script's docstring: its first line, and the indented
    command lines that follow it as examples."""
    lines = (doc or "").strip().splitlines()
    # The docstrings are reST: ``code`` reads as code in a terminal without them.
    description = lines[0].replace("``", "") if lines else None
    usage = [line.strip() for line in lines[1:] if line.startswith("    python ")]
    epilog = "examples:\n" + "\n".join(f"  {u}" for u in usage) if usage else None
    return argparse.ArgumentParser(
        description=description,
        epilog=epilog if examples else None,
        formatter_class=HelpFormatter,
    )


def _number(kind: Callable[[str], Any], text: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        name = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None


def positive_int(text: str) -> int:
    """An integer >= 1 (sizes, batch sizes, hidden units)."""
    value = _number(int, text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (epochs: 0 evaluates without training; seeds)."""
    value = _number(int, text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (learning rates)."""
    value = _number(float, text)
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def probability(text: str) -> float:
    """A number in [0, 1) (dropout rates, fractions)."""
    value = _number(float, text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return value


def toy_parser(
    doc: Optional[str],
    datasets: Iterable[str],
    dataset: str,
    epochs: int,
    plot: str,
    hidden: int = 10,
    lr: float = 0.5,
    pts: int = 50,
    seed_help: str = "seed of data and weights",
) -> argparse.ArgumentParser:
    """The parser of the scripts that train on Module 0's toy datasets
    (``run_scalar``, ``run_tensor``, ``run_fast_tensor``): ``--dataset``,
    ``--hidden``, ``--lr``, ``--epochs``, ``--pts``, ``--test-pts``, ``--seed`` and
    ``--plot``, with each script's defaults; a script adds its own options."""
    parser = make_parser(doc)
    parser.add_argument(
        "--dataset", default=dataset, choices=sorted(datasets), help="toy dataset"
    )
    parser.add_argument(
        "--hidden", type=positive_int, default=hidden, help="units per hidden layer"
    )
    parser.add_argument("--lr", type=positive_float, default=lr, help="learning rate")
    parser.add_argument(
        "--epochs",
        type=nonnegative_int,
        default=epochs,
        help="training epochs (0: only evaluate the untrained network)",
    )
    parser.add_argument(
        "--pts", type=positive_int, default=pts, help="number of training points"
    )
    parser.add_argument(
        "--test-pts", type=positive_int, default=50, help="number of held-out points"
    )
    parser.add_argument("--seed", type=nonnegative_int, default=0, help=seed_help)
    parser.add_argument("--plot", default=plot, help="PNG for the curves ('' for none)")
    return parser


# ------------------------------------------------------------------ progress
#: Seconds between two refreshes of a bar written to a log file or a pipe, where
#: every refresh stays in the file: a 14-minute training logs about 30, not 2,500.
LOG_INTERVAL = 30.0


def progress_bar(
    iterable: Optional[Iterable[T]] = None,
    total: Optional[int] = None,
    desc: str = "",
    file: Optional[IO[str]] = None,
) -> "tqdm[T]":
    """A ``tqdm`` progress bar with its rate and time left, as PyTorch users know it:
    redrawn in place in a terminal, a widget in Jupyter and Colab (``tqdm.auto``),
    refreshed every :data:`LOG_INTERVAL` seconds into a log file or a pipe.

    Wrap an iterable (``for batch in progress_bar(batches, desc="batch")``) or give
    ``total`` and call ``update()``; ``set_postfix_str`` sets the text at the end."""
    from tqdm.auto import tqdm

    stream = file if file is not None else sys.stderr
    interactive = bool(getattr(stream, "isatty", lambda: False)())
    interactive |= "ipykernel" in sys.modules  # a notebook draws a widget
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        file=file,
        mininterval=0.1 if interactive else LOG_INTERVAL,
        dynamic_ncols=interactive,
    )


class StepBudget:
    """A run that stops after ``steps`` steps or ``seconds`` of wall time, whichever
    comes first, with a progress bar that counts toward what really ends it.

    A bar of ``total=steps`` would show a 14-minute run as ``12/100000`` with 9
    hours left; here the bar's total is the steps that fit, re-estimated after each
    step from the mean rate so far: ``min(steps, n + (seconds - t) * n / t)`` after
    ``n`` steps in ``t`` seconds. At the end the total is the steps taken::

        budget = StepBudget(steps, 60 * minutes)
        while budget.running:
            ...  # one training step
            budget.advance(f"loss {loss:.3f}")
        budget.close()
    """

    def __init__(
        self,
        steps: int,
        seconds: float,
        desc: str = "step",
        file: Optional[IO[str]] = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.steps, self.seconds, self.clock = steps, seconds, clock
        self.taken = 0
        self.started = clock()
        self.bar = progress_bar(total=steps, desc=desc, file=file)

    @property
    def elapsed(self) -> float:
        """Seconds since the budget started."""
        return self.clock() - self.started

    @property
    def running(self) -> bool:
        """Whether another step fits: fewer than ``steps`` taken, time left."""
        return self.taken < self.steps and self.elapsed < self.seconds

    def advance(self, postfix: Optional[str] = None) -> None:
        """Count one step, re-estimate the steps that fit, redraw the bar."""
        self.taken += 1
        elapsed = self.elapsed
        fit = self.steps
        if elapsed > 0:
            fit = self.taken + int((self.seconds - elapsed) * self.taken / elapsed)
        self.bar.total = max(self.taken, min(self.steps, fit))
        if postfix is not None:
            self.bar.set_postfix_str(postfix, refresh=False)
        self.bar.update()

    def close(self) -> None:
        """End the bar at the steps taken (a full bar: the run ended there)."""
        self.bar.total = self.taken
        self.bar.refresh()
        self.bar.close()


# ---------------------------------------------------------------------- plots
Curve = Union[Sequence[float], Mapping[int, float]]


def save_curves(
    curves: Mapping[str, Curve], path: Union[str, Path], title: str
) -> Optional[Path]:
    """Plot loss curves (names ending in ``loss``) on the left and accuracy curves
    (names ending in ``acc`` or ``accuracy``) on the right, per epoch, into the PNG
    ``path``.

    A curve is a sequence (its values for epochs 1, 2, ...) or a mapping
    ``{epoch: value}`` (a held-out accuracy measured once, at the end). Returns the
    path, or ``None`` when there is nothing to plot or matplotlib is missing.
    """
    points: Dict[str, Dict[int, float]] = {}
    for name, curve in curves.items():
        if isinstance(curve, Mapping):
            points[name] = {int(k): float(v) for k, v in curve.items()}
        else:
            points[name] = {i: float(v) for i, v in enumerate(curve, start=1)}
    if not any(points.values()):
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is in the dev and app extras
        print("matplotlib is not installed: no plot written", file=sys.stderr)
        return None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for name, values in points.items():
        if name.endswith("loss"):
            ax = left
        elif name.endswith(("acc", "accuracy")):
            ax = right
        else:
            continue
        epochs = sorted(values)
        style = "o" if len(epochs) == 1 else ("-" if len(epochs) > 30 else "-o")
        ax.plot(epochs, [values[e] for e in epochs], style, label=name)
    left.set(xlabel="epoch", ylabel="loss", title="loss")
    right.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0.0, 1.02))
    for ax in (left, right):
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ------------------------------------------------------------------- held out
def held_out(
    datasets: Mapping[str, Callable[..., Any]], name: str, pts: int, seed: int
):
    """``pts`` fresh points of the toy dataset ``name`` (a ``Graph``), drawn with
    another seed than the training points: the accuracy on them says whether the
    model learned the shape of the classes or memorised its points."""
    return datasets[name](pts, seed=seed + HELD_OUT_SEED)


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def report_toy_run(
    history: Any,
    args: argparse.Namespace,
    datasets: Mapping[str, Callable[..., Any]],
    accuracy: Callable[[Any, Any], float],
    title: str,
    speed: str = "",
) -> None:
    """The end of a toy-data script (the options of :func:`toy_parser`): the final
    training accuracy (or, after ``--epochs 0``, the untrained network's), the
    accuracy on :func:`held_out` points, and the curves saved to ``--plot``.

    ``history`` has ``model``, ``losses`` and ``accuracies``; ``accuracy(model,
    graph)`` is the model's accuracy on the points of a dataset ``Graph``; ``speed``
    is added after the training accuracy (seconds per epoch, the backend)."""
    test = held_out(datasets, args.dataset, args.test_pts, args.seed)
    test_accuracy = accuracy(history.model, test)
    if history.accuracies:
        print(f"final training accuracy: {percent(history.accuracies[-1])}{speed}")
    else:
        train_data = datasets[args.dataset](args.pts, seed=args.seed)
        untrained = accuracy(history.model, train_data)
        print(f"no training: accuracy of the untrained network {percent(untrained)}")
    print(f"held-out accuracy: {percent(test_accuracy)} on {args.test_pts} new points")
    if args.plot and history.losses:
        curves = {
            "train_loss": history.losses,
            "train_acc": history.accuracies,
            "held-out_acc": {len(history.losses): test_accuracy},
        }
        saved = save_curves(curves, args.plot, title)
        if saved:
            print(f"curves saved to {saved}")


# ------------------------------------------------------- the toy-data scripts
#: The backends the tensor scripts offer, by name.
BACKENDS = ("simple", "fast", "cuda")


#: Epochs a script runs on Numba's CUDA simulator unless ``--epochs`` is given: the
#: simulator runs every GPU thread as a Python thread (``run_fast_tensor``'s default
#: network: about 190 s an epoch, so its default 250 epochs would take 13 hours).
SIMULATOR_EPOCHS = 2


def simulator_epochs(
    backend: str, epochs: Optional[int], argv: Optional[Sequence[str]] = None
) -> Optional[int]:
    """The epochs to train: ``epochs``, except on the ``cuda`` backend in Numba's
    CUDA simulator when the command line (``argv``, else ``sys.argv[1:]``) does not
    name ``--epochs``: then :data:`SIMULATOR_EPOCHS`, with a warning on stderr that
    says why and how to ask for more."""
    if backend != "cuda":
        return epochs
    from kindling.cudasim import configure_cuda_simulator

    if not configure_cuda_simulator():  # a real GPU: as asked
        return epochs
    words = list(sys.argv[1:] if argv is None else argv)
    if any(w == "--epochs" or w.startswith("--epochs=") for w in words):
        return epochs
    print(
        "note: the cuda backend runs in Numba's CUDA simulator here (no GPU): "
        "correct but about 1,000x slower than a GPU, so this run trains "
        f"{SIMULATOR_EPOCHS} epochs instead of {epochs}. Pass --epochs N to choose.",
        file=sys.stderr,
    )
    return SIMULATOR_EPOCHS


def backend_by_name(name: str) -> Any:
    """The backend called ``name``: ``simple`` (Module 2), ``fast`` or ``cuda``
    (Module 3, when it is present)."""
    if name == "simple":
        from module2_tensors import SimpleBackend

        return SimpleBackend
    if name in ("fast", "cuda"):
        try:
            import module3_fast_ops as fast_ops
        except ImportError as error:
            raise ValueError(f"backend {name!r} needs Module 3 ({error})") from None
        attribute = "FastBackend" if name == "fast" else "CudaBackend"
        if not hasattr(fast_ops, attribute):
            raise ValueError(f"backend {name!r}: module3_fast_ops has no {attribute}")
        return getattr(fast_ops, attribute)
    raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")


@dataclass
class TrainingHistory:
    """What training produced: the model, and per epoch the loss, the accuracy and
    the seconds it took."""

    model: Any
    losses: List[float] = field(default_factory=list)
    accuracies: List[float] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)

    @property
    def seconds_per_epoch(self) -> float:
        """The mean time of an epoch (0 before the first)."""
        return sum(self.seconds) / len(self.seconds) if self.seconds else 0.0


def epoch_logger(
    epochs: int, digits: Optional[int] = None
) -> Tuple["tqdm", Callable[..., None]]:
    """A progress bar of ``epochs`` steps and the ``log(epoch, epochs, loss,
    accuracy[, seconds])`` callback a script's ``train`` calls after each epoch:
    it shows the loss, the accuracy and (with ``digits``) the epoch's seconds."""
    bar = progress_bar(total=epochs, desc="epoch")

    def log(
        epoch: int,
        epochs: int,
        loss: float,
        accuracy: float,
        seconds: Optional[float] = None,
    ) -> None:
        text = f"loss {loss:.4f}  accuracy {percent(accuracy)}"
        if digits is not None and seconds is not None:
            text += f"  {seconds:.{digits}f} s"
        bar.set_postfix_str(text, refresh=False)
        bar.update()

    return bar, log
