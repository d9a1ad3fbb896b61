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
        "index_to_position sums index[k] * strides[k]: the two arrays play "
        "symmetric parts, so swapping them gives the same position"
    ),
    "module2_tensors/tensor_data.py:TensorData.index:del:index = tuple(index)->pass": (
        "a list or an int64 array index is checked and converted the same way "
        "without the copy to a tuple; only the message shows it as a list"
    ),
    "module2_tensors/tensor_data.py:TensorData.permute:op:-->+": (
        "only the range quoted in the IndexError's message changes (0..dims+1); "
        "the tests check that the message names the order and the number of "
        "dimensions, not its wording"
    ),
    "module2_tensors/tensor_data.py:TensorData.permute:const:1->2": (
        "only the range quoted in the IndexError's message changes (0..dims-2); "
        "the tests check that the message names the order and the number of "
        "dimensions, not its wording"
    ),
    (
        "module2_tensors/tensor_data.py:shape_broadcast:args:"
        "len(a), len(b)->len(b), len(a)"
    ): "max is symmetric: max(len(a), len(b)) == max(len(b), len(a))",
    "module2_tensors/tensor_functions.py:Permute.backward:const:0->1": (
        "the list that starts the inverse permutation is overwritten entry by "
        "entry by the loop that follows: its initial values are never read"
    ),
}

LATER = {
    # What a forward saves is read only by its backward (Task 2.4).
    (
        "module2_tensors/tensor_functions.py:MatMul.forward:del:"
        "ctx.save_for_backward(a, b)->pass"
    ): "2.4",
}
