"""Hook Spore's views into IPython's display machinery.

Tensors, Parameters and Cells get a mimebundle formatter, so every way a notebook shows a value —
a cell's last expression, `display(x)`, a data viewer asking for HTML — goes through the same
views. A view that raises must never cost the user their output: `guarded` logs the error and
returns None, and IPython then falls back to the object's plain repr.

The log is the kernel's own (what the front end keeps in its kernel log / output channel), never
the cell's stderr: ipykernel captures file descriptor 2 into the cell output, so a handler on
`sys.__stderr__` would still print the warning under the user's cell. `kernel_log_stream` writes to
the copy of the original fd 2 that ipykernel keeps for its own log.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable
from typing import IO, Any

log = logging.getLogger("spore_kernel")


def kernel_log_stream() -> IO[str] | None:
    """A text stream to the kernel process's real stderr, bypassing ipykernel's capture of fd 2.

    Under ipykernel (with `capture_fd_output`, the default) `sys.stderr` is an OutStream whose
    `_original_stdstream_copy` is a duplicate of the fd 2 the kernel was started with; writes to
    fd 2 itself are piped into the current cell's output. Elsewhere (terminal IPython, no capture)
    `sys.__stderr__` is already the process's stderr.
    """
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if isinstance(fd, int):
        try:
            return os.fdopen(os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace")
        except OSError:
            pass
    return sys.__stderr__


def guarded(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Wrap a formatter so that an exception in it yields None (the default repr) instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(obj: Any) -> Any:
        try:
            return fn(obj)
        except Exception:  # noqa: BLE001 - display must never break the output
            log.warning("spore display of %s failed; showing its repr", type(obj).__name__, exc_info=True)
            return None

    return wrapper


def tensor_bundle(t: Any) -> dict[str, Any]:
    from . import tensor_view  # (NumPy loads with the first tensor shown, not with the kernel)

    return tensor_view.bundle(t)  # looked up per call: a view replaced at run time takes effect


def cell_bundle(c: Any) -> dict[str, Any]:
    from . import cell_view

    return cell_view.bundle(c)


def register(shell: Any) -> None:
    """Register the formatters on an IPython shell's display formatter, by class name: the engine is
    loaded by the first cell that uses it, not by the kernel's start (subclasses match through the MRO)."""
    mb = shell.display_formatter.mimebundle_formatter
    mb.for_type_by_name("spore.tensor", "Tensor", guarded(tensor_bundle))
    mb.for_type_by_name("spore.nn.cell", "Cell", guarded(cell_bundle))
