"""What `spore-run` starts on each rank: the user's script, with this rank's output in its log file.

``python -m spore.communication._rank_entry LOG_DIR script.py args...``: standard output and error
go to ``LOG_DIR/rank_<r>.log``; rank 0's output and every rank's standard error are also shown on
the launcher's console (lines of ranks other than 0 prefixed with ``[rank r]``).
"""

from __future__ import annotations

import os
import runpy
import sys
import threading


def _rank() -> int:
    for key in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"):
        if key in os.environ:
            return int(os.environ[key])
    return 0


_LOCK = threading.Lock()  # the log file gets whole lines, from standard output and error alike


def _tee(read_fd: int, log: object, console_fd: int, show: bool, prefix: bytes) -> threading.Thread:
    def emit(line: bytes) -> None:
        with _LOCK:
            log.write(line)
            log.flush()
        if show:
            os.write(console_fd, prefix + line)

    def pump() -> None:
        with os.fdopen(read_fd, "rb", buffering=0) as src:
            pending = b""
            while chunk := src.read(65536):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    emit(line + b"\n")
            if pending:
                emit(pending + b"\n")

    t = threading.Thread(target=pump, name="spore-log", daemon=True)
    t.start()
    return t


def main(argv: list[str]) -> None:
    log_dir, script, args = argv[0], argv[1], argv[2:]
    rank = _rank()
    os.makedirs(log_dir, exist_ok=True)
    log = open(os.path.join(log_dir, f"rank_{rank}.log"), "ab")  # noqa: SIM115 - lives as long as the process
    prefix = b"" if rank == 0 else f"[rank {rank}] ".encode()
    pumps = []
    for fd, show in ((1, rank == 0), (2, True)):
        console = os.dup(fd)
        r, w = os.pipe()
        os.dup2(w, fd)
        os.close(w)
        pumps.append((fd, _tee(r, log, console, show, prefix)))
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, pump in pumps:
            os.close(fd)  # the pipe's write end: the pump sees end of file
            pump.join(timeout=5)


if __name__ == "__main__":
    main(sys.argv[1:])
