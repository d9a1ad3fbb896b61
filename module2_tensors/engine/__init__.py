"""Module 2's engine: the machinery under the teaching files, which no task asks a
student to read or edit, and which imports none of the files students edit (by
any import; ``tests/kindling/test_library_layers.py`` checks it). Student code
reaches it as an argument, or by a registration that the importing module makes
(``autograd.register_tensor_class(Tensor, unbroadcast, backpropagate)`` and
``devices.register_backend`` in ``tensor.py``).

* :mod:`.autograd`: ``Function``, ``Context``, ``Function.apply``, ``History``
  and the backward pass of a tensor (``Tensor.backward`` and the members Module
  1's ``backpropagate`` walks), which ``Tensor`` binds as methods;
* :mod:`.grad_modes`: the autograd switches (``MODES``, ``set_grad_enabled``,
  ``enable_grad``, ``is_grad_enabled``);
* :mod:`.versions`: version counters, the guard against in-place changes;
* :mod:`.hooks`: ``Tensor.register_hook``;
* :mod:`.anomaly`: anomaly mode's checks and the user's line for error messages;
* :mod:`.elementwise`, :mod:`.reductions`, :mod:`.indexing`: the given
  ``Function``s and functions by family (``sin``, ``pow``, ...; ``Reduction``,
  ``prod``, ``norm``, ...; advanced indexing, ``flip``, ``tril``, ...), which the
  package exports and ``Tensor``'s methods call;
* :mod:`.layout`: checked shapes and strides (``Layout``), shared by every tensor;
* :mod:`.shapes`: argument checks of the shape functions and ``normalize_dim``;
* :mod:`.devices`: ``kt.device``, ``kt.cuda`` and the default backend (the
  registered backends and the choice among them);
* :mod:`.dtypes`: PyTorch's dtype objects (every tensor computes in float64).
"""
