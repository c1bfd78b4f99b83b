"""One debug session: the client on one side, debugpy's own adapter (a child process speaking DAP
on its stdio) on the other, and every message passed across.

The proxy renumbers what it sends each way (it also speaks for itself: error responses to
malformed input, `output` events, a request debugpy needs that the client never sent), so it keeps
two maps: debugpy-side request seq -> the client's request, and client-side seq of a reverse
request (`runInTerminal`, `startDebugging`) -> debugpy's. Rewrites of Spore's own messages live in
`rewrite.py`; this module only routes, validates and cleans up.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from . import procs, rewrite
from .framing import FrameError, MessageReader, encode

Message = dict[str, Any]
DISCONNECT_GRACE = 10.0  # seconds debugpy gets to end the debuggee and exit before it is killed


def debugpy_adapter_argv(log_dir: str | None = None) -> list[str]:
    argv = [sys.executable, "-m", "debugpy.adapter"]
    if log_dir:
        argv += ["--log-dir", log_dir]
    return argv


class Channel:
    """One side's writer: numbers each message it sends and writes whole frames under a lock."""

    def __init__(self, write: Callable[[bytes], None], name: str) -> None:
        self._write = write
        self.name = name
        self._seq = 0
        self.lock = threading.Lock()
        self.broken = False

    def send(self, message: Message, on_seq: Callable[[int], None] | None = None) -> int:
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


@dataclass
class Pending:
    """A request forwarded to debugpy: whose it was (None: the proxy's own) and what it asked."""

    client_seq: int | None
    command: str
    arguments: dict[str, Any] = field(default_factory=dict)


