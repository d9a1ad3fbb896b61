"""The features a PyTorch user found missing, as one checklist: each entry
is ``(name, how to reach it in torch, how in Kindling)``, two probes that use
the feature and raise if it is absent. The torch probes check the list itself
(each feature is PyTorch's; they skip where PyTorch is not installed); the
Kindling probes fail for a feature that is still missing.

Every entry must pass: the tensor side (Tensor methods, dtypes,
``F.pad``/``F.unfold``) and the nn side alike.

``python -m tests.module4.test_pytorch_feature_list`` prints the features
still missing in Kindling and their count. Each Kindling probe carries the
marker of the latest task whose code it runs (most are Task 4.6's layers and
optimizers); the torch probes and the list's own check belong to no task."""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, List, NamedTuple

import pytest

from tests.pytorch_reference import import_torch

Probe = Callable[[ModuleType], Any]


class Feature(NamedTuple):
    name: str
    torch: Probe
    kindling: Probe
    expected_missing: str = ""  # why it may be missing here ("" = must exist)
    task: str = "task4_6"  # the marker of the latest task whose code it runs


def same(
    name: str, probe: Probe, expected_missing: str = "", task: str = "task4_6"
) -> Feature:
    """A feature reached the same way in both libraries (``lib`` is ``torch``
    or ``module4_networks``)."""
    return Feature(name, probe, probe, expected_missing, task)


def tensor_side(name: str, probe: Probe, task: str = "task2_6") -> Feature:
    """A feature of the tensor side (Module 2's tensors, Task 2.6's code)."""
    return same(name, probe, task=task)


def _param(lib):
    return lib.nn.Parameter(lib.zeros(2))


def _double_backward(lib):
    x = lib.ones(2, requires_grad=True)
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad


def _grad_create_graph(lib):
    x = lib.ones(2, requires_grad=True)
    (g,) = lib.autograd.grad((x * x * x).sum(), x, create_graph=True)
    assert g.requires_grad


def _keep_vars(lib):
    m = lib.nn.Linear(2, 1)
    assert m.state_dict(keep_vars=True)["weight"] is m.weight


def _register_parameter(lib):
    m = lib.nn.Linear(2, 1)
    m.register_parameter("scale", lib.nn.Parameter(lib.ones(1)))
    assert "scale" in dict(m.named_parameters())


def _optimizer(cls: str, **kwargs: Any) -> Probe:
    def probe(lib):
        p = _param(lib)
        p.grad = lib.ones(2)
        getattr(lib.optim, cls)([p], **kwargs).step()

    return probe


def _scheduler(cls: str, *args: Any, **kwargs: Any) -> Probe:
    def probe(lib):
        opt = lib.optim.SGD([_param(lib)], lr=0.1, momentum=0.9)
        getattr(lib.optim.lr_scheduler, cls)(opt, *args, **kwargs).step()

    return probe


def _layer(cls: str, shape: tuple, *args: Any, **kwargs: Any) -> Probe:
    def probe(lib):
        return getattr(lib.nn, cls)(*args, **kwargs)(lib.ones(*shape))

    return probe


def _loss(cls: str, function: str, shapes: tuple) -> List[Feature]:
    def inputs(lib):
        return [lib.ones(*shape) * (k + 1.0) for k, shape in enumerate(shapes)]

    return [
        same(f"nn.{cls}", lambda lib: getattr(lib.nn, cls)()(*inputs(lib))),
        same(
            f"F.{function}",
            lambda lib: getattr(lib.nn.functional, function)(*inputs(lib)),
        ),
    ]


def _init(name: str, shape: tuple) -> Feature:
    return same(
        f"init.{name}", lambda lib: getattr(lib.nn.init, name)(lib.zeros(*shape))
    )


