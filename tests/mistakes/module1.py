# kindling: instructor-only
"""Plausible wrong solutions of Module 1's tasks (see ``__init__.py``)."""

MISTAKES = [
    {
        "name": "topological-pre-order",
        "task": "1.4",
        "file": "module1_scalar_autodiff/autodiff.py",
        "find": (
            "        seen.add(node.unique_id)\n" "        stack.append((node, True))\n"
        ),
        "replace": (
            "        seen.add(node.unique_id)\n"
            "        finished.insert(0, node)  # pre-order, in the end root first\n"
        ),
        "description": "topological_sort that lists nodes in depth-first pre-order",
    },
    {
        "name": "evaluate-without-memo",
        "task": "1.7",
        "file": "module1_scalar_autodiff/symbolic.py",
        "find": (
            "        if key in memo:\n"
            "            return memo[key]\n"
            "        if isinstance(node, Const):\n"
            "            out = node.value\n"
        ),
        "replace": (
            "        if isinstance(node, Const):\n" "            out = node.value\n"
        ),
        "description": "evaluate without the memo: a shared sub-expression is "
        "computed once per use",
    },
    {
        "name": "diff-simplifies-times-zero",
        "task": "1.7",
        "file": "module1_scalar_autodiff/symbolic.py",
        "find": (
            "        a, b = expr.a, expr.b\n"
            "        return Add(Mul(diff(a, name), b), Mul(a, diff(b, name)))\n"
        ),
        "replace": (
            "        a, b = expr.a, expr.b\n"
            "        da, db = diff(a, name), diff(b, name)\n"
            "        if isinstance(db, Const) and db.value == 0.0:\n"
            "            return Mul(da, b)  # a * 0 dropped\n"
            "        if isinstance(da, Const) and da.value == 0.0:\n"
            "            return Mul(a, db)\n"
            "        return Add(Mul(da, b), Mul(a, db))\n"
        ),
        "description": "diff that drops the x*0 terms of the product rule (the "
        "guide's swell table counts them)",
    },
    {
        "name": "central-difference-one-epsilon",
        "task": "1.1",
        "file": "module1_scalar_autodiff/differences.py",
        "find": "    return (f(*up) - f(*down)) / (2.0 * epsilon)\n",
        "replace": "    return (f(*up) - f(*down)) / epsilon\n",
        "description": "central difference divided by epsilon instead of 2 epsilon",
    },
    {
        "name": "dual-mul-tangents-multiplied",
        "task": "1.6",
        "file": "module1_scalar_autodiff/dual.py",
        "find": "            self.tangent * b.value + self.value * b.tangent,\n",
        "replace": "            self.tangent * b.tangent,\n",
        "description": "a dual product whose tangent multiplies the tangents",
    },
]
