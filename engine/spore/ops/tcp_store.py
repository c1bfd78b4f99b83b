"""MindSpore's ``ops.TCPStore`` (issue 14): a key-value store over TCP that the processes of a job
share, to exchange small data (addresses, ids, counters) before or beside communication.

``TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
wait_for_workers=True, ...)``: the master serves the store on (host_name, port) from a daemon
thread (port 0 picks a free port; the chosen one is `port`); every store, master included,
connects to it. With `world_size` and `wait_for_workers`, the master's constructor waits until
world_size stores have connected. Methods (bytes values; str values are UTF-8 encoded):
`set(key, value)`, `get(key)` (waits for the key up to `timeout`), `add(key, amount)` (an integer
counter, returned), `delete_key(key)`, `num_keys()`, `check(keys)`, `wait(keys, timeout=None)`.

The wire format is length-prefixed JSON with base64 values (no pickle: a store never runs code it
receives). `multi_tenant`, `master_listen_fd` and `use_libuv` choose libuv server details in
MindSpore; they are checked and kept.
"""

from __future__ import annotations

import base64
import datetime
import json
import socket
import socketserver
import struct
import threading
import time
from typing import Any

__all__ = ["TCPStore"]

_WORKERS = "__spore_tcpstore_workers__"
_MAX_MESSAGE = 64 << 20  # bytes of one request or reply


def _send(sock: socket.socket, obj: dict) -> None:
    data = json.dumps(obj).encode()
    sock.sendall(struct.pack("<I", len(data)) + data)


def _recv(sock: socket.socket) -> dict | None:
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    (n,) = struct.unpack("<I", head)
    if n > _MAX_MESSAGE:
        return None  # a store exchanges small values: a huge length is garbage or an attack, so drop the peer
    body = bytearray()
    while len(body) < n:
        chunk = sock.recv(min(65536, n - len(body)))
        if not chunk:
            return None
        body += chunk
    try:
        msg = json.loads(body)
    except ValueError:
        return None
    return msg if isinstance(msg, dict) else None


class _State:
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.cond = threading.Condition()


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        st: _State = self.server.state  # type: ignore[attr-defined]
        while True:
            req = _recv(self.request)
            if req is None:
                return
            try:
                op, key = req.get("op"), req.get("key", "")
                with st.cond:
                    if op == "set":
                        st.data[key] = base64.b64decode(req["value"])
                        st.cond.notify_all()
                        reply: dict = {"ok": True}
                    elif op == "get":
                        deadline = time.monotonic() + float(req["timeout"])
                        while key not in st.data and time.monotonic() < deadline:
                            st.cond.wait(max(deadline - time.monotonic(), 0.0))
                        reply = {"ok": key in st.data,
                                 "value": base64.b64encode(st.data[key]).decode() if key in st.data else None}
                    elif op == "add":
                        v = int(st.data.get(key, b"0").decode() or 0) + int(req["amount"])
                        st.data[key] = str(v).encode()
                        st.cond.notify_all()
                        reply = {"ok": True, "value": v}
                    elif op == "delete":
                        reply = {"ok": st.data.pop(key, None) is not None}
                    elif op == "num_keys":
                        reply = {"ok": True, "value": len([k for k in st.data if k != _WORKERS])}
                    elif op == "check":
                        reply = {"ok": all(k in st.data for k in req["keys"])}
                    elif op == "wait_count":
                        deadline = time.monotonic() + float(req["timeout"])
                        while int(st.data.get(key, b"0").decode() or 0) < int(req["amount"]) and \
                                time.monotonic() < deadline:
                            st.cond.wait(max(deadline - time.monotonic(), 0.0))
                        reply = {"ok": int(st.data.get(key, b"0").decode() or 0) >= int(req["amount"])}
                    else:
                        reply = {"ok": False, "error": f"unknown request {op!r}"}
            except (KeyError, TypeError, ValueError, AttributeError) as e:  # a malformed request: answer, keep serving
                reply = {"ok": False, "error": f"malformed request: {type(e).__name__}: {e}"}
            _send(self.request, reply)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def _seconds(timeout: Any) -> float:
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"TCPStore: timeout must be a datetime.timedelta, got {type(timeout).__name__}")


