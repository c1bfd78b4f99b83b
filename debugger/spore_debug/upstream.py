"""Where the proxy's requests go: debugpy's adapter as a child process (launch, attach by pid or
by `listen`), or the adapter a `debugpy.listen()` process runs inside itself, over TCP (attach by
`connect`/`host`+`port`: that process already has its adapter, as VS Code's own Python debugger
assumes when it connects straight to the port).

Both look the same to the proxy: a byte stream to read frames from, a `Channel` to send on, a way
to end our side, and a way to be sure nothing of ours is left."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import BinaryIO

from . import procs
from .framing import encode

CONNECT_PATIENCE = 5.0  # seconds to retry a refused connection (the process may be about to listen)


class Channel:
    """One side's writer: numbers each message it sends and writes whole frames under a lock."""

    def __init__(self, write: Callable[[bytes], None], name: str) -> None:
        self._write = write
        self.name = name
        self._seq = 0
        self.lock = threading.Lock()
        self.broken = False

    def send(self, message: dict, on_seq: Callable[[int], None] | None = None) -> int:
        """Send `message` with the next seq; `on_seq(seq)` runs before the write, so a reply that
        races back finds its mapping."""
        with self.lock:
            self._seq += 1
            message = {**message, "seq": self._seq}
            if on_seq is not None:
                on_seq(self._seq)
            if not self.broken:
                try:
                    self._write(encode(message))
                except (OSError, ValueError):
                    self.broken = True
            return self._seq


class ProcessUpstream:
    """debugpy's adapter as our child, DAP on its stdin/stdout (its stderr is ours)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        stdin = self.proc.stdin
        self.reader: BinaryIO = self.proc.stdout  # type: ignore[assignment]  # a binary pipe

        def write(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        self.channel = Channel(write, "debugpy")
        self.name = "debugpy's adapter"

    def running(self) -> bool:
        return self.proc.poll() is None

    def tree(self) -> list[int]:
        """The adapter's descendants (launcher, debuggee, their children)."""
        return procs.descendants(self.proc.pid)

    def end_input(self) -> None:
        """debugpy's adapter ends its session and exits once its input closes."""
        with self.channel.lock:
            self.channel.broken = True
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, kill_tree: Sequence[int]) -> int:
        """Make sure it and `kill_tree` are gone; its exit code."""
        self.end_input()
        procs.kill([p for p in kill_tree if p != self.proc.pid])
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait()
        self.proc.stdout.close()  # type: ignore[union-attr]
        return code


class SocketUpstream:
    """The adapter inside a `debugpy.listen()` process, over TCP. Not ours: never killed."""

    def __init__(self, host: str, port: int, patience: float = CONNECT_PATIENCE) -> None:
        deadline = time.monotonic() + patience
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=patience)
                break
            except ConnectionRefusedError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)  # retrying a refused connect: there is no event for "now listening"
        self.sock.settimeout(None)
        self.reader = self.sock.makefile("rb")
        self.channel = Channel(self.sock.sendall, f"{host}:{port}")
        self.name = f"the debugpy adapter at {host}:{port}"
        self._open = True

    def running(self) -> bool:
        return self._open

    def tree(self) -> list[int]:
        return []

    def end_input(self) -> None:
        with self.channel.lock:
            self.channel.broken = True
            try:
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def wait(self, timeout: float) -> int | None:
        return 0

    def stop(self, kill_tree: Sequence[int]) -> int:
        self._open = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.reader.close()
        self.sock.close()
        return 0
