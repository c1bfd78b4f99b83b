"""Base of MindSpore's class-form ops (`ops.MatMul(transpose_b=True)(a, b)`).

A class-form op is configured once with its attributes and then called with tensors. Subclasses
only translate MindSpore's constructor and call signatures onto the functional wrappers (and so
onto the registered primitives); they hold no kernels or rules of their own.
"""

from __future__ import annotations

from typing import Any


class Operation:
    """Configured op: ``op = ops.ReduceSum(keep_dims=True); y = op(x, axis)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.construct(*args, **kwargs)

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{type(self).__name__} must define construct()")

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}<{attrs}>"

    # MindSpore Primitives accept these configuration calls; on CPU they change nothing
    def set_device(self, device: str) -> Operation:
        return self

    def shard(self, *args: Any, **kwargs: Any) -> Operation:
        return self

    def add_prim_attr(self, name: str, value: Any) -> Operation:
        setattr(self, name, value)
        return self
