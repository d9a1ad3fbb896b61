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
        "name": "two-ellipses",
        "task": "2.6",
        "file": "module2_tensors/shape_functions.py",
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
        "file": "module2_tensors/shape_functions.py",
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
]
