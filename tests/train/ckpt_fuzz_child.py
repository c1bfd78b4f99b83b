"""Child process of the checkpoint fuzzer: loads many files, one result line per file.

    python ckpt_fuzz_child.py MANIFEST START

MANIFEST is a text file with one checkpoint path a line; files from line START (0-based) on are
loaded with `spore.load_checkpoint`, in order. Before each load the child prints ``> i`` and after
it one JSON line: ``{"i": i, "ok": digest}`` (what loaded: per tensor its name, dtype, shape and
a SHA-256 of its bytes), ``{"i": i, "refused": class, "names_file": bool}`` for a Spore error, or
``{"i": i, "leak": class, "message": ...}`` for any other exception. A crash (a signal, an abort
in a C extension) ends the output after ``> i``, which tells the parent which file did it.
``SPORE_FUZZ_CRASH_AT=i`` makes the child kill itself with SIGSEGV at file i, so that the parent's
crash detection can itself be tested.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys


def digest(loaded: dict) -> list[list]:
    """A comparable summary of everything a load returned, in order."""
    out = []
    for name, value in loaded.items():
        if isinstance(value, str):
            out.append([name, "str", [], value])
            continue
        arr = value.asnumpy()
        out.append([name, arr.dtype.str, list(arr.shape), hashlib.sha256(arr.tobytes()).hexdigest()])
    return out


def main() -> None:
    from spore import SporeError
    from spore.train import load_checkpoint

    manifest, start = sys.argv[1], int(sys.argv[2])
    with open(manifest) as f:
        paths = f.read().splitlines()
    out = sys.stdout
    crash_at = int(os.environ.get("SPORE_FUZZ_CRASH_AT", "-1"))
    for i in range(start, len(paths)):
        path = paths[i]
        out.write(f"> {i}\n")
        out.flush()
        if i == crash_at:
            os.kill(os.getpid(), signal.SIGSEGV)
        try:
            result = {"i": i, "ok": digest(load_checkpoint(path))}
        except SporeError as err:
            real = os.path.realpath(path)
            result = {"i": i, "refused": type(err).__name__,
                      "names_file": real in str(err) and getattr(err, "file", None) == real}
        except Exception as err:  # the very thing the fuzzer hunts: reported, not raised
            result = {"i": i, "leak": type(err).__name__, "message": str(err)[:300]}
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
