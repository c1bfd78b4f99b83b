"""A small synchronous Debug Adapter Protocol client for the debugger tests.

It drives a real adapter process over its stdio (or a TCP connection) with Content-Length framed
JSON, the way an editor does, so the same script runs against `spore-debug` and against
`python -m debugpy.adapter`. Every wait is on a real message with a timeout (no sleeps), reverse
requests (`runInTerminal`, `startDebugging`) are answered so sessions do not stall, every message is
recorded in order for assertions, and closing kills the adapter and everything it started.

Typical use::

    with DAPClient.spawn([sys.executable, "-m", "spore_debug"]) as dap:
        dap.request("initialize", adapterID="spore", linesStartAt1=True, columnsStartAt1=True)
        launch = dap.send_request("launch", program=str(prog))
        dap.wait_event("initialized")
        dap.request("setBreakpoints", source={"path": str(prog)}, breakpoints=[{"line": 3}])
        dap.request("configurationDone")
        dap.wait_response(launch)
        stop = dap.wait_event("stopped")
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

TIMEOUT = 60.0  # generous: a loaded 2-core machine can take 10+ s to start a debuggee; still bounded
Message = dict[str, Any]
ReverseHandler = Callable[["DAPClient", Message], "tuple[bool, Any]"]


class DAPError(AssertionError):
    """A request failed, timed out, or the adapter went away: the test should fail with this text."""


def encode(message: Message) -> bytes:
    """One DAP frame: the header names the byte length of the UTF-8 JSON body."""
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: BinaryIO) -> bytes | None:
    """Read one framed body; None at end of stream. Headers other than Content-Length are ignored."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is None:
                continue
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    body = b""
    while len(body) < length:
        chunk = stream.read(length - len(body))
        if not chunk:
            return None
        body += chunk
    return body


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (psutil when installed, else a walk over /proc)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            return [p.pid for p in psutil.Process(pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            return []
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def pid_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] not in (b"Z", b"X")


def wait_gone(pids: Sequence[int], timeout: float = TIMEOUT) -> list[int]:
    """Wait until none of `pids` is alive (processes take a moment to be reaped); the survivors."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [p for p in pids if pid_alive(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)  # nothing to wait on for another process's death


def kill_tree(pids: Sequence[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def run_in_terminal(client: DAPClient, request: Message) -> tuple[bool, Any]:
    """Default `runInTerminal` answer: start the command the adapter asks for, as a terminal would."""
    args = request.get("arguments", {})
    env = dict(os.environ)
    for key, value in (args.get("env") or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    proc = subprocess.Popen(args["args"], cwd=args.get("cwd") or None, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    client.terminals.append(proc)
    return True, {"processId": proc.pid}


def start_debugging(client: DAPClient, request: Message) -> tuple[bool, Any]:
    """Default `startDebugging` answer: accept and record it (the tests look at `client.reverse`)."""
    return True, {}


class DAPClient:
    """A synchronous DAP client over a byte stream pair; see the module docstring."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO, proc: subprocess.Popen | None = None,
                 sock: socket.socket | None = None) -> None:
        self.proc = proc
        self.sock = sock
        self._reader = reader
        self._writer = writer
        self._seq = 0
        self._lock = threading.Condition()
        self._write_lock = threading.Lock()
        self.messages: list[Message] = []  # everything received, in order (responses, events, requests)
        self.sent: list[Message] = []
        self.responses: dict[int, Message] = {}
        self.reverse: list[Message] = []  # reverse requests received (runInTerminal, startDebugging, ...)
        self.terminals: list[subprocess.Popen] = []
        self.handlers: dict[str, ReverseHandler] = {"runInTerminal": run_in_terminal,
                                                    "startDebugging": start_debugging}
        self.closed = False  # the adapter's output stream ended
        self.bad_frames: list[bytes] = []
        self._stderr_chunks: list[bytes] = []  # the adapter's stderr, when spawn() collects it
        self._event_cursor: dict[str, int] = {}
        self._thread = threading.Thread(target=self._read_loop, name="dap-client-reader", daemon=True)
        self._thread.start()

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def spawn(cls, argv: Sequence[str], cwd: str | None = None, env: dict[str, str] | None = None,
              stderr: int | None = subprocess.PIPE) -> DAPClient:
        """Start an adapter process and talk DAP over its stdin/stdout; stderr is collected apart."""
        proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                cwd=cwd, env=env, start_new_session=True)
        client = cls(proc.stdout, proc.stdin, proc=proc)  # type: ignore[arg-type]
        if stderr == subprocess.PIPE:
            threading.Thread(target=client._drain_stderr, daemon=True).start()
        return client

    @classmethod
    def connect(cls, host: str, port: int, timeout: float = TIMEOUT,
                proc: subprocess.Popen | None = None) -> DAPClient:
        """Talk DAP over TCP (an adapter started with `--port`), retrying until it listens."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((host, port), timeout=timeout)
                break
            except OSError:
                if time.monotonic() > deadline or (proc is not None and proc.poll() is not None):
                    raise
                time.sleep(0.05)  # polling a port that is not open yet; no event exists to wait on
        sock.settimeout(None)
        return cls(sock.makefile("rb"), sock.makefile("wb"), proc=proc, sock=sock)

    def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self._stderr_chunks.append(chunk)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr_chunks).decode("utf-8", "replace")

    # -- the wire -----------------------------------------------------------------------------
    def _read_loop(self) -> None:
        try:
            while True:
                body = read_frame(self._reader)
                if body is None:
                    break
                try:
                    message = json.loads(body)
                except ValueError:
                    self.bad_frames.append(body)
                    continue
                self._dispatch(message)
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self.closed = True
                self._lock.notify_all()

    def _dispatch(self, message: Message) -> None:
        with self._lock:
            self.messages.append(message)
            if message.get("type") == "response":
                self.responses[message.get("request_seq", -1)] = message
            self._lock.notify_all()
        if message.get("type") == "request":
            self.reverse.append(message)
            handler = self.handlers.get(message.get("command", ""))
            success, body = handler(self, message) if handler else (False, "not supported by the test client")
            reply: Message = {"type": "response", "request_seq": message.get("seq"), "success": success,
                              "command": message.get("command")}
            if success:
                reply["body"] = body
            else:
                reply["message"] = str(body)
            self.send(reply)

    def send(self, message: Message) -> Message:
        """Send one message, giving it the next `seq`."""
        with self._write_lock:
            self._seq += 1
            message = {"seq": self._seq, **message}
            self.sent.append(message)
            self.write_raw(encode(message))
        return message

    def write_raw(self, data: bytes) -> None:
        """Write bytes as they are (the malformed-input tests use this)."""
        try:
            self._writer.write(data)
            self._writer.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise DAPError(f"adapter is gone: {exc}") from exc

    # -- requests and events ------------------------------------------------------------------
    def send_request(self, command: str, **arguments: Any) -> int:
        """Send a request without waiting (launch/attach answer only after configurationDone)."""
        message: Message = {"type": "request", "command": command}
        if arguments:
            message["arguments"] = arguments
        return self.send(message)["seq"]

    def wait_response(self, seq: int, timeout: float = TIMEOUT, check: bool = True) -> Message:
        """The response to request `seq`; raises DAPError on failure when `check`."""
        response = self._wait(lambda: self.responses.get(seq), timeout, f"response to request {seq}")
        if check and not response.get("success"):
            raise DAPError(f"{response.get('command')} failed: {response.get('message')} {response.get('body')}")
        return response

    def request(self, command: str, timeout: float = TIMEOUT, check: bool = True, **arguments: Any) -> Message:
        """Send a request and wait for its response (the whole response message; `body` inside)."""
        return self.wait_response(self.send_request(command, **arguments), timeout, check)

    def events(self, name: str | None = None) -> list[Message]:
        with self._lock:
            return [m for m in self.messages if m.get("type") == "event" and (name is None or m.get("event") == name)]

    def wait_event(self, name: str, timeout: float = TIMEOUT, predicate: Callable[[Message], bool] | None = None,
                   fresh: bool = True) -> Message:
        """Wait for an event called `name` (matching `predicate`).

        With `fresh` (the default) each call consumes: it returns the first matching event after the
        one the previous `wait_event(name)` returned, so a loop of `continue` + `wait_event("stopped")`
        sees each stop once. `fresh=False` searches the whole log."""
        def find() -> Message | None:
            start = self._event_cursor.get(name, 0) if fresh else 0
            for i in range(start, len(self.messages)):
                m = self.messages[i]
                if m.get("type") == "event" and m.get("event") == name and (predicate is None or predicate(m)):
                    if fresh:
                        self._event_cursor[name] = i + 1
                    return m
            return None
        return self._wait(find, timeout, f"event {name!r}")

    def output(self, *categories: str) -> str:
        """The text of `output` events (of `categories`, else all but telemetry), concatenated."""
        return "".join(e.get("body", {}).get("output", "") for e in self.events("output")
                       if (e.get("body", {}).get("category") in categories if categories
                           else e.get("body", {}).get("category") != "telemetry"))

    def _wait(self, find: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = find()
                if found is not None:
                    return found
                if self.closed:
                    raise DAPError(f"adapter closed its output while waiting for {what}; "
                                   f"last messages: {self.messages[-5:]}; stderr: {self.stderr[-2000:]}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DAPError(f"timed out after {timeout}s waiting for {what}; last messages: "
                                   f"{self.messages[-5:]}")
                self._lock.wait(left)

    def wait_until(self, condition: Callable[[], bool], timeout: float = TIMEOUT, what: str = "a condition") -> None:
        """Wait until `condition()` (called under the client's lock, on each message) is true."""
        self._wait(lambda: True if condition() else None, timeout, what)

    def wait_closed(self, timeout: float = TIMEOUT) -> None:
        """Wait until the adapter ends its output stream (after disconnect, or when it gives up)."""
        self._wait(lambda: True if self.closed else None, timeout, "the adapter to close its output")

    # -- convenience for common sequences -----------------------------------------------------
    def initialize(self, **extra: Any) -> Message:
        """`initialize` as VS Code sends it (with runInTerminal and startDebugging support)."""
        args = {"clientID": "spore-tests", "adapterID": "spore", "linesStartAt1": True, "columnsStartAt1": True,
                "pathFormat": "path", "supportsVariableType": True, "supportsRunInTerminalRequest": True,
                "supportsStartDebuggingRequest": True, "supportsProgressReporting": False, **extra}
        return self.request("initialize", **args)

    def start(self, command: str, breakpoints: dict[str, Sequence[dict]] | None = None,
              exception_filters: Sequence[str] | None = None, timeout: float = TIMEOUT, **arguments: Any) -> Message:
        """initialize (if not done) + launch/attach + breakpoints + configurationDone; returns the
        launch/attach response (raises DAPError if it failed)."""
        if not any(m.get("command") == "initialize" for m in self.sent):
            self.initialize()
        seq = self.send_request(command, **arguments)
        self._wait(lambda: self.responses.get(seq) if seq in self.responses and not self.responses[seq].get("success")
                   else (True if self.events("initialized") else None), timeout, "initialized")
        if seq in self.responses and not self.responses[seq].get("success"):
            return self.wait_response(seq, timeout)
        for path, bps in (breakpoints or {}).items():
            self.request("setBreakpoints", source={"path": path}, breakpoints=list(bps))
        if exception_filters is not None:
            self.request("setExceptionBreakpoints", filters=list(exception_filters))
        self.request("configurationDone")
        return self.wait_response(seq, timeout)

    def top_frame(self, thread_id: int) -> Message:
        return self.request("stackTrace", threadId=thread_id, startFrame=0, levels=20)["body"]["stackFrames"][0]

    def frames(self, thread_id: int) -> list[Message]:
        return self.request("stackTrace", threadId=thread_id)["body"]["stackFrames"]

    def locals(self, frame_id: int) -> dict[str, Message]:
        """The first scope's (Locals') variables by name."""
        scopes = self.request("scopes", frameId=frame_id)["body"]["scopes"]
        ref = scopes[0]["variablesReference"]
        return {v["name"]: v for v in self.request("variables", variablesReference=ref)["body"]["variables"]}

    # -- teardown -----------------------------------------------------------------------------
    def debuggee_pid(self, timeout: float = TIMEOUT) -> int:
        """The debuggee's pid, from the `process` event debugpy sends once it runs."""
        event = self.wait_event("process", timeout, fresh=False)
        return int(event["body"]["systemProcessId"])

    def end_input(self) -> None:
        """Close our writing side only (what an editor that crashed does); the adapter should end."""
        try:
            self._writer.close()
        except OSError:
            pass
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        """Wait for the adapter process to exit on its own; DAPError if it does not in time."""
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise DAPError(f"adapter still running {timeout}s later; stderr: {self.stderr[-2000:]}") from None

    def adapter_tree(self) -> list[int]:
        """The adapter's pid and every process under it (debugpy's adapter, the debuggee...)."""
        if self.proc is None:
            return []
        return [self.proc.pid, *descendants(self.proc.pid)]

    def close(self, grace: float = 5.0) -> None:
        """Close our side, give the adapter `grace` seconds to exit, then kill it and its children."""
        tree = self.adapter_tree() + [p for t in self.terminals for p in [t.pid, *descendants(t.pid)]]
        for stream in (self._writer,):
            try:
                stream.close()
            except OSError:
                pass
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
        if self.proc is not None:
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        kill_tree(tree)
        for proc in [*( [self.proc] if self.proc else []), *self.terminals]:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            for stream in (proc.stdout, proc.stderr, proc.stdin):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        self._thread.join(5)

    def __enter__(self) -> DAPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def adapter_argv(which: str) -> list[str]:
    """The command for `spore` (our adapter) or `debugpy` (debugpy's own adapter)."""
    if which == "spore":
        return [sys.executable, "-m", "spore_debug"]
    if which == "debugpy":
        return [sys.executable, "-m", "debugpy.adapter"]
    raise ValueError(which)
