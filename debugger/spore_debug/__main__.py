"""`spore-debug` / `python -m spore_debug`: Spore's debug adapter.

    spore-debug                 DAP over stdio (what VS Code's "executable" adapters and nvim-dap use)
    spore-debug --port N        DAP over TCP on 127.0.0.1:N, one debugpy adapter per connection
                                (N = 0 picks a free port; the port is printed on stderr)
    spore-debug --log-dir DIR   also write spore-debug's and debugpy's logs into DIR

The adapter itself is a thin process: it starts debugpy's adapter for each session and forwards
the protocol, rewriting only Spore's own messages (see `spore_debug.rewrite`).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import time
from collections.abc import Callable

from .proxy import Session, debugpy_adapter_argv


def make_log(log_dir: str | None) -> Callable[[str], None]:
    """A line logger into DIR/spore-debug-<pid>.log, or a no-op (stdout is the protocol's)."""
    if not log_dir:
        return lambda text: None
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, f"spore-debug-{os.getpid()}.log")
    lock = threading.Lock()

    def log(text: str) -> None:
        with lock, open(path, "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {text}\n")

    return log


def serve_stdio(log_dir: str | None) -> int:
    """One session over our own stdin/stdout; nothing else may write to stdout, so print() goes
    to stderr from here on."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr

    def write(data: bytes) -> None:
        out.write(data)
        out.flush()

    session = Session(sys.stdin.buffer, write, debugpy_adapter_argv(log_dir), make_log(log_dir))
    session.run()
    # The thread reading stdin may still be blocked in read(): interpreter shutdown would abort on
    # its buffer lock (SIGABRT), so leave at once, everything flushed.
    sys.stderr.flush()
    os._exit(0)


def serve_tcp(port: int, log_dir: str | None, once: bool = False) -> int:
    """Accept connections on 127.0.0.1:`port` (loopback only: a debug adapter runs arbitrary code
    for whoever connects) and serve each in its own thread."""
    server = socket.create_server(("127.0.0.1", port))
    host, bound = server.getsockname()[:2]
    print(f"spore-debug: listening on {host}:{bound}", file=sys.stderr, flush=True)
    log = make_log(log_dir)

    def serve(conn: socket.socket) -> None:
        reader = conn.makefile("rb")

        def write(data: bytes) -> None:
            conn.sendall(data)

        try:
            Session(reader, write, debugpy_adapter_argv(log_dir), log).run()
        finally:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    try:
        while True:
            conn, _ = server.accept()
            worker = threading.Thread(target=serve, args=(conn,), daemon=True)
            worker.start()
            if once:
                worker.join()
                return 0
    except KeyboardInterrupt:
        return 0
    finally:
        server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="spore-debug", description="Spore's debug adapter (DAP, on debugpy)")
    parser.add_argument("--port", type=int, default=None,
                        help="serve DAP over TCP on 127.0.0.1:PORT instead of stdio (0: any free port)")
    parser.add_argument("--once", action="store_true", help="with --port: serve one connection, then exit")
    parser.add_argument("--log-dir", default=None, help="write spore-debug's and debugpy's logs here")
    args = parser.parse_args(argv)
    if args.port is not None:
        if not 0 <= args.port < 65536:
            parser.error(f"--port {args.port} is out of range")
        return serve_tcp(args.port, args.log_dir, args.once)
    return serve_stdio(args.log_dir)


if __name__ == "__main__":
    sys.exit(main())
