"""`spore-debug --port N`: DAP over TCP, bound to 127.0.0.1 only (a debug adapter runs whatever
program a connection asks it to), one debugpy adapter per connection."""

from __future__ import annotations

import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.debugger.dap_client import DAPClient, wait_gone


def listening_port(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """The port from the adapter's 'listening on 127.0.0.1:PORT' line on stderr."""
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    deadline, text = time.monotonic() + timeout, b""
    while time.monotonic() < deadline:
        if sel.select(deadline - time.monotonic()):
            chunk = proc.stderr.read1(4096)  # type: ignore[attr-defined]
            if not chunk:
                break
            text += chunk
            found = re.search(rb"listening on 127\.0\.0\.1:(\d+)", text)
            if found:
                return int(found.group(1))
    raise AssertionError(f"no 'listening on' line: {text!r}")


@pytest.fixture
def server():
    proc = subprocess.Popen([sys.executable, "-m", "spore_debug", "--port", "0"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    yield proc
    tree = [proc.pid, *psutil.Process(proc.pid).children(recursive=True)] if proc.poll() is None else []
    proc.kill()
    proc.communicate(timeout=30)
    for child in tree[1:]:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


def test_port_binds_loopback_only_and_serves_sessions(server: subprocess.Popen, tmp_path: Path) -> None:
    port = listening_port(server)
    sockets = [c for c in psutil.Process(server.pid).net_connections("inet") if c.status == psutil.CONN_LISTEN]
    assert [(c.laddr.ip, c.laddr.port) for c in sockets] == [("127.0.0.1", port)]
    prog = tmp_path / "prog.py"
    prog.write_text("a = 20\nb = a + 22\nprint('b is', b)\n")
    for _ in range(2):  # the server outlives a session
        with DAPClient.connect("127.0.0.1", port) as dap:
            caps = dap.initialize()["body"]
            assert "spore-compile" in {f["filter"] for f in caps["exceptionBreakpointFilters"]}
            dap.start("launch", program=str(prog), breakpoints={str(prog): [{"line": 3}]})
            pid = dap.debuggee_pid()
            thread = dap.wait_event("stopped")["body"]["threadId"]
            assert dap.locals(dap.top_frame(thread)["id"])["b"]["value"] == "42"
            dap.request("continue", threadId=thread)
            dap.wait_event("terminated")
            assert "b is 42" in dap.output()
            dap.request("disconnect")
            dap.wait_closed()
        assert wait_gone([pid]) == []
    assert server.poll() is None


def test_port_out_of_range_is_a_usage_error() -> None:
    done = subprocess.run([sys.executable, "-m", "spore_debug", "--port", "70000"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "out of range" in done.stderr
