# kindling: instructor-only
"""Plausible wrong solutions of Module 4's tasks (see ``__init__.py``)."""

MISTAKES = [
    # ------------------------------------------------------------ 4.1 conv1d
    {
        "name": "conv1d-weight-grad-workers-split-the-batch",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "        for flat in prange(dw_shape[0] * in_channels * kernel_width):\n"
            "            o = flat // (in_channels * kernel_width)\n"
            "            c = (flat // kernel_width) % in_channels\n"
            "            k = flat % kernel_width\n"
            "            acc = 0.0\n"
            "            for b in range(batch):\n"
            "                for t in range(out_width):\n"
            "                    i = t * stride + k - padding\n"
            "                    if 0 <= i < width:\n"
            "                        acc += (\n"
            "                            x[b * x_strides[0] + c * "
            "x_strides[1] + i * x_strides[2]]\n"
            "                            * g[b * g_strides[0] + o * "
            "g_strides[1] + t * g_strides[2]]\n"
            "                        )\n"
            "            dw[o * dw_strides[0] + c * dw_strides[1] + k * "
            "dw_strides[2]] = acc\n"
        ),
        "replace": (
            "        size = dw_shape[0] * in_channels * kernel_width\n"
            "        for whole in prange(batch * size):\n"
            "            flat = whole % size\n"
            "            o = flat // (in_channels * kernel_width)\n"
            "            c = (flat // kernel_width) % in_channels\n"
            "            k = flat % kernel_width\n"
            "            acc = 0.0\n"
            "            for b in range(whole // size, whole // size + 1):\n"
            "                for t in range(out_width):\n"
            "                    i = t * stride + k - padding\n"
            "                    if 0 <= i < width:\n"
            "                        acc += (\n"
            "                            x[b * x_strides[0] + c * "
            "x_strides[1] + i * x_strides[2]]\n"
            "                            * g[b * g_strides[0] + o * "
            "g_strides[1] + t * g_strides[2]]\n"
            "                        )\n"
            "            dw[o * dw_strides[0] + c * dw_strides[1] + k * "
            "dw_strides[2]] += acc\n"
        ),
        "description": (
            "the conv1d weight-gradient kernel's workers take (batch entry, "
            "weight entry) pairs and add into dw: two workers adding into one "
            "entry at once lose an addition, at random"
        ),
    },
    {
        "name": "conv1d-forward-range-not-prange",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": "for flat in prange(out_shape[0] * out_channels * out_width):",
        "replace": "for flat in range(out_shape[0] * out_channels * out_width):",
        "description": "the conv1d forward kernel's outer loop is range: right "
        "numbers, but nothing runs in parallel",
    },
    {
        "name": "conv1d-forward-flips-weight",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": "* w[w_base + k * w_strides[2]]",
        "replace": "* w[w_base + (kernel_width - 1 - k) * w_strides[2]]",
        "description": "the conv1d forward kernel flips the kernel (a textbook "
        "convolution), where PyTorch's conv1d is a cross-correlation",
    },
    {
        "name": "conv1d-forward-ignores-padding",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": "start = t * stride - padding",
        "replace": "start = t * stride",
        "description": "the conv1d forward kernel starts each window at t * stride, "
        "forgetting the padding's shift",
    },
    {
        "name": "conv1d-forward-clip-off-by-one",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": "            k_hi = min(kernel_width, width - start)\n",
        "replace": "            k_hi = min(kernel_width, width - start - 1)\n",
        "description": "the conv1d forward kernel clips its taps one short of the "
        "input's end: the last input column never counts",
    },
    {
        "name": "conv1d-backward-input-ignores-stride-remainder",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": "if shifted < 0 or shifted % stride != 0:",
        "replace": "if shifted < 0:",
        "description": "the conv1d input gradient floors (i + p - k) / s instead of "
        "skipping taps that no output reached (wrong for stride > 1)",
    },
    {
        "name": "conv1d-backward-weight-resets-per-batch",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "            acc = 0.0\n"
            "            for b in range(batch):\n"
            "                for t in range(out_width):\n"
        ),
        "replace": (
            "            for b in range(batch):\n"
            "                acc = 0.0\n"
            "                for t in range(out_width):\n"
        ),
        "description": "the conv1d weight gradient resets its sum for every "
        "example: only the last example of the batch counts",
    },
    # ------------------------------------------------------------ 4.2 conv2d
    {
        "name": "conv2d-weight-grad-workers-split-the-batch",
        "task": "4.2",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "        for flat in prange(dw_shape[0] * in_channels * "
            "kernel_height * kernel_width):\n"
            "            kj = flat % kernel_width\n"
            "            ki = (flat // kernel_width) % kernel_height\n"
            "            c = (flat // (kernel_width * kernel_height)) % in_channels\n"
            "            o = flat // (kernel_width * kernel_height * in_channels)\n"
            "            acc = 0.0\n"
            "            for b in range(batch):\n"
            "                for u in range(out_height):\n"
            "                    y = u * stride_h + ki - padding_h\n"
            "                    if y < 0 or y >= height:\n"
            "                        continue\n"
            "                    x_row = b * x_strides[0] + c * "
            "x_strides[1] + y * x_strides[2]\n"
            "                    g_row = b * g_strides[0] + o * "
            "g_strides[1] + u * g_strides[2]\n"
            "                    for v in range(out_width):\n"
            "                        x_ = v * stride_w + kj - padding_w\n"
            "                        if 0 <= x_ < width:\n"
            "                            acc += (\n"
            "                                x[x_row + x_ * x_strides[3]]\n"
            "                                * g[g_row + v * g_strides[3]]\n"
            "                            )\n"
            "            at = o * dw_strides[0] + c * dw_strides[1] + ki * "
            "dw_strides[2]\n"
            "            dw[at + kj * dw_strides[3]] = acc\n"
        ),
        "replace": (
            "        size = dw_shape[0] * in_channels * kernel_height * kernel_width\n"
            "        for whole in prange(batch * size):\n"
            "            flat = whole % size\n"
            "            kj = flat % kernel_width\n"
            "            ki = (flat // kernel_width) % kernel_height\n"
            "            c = (flat // (kernel_width * kernel_height)) % in_channels\n"
            "            o = flat // (kernel_width * kernel_height * in_channels)\n"
            "            acc = 0.0\n"
            "            for b in range(whole // size, whole // size + 1):\n"
            "                for u in range(out_height):\n"
            "                    y = u * stride_h + ki - padding_h\n"
            "                    if y < 0 or y >= height:\n"
            "                        continue\n"
            "                    x_row = b * x_strides[0] + c * "
            "x_strides[1] + y * x_strides[2]\n"
            "                    g_row = b * g_strides[0] + o * "
            "g_strides[1] + u * g_strides[2]\n"
            "                    for v in range(out_width):\n"
            "                        x_ = v * stride_w + kj - padding_w\n"
            "                        if 0 <= x_ < width:\n"
            "                            acc += (\n"
            "                                x[x_row + x_ * x_strides[3]]\n"
            "                                * g[g_row + v * g_strides[3]]\n"
            "                            )\n"
            "            at = o * dw_strides[0] + c * dw_strides[1] + ki * "
            "dw_strides[2]\n"
            "            dw[at + kj * dw_strides[3]] += acc\n"
        ),
        "description": (
            "the conv2d weight-gradient kernel's workers take (batch entry, "
            "weight entry) pairs and add into dw: two workers adding into one "
            "entry at once lose an addition, at random"
        ),
    },
    {
        "name": "conv2d-forward-range-not-prange",
        "task": "4.2",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "for flat in prange(out_shape[0] * out_channels * out_height * "
            "out_width):"
        ),
        "replace": (
            "for flat in range(out_shape[0] * out_channels * out_height * "
            "out_width):"
        ),
        "description": "the conv2d forward kernel's outer loop is range: right "
        "numbers, but nothing runs in parallel",
    },
    {
        "name": "conv2d-forward-clips-columns-by-height",
        "task": "4.2",
        "file": "module4_networks/fast_conv.py",
        "find": "kj_lo, kj_hi = max(0, -left), min(kernel_width, width - left)",
        "replace": "kj_lo, kj_hi = max(0, -left), min(kernel_width, height - left)",
        "description": "the conv2d forward kernel clips the columns of a window by "
        "the height (copied from the row line): wrong for non-square images",
    },
    {
        "name": "conv2d-backward-input-flips-weight",
        "task": "4.2",
        "file": "module4_networks/fast_conv.py",
        "find": "+ ki * w_strides[2] + kj * w_strides[3]",
        "replace": (
            "+ (kernel_height - 1 - ki) * w_strides[2] "
            "+ (kernel_width - 1 - kj) * w_strides[3]"
        ),
        "description": "the conv2d input gradient flips the kernel although its "
        "output-position formula already does (the flip counted twice)",
    },
    {
        "name": "conv2d-backward-weight-column-stride-h",
        "task": "4.2",
        "file": "module4_networks/fast_conv.py",
        "find": "x_ = v * stride_w + kj - padding_w",
        "replace": "x_ = v * stride_h + kj - padding_w",
        "description": "the conv2d weight gradient steps the columns by the row "
        "stride (wrong when the two strides differ)",
    },
    # ----------------------------------------------- 4.3 tile and avg_pool2d
    {
        "name": "tile-without-permute",
        "task": "4.3",
        "file": "module4_networks/functional.py",
        "find": "    x = x.permute(0, 1, 2, 4, 3, 5).contiguous()\n",
        "replace": "",
        "description": "tile views (kh, new_width, kw) straight as (new_width, "
        "kh * kw): each window mixes rows of neighbouring windows",
    },
    {
        "name": "tile-splits-window-outer",
        "task": "4.3",
        "file": "module4_networks/functional.py",
        "find": (
            "    x = x.contiguous().view(batch, channels, new_height, kh, new_width, "
            "kw)\n"
            "    x = x.permute(0, 1, 2, 4, 3, 5).contiguous()\n"
        ),
        "replace": (
            "    x = x.contiguous().view(batch, channels, kh, new_height, kw, "
            "new_width)\n"
            "    x = x.permute(0, 1, 3, 5, 2, 4).contiguous()\n"
        ),
        "description": "tile splits height as (kh, new_height): a 'window' takes "
        "every new_height-th row (a strided sample) instead of kh adjacent rows",
    },
    {
        "name": "tile-does-not-crop",
        "task": "4.3",
        "file": "module4_networks/functional.py",
        "find": (
            "    if new_height * kh != height:\n"
            "        x = x.narrow(2, 0, new_height * kh)\n"
            "    if new_width * kw != width:\n"
            "        x = x.narrow(3, 0, new_width * kw)\n"
        ),
        "replace": "",
        "description": "tile does not drop the rows and columns that do not fill "
        "a window (fails on sizes that are not multiples of the kernel)",
    },
    {
        "name": "avgpool-divides-by-kh-plus-kw",
        "task": "4.3",
        "file": "module4_networks/functional.py",
        "find": "    return tiled.mean(dim=4)\n",
        "replace": "    return tiled.sum(dim=4) / (kh + kw)\n",
        "description": "avg_pool2d divides the window's sum by kh + kw (which "
        "equals kh * kw only for 2x2 windows)",
    },
    # ------------------------------------- 4.4 max, softmax, pooling, dropout
    {
        "name": "max-gradient-to-every-tie",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "        values, _, one_hot = _first_argmax(a, dim)\n",
        "replace": (
            "        values = a.backend.max_reduce(a, dim)\n"
            "        one_hot = a.backend.eq_zip(a, values)\n"
        ),
        "description": "max's backward sends the whole gradient to every entry "
        "equal to the maximum, not to the first one only",
    },
    {
        "name": "argmax-last-of-ties",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": (
            "    candidates = backend.add_zip(\n"
            "        backend.mul_zip(is_max, backend.add_zip(positions, "
            "a.new_tensor(-n))),\n"
            "        a.new_tensor(float(n)),\n"
            "    )\n"
            "    first = backend.neg_map(backend.max_reduce(backend.neg_map("
            "candidates), dim))\n"
        ),
        "replace": (
            "    candidates = backend.mul_zip(is_max, positions)\n"
            "    first = backend.max_reduce(candidates, dim)\n"
        ),
        "description": "argmax takes the largest position holding the maximum: the "
        "last of several ties, where torch reports the first",
    },
    {
        "name": "softmax-without-shift",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": (
            "    shift = input.detach().amax(dim, keepdim=True)\n"
            "    e = (input - shift).exp()\n"
        ),
        "replace": "    e = input.exp()\n",
        "description": "softmax exponentiates the raw inputs: overflows (inf / inf "
        "= nan) for large scores",
    },
    {
        "name": "log-softmax-as-log-of-softmax",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": (
            "    shifted = input - input.detach().amax(dim, keepdim=True)\n"
            "    return shifted - shifted.exp().sum(dim, keepdim=True).log()\n"
        ),
        "replace": "    return softmax(input, dim).log()\n",
        "description": "log_softmax as log(softmax(x)): -inf where the softmax "
        "underflows",
    },
    {
        "name": "max-pool-kernel-swapped",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": (
            "    tiled, _, _ = tile(input, (kh, kw))\n"
            "    return max(tiled, dim=4).values\n"
        ),
        "replace": (
            "    tiled, _, _ = tile(input, (kw, kh))\n"
            "    return max(tiled, dim=4).values\n"
        ),
        "description": "max_pool2d tiles with (kw, kh): wrong windows for a "
        "kernel that is not square",
    },
    {
        "name": "dropout-not-scaled",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    return input * keep * (1.0 / (1.0 - p))\n",
        "replace": "    return input * keep\n",
        "description": "dropout zeroes entries but does not scale the kept ones by "
        "1 / (1 - p): the expected output shrinks",
    },
    {
        "name": "dropout-active-in-eval",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    if not training or p == 0.0:\n",
        "replace": "    if p == 0.0:\n",
        "description": "dropout ignores training=False and still drops in "
        "evaluation",
    },
    {
        "name": "dropout-keeps-with-probability-p",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    keep = rand(*input.shape, backend=input.backend) >= p\n",
        "replace": "    keep = rand(*input.shape, backend=input.backend) < p\n",
        "description": "dropout keeps each entry with probability p instead of "
        "1 - p (the same only at p = 0.5)",
    },
    # -------------------------------------------------- 4.5 training scripts
    {
        "name": "mnist-train-step-no-zero-grad",
        "task": "4.5",
        "file": "project/run_mnist_multiclass.py",
        "find": ("    optimizer.zero_grad()\n" "    loss = F.nll_loss(model(x), y)\n"),
        "replace": "    loss = F.nll_loss(model(x), y)\n",
        "description": "the MNIST training step never zeroes the gradients: each "
        "step adds the new gradient to all the stale ones",
    },
    {
        "name": "sentiment-train-step-no-zero-grad",
        "task": "4.5",
        "file": "project/run_sentiment.py",
        "find": (
            "    optimizer.zero_grad()\n"
            "    loss = F.cross_entropy(model(ids), labels)\n"
        ),
        "replace": "    loss = F.cross_entropy(model(ids), labels)\n",
        "description": "the sentiment training step never zeroes the gradients",
    },
    {
        "name": "mnist-log-softmax-over-batch",
        "task": "4.5",
        "file": "project/run_mnist_multiclass.py",
        "find": "        return F.log_softmax(self.fc2(h), dim=1)\n",
        "replace": "        return F.log_softmax(self.fc2(h), dim=0)\n",
        "description": "the MNIST network normalises its log-probabilities over "
        "the batch (dim 0) instead of the classes",
    },
    {
        "name": "mnist-no-relu-after-conv2",
        "task": "4.5",
        "file": "project/run_mnist_multiclass.py",
        "find": "        h = self.conv2(h).relu()\n",
        "replace": "        h = self.conv2(h)\n",
        "description": "the MNIST network leaves out the ReLU after the second "
        "convolution",
    },
    {
        "name": "sentiment-no-dropout",
        "task": "4.5",
        "file": "project/run_sentiment.py",
        "find": "        return self.fc(self.dropout(cat(pooled, dim=1)))\n",
        "replace": "        return self.fc(cat(pooled, dim=1))\n",
        "description": "the sentiment CNN builds its dropout layer but never "
        "applies it",
    },
    {
        "name": "sentiment-max-over-channels",
        "task": "4.5",
        "file": "project/run_sentiment.py",
        "find": "        pooled = [F.max(conv(x).relu(), dim=2).values for conv in "
        "self.convs]\n",
        "replace": "        pooled = [F.max(conv(x).relu(), dim=1).values for conv in "
        "self.convs]\n",
        "description": "the sentiment CNN max-pools over the filters (dim 1) "
        "instead of over time",
    },
    # ------------------------------------------------------ 4.6 nn library
    {
        "name": "linear-reads-the-parameter-not-value",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "        return F.linear(x, self.weight.value, _value(self.bias))\n",
        "replace": "        return F.linear(x, self.weight, _value(self.bias))\n",
        "description": "Linear passes self.weight, not self.weight.value: after "
        "update(leaf) (an optimizer, a gradient check) the leaf gets no gradient",
    },
    {
        "name": "embedding-reads-the-parameter-not-value",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "return F.embedding(indices, self.weight.value, self.padding_idx)",
        "replace": "return F.embedding(indices, self.weight, self.padding_idx)",
        "description": "Embedding passes self.weight, not self.weight.value",
    },
    {
        "name": "batchnorm-reads-the-parameters-not-value",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "y * self.weight.value.view(*shape) + self.bias.value.view(*shape)",
        "replace": "y * self.weight.view(*shape) + self.bias.view(*shape)",
        "description": "batch norm's affine step reads the parameters, not their "
        ".value",
    },
    {
        "name": "layernorm-reads-the-parameter-not-value",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "            y = y * self.weight.value\n",
        "replace": "            y = y * self.weight\n",
        "description": "LayerNorm scales by self.weight, not self.weight.value",
    },
    {
        "name": "adam-without-bias-correction",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": (
            "    m_hat = m / (1.0 - beta1**t)\n" "    v_hat = v / (1.0 - beta2**t)\n"
        ),
        "replace": "    m_hat = m\n    v_hat = v\n",
        "description": "Adam without bias correction: tiny steps at the start",
    },
    {
        "name": "adam-eps-inside-sqrt",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": '    return p - group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])\n',
        "replace": (
            '    return p - group["lr"] * m_hat / (v_hat + group["eps"]).sqrt()\n'
        ),
        "description": "Adam adds eps under the square root instead of after it",
    },
    {
        "name": "adamw-decay-through-gradient",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": '        p = p * (1.0 - group["lr"] * group["weight_decay"])\n',
        "replace": '        g = g + group["weight_decay"] * p\n',
        "description": "AdamW adds the weight decay to the gradient (plain Adam's "
        "L2 term) instead of decaying the parameter directly",
    },
    {
        "name": "adamw-decays-after-the-step",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": (
            '        p = p * (1.0 - group["lr"] * group["weight_decay"])\n'
            "        return _adam_step(p, g, state, group)\n"
        ),
        "replace": (
            "        stepped = _adam_step(p, g, state, group)\n"
            '        return stepped * (1.0 - group["lr"] * group["weight_decay"])\n'
        ),
        "description": "AdamW decays the parameter after the Adam step instead of "
        "before it (PyTorch decays first)",
    },
    {
        "name": "sgd-momentum-buffer-starts-at-zero",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": (
            '            if "momentum_buffer" not in state:\n'
            "                buffer = g.clone()  # (g may be p.grad, zeroed in place "
            "later)\n"
            "            else:\n"
            "                buffer = (\n"
            '                    momentum * state["momentum_buffer"] + (1.0 - '
            'group["dampening"]) * g\n'
            "                )\n"
        ),
        "replace": (
            '            previous = state.get("momentum_buffer", p * 0.0)\n'
            "            buffer = (\n"
            '                momentum * previous + (1.0 - group["dampening"]) * g\n'
            "            )\n"
        ),
        "description": "SGD's momentum buffer starts at 0, so the first step is "
        "damped (PyTorch starts it at the first gradient)",
    },
    {
        "name": "sgd-momentum-buffer-aliases-the-gradient",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": "                buffer = g.clone()  "
        "# (g may be p.grad, zeroed in place later)\n",
        "replace": "                buffer = g\n",
        "description": "SGD's first momentum buffer is the gradient tensor itself, "
        "not a copy: zero_grad(set_to_none=False) then zeroes the buffer too",
    },
    {
        "name": "rmsprop-eps-inside-sqrt",
        "task": "4.6",
        "file": "module4_networks/optimizers.py",
        "find": "            denom = square_avg.sqrt() + eps\n",
        "replace": "            denom = (square_avg + eps).sqrt()\n",
        "description": "RMSprop adds eps under the square root instead of after it",
    },
    {
        "name": "batchnorm-normalises-by-unbiased-variance",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": (
            "            var = ((x - mean) * (x - mean)).mean(dim=reduce, "
            "keepdim=True)\n"
        ),
        "replace": (
            "            var = ((x - mean) * (x - mean)).sum(dim=reduce, "
            "keepdim=True) / (\n"
            "                count - 1\n"
            "            )\n"
        ),
        "description": "batch norm normalises by the unbiased variance; PyTorch "
        "uses the biased one (the unbiased one only for running_var)",
    },
    {
        "name": "batchnorm-running-var-biased",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": (
            "                    unbiased = var.detach().view(self.num_features) * (\n"
            "                        count / (count - 1)\n"
            "                    )\n"
        ),
        "replace": (
            "                    unbiased = var.detach().view(self.num_features)\n"
        ),
        "description": "batch norm's running_var tracks the biased variance; "
        "PyTorch tracks the unbiased one",
    },
    {
        "name": "batchnorm-momentum-reversed",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": (
            "                        (1 - m) * self.running_mean\n"
            "                        + m * mean.detach().view(self.num_features)\n"
        ),
        "replace": (
            "                        m * self.running_mean\n"
            "                        + (1 - m) * mean.detach().view("
            "self.num_features)\n"
        ),
        "description": "batch norm's running mean keeps m of the old value and "
        "takes 1 - m of the batch's (momentum the wrong way round)",
    },
    {
        "name": "batchnorm-batch-statistics-in-eval",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "        use_batch = self.training or self.running_mean is None\n",
        "replace": "        use_batch = True\n",
        "description": "batch norm normalises by the batch's statistics in "
        "evaluation too, never by the running ones",
    },
    {
        "name": "batchnorm-eval-follows-the-flag",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "        use_batch = self.training or self.running_mean is None\n",
        "replace": (
            "        use_batch = self.training or not self.track_running_stats\n"
        ),
        "description": "batch norm in evaluation decides by track_running_stats, "
        "not by whether running statistics exist: switched off after "
        "construction, it ignores them (PyTorch's uses them)",
    },
    {
        "name": "layernorm-last-dim-only",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "        dims = tuple(range(x.dims - k, x.dims))\n",
        "replace": "        dims = (x.dims - 1,)\n",
        "description": "layer norm normalises over the last dim only, whatever "
        "normalized_shape says",
    },
    {
        "name": "kaiming-uniform-bound-without-sqrt3",
        "task": "4.6",
        "file": "module4_networks/weight_init.py",
        "find": "    bound = math.sqrt(3.0) * std\n",
        "replace": "    bound = std\n",
        "description": "kaiming_uniform_ uses the standard deviation as the bound "
        "(a uniform's std is bound / sqrt(3))",
    },
    {
        "name": "xavier-uniform-normal-constant",
        "task": "4.6",
        "file": "module4_networks/weight_init.py",
        "find": "    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))\n",
        "replace": "    bound = gain * math.sqrt(2.0 / (fan_in + fan_out))\n",
        "description": "xavier_uniform_ uses xavier_normal_'s constant 2 instead of "
        "6",
    },
    {
        "name": "fan-ignores-receptive-field",
        "task": "4.6",
        "file": "module4_networks/weight_init.py",
        "find": "    return shape[1] * receptive, shape[0] * receptive\n",
        "replace": "    return shape[1], shape[0]\n",
        "description": "fan in and fan out of a conv weight leave out the kernel "
        "size",
    },
    {
        "name": "leaky-relu-gain-slope-not-squared",
        "task": "4.6",
        "file": "module4_networks/weight_init.py",
        "find": "        return math.sqrt(2.0 / (1.0 + slope**2))\n",
        "replace": "        return math.sqrt(2.0 / (1.0 + slope))\n",
        "description": "the leaky_relu gain divides by 1 + a instead of 1 + a^2",
    },
    {
        "name": "cross-entropy-log-of-softmax",
        "task": "4.6",
        "file": "module4_networks/losses.py",
        "find": "    return input.log_softmax(dim=_class_dim(input))\n",
        "replace": "    return input.softmax(dim=_class_dim(input)).log()\n",
        "description": "cross-entropy's log-probabilities as log(softmax(x)): inf "
        "loss where the softmax underflows",
    },
    {
        "name": "bce-with-logits-naive",
        "task": "4.6",
        "file": "module4_networks/losses.py",
        "find": (
            "    losses = positive_part - input * target + ((-magnitude).exp() + "
            "1.0).log()\n"
        ),
        "replace": (
            "    p = input.sigmoid()\n"
            "    losses = -(target * p.log() + (1.0 - target) * (1.0 - p).log())\n"
        ),
        "description": "binary_cross_entropy_with_logits through log(sigmoid(x)): "
        "inf where the sigmoid saturates",
    },
    {
        "name": "embedding-padding-row-not-zeroed",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": (
            "        if self.padding_idx is not None:\n"
            "            with no_grad():\n"
            "                self.weight.value[self.padding_idx] = 0.0\n"
        ),
        "replace": "",
        "description": "Embedding leaves the padding_idx row random instead of " "zero",
    },
    {
        "name": "linear-bias-fan-out",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "            _uniform_fan_in(self.bias, in_features)\n",
        "replace": "            _uniform_fan_in(self.bias, out_features)\n",
        "description": "Linear draws its bias with bound 1 / sqrt(out_features) "
        "instead of 1 / sqrt(in_features)",
    },
    {
        "name": "conv-bias-fan-in-channels-only",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "            _uniform_fan_in(self.bias, fan_in)\n",
        "replace": "            _uniform_fan_in(self.bias, in_channels)\n",
        "description": "a conv layer draws its bias with bound 1 / sqrt(in_channels),"
        " leaving the kernel size out of the fan in",
    },
    {
        "name": "nll-picks-by-multiplying",
        "task": "4.6",
        "file": "module4_networks/losses.py",
        "find": "    return where(one_hot, input, 0.0).sum(dim=class_dim)\n",
        "replace": "    return (input * one_hot).sum(dim=class_dim)\n",
        "description": "nll_loss picks the target's entry by multiplying with the "
        "one-hot mask: 0 * -inf = nan where another class is masked with -inf",
    },
    {
        "name": "bce-target-gradient-sign",
        "task": "4.6",
        "file": "module4_networks/losses.py",
        "find": "            grad_y = grad * ((1.0 - a).log() - a.log())\n",
        "replace": "            grad_y = grad * (a.log() - (1.0 - a).log())\n",
        "description": "binary_cross_entropy's gradient in the target has the "
        "wrong sign (log p - log(1 - p))",
    },
    # ------------------------------------------------ 4.7 recurrent networks
    {
        "name": "lstm-gate-order-ifog",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    i, f, g, o = (gi + gh).chunk(4, dim=-1)\n",
        "replace": "    i, f, o, g = (gi + gh).chunk(4, dim=-1)\n",
        "description": "the LSTM reads its gates in the order i, f, o, g; "
        "PyTorch's is i, f, g, o",
    },
    {
        "name": "lstm-output-from-old-cell",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    return o.sigmoid() * c_next.tanh(), c_next\n",
        "replace": "    return o.sigmoid() * c.tanh(), c_next\n",
        "description": "the LSTM's h' reads the previous cell state instead of the "
        "new one",
    },
    {
        "name": "gru-reset-on-input-part",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    n = (i_n + r * h_n).tanh()\n",
        "replace": "    n = (r * i_n + h_n).tanh()\n",
        "description": "the GRU applies the reset gate to the input's part of the "
        "candidate instead of the hidden state's",
    },
    {
        "name": "gru-update-gate-swapped",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    return (1.0 - z) * n + z * h\n",
        "replace": "    return z * n + (1.0 - z) * h\n",
        "description": "the GRU mixes with z and 1 - z swapped (the other "
        "textbook's convention, not PyTorch's)",
    },
    {
        "name": "rnn-step-ignores-nonlinearity",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": '    return pre.tanh() if nonlinearity == "tanh" else pre.relu()\n',
        "replace": "    return pre.tanh()\n",
        "description": "rnn_step always applies tanh, ignoring " 'nonlinearity="relu"',
    },
    {
        "name": "unroll-reverse-outputs-not-flipped",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": (
            "        outputs: List[Optional[Tensor]] = [None] * x.shape[0]\n"
            "        for t in steps:\n"
            "            gh = _affine(self._hidden(state), w_hh, b_hh)\n"
            "            state = self._step(gi[t], gh, state)\n"
            "            outputs[t] = self._hidden(state)\n"
        ),
        "replace": (
            "        outputs = []\n"
            "        for t in steps:\n"
            "            gh = _affine(self._hidden(state), w_hh, b_hh)\n"
            "            state = self._step(gi[t], gh, state)\n"
            "            outputs.append(self._hidden(state))\n"
        ),
        "description": "the reverse direction's outputs are stacked in the order "
        "they were computed, not put back in the order of the input",
    },
    # ---------------------------------------- 4.8 attention and Transformer
    {
        "name": "causal-mask-transposed",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "    return (cols <= rows) * 1.0\n",
        "replace": "    return (cols >= rows) * 1.0\n",
        "description": "the causal mask lets a query see the keys after it, not "
        "before it (the transposed mask)",
    },
    {
        "name": "padding-mask-off-by-one",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "    return (positions.view(1, max_len) < lens) * 1.0\n",
        "replace": "    return (positions.view(1, max_len) <= lens) * 1.0\n",
        "description": "the padding mask keeps lengths[n] + 1 positions (<= "
        "instead of <)",
    },
    {
        "name": "masked-softmax-not-zeroed-after",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "            weights = where(keep, weights, 0.0)\n",
        "replace": "",
        "description": "the masked softmax does not zero the weights afterwards: "
        "a fully masked row, its scores replaced by 0, gets uniform weights",
    },
    {
        "name": "masked-softmax-masks-after",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": (
            "            masked = where(keep, scores, -math.inf)\n"
            "            weights = F.softmax(where(kept, masked, 0.0), -1)\n"
        ),
        "replace": "            weights = F.softmax(scores, -1)\n",
        "description": "the mask zeroes the weights after a softmax over every key: "
        "the kept weights no longer sum to 1",
    },
    {
        "name": "attention-scale-by-d",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": (
            "    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else "
            "scale\n"
        ),
        "replace": "    scale = 1.0 / query.shape[-1] if scale is None else scale\n",
        "description": "attention scales the scores by 1 / d instead of " "1 / sqrt(d)",
    },
    {
        "name": "is-causal-square-mask",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": (
            "        attn_mask = causal_mask(query.shape[-2], key.shape[-2], "
            "query.backend)\n"
        ),
        "replace": (
            "        attn_mask = causal_mask(key.shape[-2], backend=query.backend)\n"
        ),
        "description": "is_causal builds a square (S, S) mask from the keys' "
        "length, wrong when there are fewer queries than keys",
    },
    {
        "name": "pre-norm-residual-from-normalised",
        "task": "4.8",
        "file": "module4_networks/transformer.py",
        "find": (
            "            x = x + self._sa_block(self.norm1(x), src_mask, "
            "src_key_padding_mask)\n"
        ),
        "replace": (
            "            x = self.norm1(x)\n"
            "            x = x + self._sa_block(x, src_mask, src_key_padding_mask)\n"
        ),
        "description": "the pre-norm block adds the attention to the normalised "
        "input, so the residual path goes through the layer norm",
    },
    {
        "name": "post-norm-normalises-the-branch-only",
        "task": "4.8",
        "file": "module4_networks/transformer.py",
        "find": (
            "        x = self.norm1(x + self._sa_block(x, src_mask, "
            "src_key_padding_mask))\n"
        ),
        "replace": (
            "        x = x + self.norm1(self._sa_block(x, src_mask, "
            "src_key_padding_mask))\n"
        ),
        "description": "the post-norm block normalises the attention's output "
        "before the residual sum instead of the sum itself",
    },
    {
        "name": "softmax-sum-without-keepdim",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    return e / e.sum(dim, keepdim=True)\n",
        "replace": "    return e / e.sum(dim)\n",
        "description": "softmax divides by the sums without keepdim: they broadcast "
        "along the last dim, so a square input divides row i by sum j (no error)",
    },
    {
        "name": "log-softmax-sum-without-keepdim",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    return shifted - shifted.exp().sum(dim, keepdim=True).log()\n",
        "replace": "    return shifted - shifted.exp().sum(dim).log()\n",
        "description": "log_softmax subtracts the log-sums without keepdim: a "
        "square input subtracts row j's from entry (i, j)",
    },
    {
        "name": "dropout-p-one-unhandled",
        "task": "4.4",
        "file": "module4_networks/functional.py",
        "find": "    if p == 1.0:\n        return input * 0.0\n",
        "replace": "",
        "description": "dropout without the p = 1 case: the scale 1 / (1 - p) "
        "divides by zero",
    },
    {
        "name": "pre-norm-feed-forward-through-norm1",
        "task": "4.8",
        "file": "module4_networks/transformer.py",
        "find": "            return x + self._ff_block(self.norm2(x))\n",
        "replace": "            return x + self._ff_block(self.norm1(x))\n",
        "description": "the pre-norm block normalises the feed-forward's input with "
        "norm1 (copied from the line above): the same as norm2 until training "
        "moves their weights apart",
    },
    {
        "name": "post-norm-feed-forward-through-norm1",
        "task": "4.8",
        "file": "module4_networks/transformer.py",
        "find": "        return self.norm2(x + self._ff_block(x))\n",
        "replace": "        return self.norm1(x + self._ff_block(x))\n",
        "description": "the post-norm block normalises its output with norm1 again: "
        "the same as norm2 until training moves their weights apart",
    },
    {
        "name": "sdpa-ignores-scale",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": (
            "    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale\n"
        ),
        "replace": "    scale = 1.0 / math.sqrt(query.shape[-1])\n",
        "description": "scaled_dot_product_attention that always scales by "
        "1 / sqrt(d), ignoring a scale= it is given",
    },
    {
        "name": "batchnorm-batches-not-counted",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "                    self.num_batches_tracked += 1\n",
        "replace": "",
        "description": "batch norm never counts its batches: num_batches_tracked "
        "stays 0, and momentum=None's cumulative average weighs every batch 1",
    },
    {
        "name": "batchnorm-count-is-the-batch-size",
        "task": "4.6",
        "file": "module4_networks/layers.py",
        "find": "            count = x.size // self.num_features\n",
        "replace": "            count = x.shape[0]\n",
        "description": "batch norm counts a channel's values as the batch size: "
        "BatchNorm2d's unbiased running_var uses N / (N - 1), not NHW / (NHW - 1)",
    },
    {
        "name": "conv1d-backward-input-no-upper-bound",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "                t = shifted // stride\n"
            "                if t >= out_width:\n"
            "                    continue\n"
        ),
        "replace": "                t = shifted // stride\n",
        "description": "the conv1d input gradient does not skip outputs past the "
        "last one: near the right edge (padding, or a stride that leaves columns "
        "over) it reads past the end of g's row",
    },
    {
        "name": "lstm-input-and-forget-gates-swapped",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()\n",
        "replace": "    c_next = i.sigmoid() * c + f.sigmoid() * g.tanh()\n",
        "description": (
            "the LSTM's cell update with the input and forget gates "
            "swapped: i keeps the old cell, f admits the candidate"
        ),
    },
    {
        "name": "lstm-output-without-tanh",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    return o.sigmoid() * c_next.tanh(), c_next\n",
        "replace": "    return o.sigmoid() * c_next, c_next\n",
        "description": "the LSTM's h' as o * c' without the tanh of the cell",
    },
    {
        "name": "lstm-candidate-sigmoid",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()\n",
        "replace": "    c_next = f.sigmoid() * c + i.sigmoid() * g.sigmoid()\n",
        "description": (
            "the LSTM's candidate cell through a sigmoid, like the "
            "gates, instead of tanh: the cell can only grow"
        ),
    },
    {
        "name": "gru-candidate-reset-after-sum",
        "task": "4.7",
        "file": "module4_networks/recurrent.py",
        "find": "    n = (i_n + r * h_n).tanh()\n",
        "replace": "    n = (r * (i_n + h_n)).tanh()\n",
        "description": (
            "the GRU's reset gate applied to the whole sum, input " "part included"
        ),
    },
    {
        "name": "causal-mask-strict",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "    return (cols <= rows) * 1.0\n",
        "replace": "    return (cols < rows) * 1.0\n",
        "description": (
            "a causal mask that also hides the diagonal: a position "
            "cannot attend to itself, and the first query sees "
            "nothing"
        ),
    },
    {
        "name": "causal-mask-bottom-right",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "    return (cols <= rows) * 1.0\n",
        "replace": "    return (cols <= rows + (keys - size)) * 1.0\n",
        "description": (
            "a causal mask aligned at the bottom right (the KV-cache "
            "convention) where PyTorch's is_causal aligns it at the "
            "top left (tril of ones(L, S))"
        ),
    },
    {
        "name": "padding-mask-keeps-one-more",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "    return (positions.view(1, max_len) < lens) * 1.0\n",
        "replace": "    return (positions.view(1, max_len) <= lens) * 1.0\n",
        "description": (
            "padding_mask with <=: the first padding position of "
            "every sequence is kept"
        ),
    },
    {
        "name": "masked-rows-not-rezeroed",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": "            weights = where(keep, weights, 0.0)\n",
        "replace": "",
        "description": (
            "the masked softmax without its last where: a query whose"
            " keys are all masked gets uniform weights (the mean of "
            "the values), not zeros"
        ),
    },
    {
        "name": "attention-scaled-by-sequence-length",
        "task": "4.8",
        "file": "module4_networks/attention.py",
        "find": (
            "    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is"
            " None else scale\n"
        ),
        "replace": (
            "    scale = 1.0 / math.sqrt(key.shape[-2]) if scale is "
            "None else scale\n"
        ),
        "description": "scores scaled by 1 / sqrt(number of keys) instead of "
        "1 / sqrt(d)",
    },
    {
        "name": "pre-norm-feed-forward-unnormalised",
        "task": "4.8",
        "file": "module4_networks/transformer.py",
        "find": "            return x + self._ff_block(self.norm2(x))\n",
        "replace": "            return x + self._ff_block(x)\n",
        "description": "the pre-norm block's feed-forward on x itself, skipping norm2",
    },
    {
        "name": "conv1d-backward-input-scattered-by-outputs",
        "task": "4.1",
        "file": "module4_networks/fast_conv.py",
        "find": (
            "        for flat in prange(dx_shape[0] * in_channels * width):\n"
            "            b = flat // (in_channels * width)\n"
            "            c = (flat // width) % in_channels\n"
            "            i = flat % width\n"
            "            acc = 0.0\n"
            "            for k in range(kernel_width):\n"
            "                # Output t read x[i] through tap k when "
            "t * s + k - p == i.\n"
            "                shifted = i + padding - k\n"
            "                if shifted < 0 or shifted % stride != 0:\n"
            "                    continue\n"
            "                t = shifted // stride\n"
            "                if t >= out_width:\n"
            "                    continue\n"
            "                for o in range(out_channels):\n"
            "                    acc += (\n"
            "                        g[b * g_strides[0] + o * "
            "g_strides[1] + t * g_strides[2]]\n"
            "                        * w[o * w_strides[0] + c * "
            "w_strides[1] + k * w_strides[2]]\n"
            "                    )\n"
            "            dx[b * dx_strides[0] + c * dx_strides[1] + i"
            " * dx_strides[2]] = acc\n"
        ),
        "replace": (
            "        for flat in range(dx_shape[0] * in_channels * width):\n"
            "            b, c, i = flat // (in_channels * width), "
            "(flat // width) % in_channels, flat % width\n"
            "            dx[b * dx_strides[0] + c * dx_strides[1] + i"
            " * dx_strides[2]] = 0.0\n"
            "        for flat in prange(g_shape[0] * out_channels * "
            "out_width):\n"
            "            o = flat // (g_shape[0] * out_width)\n"
            "            b = (flat // out_width) % g_shape[0]\n"
            "            t = flat % out_width\n"
            "            for c in range(in_channels):\n"
            "                for k in range(kernel_width):\n"
            "                    i = t * stride + k - padding\n"
            "                    if 0 <= i < width:\n"
            "                        dx[b * dx_strides[0] + c * "
            "dx_strides[1] + i * dx_strides[2]] += (\n"
            "                            g[b * g_strides[0] + o * "
            "g_strides[1] + t * g_strides[2]]\n"
            "                            * w[o * w_strides[0] + c * "
            "w_strides[1] + k * w_strides[2]]\n"
            "                        )\n"
        ),
        "description": (
            "the conv1d input gradient computed from the outputs' "
            "side: workers take the output channels (then positions) "
            "and add each output's taps into dx: every worker adds "
            "into every entry of dx, and additions made at once are "
            "lost"
        ),
    },
]
