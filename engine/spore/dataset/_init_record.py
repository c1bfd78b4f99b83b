"""Remember the arguments each dataset and transform was built with, so `serialize` can describe
a pipeline as JSON and `deserialize` can build it again (issue 14, data slice).

`Dataset` and `TensorOperation` call `record_init_args` from ``__init_subclass__``: every
subclass's ``__init__`` is wrapped so that the outermost call (the class the user instantiated)
stores ``(args, kwargs)`` in ``self._spore_init``; the ``super().__init__`` calls inside it do not
overwrite that. ``functools.wraps`` keeps the signature visible to ``inspect.signature``.
"""

from __future__ import annotations

import functools
from typing import Any

INIT_ATTR = "_spore_init"


def record_init_args(cls: type) -> None:
    """Wrap ``cls.__init__`` (when ``cls`` defines one) to record its outermost call's arguments."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_spore_records", False):
        return

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        state = getattr(self, "__dict__", None)
        outer = state is not None and INIT_ATTR not in state
        if outer:
            state[INIT_ATTR] = None  # the inner super().__init__ calls see a call in progress
        try:
            init(self, *args, **kwargs)
        except BaseException:
            if outer:
                state.pop(INIT_ATTR, None)
            raise
        if outer:
            state[INIT_ATTR] = (args, kwargs)
            # the sampler the constructor made: a later copy reading through another one (split) differs
            state["_spore_sampler"] = state.get("sampler")

    __init__._spore_records = True  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]


def recorded_args(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The ``(args, kwargs)`` ``obj`` was built with, or None when they were not recorded."""
    rec = getattr(obj, "__dict__", {}).get(INIT_ATTR)
    return rec if isinstance(rec, tuple) else None


__all__: list[str] = []
