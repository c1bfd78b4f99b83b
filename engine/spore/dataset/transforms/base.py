"""The base of Spore's transforms: a picklable callable that declares how many inputs it takes.

``map(op)`` without ``input_columns`` gives a Spore transform its declared number of leading
columns (a vision transform gets the image column) and a plain Python callable every column.
"""

from __future__ import annotations

from typing import Any


class TensorOperation:
    """A transform usable in ``Dataset.map`` or called directly on data."""

    _num_inputs: int | None = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from .._init_record import record_init_args

        record_init_args(cls)  # serialize() describes a transform by the arguments it was built with

    def __call__(self, *args: Any) -> Any:
        if self._num_inputs is not None and len(args) != self._num_inputs:
            raise TypeError(f"{type(self).__name__} takes {self._num_inputs} input(s), got {len(args)}")
        return self._apply(*args)

    def _apply(self, *args: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"