class Session:
    """Proxy one client connection to a fresh debugpy adapter until either side ends."""

    def __init__(self, client_in: BinaryIO, client_write: Callable[[bytes], None],
                 adapter_argv: Sequence[str] | None = None, log: Callable[[str], None] | None = None) -> None:
        self.client_reader = MessageReader(client_in)
        self.client = Channel(client_write, "client")
        self.adapter_argv = list(adapter_argv or debugpy_adapter_argv())
        self.log = log or (lambda text: None)
        self.pending: dict[int, Pending] = {}
        self.reverse: dict[int, int] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.break_on_nan = False
        self.kind: str | None = None  # "launch" or "attach"
        self.shown_name: str | None = None
        self.exception_breakpoints_sent = False
        self.disconnecting = False
        self.terminated_sent = False
        self.proc: subprocess.Popen | None = None
        self.adapter: Channel | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    def run(self) -> int:
        """Serve until the session ends; returns debugpy's exit code (or 1 if it never started)."""
        try:
            self.proc = subprocess.Popen(self.adapter_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            self.say(f"spore-debug: cannot start debugpy's adapter ({' '.join(self.adapter_argv)}): {exc}")
            self.event("terminated", {})
            return 1
        stdin = self.proc.stdin
        assert stdin is not None and self.proc.stdout is not None

        def write_adapter(data: bytes) -> None:
            stdin.write(data)
            stdin.flush()

        self.adapter = Channel(write_adapter, "debugpy")
        from_adapter = threading.Thread(target=self._adapter_loop, name="from-debugpy", daemon=True)
        from_client = threading.Thread(target=self._client_loop, name="from-client", daemon=True)
        from_adapter.start()
        from_client.start()
        self.done.wait()
        return self._finish()

    def _finish(self) -> int:
        """After either side ended: let debugpy end the debuggee and exit, then make sure of it."""
        proc = self.proc
        assert proc is not None
        tree = procs.descendants(proc.pid)
        if proc.poll() is None and not self.disconnecting and self.adapter is not None:
            # the client went away without a disconnect: ask debugpy to end the session as one would
            self.log("client ended without disconnect; disconnecting debugpy")
            self._to_adapter({"type": "request", "command": "disconnect",
                              "arguments": {"terminateDebuggee": self.kind != "attach"}}, None)
        try:
            proc.wait(DISCONNECT_GRACE)
        except subprocess.TimeoutExpired:
            self.log("debugpy did not exit after disconnect; killing it")
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if self.kind != "attach":  # an attached process is not ours to end
            procs.kill([p for p in [*tree, *procs.descendants(proc.pid)] if p != proc.pid])
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        return code

    # -- client -> debugpy --------------------------------------------------------------------
    def _client_loop(self) -> None:
        try:
            while True:
                item = self.client_reader.read()
                if item is None:
                    self.log("client closed its stream")
                    break
                if isinstance(item, FrameError):
                    self.say(f"spore-debug: ignored a malformed message from the client: {item.reason}")
                    continue
                self._from_client(item)
        except Exception as exc:  # noqa: BLE001 -- a bug here must end the session, not hang it
            self.say(f"spore-debug: internal error reading from the client: {exc!r}")
        finally:
            self.done.set()

    def _from_client(self, message: Message) -> None:
        kind = message.get("type")
        seq = message.get("seq")
        if kind == "request":
            command = message.get("command")
            if not isinstance(command, str) or not command:
                self.fail(seq, str(command), "a request needs a \"command\" string")
                return
            if isinstance(seq, bool) or not isinstance(seq, int):
                self.fail(0, command, f"request {command!r} has no integer \"seq\"; ignored")
                self.say(f"spore-debug: ignored request {command!r} without a seq number")
                return
            arguments = message.get("arguments", {})
            if not isinstance(arguments, dict):
                self.fail(seq, command, '"arguments" must be an object')
                return
            self._client_request(seq, command, arguments)
        elif kind == "response":
            with self.lock:
                upstream = self.reverse.pop(message.get("request_seq", -1), None)
            if upstream is None:
                self.say(f"spore-debug: ignored a response to no request we sent (request_seq "
                         f"{message.get('request_seq')!r})")
                return
            self._to_adapter({**message, "request_seq": upstream}, None)
        else:
            self.say(f"spore-debug: ignored a message of type {kind!r} from the client (expected a request)")

    def _client_request(self, seq: int, command: str, arguments: dict[str, Any]) -> None:
        try:
            if command == "launch":
                self.kind = "launch"
                self.break_on_nan = bool(arguments.get("breakOnNaN", False))
                arguments, self.shown_name = rewrite.launch_arguments(arguments)
            elif command == "attach":
                self.kind = "attach"
                self.break_on_nan = bool(arguments.get("breakOnNaN", False))
                arguments = rewrite.attach_arguments(arguments)
        except rewrite.LaunchError as err:
            self.fail(seq, command, str(err))
            self.say(f"spore-debug: {err}\n")
            self.event("terminated", {})
            return
        if command == "setExceptionBreakpoints":
            self.exception_breakpoints_sent = True
            arguments = rewrite.exception_breakpoints(arguments, self.break_on_nan)
        elif command == "configurationDone" and not self.exception_breakpoints_sent:
            # a client that never sets exception breakpoints still gets Spore's default-on filter
            spore = rewrite.exception_breakpoints({"filters": [rewrite.COMPILE_FILTER]}, self.break_on_nan)
            self._to_adapter({"type": "request", "command": "setExceptionBreakpoints", "arguments": spore},
                             Pending(None, "setExceptionBreakpoints"))
            self.exception_breakpoints_sent = True
        elif command in ("disconnect", "terminate"):
            self.disconnecting = self.disconnecting or command == "disconnect"
        self._to_adapter({"type": "request", "command": command, "arguments": arguments},
                         Pending(seq, command, arguments))

    def _to_adapter(self, message: Message, pending: Pending | None) -> None:
        if self.adapter is None:
            return

        def remember(upstream_seq: int) -> None:
            if pending is not None:
                with self.lock:
                    self.pending[upstream_seq] = pending

        self.adapter.send(message, remember)
        if self.adapter.broken and pending is not None and pending.client_seq is not None:
            self.fail(pending.client_seq, pending.command, "debugpy's adapter is not running")

    # -- debugpy -> client --------------------------------------------------------------------
    def _adapter_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        reader = MessageReader(self.proc.stdout)
        try:
            while True:
                item = reader.read()
                if item is None:
                    break
                if isinstance(item, FrameError):
                    self.log(f"bad frame from debugpy: {item.reason}")
                    continue
                self._from_adapter(item)
        except Exception as exc:  # noqa: BLE001
            self.say(f"spore-debug: internal error reading from debugpy: {exc!r}")
        finally:
            code = self._wait_exit()
            if not self.disconnecting:
                self.say(f"spore-debug: debugpy's adapter exited unexpectedly (exit code {code})")
            with self.lock:
                orphans = [p for p in self.pending.values() if p.client_seq is not None]
                self.pending.clear()
            for p in orphans:
                self.fail(p.client_seq, p.command, "debugpy's adapter exited before answering")
            if not self.terminated_sent:
                self.event("terminated", {})
            self.done.set()

    def _end_adapter_input(self) -> None:
        """After `disconnect` the session is over, but debugpy's adapter waits for its input to end
        (an editor would kill it); closing that input lets it, and then this process, exit now."""
        assert self.proc is not None and self.proc.stdin is not None and self.adapter is not None
        with self.adapter.lock:
            self.adapter.broken = True
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def _wait_exit(self) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(DISCONNECT_GRACE)
        except subprocess.TimeoutExpired:
            return None

    def _from_adapter(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "response":
            with self.lock:
                pending = self.pending.pop(message.get("request_seq", -1), None)
            if pending is None or pending.client_seq is None:
                if pending is not None and not message.get("success"):
                    self.log(f"debugpy refused the proxy's {pending.command}: {message.get('message')}")
                return
            body = message.get("body")
            if message.get("success"):
                if pending.command == "initialize":
                    body = rewrite.initialize_response(body)
                elif pending.command == "exceptionInfo":
                    body = rewrite.exception_info(body)
            out = {**message, "request_seq": pending.client_seq}
            if body is not None:
                out["body"] = body
            out.pop("seq", None)
            self.client.send(out)
            if pending.command == "disconnect":
                self._end_adapter_input()
        elif kind == "request":
            upstream = message.get("seq")
            out = {k: v for k, v in message.items() if k != "seq"}

            def remember(client_seq: int) -> None:
                with self.lock:
                    self.reverse[client_seq] = upstream  # type: ignore[assignment]

            self.client.send(out, remember)
        elif kind == "event":
            out = {k: v for k, v in message.items() if k != "seq"}
            name = message.get("event")
            if name == "process" and self.shown_name and isinstance(out.get("body"), dict) \
                    and out["body"].get("name") == rewrite.RUNNER:
                out["body"] = {**out["body"], "name": self.shown_name}
            if name == "terminated":
                self.terminated_sent = True
            self.client.send(out)

    # -- the proxy's own messages -------------------------------------------------------------
    def event(self, name: str, body: dict[str, Any]) -> None:
        if name == "terminated":
            self.terminated_sent = True
        self.client.send({"type": "event", "event": name, "body": body})

    def say(self, text: str) -> None:
        """An `output` event on the client's console (and the log)."""
        self.log(text.rstrip())
        self.event("output", {"category": "stderr", "output": text if text.endswith("\n") else text + "\n"})

    def fail(self, request_seq: Any, command: str, text: str) -> None:
        """An error response the client can show (DAP's `message` plus a user-visible `error`)."""
        self.client.send({"type": "response", "request_seq": request_seq if isinstance(request_seq, int) else 0,
                          "success": False, "command": command, "message": text,
                          "body": {"error": {"id": 1, "format": text, "showUser": True}}})
