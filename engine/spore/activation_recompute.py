"""`ms.recompute(block, *args)`: run a Cell so that its activations are recomputed in the backward
pass instead of kept (MindSpore's memory-saving call).

Spore's tape keeps what the backward needs, so `recompute` computes exactly what `block(*args)`
computes, forward and gradients alike, without the memory saving. Code that calls it runs
unchanged with the same numbers. The keyword options are checked as MindSpore checks them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["recompute"]


def recompute(block: Any, *args: Any, use_reentrant: bool = True, output_recompute: bool = False,
              early_stop: bool = True, context_fn: Any = None, **kwargs: Any) -> Any:
    """``block(*args, **kwargs)``; `block` must be a Cell (as in MindSpore)."""
    from .nn.cell import Cell

    if not isinstance(block, Cell):
        raise TypeError(f"recompute: 'block' must be a Cell, got {type(block).__name__}")
    for name, value in (("use_reentrant", use_reentrant), ("output_recompute", output_recompute),
                        ("early_stop", early_stop)):
        if not isinstance(value, bool):
            raise TypeError(f"recompute: '{name}' must be a bool, got {type(value).__name__}")
    if context_fn is not None and not callable(context_fn):
        raise TypeError(f"recompute: 'context_fn' must be callable or None, got {type(context_fn).__name__}")
    return block(*args, **kwargs)
