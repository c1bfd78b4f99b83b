"""Atomic file writes: a temporary file in the target's folder, renamed over the target when complete.

Why: an export or save that fails half-way (a full disk, an exception, Ctrl-C) must never leave a
truncated file where a good one was, or a half-written one a later load would trust.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO


@contextmanager
def atomic_write(path: str, prefix: str = ".spore-") -> Iterator[BinaryIO]:
    """Open a temporary file beside `path` for binary writing; on success it replaces `path`,
    on any exception it is removed and `path` is left as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=os.path.splitext(path)[1], dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
