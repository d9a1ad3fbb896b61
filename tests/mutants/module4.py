# kindling: instructor-only
"""Equivalent mutants of Module 4's solutions (see ``__init__.py``); a literal
only (the file is read, never imported)."""

EQUIVALENT = {
    "module4_networks/functional.py:tile:op:*->/": (
        "only the condition of a narrow to new_height * kh rows changes: "
        "where the windows fill the height, that narrow keeps every row, a "
        "view of the same entries"
    ),
    "module4_networks/functional.py:tile:op:*->/#3": (
        "only the condition of a narrow to new_width * kw columns changes: "
        "where the windows fill the width, that narrow keeps every column, a "
        "view of the same entries"
    ),
    "module4_networks/functional.py:tile:args:batch, channels->channels, batch": (
        "dims 0 and 1 are never permuted: viewing the contiguous batch as "
        "(channels, batch, ...) and later as (batch, channels, ...) reads the "
        "same row-major memory"
    ),
    "module4_networks/functional.py:_first_argmax:args:a, values->values, a": (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    (
        "module4_networks/functional.py:_first_argmax:args:backend.mul_zip(is_max, "
        "backend.add_zip(positions, a.new_tensor(-n))),\n        "
        "a.new_tensor(float(n))->a.new_tensor(float(n)),\n        "
        "backend.mul_zip(is_max, backend.add_zip(positions, a.new_tensor(-n)))"
    ): (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    (
        "module4_networks/functional.py:_first_argmax:args:is_max, "
        "backend.add_zip(positions, a.new_tensor(-n))->backend.add_zip(positions, "
        "a.new_tensor(-n)), is_max"
    ): (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    (
        "module4_networks/functional.py:_first_argmax:args:positions, "
        "a.new_tensor(-n)->a.new_tensor(-n), positions"
    ): (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    (
        "module4_networks/functional.py:_first_argmax:args:positions, "
        "first->first, positions"
    ): (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    (
        "module4_networks/functional.py:MaxWithIndex.backward:args:one_hot, "
        "grad->grad, one_hot"
    ): (
        "eq, mul and add are symmetric entry by entry (IEEE multiplication "
        "and addition commute), and broadcasting gives the same shape either way"
    ),
    "module4_networks/functional.py:dropout:cmp:>=->>": (
        "rand >= p and rand > p differ only where a uniform draw equals p "
        "exactly, which happens with probability about 2**-53 an entry"
    ),
    "module4_networks/attention.py:causal_mask:op:*->/": (
        "the comparison's 0/1 mask divided by 1.0 is the same float as the "
        "mask times 1.0"
    ),
    ("module4_networks/fast_conv.py:_conv1d_forward_factory:" "const:True->False#2"): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    (
        "module4_networks/fast_conv.py:_conv1d_backward_input_factory:"
        "const:True->False#2"
    ): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    (
        "module4_networks/fast_conv.py:_conv1d_backward_weight_factory:"
        "const:True->False#2"
    ): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    ("module4_networks/fast_conv.py:_conv2d_forward_factory:" "const:True->False#2"): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    (
        "module4_networks/fast_conv.py:_conv2d_backward_input_factory:"
        "const:True->False#2"
    ): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    (
        "module4_networks/fast_conv.py:_conv2d_backward_weight_factory:"
        "const:True->False#2"
    ): (
        "njit's cache=True: fast_conv.kernel gives every kernel Module 3's "
        "disk cache (kernel_cache.persist) whether or not Numba's own was asked"
    ),
    "module4_networks/attention.py:padding_mask:const:1->2": (
        "reshape(-2, 1): NumPy reads any negative size as the one unknown "
        "dimension, as it reads -1"
    ),
    "module4_networks/attention.py:padding_mask:op:*->/": (
        "the comparison's 0/1 mask divided by 1.0 is the same float as the "
        "mask times 1.0"
    ),
    "module4_networks/attention.py:attention_weights:const:0.0->1.0": (
        "a fully masked row's scores are replaced by a constant, 0.0 or 1.0: "
        "the softmax of any constant row is the same uniform row, and the "
        "masked weights are zeroed afterwards"
    ),
    (
        "module4_networks/attention.py:scaled_dot_product_attention:args:"
        "-2, -1->-1, -2"
    ): "transpose(-2, -1) and transpose(-1, -2) swap the same two dims",
    (
        "module4_networks/fast_conv.py:_conv1d_forward_factory."
        "conv1d_forward_kernel:args:0, -start->-start, 0"
    ): "max(0, -start) == max(-start, 0) for ints",
    (
        "module4_networks/fast_conv.py:_conv1d_forward_factory."
        "conv1d_forward_kernel:args:kernel_width, width - start->width - start, "
        "kernel_width"
    ): "min(kernel_width, width - start) is symmetric for ints",
    "module4_networks/weight_init.py:calculate_gain:const:0.01->(-0.01)": (
        "the default slope enters the gain only squared: sqrt(2 / (1 + a**2))"
    ),
    "module4_networks/losses.py:BinaryCrossEntropy.forward:cmp:<-><=": (
        "a clamp where(v < c, c, v) and where(v <= c, c, v) agree at v == c: "
        "both give c"
    ),
    "module4_networks/losses.py:BinaryCrossEntropy.forward:cmp:<-><=#2": (
        "a clamp where(v < c, c, v) and where(v <= c, c, v) agree at v == c: "
        "both give c"
    ),
    "module4_networks/losses.py:BinaryCrossEntropy.backward:cmp:<-><=": (
        "a clamp where(v < c, c, v) and where(v <= c, c, v) agree at v == c: "
        "both give c"
    ),
    (
        "module4_networks/fast_conv.py:_conv2d_forward_factory."
        "conv2d_forward_kernel:args:0, -top->-top, 0"
    ): "min and max of two ints are symmetric",
    (
        "module4_networks/fast_conv.py:_conv2d_forward_factory."
        "conv2d_forward_kernel:args:kernel_height, height - top->height - top, "
        "kernel_height"
    ): "min and max of two ints are symmetric",
    (
        "module4_networks/fast_conv.py:_conv2d_forward_factory."
        "conv2d_forward_kernel:args:0, -left->-left, 0"
    ): "min and max of two ints are symmetric",
    (
        "module4_networks/fast_conv.py:_conv2d_forward_factory."
        "conv2d_forward_kernel:args:kernel_width, width - left->width - left, "
        "kernel_width"
    ): "min and max of two ints are symmetric",
    "module4_networks/optimizers.py:RMSprop.update:op:+->-#3": (
        "the centered running mean of the gradient then comes out negated at "
        "every step (by induction), and it enters the update only squared"
    ),
    "module4_networks/optimizers.py:RMSprop.update:cmp:>->>=": (
        "with momentum 0 the buffer is 0.0 * 0 + g / denom, exactly g / denom: "
        "the same step as the plain update"
    ),
}
