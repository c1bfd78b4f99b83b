"""Remember the arguments each dataset and transform was built with, so `serialize` can describe
a pipeline as JSON and `deserialize` can build it again (issue 14, data slice).

`Dataset` and `TensorOperation` call `record_init_args` from ``__init_subclass__``: every
subclass's ``__init__`` is wrapped so that the outermost call (the class the user instantiated)
stores ``(args, kwargs)`` in ``self._spore_init``; the ``super().__init__`` calls inside it do not
overwrite that. ``functools.wraps`` keeps the signature visible to ``inspect.signature``. A class
whose constructor converts big in-memory data names those parameters in ``_spore_init_drop`` and
gives them back from its own state with ``_spore_state_param(name)``, so recording keeps no copy.
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
            drop = getattr(type(self), "_spore_init_drop", ())
            state[INIT_ATTR] = _dropped(type(self), args, kwargs, drop) if drop else (args, kwargs)
            # the sampler the constructor made: a later copy reading through another one (split) differs
            state["_spore_sampler"] = state.get("sampler")

    __init__._spore_records = True  # type: ignore[attr-defined]
    cls.__init__ = __init__  # type: ignore[misc]


class FromState:
    """Stands for an argument the object did not keep (``_spore_init_drop``): big in-memory data it
    has already converted; `serialize` asks the object for it (``_spore_state_param(name)``)."""

    def __repr__(self) -> str:
        return "<from state>"


def _dropped(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any], drop: tuple[str, ...]
             ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call with the ``drop`` parameters replaced by `FromState` (so the originals can be freed)."""
    import inspect

    names = [n for n in inspect.signature(cls.__init__).parameters][1:]
    args = tuple(FromState() if i < len(names) and names[i] in drop else a for i, a in enumerate(args))
    kwargs = {k: FromState() if k in drop else v for k, v in kwargs.items()}
    return args, kwargs


def recorded_args(obj: Any) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The ``(args, kwargs)`` ``obj`` was built with, or None when they were not recorded."""
    rec = getattr(obj, "__dict__", {}).get(INIT_ATTR)
    return rec if isinstance(rec, tuple) else None


__all__: list[str] = []
