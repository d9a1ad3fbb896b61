# kindling: instructor-only
"""Plausible wrong solutions of Module 0's tasks (see ``__init__.py``)."""

MISTAKES = [
    {
        "name": "is-close-le",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "return abs(x - y) < CLOSE_TOLERANCE",
        "replace": "return abs(x - y) <= CLOSE_TOLERANCE",
        "description": "is_close with <= where the docstring says |x - y| < 1e-2",
    },
    {
        "name": "mul-clipped",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return x * y\n",
        "replace": "    return math.copysign(min(abs(x), 999.0), x) * y\n",
        "description": "mul that clips its first argument: wrong for |x| >= 1000",
    },
    {
        "name": "sigmoid-unstable",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    if x >= 0.0:\n        return 1.0 / (1.0 + math.exp(-x))\n",
        "replace": "    if True:\n        return 1.0 / (1.0 + math.exp(-x))\n",
        "description": "sigmoid by the textbook formula: overflows for large -x",
    },
    {
        "name": "reduce-ignores-start",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": (
            "        total = start\n"
            "        for x in xs:\n"
            "            total = fn(total, x)\n"
        ),
        "replace": (
            "        xs = list(xs)\n"
            "        if not xs:\n"
            "            return start\n"
            "        total = xs[0]\n"
            "        for x in xs[1:]:\n"
            "            total = fn(total, x)\n"
        ),
        "description": "reduce that folds from the first entry, using start only "
        "for the empty list",
    },
    {
        "name": "shared-parameter-twice",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "                if id(parameter) in seen:\n"
            "                    continue\n"
        ),
        "replace": "",
        "description": "named_parameters that lists a parameter shared by two "
        "modules twice",
    },
    {
        "name": "parameter-names-without-path",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "                seen.add(id(parameter))\n"
            '                name = f"{module_name}.{attribute}" if module_name '
            "else attribute\n"
        ),
        "replace": (
            "                seen.add(id(parameter))\n"
            "                name = attribute\n"
        ),
        "description": "named_parameters without the dotted path of the module",
    },
    {
        "name": "xor-label-flipped",
        "task": "0.5",
        "file": "module0_fundamentals/datasets.py",
        "find": "    return 1 if (x1 < 0.5) != (x2 < 0.5) else 0\n",
        "replace": "    return 1 if (x1 < 0.5) == (x2 < 0.5) else 0\n",
        "description": "xor_label with == for !=: class 1 in the other two quarters",
    },
    {
        "name": "moons-v-not-rescaled",
        "task": "0.5",
        "file": "module0_fundamentals/datasets.py",
        "find": (
            "    return (0.1 + 0.8 * (u + 1.0) / 3.0, " "0.1 + 0.8 * (v + 0.5) / 1.5)\n"
        ),
        "replace": "    return (0.1 + 0.8 * (u + 1.0) / 3.0, 0.1 + 0.8 * (v + 0.5))\n",
        "description": "moons_point that forgets to divide v's range (1.5) away: "
        "points up to x2 = 1.3, outside the unit square",
    },
    {
        "name": "split-bias-sign",
        "task": "0.5",
        "file": "module0_fundamentals/manual_classifier.py",
        "find": '        "split": (1.0, 2.0, -1.4),\n',
        "replace": '        "split": (1.0, 2.0, 1.4),\n',
        "description": "hand-tuned split weights with the threshold 1.4 as +b "
        "instead of -b: every point is class 1",
    },
    {
        "name": "reduce-arguments-swapped",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": "            total = fn(total, x)\n",
        "replace": "            total = fn(x, total)\n",
        "description": "reduce that calls fn(x, total): right for add and mul, wrong "
        "for a function whose arguments do not commute",
    },
    {
        "name": "zip-with-truncates",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": (
            "        if len(xs) != len(ys):\n"
            '            raise ValueError(f"zip_with: lengths'
            ' {len(xs)} and {len(ys)} differ")\n'
        ),
        "replace": "",
        "description": "zip_with by Python's zip alone: lists of different lengths "
        "are cut to the shorter one instead of raising ValueError",
    },
    {
        "name": "train-not-recursive",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "        for child in self.children():\n" "            child.train(mode)\n"
        ),
        "replace": "",
        "description": "train(mode) that sets only this module's flag: a dropout "
        "layer inside stays in training mode after model.eval()",
    },
    {
        "name": "train-sets-every-flag-itself",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "        self.training = mode\n"
            "        for child in self.children():\n"
            "            child.train(mode)\n"
        ),
        "replace": (
            "        for module in self.modules():\n"
            "            module.training = mode\n"
        ),
        "description": "train(mode) that sets every descendant's flag itself: a "
        "child that overrides train (to keep its batch norm frozen) is never asked",
    },
    {
        "name": "named-modules-shared-twice",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "            if id(module) in seen:\n"
            "                return\n"
            "            seen.add(id(module))\n"
            "            found.append((name, module))\n"
        ),
        "replace": "            found.append((name, module))\n",
        "description": "named_modules without its seen set: a module used twice is "
        "listed (and visited by train and apply) under each of its names",
    },
    {
        "name": "named-modules-post-order",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            "            found.append((name, module))\n"
            "            for child_name, child in module.named_children():\n"
            '                visit(child, f"{name}.{child_name}" if name else '
            "child_name)\n"
        ),
        "replace": (
            "            for child_name, child in module.named_children():\n"
            '                visit(child, f"{name}.{child_name}" if name else '
            "child_name)\n"
            "            found.append((name, module))\n"
        ),
        "description": "named_modules in post-order: the children before their "
        "parent, and the root last",
    },
    {
        "name": "children-are-descendants",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": "        return [module for _, module in self.named_children()]\n",
        "replace": "        return self.modules()[1:]\n",
        "description": "children() as every descendant, not only the direct "
        "submodules",
    },
    {
        "name": "relu-back-passes-at-zero",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return d if x > 0.0 else 0.0\n",
        "replace": "    return d if x >= 0.0 else 0.0\n",
        "description": (
            "relu_back that passes d on at x = 0, where the docstring"
            " (and PyTorch) give 0"
        ),
    },
    {
        "name": "inv-back-sign",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return -d / (x * x)\n",
        "replace": "    return d / (x * x)\n",
        "description": "inv_back without the minus sign: d / x^2, which is "
        "the derivative of -1/x",
    },
    {
        "name": "inv-back-divides-by-zero",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": (
            "    if x == 0.0:\n"
            '        raise _domain_error("inv_back", x, "x != 0")\n'
        ),
        "replace": "",
        "description": (
            "inv_back without its domain check: x = 0 raises "
            "ZeroDivisionError, not the ValueError naming inv_back"
        ),
    },
    {
        "name": "log-zero-left-to-math",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": (
            "    if x <= 0.0:\n" '        raise _domain_error("log", x, "x > 0")\n'
        ),
        "replace": (
            "    if x < 0.0:\n" '        raise _domain_error("log", x, "x > 0")\n'
        ),
        "description": (
            "log that checks x < 0 only: log(0) raises math's 'math "
            "domain error', which names neither log nor the value"
        ),
    },
    {
        "name": "tanh-by-the-formula",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return math.tanh(x)\n",
        "replace": (
            "    return (math.exp(x) - math.exp(-x)) / (math.exp(x) +"
            " math.exp(-x))\n"
        ),
        "description": (
            "tanh by the textbook formula: OverflowError past |x| ~ "
            "710, and nan long before the overflow (inf / inf)"
        ),
    },
    {
        "name": "lt-returns-bool",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return 1.0 if x < y else 0.0\n",
        "replace": "    return x < y\n",
        "description": (
            "lt that returns True/False, where the docstring asks for"
            " the floats 1.0 and 0.0"
        ),
    },
    {
        "name": "eq-by-is-close",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return 1.0 if x == y else 0.0\n",
        "replace": "    return 1.0 if is_close(x, y) else 0.0\n",
        "description": "eq as is_close: 1.0 and 1.005 compare equal",
    },
    {
        "name": "is-close-relative",
        "task": "0.1",
        "file": "module0_fundamentals/operators.py",
        "find": "    return abs(x - y) < CLOSE_TOLERANCE\n",
        "replace": (
            "    return abs(x - y) < CLOSE_TOLERANCE * max(abs(x), " "abs(y), 1.0)\n"
        ),
        "description": (
            "is_close with a relative tolerance (math.isclose's "
            "idea): 1000 and 1005 are close, the docstring's absolute"
            " 1e-2 says not"
        ),
    },
    {
        "name": "map-returns-generator",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": "        return [fn(x) for x in xs]\n",
        "replace": "        return (fn(x) for x in xs)\n",
        "description": (
            "map that returns a generator, not a new list: it can be "
            "read once, has no len, and compares unequal to a list"
        ),
    },
    {
        "name": "map-writes-into-its-input",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": "        return [fn(x) for x in xs]\n",
        "replace": (
            "        for k, x in enumerate(xs):\n"
            "            xs[k] = fn(x)\n"
            "        return xs\n"
        ),
        "description": (
            "map that overwrites its input list in place and returns "
            "it: the caller's list changes, and a tuple or generator "
            "raises"
        ),
    },
    {
        "name": "zip-with-lengths-of-iterators",
        "task": "0.3",
        "file": "module0_fundamentals/operators.py",
        "find": "        xs, ys = list(xs), list(ys)\n",
        "replace": "",
        "description": (
            "zip_with that measures its inputs with len() as given: a"
            " generator raises TypeError"
        ),
    },
    {
        "name": "circle-by-distance",
        "task": "0.5",
        "file": "module0_fundamentals/datasets.py",
        "find": (
            "    return 1 if (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 < 1.0 "
            "/ (2.0 * math.pi) else 0\n"
        ),
        "replace": (
            "    return 1 if math.hypot(x1 - 0.5, x2 - 0.5) < 1.0 / "
            "(2.0 * math.pi) else 0\n"
        ),
        "description": (
            "circle_label compares the distance (not its square) with"
            " r^2 = 1 / (2 pi): a disc of radius 0.16, not 0.40"
        ),
    },
    {
        "name": "spiral-arms-by-one-radian",
        "task": "0.5",
        "file": "module0_fundamentals/datasets.py",
        "find": "    theta = 3.0 * math.pi * t + math.pi * label\n",
        "replace": "    theta = 3.0 * math.pi * t + label\n",
        "description": (
            "spiral_point turns the second arm by 1 radian, not pi: "
            "the two arms overlap in places"
        ),
    },
    {
        "name": "train-returns-nothing",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": ("            child.train(mode)\n" "        return self\n"),
        "replace": "            child.train(mode)\n",
        "description": (
            "train() that returns None: model.train().to(...) and "
            "model = model.eval() break (PyTorch returns the module)"
        ),
    },
    {
        "name": "parameter-names-leading-dot",
        "task": "0.4",
        "file": "module0_fundamentals/module.py",
        "find": (
            '                name = f"{module_name}.{attribute}" if '
            "module_name else attribute\n"
        ),
        "replace": '                name = f"{module_name}.{attribute}"\n',
        "description": (
            "named_parameters that always joins with a dot: the root "
            "module's own parameters are named '.weight', not "
            "'weight'"
        ),
    },
]
