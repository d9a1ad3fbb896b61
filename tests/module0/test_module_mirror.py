"""The registered parameters and submodules of a ``Module`` are mirrored in its
``__dict__`` (a speed trick of ``module0_fundamentals/module.py``): the mirror
always agrees with the registries. Given code: no task's marker."""

from module0_fundamentals.module import Module, Parameter


class _Leaf(Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = Parameter(1.0)


class _Tree(Module):
    def __init__(self) -> None:
        super().__init__()
        self.child = _Leaf()
        self.bias = Parameter(2.0)

    def forward(self) -> float:
        return 0.0


def _agrees(module: Module) -> bool:
    registered = {**module._parameters, **module._modules}
    mirrored = {
        k: v for k, v in vars(module).items() if isinstance(v, (Parameter, Module))
    }
    return registered == mirrored


def test_the_mirror_follows_assignment_replacement_and_deletion():
    tree = _Tree()
    assert _agrees(tree) and _agrees(tree.child)
    assert tree.bias is tree._parameters["bias"]
    tree.bias = Parameter(3.0)
    assert _agrees(tree) and tree.bias.value == 3.0
    tree.bias = _Leaf()  # a parameter name reused for a submodule
    assert _agrees(tree) and "bias" not in tree._parameters
    del tree.bias
    assert _agrees(tree) and "bias" not in vars(tree)


def test_a_name_the_class_defines_is_not_mirrored():
    tree = _Tree()
    tree.forward = Parameter(5.0)
    assert "forward" in tree._parameters and "forward" not in vars(tree)
    assert tree.forward() == 0.0  # the method keeps winning, as in PyTorch
