"""`ExceptionHandler` (an exception caught in a pipeline worker, carried to the main thread and
re-raised there with the worker's traceback in the message) and `Implementation` (which kind of
implementation a transform has), as MindSpore exports them from ``mindspore.dataset``."""

from __future__ import annotations

import enum
import sys
import traceback
from typing import Any


class Implementation(enum.Enum):
    """A transform's implementation: MindSpore's C++ kernels ("C") or Python ("Py"). Every Spore
    transform is Python/NumPy; the enum exists so code that inspects or passes it keeps working."""

    C = "C"
    PY = "Py"


class ExceptionHandler:
    """Holds an exception (default: the one being handled, ``sys.exc_info()``) so it can be raised
    again elsewhere: `reraise` raises the same exception type with the original traceback text."""

    def __init__(self, except_info: Any = None, where: str = "in python function") -> None:
        if except_info is None:
            except_info = sys.exc_info()
        if not (isinstance(except_info, tuple) and len(except_info) == 3 and isinstance(except_info[0], type)
                and issubclass(except_info[0], BaseException)):
            raise TypeError("ExceptionHandler: except_info must be a sys.exc_info() tuple of a raised exception")
        if not isinstance(where, str):
            raise TypeError(f"ExceptionHandler: where must be a str, got {type(where).__name__}")
        self.where = where
        self.except_type: type[BaseException] = except_info[0]
        self.except_msg = "".join(traceback.format_exception(*except_info))

    def reraise(self) -> None:
        """Raise the held exception type again, its message naming where it was caught and the
        original traceback."""
        msg = f"Caught {self.except_type.__name__} {self.where}.\nOriginal {self.except_msg}"
        try:
            err = self.except_type(msg)
        except TypeError:  # an exception type whose constructor needs other arguments
            raise RuntimeError(msg) from None
        raise err


__all__ = ["ExceptionHandler", "Implementation"]