class TCPStore:
    """A key-value store shared over TCP (see the module docstring)."""

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: Any = datetime.timedelta(seconds=300), wait_for_workers: bool = True,
                 multi_tenant: bool = False, master_listen_fd: int | None = None, use_libuv: bool = True) -> None:
        if not isinstance(host_name, str) or not host_name:
            raise TypeError(f"TCPStore: host_name must be a non-empty str, got {host_name!r}")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < 65536:
            raise ValueError(f"TCPStore: port must be an int in [0, 65536), got {port!r}")
        if world_size is not None and (isinstance(world_size, bool) or not isinstance(world_size, int)
                                       or world_size < 1):
            raise ValueError(f"TCPStore: world_size must be a positive int or None, got {world_size!r}")
        if not is_master and port == 0:
            raise ValueError("TCPStore: a non-master store needs the master's port (port=0 only for the master)")
        self.host, self.world_size, self.is_master = host_name, world_size, bool(is_master)
        self.timeout = _seconds(timeout)
        self.multi_tenant, self.master_listen_fd, self.use_libuv = multi_tenant, master_listen_fd, use_libuv
        self._server: _Server | None = None
        self._lock = threading.Lock()
        if self.is_master:
            self._server = _Server((host_name, port), _Handler)
            self._server.state = _State()  # type: ignore[attr-defined]
            port = self._server.server_address[1]
            threading.Thread(target=self._server.serve_forever, name="spore-tcpstore", daemon=True).start()
        self.port = port
        self._sock = self._connect()
        self._call({"op": "add", "key": _WORKERS, "amount": 1})
        if self.is_master and world_size is not None and wait_for_workers:
            if not self._call({"op": "wait_count", "key": _WORKERS, "amount": world_size,
                               "timeout": self.timeout})["ok"]:
                raise TimeoutError(f"TCPStore: {world_size} stores did not connect within {self.timeout} s")

    def _connect(self) -> socket.socket:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=None)
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"TCPStore: cannot reach the master at {self.host}:{self.port} ({e})") from None
                time.sleep(0.05)  # the master may not be listening yet

    def _call(self, req: dict) -> dict:
        with self._lock:
            _send(self._sock, req)
            reply = _recv(self._sock)
        if reply is None:
            raise ConnectionError(f"TCPStore: the master at {self.host}:{self.port} closed the connection")
        return reply

    @staticmethod
    def _key(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(f"TCPStore: key must be a str, got {type(key).__name__}")
        return key

    def set(self, key: str, value: Any) -> None:
        """Store `value` (bytes, or a str stored as UTF-8) under `key`."""
        if isinstance(value, str):
            value = value.encode()
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"TCPStore.set: value must be bytes or str, got {type(value).__name__}")
        self._call({"op": "set", "key": self._key(key), "value": base64.b64encode(bytes(value)).decode()})

    def get(self, key: str) -> bytes:
        """The value of `key`, waiting up to the store's timeout for another process to set it."""
        reply = self._call({"op": "get", "key": self._key(key), "timeout": self.timeout})
        if not reply["ok"]:
            raise TimeoutError(f"TCPStore.get: key {key!r} was not set within {self.timeout} s")
        return base64.b64decode(reply["value"])

    def add(self, key: str, amount: int) -> int:
        """Add `amount` to the integer counter `key` (0 when new); returns the new value."""
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise TypeError(f"TCPStore.add: amount must be an int, got {type(amount).__name__}")
        return int(self._call({"op": "add", "key": self._key(key), "amount": amount})["value"])

    def delete_key(self, key: str) -> bool:
        """Remove `key`; returns whether it existed."""
        return bool(self._call({"op": "delete", "key": self._key(key)})["ok"])

    def num_keys(self) -> int:
        """How many keys the store holds."""
        return int(self._call({"op": "num_keys"})["value"])

    def check(self, keys: list[str]) -> bool:
        """Whether every key of `keys` is set (without waiting)."""
        return bool(self._call({"op": "check", "keys": [self._key(k) for k in keys]})["ok"])

    def wait(self, keys: list[str], timeout: Any = None) -> None:
        """Wait until every key of `keys` is set (TimeoutError after `timeout`, default the store's)."""
        limit = self.timeout if timeout is None else _seconds(timeout)
        deadline = time.monotonic() + limit
        for k in keys:
            left = max(deadline - time.monotonic(), 0.0)
            if not self._call({"op": "get", "key": self._key(k), "timeout": left})["ok"]:
                raise TimeoutError(f"TCPStore.wait: key {k!r} was not set within {limit} s")

    def close(self) -> None:
        """Close this store's connection (and, on the master, stop serving)."""
        try:
            self._sock.close()
        finally:
            if self._server is not None:
                self._server.shutdown()
                self._server.server_close()
                self._server = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass
