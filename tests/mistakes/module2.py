# kindling: instructor-only
"""Plausible wrong solutions of Module 2's tasks (see ``__init__.py``)."""

MISTAKES = [
    {
        "name": "to-index-python-list",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": (
            "    rest = ordinal\n"
            "    for k in range(len(shape) - 1, -1, -1):\n"
            "        out_index[k] = rest % shape[k]\n"
            "        rest = rest // shape[k]\n"
        ),
        "replace": (
            "    digits = []\n"
            "    rest = ordinal\n"
            "    for k in range(len(shape) - 1, -1, -1):\n"
            "        digits.append(rest % shape[k])\n"
            "        rest = rest // shape[k]\n"
            "    for k in range(len(digits)):\n"
            "        out_index[len(shape) - 1 - k] = digits[k]\n"
        ),
        "description": "to_index that builds a Python list (kernels must not "
        "allocate containers)",
    },
    {
        "name": "strides-multiply-by-size-0",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "        step *= max(int(size), 1)\n",
        "replace": "        step *= int(size)\n",
        "description": "strides_from_shape that multiplies by a size-0 dimension "
        "(an empty tensor's strides then differ from PyTorch's)",
    },
    {
        "name": "broadcast-index-skips-size-1",
        "task": "2.2",
        "file": "module2_tensors/tensor_data.py",
        "find": (
            "        if shape[k] == 1:\n"
            "            out_index[k] = 0\n"
            "        else:\n"
            "            out_index[k] = big_index[k + offset]\n"
        ),
        "replace": (
            "        if shape[k] != 1:\n"
            "            out_index[k] = big_index[k + offset]\n"
        ),
        "description": "broadcast_index that leaves the broadcast dimensions of "
        "out_index as they were (kernels reuse the buffer)",
    },
    {
        "name": "reduce-ignores-the-start-value",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": "            accumulated = out[position]\n",
        "replace": "            accumulated = 0.0\n",
        "description": "the reduce kernel folds each row into 0, not into the start "
        "value out holds (-inf for a max): a max of negative numbers gives 0",
    },
    {
        "name": "map-ignores-out-strides",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": (
            "            out[index_to_position(out_index, out_strides)] = fn(value)\n"
        ),
        "replace": "            out[ordinal] = fn(value)\n",
        "description": "a map kernel that writes out in row-major order, ignoring "
        "out's strides",
    },
    {
        "name": "repeat-of-ones-is-a-view",
        "task": "2.6",
        "file": "module2_tensors/shape_functions.py",
        "find": (
            "    return reshape(expand(reshape(t, pairs), *target).clone(), final)\n"
        ),
        "replace": "    return reshape(expand(reshape(t, pairs), *target), final)\n",
        "description": "repeat by reshapes and expand alone: with every count 1 "
        "the result is a view, and a write to it changes the input",
    },
    {
        "name": "two-ellipses",
        "task": "2.6",
        "file": "module2_tensors/indexing_functions.py",
        "find": (
            "    if sum(1 for k in key if k is Ellipsis) > 1:\n"
            '        raise IndexError("an index can hold only one ellipsis (...)")\n'
        ),
        "replace": "",
        "description": "indexing that accepts a second ... (PyTorch raises "
        "IndexError)",
    },
    {
        "name": "every-ellipsis-expanded",
        "task": "2.6",
        "file": "module2_tensors/indexing_functions.py",
        "find": (
            "    if sum(1 for k in key if k is Ellipsis) > 1:\n"
            '        raise IndexError("an index can hold only one ellipsis (...)")\n'
            "    used = sum(1 for k in key if k is not None and k is not Ellipsis)\n"
            "    if used > data.dims:\n"
            "        raise IndexError(\n"
            '            f"too many indices for a tensor of {data.dims} dimensions: '
            '{key}"\n'
            "        )\n"
            "    fill = (slice(None),) * (data.dims - used)\n"
            "    if Ellipsis in key:\n"
            "        at = key.index(Ellipsis)\n"
            "        key = key[:at] + fill + key[at + 1 :]\n"
        ),
        "replace": (
            "    used = sum(1 for k in key if k is not None and k is not Ellipsis)\n"
            "    if used > data.dims:\n"
            "        raise IndexError(\n"
            '            f"too many indices for a tensor of {data.dims} dimensions: '
            '{key}"\n'
            "        )\n"
            "    fill = (slice(None),) * (data.dims - used)\n"
            "    if Ellipsis in key:\n"
            "        key = sum(((fill if k is Ellipsis else (k,)) for k in key), ())\n"
        ),
        "description": "indexing that expands every ... (t[..., 0, ...] is accepted "
        "silently when the first takes every dimension)",
    },
    {
        "name": "unbroadcast-leading-dims-only",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": "        if size == 1 and grad.shape[k] != 1:\n",
        "replace": "        if k < extra:\n",
        "description": "unbroadcast that sums the extra leading dimensions only, "
        "not the size-1 dimensions that were broadcast",
    },
    {
        "name": "mul-backward-swapped",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": (
            "        return (mul(grad, b) if need_a else None), "
            "(mul(grad, a) if need_b else None)\n"
        ),
        "replace": (
            "        return (mul(grad, a) if need_a else None), "
            "(mul(grad, b) if need_b else None)\n"
        ),
        "description": "Mul.backward that gives a the gradient grad * a (and b "
        "grad * b) instead of grad * b",
    },
    {
        "name": "permute-backward-same-order",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": (
            "        inverse = np.argsort(order).tolist()  # (inverse[order[k]] = k)\n"
            "        return _new(grad, grad._tensor.permute(*inverse))\n"
        ),
        "replace": "        return _new(grad, grad._tensor.permute(*order))\n",
        "description": "Permute.backward that permutes grad by the order again, "
        "not by its inverse (right only for swaps)",
    },
    {
        "name": "tensor-epoch-without-zero-grad",
        "task": "2.5",
        "file": "project/run_tensor.py",
        "find": "    optimizer.zero_grad()\n    z = model(x)\n",
        "replace": "    z = model(x)\n",
        "description": "train_epoch without zero_grad: the step adds the gradients "
        "left by earlier backwards",
    },
    {
        "name": "tensor-epoch-threshold-half",
        "task": "2.5",
        "file": "project/run_tensor.py",
        "find": (
            "    optimizer.step()\n"
            "    correct = int(((z > 0.0) == y).sum().item())\n"
        ),
        "replace": (
            "    optimizer.step()\n"
            "    correct = int(((z > 0.5) == y).sum().item())\n"
        ),
        "description": "correct counted with the logit thresholded at 0.5, as if it "
        "were a probability",
    },
    {
        "name": "tensor-epoch-counts-after-the-step",
        "task": "2.5",
        "file": "project/run_tensor.py",
        "find": (
            "    optimizer.step()\n"
            "    correct = int(((z > 0.0) == y).sum().item())\n"
        ),
        "replace": (
            "    optimizer.step()\n"
            "    correct = int(((model(x) > 0.0) == y).sum().item())\n"
        ),
        "description": "correct counted from a second forward pass after the step, "
        "not from the pass the loss came from",
    },
    {
        "name": "broadcast-shape-by-max",
        "task": "2.2",
        "file": "module2_tensors/tensor_data.py",
        "find": "        result.append(size_a if size_b == 1 else size_b)\n",
        "replace": "        result.append(max(size_a, size_b))\n",
        "description": "shape_broadcast taking the larger size: (0,) with (1,) "
        "gives (1,), where 1 stretches to 0",
    },
    {
        "name": "broadcast-index-aligned-left",
        "task": "2.2",
        "file": "module2_tensors/tensor_data.py",
        "find": "            out_index[k] = big_index[k + offset]\n",
        "replace": "            out_index[k] = big_index[k]\n",
        "description": "broadcast_index that aligns the shapes on the left: wrong "
        "whenever the smaller shape has fewer dimensions",
    },
    {
        "name": "max-backward-ties-not-split",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": (
            "        return backend.mul_zip(mask, backend.mul_zip(grad, "
            "backend.inv_map(ties)))\n"
        ),
        "replace": "        return backend.mul_zip(mask, grad)\n",
        "description": "Max.backward that gives every tied maximum the whole "
        "gradient: ties get G each, not G / (number of ties)",
    },
    {
        "name": "grad-check-leaves-entries-perturbed",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": (
            "                down = f(*tensors).to_numpy()\n"
            "                storage[position] = original\n"
        ),
        "replace": "                down = f(*tensors).to_numpy()\n",
        "description": "grad_check that never sets a perturbed entry back: every "
        "input ends h below where it was, and later entries are checked elsewhere",
    },
    {
        "name": "grad-check-keeps-stale-grads",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": "    for t in tensors:\n        t.grad = None\n",
        "replace": "",
        "description": "grad_check that does not clear .grad before its backward: "
        "a gradient left by an earlier backward is added in",
    },
    {
        "name": "grad-check-unweighted-sum",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": (
            "    w = np.array([rng.uniform(-1.0, 1.0) for _ in range(out.size)])\n"
        ),
        "replace": "    w = np.ones(out.size)\n",
        "description": "grad_check of sum(f): only the Jacobian's column sums are "
        "checked, so a backward that permutes its gradient passes",
    },
    {
        "name": "grad-check-step-not-scaled",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": "                h = epsilon * max(1.0, abs(original))\n",
        "replace": "                h = epsilon\n",
        "description": "grad_check with the step epsilon at every size: at x ~ 1e8 "
        "the round-off allowance, ~1/h, accepts a gradient 1% off",
    },
    {
        "name": "grad-check-recording-left-off",
        "task": "2.4",
        "file": "module2_tensors/tensor_functions.py",
        "find": "    finally:\n        set_grad_enabled(previous)\n",
        "replace": "    finally:\n        pass\n",
        "description": "grad_check that turns gradient recording off and leaves it "
        "off: every later forward records nothing",
    },
    {
        "name": "no-grad-exit-enables",
        "task": "2.6",
        "file": "module2_tensors/shape_functions.py",
        "find": "        set_grad_enabled(self._previous)\n",
        "replace": "        set_grad_enabled(True)\n",
        "description": "no_grad.__exit__ that switches recording on instead of "
        "restoring the mode: a no_grad nested in another turns recording back on",
    },
    {
        "name": "index-select-backward-overwrites",
        "task": "2.6",
        "file": "module2_tensors/indexing_functions.py",
        "find": (
            "            backend.id_map(backend.add_zip(target, _along(grad, dim, k)), "
            "out=target)\n"
        ),
        "replace": "            backend.id_map(_along(grad, dim, k), out=target)\n",
        "description": "IndexSelect.backward that writes each slice's gradient "
        "instead of adding it: an index chosen twice gets one gradient",
    },
    {
        "name": "sort-descending-by-reversing",
        "task": "2.6",
        "file": "module2_tensors/indexing_functions.py",
        "find": (
            "        ranked = sorted(range(n), key=keys.__getitem__, "
            "reverse=descending)\n"
        ),
        "replace": (
            "        ranked = sorted(range(n), key=keys.__getitem__)\n"
            "        ranked = ranked[::-1] if descending else ranked\n"
        ),
        "description": "a descending sort as the ascending one reversed: tied "
        "entries come last index first (PyTorch's stable sort keeps their order)",
    },
    {
        "name": "sort-nan-unkeyed",
        "task": "2.6",
        "file": "module2_tensors/indexing_functions.py",
        "find": (
            "        keys = [(1, 0.0) if x != x else (0, x) for x in line]  "
            "# NaN: largest\n"
        ),
        "replace": "        keys = line\n",
        "description": "sort by the values themselves: a NaN compares false with "
        "everything, so it lands anywhere and splits the order around it",
    },
    {
        "name": "split-drops-remainder",
        "task": "2.6",
        "file": "module2_tensors/shape_functions.py",
        "find": (
            "        sizes = [min(step, size - start)"
            " for start in range(0, size, step)] or [0]\n"
        ),
        "replace": "        sizes = [step] * (size // step) or [0]\n",
        "description": "split into size // split_size pieces: the last, smaller "
        "piece is lost",
    },
    {
        "name": "contiguous-checks-size-one-strides",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "            if size > 1 and step != want:\n",
        "replace": "            if step != want:\n",
        "description": "is_contiguous that compares the stride of a size-1 "
        "dimension too: x[:, :1] or an unsqueezed view reads as not contiguous",
    },
    {
        "name": "permute-by-inverse-order",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": (
            "            tuple([shape[k] for k in order]),\n"
            "            tuple([strides[k] for k in order]),\n"
        ),
        "replace": (
            "            tuple([shape[order.index(k)] for k in range(self.dims)]),\n"
            "            tuple([strides[order.index(k)] for k in range(self.dims)]),\n"
        ),
        "description": "permute that puts dimension k where order says it goes "
        "(the inverse permutation): right for swaps, wrong for (2, 0, 1)",
    },
    {
        "name": "index-check-allows-the-size",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "            if not 0 <= i < size:\n",
        "replace": "            if not 0 <= i <= size:\n",
        "description": "index() that accepts an entry equal to the dimension's size: "
        "one past the end reads a neighbour's storage",
    },
    {
        "name": "indices-yields-one-buffer",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "            yield tuple(int(i) for i in out_index)\n",
        "replace": "            yield out_index\n",
        "description": "indices() that yields its one index buffer every time: "
        "list(t.indices()) holds the same array, the last index, n times",
    },
    {
        "name": "tensor-network-no-relu-after-layer2",
        "task": "2.5",
        "file": "project/run_tensor.py",
        "find": "        h = self.layer2(h).relu()\n",
        "replace": "        h = self.layer2(h)\n",
        "description": "the network leaves out the relu after the second layer: "
        "layers 2 and 3 collapse into one linear map (it still fits 'split')",
    },
    {
        "name": "view-copies-the-storage",
        "task": "2.3",
        "file": "module2_tensors/tensor_functions.py",
        "find": "        return _new(a, TensorData(a._tensor._storage, shape))\n",
        "replace": (
            "        return _new(a, TensorData(a._tensor._storage.copy()," " shape))\n"
        ),
        "description": "View.forward on a copy of the storage: the right values, but "
        "a write through the view no longer reaches the tensor it views",
    },
    {
        "name": "reduce-reads-a-through-out-strides",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": "            a_position = index_to_position(out_index, a_strides)\n",
        "replace": (
            "            a_position = index_to_position(out_index," " out_strides)\n"
        ),
        "description": "the reduce kernel finds a's first entry with out's strides: "
        "right only where out and a step alike (a reduce over the last dim of a "
        "2-D tensor), wrong for the other dims",
    },
    {
        "name": "matmul-k-starts-at-j",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": "        a_index[len(a_shape) - 1] = 0\n",
        "replace": "",
        "description": "the matmul kernel keeps the column index broadcast_index "
        "copied into a's last entry: row i of a is read from column j on",
    },
    {
        "name": "broadcast-shape-never-raises",
        "task": "2.2",
        "file": "module2_tensors/tensor_data.py",
        "find": "        if size_a != size_b and size_a != 1 and size_b != 1:\n",
        "replace": "        if False:\n",
        "description": (
            "shape_broadcast without its error: (2, 3) with (4, 3) "
            "gives (4, 3) instead of raising ValueError"
        ),
    },
    {
        "name": "zip-reads-b-with-a-strides",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": (
            "            y = b_storage[index_to_position(b_index, " "b_strides)]\n"
        ),
        "replace": (
            "            y = b_storage[index_to_position(b_index, " "a_strides)]\n"
        ),
        "description": (
            "the zip kernel positions b with a's strides: right only "
            "when a and b are laid out alike"
        ),
    },
    {
        "name": "reduce-steps-by-out-strides",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": "        step = int(a_strides[reduce_dim])\n",
        "replace": "        step = int(out_strides[reduce_dim])\n",
        "description": (
            "the reduce kernel steps along reduce_dim by out's "
            "stride: the same as a's when both are contiguous, wrong "
            "for a transposed or sliced input"
        ),
    },
    {
        "name": "map-in-index-not-broadcast",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": (
            "            broadcast_index(out_index, out_shape, "
            "in_shape, in_index)\n"
            "            value = "
            "in_storage[index_to_position(in_index, in_strides)]\n"
        ),
        "replace": (
            "            value = "
            "in_storage[index_to_position(out_index, in_strides)]\n"
        ),
        "description": (
            "the map kernel reads its input at out's index: right for"
            " equal shapes, silently wrong when the input is "
            "broadcast (fewer dims, or size 1)"
        ),
    },
    {
        "name": "matmul-b-steps-along-its-row",
        "task": "2.3",
        "file": "module2_tensors/tensor_ops.py",
        "find": "    a_step, b_step = int(a_strides[-1]), int(b_strides[-2])\n",
        "replace": "    a_step, b_step = int(a_strides[-1]), int(b_strides[-1])\n",
        "description": (
            "the matmul kernel steps b by its last stride: it walks "
            "along b's row j instead of down column j"
        ),
    },
    {
        "name": "index-allows-negative",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "            if not 0 <= i < size:\n",
        "replace": "            if i >= size:\n",
        "description": (
            "index() that checks only the upper bound: a negative "
            "entry reads storage before the tensor's own entries (or "
            "another row's)"
        ),
    },
    {
        "name": "permute-checks-only-the-count",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": "        if sorted(order) != list(range(self.dims)):\n",
        "replace": "        if len(order) != self.dims:\n",
        "description": (
            "permute that checks only how many dimensions the order "
            "names: (0, 0) repeats a dimension silently"
        ),
    },
    {
        "name": "to-index-column-major",
        "task": "2.1",
        "file": "module2_tensors/tensor_data.py",
        "find": (
            "    for k in range(len(shape) - 1, -1, -1):\n"
            "        out_index[k] = rest % shape[k]\n"
        ),
        "replace": (
            "    for k in range(len(shape)):\n"
            "        out_index[k] = rest % shape[k]\n"
        ),
        "description": (
            "to_index that peels the first dimension first: column-"
            "major order, so ordinal 1 of a (2, 3) tensor is (1, 0), "
            "not (0, 1)"
        ),
    },
]
