"""Where Spore's own code lives: for justMyCode, traceback trimming and "is this the user's line".

One answer for every face: the engine's errors, the kernel's tracebacks and the debugger's
justMyCode all call a frame "Spore's" by the same test.
"""

from __future__ import annotations

import os
import types

from .. import errors


def engine_paths() -> tuple[str, ...]:
    """The directories holding Spore's engine code (each ends with a path separator)."""
    return (errors._PKG_DIR,)


def is_engine_file(filename: str) -> bool:
    """True for a file of the engine itself (not the user's, not the standard library's)."""
    return errors.is_engine_file(filename)


def user_traceback(tb: types.TracebackType | None, also: tuple[str, ...] = ()) -> types.TracebackType | None:
    """The traceback without the engine's frames (nor those under the `also` directories: a face
    passes its own), unless ``SPORE_TRACEBACK=full`` asks for everything."""
    if os.environ.get("SPORE_TRACEBACK", "") == "full":
        return tb
    return errors.without_engine_frames(tb, tuple(os.path.join(os.path.abspath(d), "") for d in also))