def _activation(cls: str, function: str) -> List[Feature]:
    return [
        same(f"nn.{cls}", _layer(cls, (2, 3))),
        same(
            f"F.{function}",
            lambda lib: getattr(lib.nn.functional, function)(
                lib.ones(2, 3), *((lib.ones(1),) if function == "prelu" else ())
            ),
        ),
    ]


def _mha(lib):
    attention = lib.nn.MultiheadAttention(
        4, 2, kdim=3, vdim=5, add_bias_kv=True, batch_first=True
    )
    return attention(lib.ones(1, 2, 4), lib.ones(1, 3, 3), lib.ones(1, 3, 5))


def _parameter_vectors(lib):
    model = lib.nn.Linear(2, 1)
    vec = lib.nn.utils.parameters_to_vector(model.parameters())
    lib.nn.utils.vector_to_parameters(vec * 2.0, model.parameters())


FEATURES: List[Feature] = [
    # ------------------------------------------------------------- tensor side
    *[
        tensor_side(
            f"{name}(dtype=)",
            lambda lib, name=name: getattr(lib, name)(
                lib.ones(2), *((2.0,) if name == "full_like" else ()), dtype=lib.int64
            ),
        )
        for name in ("zeros_like", "ones_like", "full_like")
    ],
    tensor_side("Tensor.sum(dtype=)", lambda lib: lib.ones(2).sum(dtype=lib.float64)),
    tensor_side("Tensor.mean(dtype=)", lambda lib: lib.ones(2).mean(dtype=lib.float64)),
    tensor_side(
        "Tensor.cumsum(dtype=)", lambda lib: lib.ones(2).cumsum(0, dtype=lib.int64)
    ),
    tensor_side(
        "F.softmax(dtype=)",
        lambda lib: lib.nn.functional.softmax(lib.ones(2), 0, dtype=lib.float64),
        "task4_4",
    ),
    tensor_side(
        "F.log_softmax(dtype=)",
        lambda lib: lib.nn.functional.log_softmax(lib.ones(2), 0, dtype=lib.float64),
        "task4_4",
    ),
    tensor_side(
        "get_default_dtype/set_default_dtype",
        lambda lib: lib.set_default_dtype(lib.get_default_dtype()),
    ),
    same("backward(create_graph=True)", _double_backward, task="task2_6"),
    same("autograd.grad(create_graph=True)", _grad_create_graph, task="task2_6"),
    *[
        tensor_side(
            f"F.pad(mode={mode!r})",
            lambda lib, mode=mode: lib.nn.functional.pad(
                lib.ones(1, 1, 3), (1, 1), mode=mode
            ),
        )
        for mode in ("reflect", "replicate", "circular")
    ],
    tensor_side(
        "Tensor.add(alpha=)", lambda lib: lib.ones(2).add(lib.ones(2), alpha=2)
    ),
    tensor_side(
        "Tensor.sub(alpha=)", lambda lib: lib.ones(2).sub(lib.ones(2), alpha=2)
    ),
    tensor_side("Tensor.mm", lambda lib: lib.ones(2, 3).mm(lib.ones(3, 2))),
    tensor_side("Tensor.bmm", lambda lib: lib.ones(1, 2, 3).bmm(lib.ones(1, 3, 2))),
    tensor_side(
        "Tensor.scatter_",
        lambda lib: lib.zeros(3).scatter_(0, lib.tensor([2]), lib.ones(1)),
    ),
    tensor_side(
        "F.unfold", lambda lib: lib.nn.functional.unfold(lib.ones(1, 1, 3, 3), 2)
    ),
    # ------------------------------------------------------------- nn side
    same("Module.register_parameter", _register_parameter),
    same("Module.state_dict(keep_vars=True)", _keep_vars),
    same(
        "F.binary_cross_entropy(weight=)",
        lambda lib: lib.nn.functional.binary_cross_entropy(
            lib.ones(2) * 0.5, lib.ones(2), weight=lib.ones(2)
        ),
    ),
    same(
        "nn.BCELoss(weight=)",
        lambda lib: lib.nn.BCELoss(weight=lib.ones(2))(lib.ones(2) * 0.5, lib.ones(2)),
    ),
    *[
        same(f"optim.{cls}(maximize=True)", _optimizer(cls, maximize=True))
        for cls in ("RMSprop", "Adagrad", "NAdam")
    ],
    *[_init(name, (3, 2)) for name in ("trunc_normal_", "orthogonal_", "eye_")],
    _init("dirac_", (2, 2, 3)),
    same("nn.utils.parameters_to_vector/vector_to_parameters", _parameter_vectors),
    *[
        same(f"optim.{cls}", _optimizer(cls))
        for cls in ("Adamax", "Adadelta", "Rprop", "ASGD")
    ],
    same("lr_scheduler.PolynomialLR", _scheduler("PolynomialLR", total_iters=4)),
    same("lr_scheduler.CyclicLR", _scheduler("CyclicLR", 0.01, 0.1)),
    same("lr_scheduler.ConstantLR", _scheduler("ConstantLR")),
    same("nn.Unflatten", _layer("Unflatten", (2, 6), 1, (2, 3))),
    *_activation("ReLU6", "relu6"),
    *_activation("PReLU", "prelu"),
    *_activation("Mish", "mish"),
    *_activation("Hardtanh", "hardtanh"),
    same(
        "nn.InstanceNorm2d",
        _layer("InstanceNorm2d", (2, 3, 4, 4), 3, affine=True),
    ),
    same(
        "nn.ParameterDict",
        lambda lib: lib.nn.ParameterDict({"a": _param(lib)})["a"],
    ),
    same(
        "nn.MaxPool2d(dilation=)",
        _layer("MaxPool2d", (1, 1, 5, 5), 2, dilation=2),
        task="task4_4",
    ),
    same(
        "nn.MaxPool2d(return_indices=)",
        _layer("MaxPool2d", (1, 1, 4, 4), 2, return_indices=True),
        task="task4_4",
    ),
    same("nn.MultiheadAttention(kdim=, vdim=, add_bias_kv=)", _mha, task="task4_8"),
    same(
        "nn.LSTM(proj_size=)",
        _layer("LSTM", (2, 1, 3), 3, 4, proj_size=2),
        task="task4_7",
    ),
    *_loss("MarginRankingLoss", "margin_ranking_loss", ((2,), (2,), (2,))),
    *_loss("CosineEmbeddingLoss", "cosine_embedding_loss", ((2, 3), (2, 3), (2,))),
    *_loss("GaussianNLLLoss", "gaussian_nll_loss", ((2, 3), (2, 3), (2, 3))),
]


def _kindling() -> ModuleType:
    import module4_networks

    return module4_networks


def _exists(probe: Probe, lib: ModuleType) -> bool:
    try:
        probe(lib)
    except Exception:
        return False
    return True


def missing() -> List[str]:
    """The names of the listed features Kindling does not have yet."""
    lib = _kindling()
    return [f.name for f in FEATURES if not _exists(f.kindling, lib)]


def _case(feature: Feature) -> Any:
    marks = [getattr(pytest.mark, feature.task)]
    if feature.expected_missing:
        marks.append(pytest.mark.xfail(strict=True, reason=feature.expected_missing))
    return pytest.param(feature, id=feature.name, marks=marks)


def test_the_names_are_unique():
    names = [f.name for f in FEATURES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("feature", [pytest.param(f, id=f.name) for f in FEATURES])
def test_the_feature_is_pytorchs(feature):
    feature.torch(import_torch())


@pytest.mark.parametrize("feature", [_case(f) for f in FEATURES])
def test_kindling_has_the_feature(feature):
    feature.kindling(_kindling())


if __name__ == "__main__":
    gone = missing()
    for name in gone:
        print(f"missing: {name}")
    print(f"{len(gone)} of {len(FEATURES)} listed features still missing in Kindling")
