# kindling: instructor-only
"""Equivalent and later-killed mutants of Module 2's solutions (see ``__init__.py``).

Mutants that change only how an error message *words* what it names (a range
written one way or another, an index shown as a list or a tuple) are recorded here:
the tests check that a message names the index, the shape and the dimension, never
its wording (issue 25), so they must not tell these apart.
"""

EQUIVALENT = {
    (
        "module2_tensors/tensor_data.py:TensorData.index:args:"
        "np.array(index, dtype=np.int64), self._strides->self._strides, "
        "np.array(index, dtype=np.int64)"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_data.py:TensorData.index:del:index = "
        "tuple(index)->pass"
    ): (
        "a list or an int64 array index is checked and converted the "
        "same way without the copy to a tuple; only the message shows it "
        "as a list"
    ),
    ("module2_tensors/tensor_data.p" "y:TensorData.permute:op:-->+"): (
        "only the range quoted in the IndexError's message changes "
        "(0..dims+1); the tests check that the message names the order "
        "and the number of dimensions, not its wording"
    ),
    ("module2_tensors/tensor_data.py:" "TensorData.permute:const:1->2"): (
        "only the range quoted in the IndexError's message changes "
        "(0..dims-2); the tests check that the message names the order "
        "and the number of dimensions, not its wording"
    ),
    (
        "module2_tensors/tensor_data.py:shape_broadcast:args:len(a), "
        "len(b)->len(b), len(a)"
    ): ("max is symmetric: max(len(a), " "len(b)) == max(len(b), len(a))"),
    ("module2_tensors/tensor_functions.py:Mul.forward:args:a, b->b, " "a#2"): (
        "a * b == b * a, entry by entry " "(IEEE multiplication commutes)"
    ),
    ("module2_tensors/tensor_functions" ".py:EQ.forward:args:a, b->b, a"): (
        "a == b is symmetric, with the " "same broadcast shape either way"
    ),
    ("module2_tensors/tensor_functions.py:IsClose.forward:args:a, " "b->b, a"): (
        "|a - b| < tolerance " "is symmetric in a and " "b"
    ),
    ("module2_tensors/tensor_functions.py:All.forward:args:a, " "zero->zero, a"): (
        "a == 0 is symmetric, with the " "same broadcast shape either way"
    ),
    (
        "module2_tensors/tensor_functions.py:All.forward:args:zeros, "
        "zero->zero, zeros"
    ): ("a == 0 is symmetric, with the " "same broadcast shape either way"),
    (
        "module2_tensors/tensor_ops.py:tensor_map._map:args:in_index, "
        "in_strides->in_strides, in_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_map._map:args:out_index, "
        "out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_zip._zip:args:a_index, "
        "a_strides->a_strides, a_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_zip._zip:args:b_index, "
        "b_strides->b_strides, b_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_zip._zip:args:out_index, "
        "out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_reduce._reduce:args:"
        "out_index, out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_reduce._reduce:args:"
        "out_index, a_strides->a_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_matrix_multiply:args:"
        "a_index, a_strides->a_strides, a_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_matrix_multiply:args:"
        "b_index, b_strides->b_strides, b_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_matrix_multiply:args:"
        "out_index, out_strides->out_strides, out_index"
    ): (
        "index_to_position sums index[k] * strides[k]: the two arrays "
        "play symmetric parts, so swapping them gives the same position"
    ),
    (
        "module2_tensors/tensor_ops.py:tensor_reduce._reduce:args:"
        "accumulated, a_storage[a_position]->a_storage[a_position], "
        "accumulated"
    ): (
        "fn(x, acc) instead of fn(acc, x): every reduction the course "
        "makes (add, mul, max) is commutative"
    ),
    ("module2_tensors/tensor_functions.py:Max.forward:args:" "a, out->out, a"): (
        "save_for_backward(out, a, dim): Max.backward reads a and out only as "
        "eq_zip(a, out), which is symmetric, with the same broadcast shape"
    ),
    ("module2_tensors/tensor_functions.py:Mul.backward:const:" "True->False"): (
        "Function.apply always gives a recording Context one "
        "needs_input_grad flag per input; the (True, True) fallback "
        "serves only a Context made by hand, which no course code makes"
    ),
    ("module2_tensors/tensor_functions.py:Mul.backward:const:" "True->False#2"): (
        "Function.apply always gives a recording Context one "
        "needs_input_grad flag per input; the (True, True) fallback "
        "serves only a Context made by hand, which no course code makes"
    ),
    ("module2_tensors/tensor_functions.py:MatMul.backward:const:" "True->False"): (
        "Function.apply always gives a recording Context one "
        "needs_input_grad flag per input; the (True, True) fallback "
        "serves only a Context made by hand, which no course code makes"
    ),
    ("module2_tensors/tensor_functions.py:MatMul.backward:const:" "True->False#2"): (
        "Function.apply always gives a recording Context one "
        "needs_input_grad flag per input; the (True, True) fallback "
        "serves only a Context made by hand, which no course code makes"
    ),
    ("module2_tensors/tensor_functions.py:Mul.backward:args:grad, " "b->b, grad"): (
        "grad * x == x * grad, entry by entry (IEEE multiplication " "commutes)"
    ),
    ("module2_tensors/tensor_functions.py:Mul.backward:args:grad, " "a->a, grad"): (
        "grad * x == x * grad, entry by entry (IEEE multiplication " "commutes)"
    ),
    ("module2_tensors/tensor_functions.py:Exp.backward:args:grad, " "out->out, grad"): (
        "grad * x == x * grad, entry by entry (IEEE multiplication " "commutes)"
    ),
    (
        "module2_tensors/tensor_functions.py:Max.backward:args:grad, "
        "backend.inv_map(ties)->backend.inv_map(ties), grad"
    ): ("grad * x == x * grad, entry by entry (IEEE multiplication " "commutes)"),
    (
        "module2_tensors/tensor_functions.py:Max.backward:args:mask, "
        "backend.mul_zip(grad, "
        "backend.inv_map(ties))->backend.mul_zip(grad, "
        "backend.inv_map(ties)), mask"
    ): ("grad * x == x * grad, entry by entry (IEEE multiplication " "commutes)"),
    ("module2_tensors/tensor_functions.py:Max.backward:args:a, " "out->out, a"): (
        "a == out is symmetric, with the " "same broadcast shape either way"
    ),
    (
        "module2_tensors/tensor_functions.py:unbroadcast:del:shape = "
        "tuple(shape)->pass"
    ): (
        "a list shape skips the early return and takes the general path, "
        "which sums over no dimension and views as the same shape: the "
        "same values"
    ),
    ("module2_tensors/tensor_functions.py:grad_check:args:-1.0, " "1.0->1.0, -1.0"): (
        "random.uniform(1, -1) draws from the same interval: every weight is "
        "negated, and a check with weights -w is exactly as strong"
    ),
    (
        "module2_tensors/tensor_functions.py:grad_check:args:1.0, "
        "abs(original)->abs(original), 1.0"
    ): "max is symmetric for numbers (an input entry that is NaN has no gradient)",
    (
        "module2_tensors/tensor_functions.py:grad_check:args:np.abs(up), "
        "np.abs(down)->np.abs(down), np.abs(up)"
    ): "np.maximum is symmetric, and it propagates a NaN from either side",
    (
        "module2_tensors/tensor_functions.py:grad_check:args:abs(analytic), "
        "abs(numeric)->abs(numeric), abs(analytic)"
    ): (
        "max is symmetric for numbers; with a NaN on either side the "
        "difference is NaN and the comparison fails either way"
    ),
    "module2_tensors/indexing_functions.py:index_view:const:0->1#3": (
        "the stride of the size-1 dimension that None inserts: a size-1 "
        "dimension is only ever indexed at 0, and is_contiguous ignores it"
    ),
    "module2_tensors/shape_functions.py:Unsqueeze.forward:const:1->2": (
        "the stride of a new last dimension of size 1: it is only ever "
        "indexed at 0, and is_contiguous ignores it"
    ),
    "module2_tensors/indexing_functions.py:index_view:cmp:<=-><": (
        "a step of 0 never reaches the check: slice.indices raises "
        "ValueError('slice step cannot be zero') first"
    ),
    "module2_tensors/indexing_functions.py:index_view:cmp:>->>=#3": (
        "an empty slice's offset is never read: a view of no entries "
        "reads no storage, and TensorData checks the storage's size only "
        "for a view with entries"
    ),
    (
        "module2_tensors/shape_functions.py:split:args:step, size - "
        "start->size - start, step"
    ): "min(a, b) == min(b, a) for the ints of a piece size",
    "module2_tensors/shape_functions.py:stack:del:tensors = list(tensors)->pass": (
        "stack takes a sequence, a list or a tuple (as torch.stack, which "
        "refuses a generator): both index and slice as the list would"
    ),
    (
        "module2_tensors/shape_functions.py:stack:del:dim = _dim(dim, "
        "tensors[0].dims + 1)->pass"
    ): (
        "unsqueeze and cat normalise a negative dim against dims + 1 as "
        "_dim does, and raise the same IndexError for a dim out of range"
    ),
    "module2_tensors/indexing_functions.py:Where.forward:args:condition, "
    "condition.new_tensor(0.0)->condition.new_tensor(0.0), condition": (
        "c == 0 and 0 == c are the same mask, with the same broadcast shape"
    ),
    (
        "module2_tensors/indexing_functions.py:Where.forward:args:backend.select_zip("
        "condition, x), backend.select_zip(other, y)->backend.select_zip(other, "
        "y), backend.select_zip(condition, x)"
    ): (
        "IEEE addition commutes (one of the two terms is 0 at every entry), "
        "with the same broadcast shape either way"
    ),
    (
        "module2_tensors/indexing_functions.py:IndexSelect.backward:args:target, "
        "_along(grad, dim, k)->_along(grad, dim, k), target"
    ): "IEEE addition commutes: target + g == g + target, entry by entry",
    "module2_tensors/indexing_functions.py:sort:del:lines[dim] = 1->pass": (
        "the loop then visits every index instead of one per line: each line "
        "is ranked n times over, with the same result each time (n times the "
        "work, which no test times)"
    ),
    "module2_tensors/indexing_functions.py:sort:const:1->2": (
        "a size of 2 at dim in the shape of the lines visits each line twice "
        "(idx[dim] is overwritten before use): the same ranks, twice the work"
    ),
    "module2_tensors/indexing_functions.py:sort:const:1->2#2": (
        "NaN's key (2, 0.0) still sorts after every number's (0, x)"
    ),
    "module2_tensors/indexing_functions.py:sort:const:0.0->1.0": (
        "every NaN gets the same key (1, 1.0), still after every number's "
        "(0, x): NaNs keep their order and their place"
    ),
}

LATER = {
    (
        "module2_tensors/tensor_functions.py:Inv.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Mul.forward:del:"
        "ctx.save_for_backward(a, b)->pass"
    ): "2.4",
    ("module2_tensors/tensor_functions" ".py:Mul.forward:args:a, b->b, a"): "2.4",
    (
        "module2_tensors/tensor_functions.py:Sigmoid.forward:del:"
        "ctx.save_for_backward(out)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:ReLU.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Log.forward:del:"
        "ctx.save_for_backward(a)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Exp.forward:del:"
        "ctx.save_for_backward(out)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Sum.forward:del:"
        "ctx.save_for_backward(a.shape)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Max.forward:del:"
        "ctx.save_for_backward(a, out, dim)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:Permute.forward:del:"
        "ctx.save_for_backward(order)->pass"
    ): "2.4",
    (
        "module2_tensors/tensor_functions.py:View.forward:del:"
        "ctx.save_for_backward(a.shape)->pass"
    ): "2.4",
    ("module2_tensors/tensor_functions.py:MatMul.forward:args:a, " "b->b, a"): "2.4",
    (
        "module2_tensors/tensor_functions.py:MatMul.forward:del:"
        "ctx.save_for_backward(a, b)->pass"
    ): "2.4",
}
