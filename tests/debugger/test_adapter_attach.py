"""`spore-debug` attach: to a program started with `python -m spore_debug.run --listen ...
--wait-for-client` (Spore's hooks installed), and to any listening debugpy (`python -m debugpy
--listen ...`). The attached process is not the adapter's: after disconnect it runs on to its end."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv

PROGRAM = textwrap.dedent("""\
    def work(k):
        doubled = k * 2
        return doubled


    values = [work(k) for k in range(3)]
    print("values", values)
    """)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """Until something listens on 127.0.0.1:`port` (a probe connection would be taken for the client)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else proc.returncode
        if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in psutil.net_connections("tcp")):
            return
        time.sleep(0.05)  # polling another process's socket state: there is no event to wait on
    raise AssertionError(f"nothing listens on port {port} after {timeout}s")


@pytest.fixture
def dap():
    client = DAPClient.spawn(adapter_argv("spore"))
    yield client
    client.close()


@pytest.mark.parametrize("runner", ["spore_debug.run", "debugpy"])
@pytest.mark.parametrize("style", ["connect", "host-port"])
def test_attach_to_a_listening_process(dap: DAPClient, tmp_path: Path, runner: str, style: str) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", runner, "--listen", f"127.0.0.1:{port}", "--wait-for-client",
                             str(prog)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    try:
        wait_listening(port, proc)
        where: dict[str, Any] = {"connect": {"host": "127.0.0.1", "port": port}} if style == "connect" else \
            {"host": "127.0.0.1", "port": port}
        dap.start("attach", **where, breakpoints={str(prog): [{"line": 2, "condition": "k == 1"}]})
        thread = dap.wait_event("stopped")["body"]["threadId"]
        frames = dap.frames(thread)
        assert [(f["name"], f["line"]) for f in frames[:1]] == [("work", 2)]
        assert not any("spore_debug" in f.get("source", {}).get("path", "") for f in frames)
        assert dap.locals(frames[0]["id"])["k"]["value"] == "1"
        dap.request("continue", threadId=thread)
        dap.request("disconnect")
        assert dap.wait_exit() == 0
        out, err = proc.communicate(timeout=30)  # the attached program runs on to its own end
        assert proc.returncode == 0, err.decode()
        assert b"values [0, 2, 4]" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_attach_to_nothing_listening_fails_clearly(dap: DAPClient) -> None:
    port = free_port()
    dap.initialize()
    seq = dap.send_request("attach", connect={"host": "127.0.0.1", "port": port})
    response = dap.wait_response(seq, check=False)
    assert response["success"] is False and response["message"]
    dap.request("disconnect")
    assert dap.wait_exit() == 0
