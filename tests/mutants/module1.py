# kindling: instructor-only
"""Equivalent and later-killed mutants of Module 1's solutions (see ``__init__.py``).

``LATER``: what a forward saves is read only by its backward (Task 1.4), so Task
1.2's tests cannot see it; ``kindling mutants`` runs each of these again under
Task 1.4's marker and counts it killed only if those tests fail.
"""

EQUIVALENT = {
    ("module1_scalar_autodiff/scalar.py:Scalar.__add__:args:self, " "b->b, self"): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    ("module1_scalar_autodiff/scalar.py:Scalar.__radd__:args:b, " "self->self, b"): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    (
        "module1_scalar_autodiff/scalar.py:Scalar.__sub__:args:self, "
        "Neg.apply(b)->Neg.apply(b), self"
    ): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    (
        "module1_scalar_autodiff/scalar.py:Scalar.__rsub__:args:b, "
        "Neg.apply(self)->Neg.apply(self), b"
    ): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    ("module1_scalar_autodiff/scalar.py:Scalar.__mul__:args:self, " "b->b, self"): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    ("module1_scalar_autodiff/scalar.py:Scalar.__rmul__:args:b, " "self->self, b"): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    (
        "module1_scalar_autodiff/scalar.py:Scalar.__truediv__:args:"
        "self, Inv.apply(b)->Inv.apply(b), self"
    ): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    (
        "module1_scalar_autodiff/scalar.py:Scalar.__rtruediv__:args:"
        "b, Inv.apply(self)->Inv.apply(self), b"
    ): (
        "the arguments of a commutative operation swapped: the same "
        "value, and the graph pairs each input with its own "
        "derivative either way"
    ),
    ("module1_scalar_autodiff/scalar.py:Scalar.__eq__:args:self, " "b->b, self"): (
        "equality is symmetric: a == b and b == a are the same " "Scalar value"
    ),
    ("module1_scalar_autodiff/scalar_functions.py:Add.forward:" "args:a, b->b, a"): (
        "addition commutes: operators.add(b, a) == operators.add(a, " "b)"
    ),
    ("module1_scalar_autodiff/scalar_functions.py:Mul.forward:" "args:a, b->b, a#2"): (
        "multiplication commutes: operators.mul(b, a) == " "operators.mul(a, b)"
    ),
    ("module1_scalar_autodiff/scalar_functions.py:EQ.forward:args:" "a, b->b, a"): (
        "equality is symmetric: operators.eq(b, a) == " "operators.eq(a, b)"
    ),
    ("module1_scalar_autodiff/autodiff.py:backpropagate:const:" "False->True"): (
        'getattr(node, "retains_grad", True): every Scalar sets '
        "retains_grad in __init__, so the default is never used"
    ),
    (
        "module1_scalar_autodiff/scalar_functions.py:Mul.backward:"
        "args:b, d_output->d_output, b"
    ): (
        "multiplication commutes: operators.mul(d_output, b) == "
        "operators.mul(b, d_output)"
    ),
    (
        "module1_scalar_autodiff/scalar_functions.py:Mul.backward:"
        "args:a, d_output->d_output, a"
    ): (
        "multiplication commutes: operators.mul(d_output, a) == "
        "operators.mul(a, d_output)"
    ),
    (
        "module1_scalar_autodiff/scalar_functions.py:Exp.backward:"
        "args:out, d_output->d_output, out"
    ): (
        "multiplication commutes: operators.mul(d_output, out) == "
        "operators.mul(out, d_output)"
    ),
    (
        "module1_scalar_autodiff/scalar_functions.py:Sin.backward:"
        "args:operators.cos(a), d_output->d_output, operators.cos(a)"
    ): "multiplication commutes: the same product in the other order",
    (
        "module1_scalar_autodiff/scalar_functions.py:Cos.backward:"
        "args:operators.neg(operators.sin(a)), d_output->d_output, "
        "operators.neg(operators.sin(a))"
    ): "multiplication commutes: the same product in the other order",
    (
        "module1_scalar_autodiff/dual.py:Dual.__mul__:args:"
        "self.value, b.value->b.value, self.value"
    ): ("multiplication commutes: the value of the product is the " "same"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:diff(expr.a, "
        "name), diff(expr.b, name)->diff(expr.b, name), diff(expr.a, "
        "name)"
    ): (
        "Add(db, da) for Add(da, db): addition commutes, and the "
        "tree has the same nodes"
    ),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:Mul(diff(a, "
        "name), b), Mul(a, diff(b, name))->Mul(a, diff(b, name)), "
        "Mul(diff(a, name), b)"
    ): (
        "the product rule terms swapped inside an Add: the same "
        "value and the same nodes"
    ),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:diff(a, "
        "name), b->b, diff(a, name)"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:a, diff(b, "
        "name)->diff(b, name), a"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:diff(a, "
        "name), b->b, diff(a, name)#2"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:a, diff(b, "
        "name)->diff(b, name), a#2"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:Mul(Const(c), "
        "Pow(expr.a, c - 1.0)), diff(expr.a, name)->diff(expr.a, "
        "name), Mul(Const(c), Pow(expr.a, c - 1.0))"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:Const(c), "
        "Pow(expr.a, c - 1.0)->Pow(expr.a, c - 1.0), Const(c)"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:expr, "
        "diff(expr.a, name)->diff(expr.a, name), expr"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:Cos(expr.a), "
        "diff(expr.a, name)->diff(expr.a, name), Cos(expr.a)"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    (
        "module1_scalar_autodiff/symbolic.py:diff:args:"
        "Neg(Sin(expr.a)), diff(expr.a, name)->diff(expr.a, name), "
        "Neg(Sin(expr.a))"
    ): ("a Mul with its factors swapped: the same value and the same " "nodes"),
    "module1_scalar_autodiff/dual.py:jacobian:const:1->2": (
        "m = 1 only makes the first backward pass run; m is set to "
        "the number of outputs in that pass, so any start value of 1 "
        "or more gives the same rows"
    ),
    "project/run_scalar.py:train_epoch:const:False->True": (
        "the running sum starts from a 0.0 that tracks its derivative: the "
        "derivative of that throwaway leaf is never read, and the loss, the "
        "gradients of the parameters and the step are the same"
    ),
}

LATER = {
    # Task 1.5's tests train Scalars; the branch for Tensor parameters (Task 2.5
    # trains the same network on tensors with this SGD) is judged by Task 2.5's.
    (
        "module1_scalar_autodiff/optim.py:SGD.zero_grad:args:"
        'p.value, "grad"->"grad", p.value'
    ): "2.5",
    (
        "module1_scalar_autodiff/optim.py:SGD.zero_grad:del:"
        "p.value.grad = None->pass"
    ): "2.5",
    "module1_scalar_autodiff/optim.py:SGD.step:del:p.update(new)->pass": "2.5",
    (
        "module1_scalar_autodiff/scalar_functions.py:Mul.forward:del:"
        "ctx.save_for_backward(a, b)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Mul.forward:" "args:a, b->b, a"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Inv.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Sigmoid.forward:"
        "del:ctx.save_for_backward(s)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:ReLU.forward:"
        "del:ctx.save_for_backward(a)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Log.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Exp.forward:del:"
        "ctx.save_for_backward(out)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Sin.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Cos.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "1.4",
    (
        "module1_scalar_autodiff/scalar_functions.py:Tanh.forward:"
        "del:ctx.save_for_backward(t)->pass"
    ): "1.4",
}
