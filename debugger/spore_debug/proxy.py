"""One debug session: the client on one side, debugpy's adapter on the other (see `upstream`),
and every message passed across.

The proxy renumbers what it sends each way (it also speaks for itself: error responses to
malformed input, `output` events, a request debugpy needs that the client never sent), so it keeps
two maps: debugpy-side request seq -> the client's request, and client-side seq of a reverse
request (`runInTerminal`, `startDebugging`) -> debugpy's. Rewrites of Spore's own messages live in
`rewrite.py`; this module only routes, validates and cleans up.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from . import rewrite
from .framing import FrameError, MessageReader
from .upstream import Channel, ProcessUpstream, SocketUpstream

Message = dict[str, Any]
Upstream = ProcessUpstream | SocketUpstream
DISCONNECT_GRACE = 10.0  # seconds debugpy gets to end the debuggee and exit before it is killed


def debugpy_adapter_argv(log_dir: str | None = None) -> list[str]:
    argv = [sys.executable, "-m", "debugpy.adapter"]
    if log_dir:
        argv += ["--log-dir", log_dir]
    return argv


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
        self.disconnected = threading.Event()  # debugpy answered a disconnect
        self.break_on_nan = False
        self.kind: str | None = None  # "launch" or "attach"
        self.shown_name: str | None = None
        self.untraced_until_entry: list[str] | None = None  # see rewrite.startup_patterns
        self.initialize_args: dict[str, Any] | None = None
        self.exception_breakpoints_sent = False
        self.disconnecting = False
        self.keep_debuggee = False  # a disconnect with terminateDebuggee: false
        self.terminated_sent = False
        self.upstream: Upstream | None = None
        self.owned: list[int] = []  # processes under our debugpy adapter, last seen

    # -- lifecycle ----------------------------------------------------------------------------
    def run(self) -> int:
        """Serve until the session ends; returns debugpy's exit code (or 1 if it never started)."""
        try:
            self.upstream = ProcessUpstream(self.adapter_argv)
        except OSError as exc:
            self.say(f"spore-debug: cannot start debugpy's adapter ({' '.join(self.adapter_argv)}): {exc}")
            self.event("terminated", {})
            return 1
        self.log(f"session started: {' '.join(self.adapter_argv)} (pid {self.upstream.proc.pid})")
        self._read_upstream_in_thread(self.upstream)
        threading.Thread(target=self._client_loop, name="from-client", daemon=True).start()
        self.done.wait()
        code = self._finish()
        self.log(f"session ended ({self.kind or 'no launch or attach'}; debugpy's adapter exit code {code})")
        return code

    def _read_upstream_in_thread(self, upstream: Upstream) -> None:
        threading.Thread(target=self._adapter_loop, args=(upstream,), name="from-debugpy", daemon=True).start()

    def _finish(self) -> int:
        """After either side ended: let debugpy end the debuggee and exit, then make sure of it."""
        upstream = self.upstream
        assert upstream is not None
        tree = upstream.tree() or self.owned
        if upstream.running() and not self.disconnecting:
            # the client went away without a disconnect: ask debugpy to end the session as one would
            self.log("client ended without disconnect; disconnecting debugpy")
            self.disconnecting = True
            self._to_adapter({"type": "request", "command": "disconnect",
                              "arguments": {"terminateDebuggee": self.kind != "attach"}}, Pending(None, "disconnect"))
            self.disconnected.wait(DISCONNECT_GRACE)
            upstream.end_input()
        if upstream.wait(DISCONNECT_GRACE) is None:
            self.log(f"{upstream.name} did not exit after disconnect; killing it")
        # an attached process is not ours to end, nor one the client asked to keep running
        return upstream.stop([] if self.kind == "attach" or self.keep_debuggee else tree)

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
            if command == "initialize":
                self.initialize_args = arguments
            elif command == "launch":
                self.kind = "launch"
                self.break_on_nan = bool(arguments.get("breakOnNaN", False))
                self.untraced_until_entry = rewrite.startup_patterns(arguments)
                arguments, self.shown_name = rewrite.launch_arguments(arguments)
            elif command == "attach":
                self.kind = "attach"
                self.break_on_nan = bool(arguments.get("breakOnNaN", False))
                arguments = rewrite.attach_arguments(arguments)
                where = rewrite.attach_address(arguments)
                if where is not None:
                    self._switch_to_remote(*where)
        except rewrite.LaunchError as err:
            self.fail(seq, command, str(err))
            self.say(f"spore-debug: {err}\n")
            self.event("terminated", {})
            return
        if command == "setExceptionBreakpoints":
            self.exception_breakpoints_sent = True
            arguments = rewrite.exception_breakpoints(arguments, self.break_on_nan)
        elif command == "configurationDone":
            if not self.exception_breakpoints_sent:
                # a client that never sets exception breakpoints still gets Spore's default-on filter
                spore = rewrite.exception_breakpoints({"filters": [rewrite.COMPILE_FILTER]}, self.break_on_nan)
                self._to_adapter({"type": "request", "command": "setExceptionBreakpoints", "arguments": spore},
                                 Pending(None, "setExceptionBreakpoints"))
                self.exception_breakpoints_sent = True
            if self.untraced_until_entry:
                self._dont_trace(self.untraced_until_entry)
        elif command == "disconnect":
            self.disconnecting = True
            self.keep_debuggee = arguments.get("terminateDebuggee") is False
        self._to_adapter({"type": "request", "command": command, "arguments": arguments},
                         Pending(seq, command, arguments))

    def _dont_trace(self, prefixes: list[str]) -> None:
        """pydevd's `dontTraceStartPatterns` (files under these prefixes are not traced at all)."""
        self._to_adapter({"type": "request", "command": "setDebuggerProperty",
                          "arguments": {"dontTraceStartPatterns": prefixes, "dontTraceEndPatterns": []}},
                         Pending(None, "setDebuggerProperty"))

    def _switch_to_remote(self, host: str, port: int) -> None:
        """Attach by address: talk to the adapter inside the listening process from now on (it was
        started by `debugpy.listen`, so a second adapter of ours in between would find no server).
        It gets the client's `initialize` first; our own adapter, unused, ends."""
        try:
            remote = SocketUpstream(host, port)
        except OSError as exc:
            raise rewrite.LaunchError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        local, self.upstream = self.upstream, remote
        self._read_upstream_in_thread(remote)
        self._to_adapter({"type": "request", "command": "initialize", "arguments": self.initialize_args or {}},
                         Pending(None, "initialize"))
        if local is not None:
            local.end_input()
            local.wait(DISCONNECT_GRACE)
            local.stop(local.tree())

    def _to_adapter(self, message: Message, pending: Pending | None) -> None:
        upstream = self.upstream
        if upstream is None:
            return

        def remember(upstream_seq: int) -> None:
            if pending is not None:
                with self.lock:
                    self.pending[upstream_seq] = pending

        upstream.channel.send(message, remember)
        if upstream.channel.broken and pending is not None and pending.client_seq is not None:
            with self.lock:
                self.pending = {k: v for k, v in self.pending.items() if v is not pending}
            self.fail(pending.client_seq, pending.command, f"{upstream.name} is not running")

    # -- debugpy -> client --------------------------------------------------------------------
    def _adapter_loop(self, upstream: Upstream) -> None:
        reader = MessageReader(upstream.reader)
        try:
            while True:
                item = reader.read()
                if item is None:
                    break
                if isinstance(item, FrameError):
                    self.log(f"bad frame from debugpy: {item.reason}")
                    continue
                self._from_adapter(item)
        except (OSError, ValueError):
            pass  # the stream was closed under us (a switch to a remote adapter, or the end)
        except Exception as exc:  # noqa: BLE001
            self.say(f"spore-debug: internal error reading from debugpy: {exc!r}")
        finally:
            if upstream is self.upstream:
                self._upstream_ended(upstream)

    def _upstream_ended(self, upstream: Upstream) -> None:
        code = upstream.wait(DISCONNECT_GRACE)
        if not self.disconnecting:
            self.say(f"spore-debug: {upstream.name} ended unexpectedly"
                     + (f" (exit code {code})" if isinstance(upstream, ProcessUpstream) else ""))
        with self.lock:
            orphans = [p for p in self.pending.values() if p.client_seq is not None]
            self.pending.clear()
        for p in orphans:
            self.fail(p.client_seq, p.command, f"{upstream.name} ended before answering")
        if not self.terminated_sent:
            self.event("terminated", {})
        self.done.set()

    def _from_adapter(self, message: Message) -> None:
        kind = message.get("type")
        if kind == "response":
            with self.lock:
                pending = self.pending.pop(message.get("request_seq", -1), None)
            if pending is not None and pending.command == "disconnect":
                self.disconnected.set()
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
            out = {k: v for k, v in message.items() if k != "seq"}
            out["request_seq"] = pending.client_seq
            if body is not None:
                out["body"] = body
            self.client.send(out)
            if pending.command == "disconnect" and self.upstream is not None:
                # the session is over, but debugpy's adapter waits for its input to end (an editor
                # would kill it): closing it lets it, and then this session, end now
                self.upstream.end_input()
        elif kind == "request":
            upstream_seq = message.get("seq")
            out = {k: v for k, v in message.items() if k != "seq"}

            def remember(client_seq: int) -> None:
                with self.lock:
                    self.reverse[client_seq] = upstream_seq  # type: ignore[assignment]

            self.client.send(out, remember)
        elif kind == "event":
            out = {k: v for k, v in message.items() if k != "seq"}
            name = message.get("event")
            if name == "process" and self.shown_name and isinstance(out.get("body"), dict) \
                    and out["body"].get("name") == rewrite.RUNNER:
                out["body"] = {**out["body"], "name": self.shown_name}
            if name == "terminated":
                self.terminated_sent = True
            elif name == "stopped" and self.untraced_until_entry and (out.get("body") or {}).get("reason") == "entry":
                self.untraced_until_entry = None  # the program's first line: trace everything again
                self._dont_trace([])
            elif name in ("process", "debugpyAttach") and isinstance(self.upstream, ProcessUpstream):
                # remember who runs under debugpy now: if debugpy dies, they are re-parented away
                self.owned = self.upstream.tree() or self.owned
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
