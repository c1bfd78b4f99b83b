"""`Tensor.select` (issue 14, slice B2), which MindSpore overloads on its arguments:

- ``x.select(dim, index)``: the slice of `x` at position `index` along `dim` (the axis removed),
  as ``x[..., index, ...]``;
- ``x.select(condition, y)``: ``ops.select(condition, x, y)``, x where `condition` holds, else `y`.

An int first argument (or the ``dim=``/``index=`` keywords) picks the first form.
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor, tensor_method
from . import functional as F


@tensor_method("select")
def _tensor_select(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``x.select(dim, index)`` slices `x` at `index` along `dim`; ``x.select(condition, y)`` picks
    from `x` where `condition` is True and from `y` elsewhere."""
    if len(args) + len(kwargs) != 2:
        raise TypeError(f"Tensor.select takes (dim, index) or (condition, y), got {len(args) + len(kwargs)} arguments")
    if "dim" in kwargs or "index" in kwargs or (args and isinstance(args[0], int) and not isinstance(args[0], bool)):
        names = ("dim", "index")
        vals = dict(zip(names, args)) | kwargs
        if set(vals) != set(names):
            raise TypeError(f"Tensor.select(dim, index): got arguments {sorted(vals)}")
        dim, index = vals["dim"], vals["index"]
        if isinstance(index, Tensor) and index.size == 1:
            index = int(index.asnumpy().reshape(()))
        for name, v in (("dim", dim), ("index", index)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Tensor.select: {name} must be an int, got {type(v).__name__}")
        if self.ndim == 0:
            raise ValueError("Tensor.select: cannot select from a 0-D tensor")
        if not -self.ndim <= dim < self.ndim:
            raise ValueError(f"Tensor.select: dim {dim} is out of range for a {self.ndim}-D tensor")
        d = dim % self.ndim
        n = self.shape[d]
        if not -n <= index < n:
            raise IndexError(f"Tensor.select: index {index} is out of range for dim {dim} of size {n}")
        return self[(slice(None),) * d + (index % n,)]
    names = ("condition", "y")
    vals = dict(zip(names, args)) | kwargs
    if set(vals) != set(names):
        raise TypeError(f"Tensor.select(condition, y): got arguments {sorted(vals)}")
    return F.select(vals["condition"], self, vals["y"])
