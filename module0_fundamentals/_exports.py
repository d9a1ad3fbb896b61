"""What a public file exports: the names it defines (given code).

A file that a facade star-imports ends with ``__all__ = defined_here(globals())``
instead of writing every name a second time in a list at its top: its exports are
then its public definitions, by construction (no name is exported from a file that
does not define it, and a new function or class is exported without a list to
keep in step)."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple


def defined_here(
    namespace: Dict[str, Any], *also: str, but: Tuple[str, ...] = ()
) -> List[str]:
    """The public names (no leading ``_``) of the functions and classes the module
    of ``namespace`` defines, in order, less ``but`` (a base or helper that other
    files import by name, not a PyTorch name), then ``also`` (names the module binds
    to objects defined elsewhere or to constants: ``sigmoid = Tensor.sigmoid``)."""
    here = namespace["__name__"]
    defined = [n for n, v in namespace.items() if getattr(v, "__module__", "") == here]
    return [n for n in defined if n[0] != "_" and n not in but] + list(also)
