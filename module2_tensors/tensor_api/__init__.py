"""The methods of ``Tensor``, one mixin per concept (``Tensor`` itself, in
``module2_tensors/tensor.py``, is composed of them):

* ``core``: storage, backend, shape, printing, Python and NumPy values;
* ``creation``: ``new_zeros``, ``new_tensor``, ``clone``, ...;
* ``dtype_device``: ``to``, ``float``, ``long``, ``cuda``, ``device``, ...;
* ``arithmetic``: operators and elementwise functions;
* ``reductions``: ``sum``, ``mean``, ``max``, ``argmax``, ``var``, ...;
* ``movement``: ``view``, ``reshape``, ``permute``, ``squeeze``, ``expand``, ...;
* ``indexing``: ``t[key]``, ``t[key] = v``, ``gather``, ``scatter``, ``sort``, ...;
* ``inplace``: ``add_``, ``+=``, ``copy_``, ``fill_``, ``normal_``, ...;
* ``gradients``: ``backward``, ``grad``, ``requires_grad``, ``detach``, hooks.

They are not engine code: they call the student's functions of
``tensor_functions.py``, ``shape_functions.py`` and ``indexing_functions.py``, as
``tensor.py`` did.
"""
