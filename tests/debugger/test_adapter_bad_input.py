"""Bad input to `spore-debug`: a clear error response or event, never a hang, and no debuggee or
debugpy process left behind (checked against the adapter's process tree taken mid-session)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv, descendants, encode, wait_gone


@pytest.fixture
def dap():
    client = DAPClient.spawn(adapter_argv("spore"))
    yield client
    client.close()


def ends_cleanly(dap: DAPClient, pids: list[int]) -> None:
    """disconnect -> the adapter exits by itself and every process it had is gone."""
    dap.request("disconnect", terminateDebuggee=True)
    assert dap.wait_exit() == 0
    assert wait_gone(pids) == []


def test_missing_program_is_a_clear_launch_error(dap: DAPClient, tmp_path: Path) -> None:
    missing = tmp_path / "nope.py"
    dap.initialize()
    response = dap.request("launch", check=False, program=str(missing))
    assert response["success"] is False
    assert response["message"] == f"Program not found: {missing}"
    assert response["body"]["error"]["showUser"] is True
    dap.wait_event("terminated")
    assert f"Program not found: {missing}" in dap.output("stderr")
    ends_cleanly(dap, dap.adapter_tree())


def test_syntax_error_names_file_and_line(dap: DAPClient, tmp_path: Path) -> None:
    prog = tmp_path / "broken.py"
    prog.write_text("x = 1\ndef f(:\n    pass\n")
    dap.initialize()
    response = dap.request("launch", check=False, program=str(prog))
    assert response["success"] is False
    assert response["message"].startswith(f"SyntaxError in {prog}, line 2")
    assert "def f(:" in response["message"]
    dap.wait_event("terminated")
    ends_cleanly(dap, dap.adapter_tree())


def test_missing_module_reports_and_terminates(dap: DAPClient, tmp_path: Path) -> None:
    dap.start("launch", module="no_such_module_here", cwd=str(tmp_path))
    assert dap.wait_event("exited")["body"]["exitCode"] == 1
    dap.wait_event("terminated")
    assert "No module named no_such_module_here" in dap.output()
    ends_cleanly(dap, dap.adapter_tree())


@pytest.mark.parametrize("how, code", [("import os\nos._exit(7)\n", 7),
                                        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", None)])
def test_debuggee_that_dies_ends_the_session(dap: DAPClient, tmp_path: Path, how: str, code: int | None) -> None:
    prog = tmp_path / "dies.py"
    prog.write_text("x = 1\n" + how + "print('never')\n")
    dap.start("launch", program=str(prog), breakpoints={str(prog): [{"line": 2}]})
    thread = dap.wait_event("stopped")["body"]["threadId"]
    pids = dap.adapter_tree()
    debuggee = dap.debuggee_pid()
    assert debuggee in pids
    dap.request("continue", threadId=thread)
    exited = dap.wait_event("exited")["body"]["exitCode"]
    if code is None:  # debugpy's launcher reports a signal death as the status byte of -SIGKILL (247)
        assert exited % 256 == -signal.SIGKILL % 256
    else:
        assert exited == code
    dap.wait_event("terminated")
    assert "never" not in dap.output()
    ends_cleanly(dap, pids)


@pytest.mark.parametrize("state, console", [("stopped", "internalConsole"), ("running", "internalConsole"),
                                            ("running", "integratedTerminal")])
def test_client_that_vanishes_mid_session_leaves_nothing_running(dap: DAPClient, tmp_path: Path, state: str,
                                                                 console: str) -> None:
    prog = tmp_path / "loop.py"
    prog.write_text("import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.01)\n")
    dap.start("launch", program=str(prog), console=console, breakpoints={str(prog): [{"line": 4}]})
    thread = dap.wait_event("stopped")["body"]["threadId"]
    debuggee = dap.debuggee_pid()
    # spore-debug, debugpy's adapter, ..., the debuggee; in a terminal, the debuggee is the terminal's
    pids = dap.adapter_tree() + [p for t in dap.terminals for p in [t.pid, *descendants(t.pid)]]
    assert debuggee in pids and len(pids) >= 3
    if state == "running":
        dap.request("setBreakpoints", source={"path": str(prog)}, breakpoints=[])
        dap.request("continue", threadId=thread)
    dap.end_input()  # the editor crashed: stdin closes, no disconnect
    assert dap.wait_exit() == 0
    assert wait_gone(pids) == []


def test_malformed_messages_get_errors_and_the_session_goes_on(dap: DAPClient, tmp_path: Path) -> None:
    dap.initialize()
    dap.write_raw(b"Content-Length: banana\r\n\r\n{}")
    dap.wait_event("output", predicate=lambda e: "bad Content-Length" in e["body"]["output"])
    dap.write_raw(b"Content-Length: 9\r\n\r\nnot json!")
    dap.wait_event("output", predicate=lambda e: "not JSON" in e["body"]["output"])
    dap.write_raw(b"Content-Length: 2\r\n\r\n[]")
    dap.wait_event("output", predicate=lambda e: "not a JSON object" in e["body"]["output"])
    dap.write_raw(encode({"type": "request", "command": "threads"}))  # no seq
    no_seq = dap.wait_event("output", predicate=lambda e: "without a seq" in e["body"]["output"])
    assert no_seq["body"]["category"] == "stderr"
    refused = [m for m in dap.messages if m.get("type") == "response" and m.get("request_seq") == 0]
    assert refused and refused[0]["success"] is False and "seq" in refused[0]["message"]
    dap.write_raw(encode({"seq": 99, "type": "request"}))  # no command
    dap.wait_response(99, check=False)
    assert dap.responses[99]["success"] is False and "command" in dap.responses[99]["message"]
    # ... and the same adapter still debugs a program
    prog = tmp_path / "ok.py"
    prog.write_text("a = 1\nb = a + 1\nprint('b', b)\n")
    unknown = dap.request("frobnicate", check=False)
    assert unknown["success"] is False and unknown["command"] == "frobnicate"
    dap.start("launch", program=str(prog), breakpoints={str(prog): [{"line": 2}]})
    thread = dap.wait_event("stopped")["body"]["threadId"]
    assert dap.locals(dap.top_frame(thread)["id"])["a"]["value"] == "1"
    unknown = dap.request("frobnicate", check=False)  # with a debuggee, pydevd answers it
    assert unknown["success"] is False
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    ends_cleanly(dap, dap.adapter_tree())


def test_bad_attach_port_is_refused(dap: DAPClient) -> None:
    dap.initialize()
    response = dap.request("attach", check=False, connect={"host": "127.0.0.1", "port": "eighty"})
    assert response["success"] is False and "port" in response["message"]
    dap.wait_event("terminated")
    ends_cleanly(dap, dap.adapter_tree())
