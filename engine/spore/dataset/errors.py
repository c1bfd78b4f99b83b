"""The errors of the data pipeline, and how a failure inside a worker is pinned to the user's line.

A pipeline runs user code (sources, map functions, per-batch maps, filter predicates) far from the
line that built it, often in a worker thread or process. When that code raises, the most useful
report names the column(s), the sample and the line *inside the user's function* that failed. That
line is the innermost traceback frame that belongs neither to spore nor to an installed library
(numpy, PIL, the standard library): numpy raising inside ``np.reshape`` should point at the user's
``np.reshape(...)`` call, not at numpy's internals.

These classes live here rather than in ``spore/errors.py`` only because this package is owned
separately; they subclass ``SporeError`` and render the same way.
"""

from __future__ import annotations

import os
import pickle
import sysconfig
import traceback
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from ..errors import SourceLoc, SporeError, is_engine_code


class DatasetError(SporeError, RuntimeError):
    """A data pipeline problem: bad arguments, unreadable files, a source or column that fails."""


class DatasetMapError(DatasetError):
    """A user operation in ``map``/``batch(per_batch_map=...)``/``filter`` raised on one sample.

    Carries the operation's name, the input column names and the sample's position (0-based, in
    the order the operation saw samples this epoch) as fields, and the user's line as ``loc``.
    """

    def __init__(self, message: str, *, loc: SourceLoc | None = None, hint: str | None = None,
                 operation: str | None = None, columns: tuple[str, ...] = (), index: int | None = None):
        self.operation = operation
        self.columns = tuple(columns)
        self.index = index
        super().__init__(message, loc=loc, hint=hint)


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {os.path.abspath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return tuple(sorted(roots))


_LIBRARY_ROOTS = _library_roots()


def is_library_file(filename: str) -> bool:
    """True for the standard library and installed packages: code the user did not write."""
    return filename.startswith("<frozen") or os.path.abspath(filename).startswith(_LIBRARY_ROOTS)


def user_loc_from_traceback(tb: TracebackType | None) -> SourceLoc | None:
    """The innermost frame of ``tb`` in the user's own code (not spore, not a library), if any."""
    for fs in reversed(traceback.extract_tb(tb)):
        if not is_engine_code(fs.filename) and not is_library_file(fs.filename):
            return _loc(fs)
    return None


def _loc(fs: traceback.FrameSummary) -> SourceLoc:
    col, end = 0, None
    if fs.end_lineno == fs.lineno and fs.colno is not None:
        col, end = fs.colno, fs.end_colno
    return SourceLoc(fs.filename, fs.lineno or 0, col, end)


@dataclass
class Failure:
    """What a worker sends back instead of a result when user code raised on one item.

    Plain data (the exception made picklable, the user's location, a formatted traceback) so it
    crosses a process boundary; the main thread turns it into a ``DatasetMapError``.
    """

    position: int
    exc: BaseException
    loc: SourceLoc | None
    tb_text: str
    step: int = 0
    inputs: list[str] = field(default_factory=list)


def capture_failure(position: int, exc: BaseException, step: int = 0, args: tuple[Any, ...] = ()) -> Failure:
    """Record ``exc`` (raised on item ``position`` by operation number ``step``) as a Failure."""
    tb_text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return Failure(position, exc, user_loc_from_traceback(exc.__traceback__), tb_text, step,
                   [describe_value(a) for a in args])


def portable(failure: Failure) -> Failure:
    """Make a Failure safe to pickle back from a worker process (some exceptions do not pickle)."""
    try:
        pickle.loads(pickle.dumps(failure.exc))
    except Exception:  # any pickling problem means: send a stand-in
        failure.exc = RuntimeError(f"{type(failure.exc).__name__}: {failure.exc}")
    failure.exc.__traceback__ = None
    return failure


def describe_value(value: Any) -> str:
    """A short ``dtype shape`` (or type) description of one input, for error messages."""
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{dtype} {tuple(shape)}"
    size = getattr(value, "size", None)
    mode = getattr(value, "mode", None)
    if mode is not None and size is not None:  # a PIL image
        return f"PIL {mode} {size[0]}x{size[1]}"
    return type(value).__name__
