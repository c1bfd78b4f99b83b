"""`spore-debug` over real stdio: a plain Python program debugged with the standard requests.

Each test starts the real adapter (`python -m spore_debug`), which starts debugpy's adapter, which
starts the debuggee through `spore_debug.run`; the client is tests/debugger/dap_client.py."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv, wait_gone

PROGRAM = textwrap.dedent("""\
    import sys


    def square(n):
        result = n * n
        return result


    def main():
        total = 0
        for i in range(5):
            total += square(i)
        label = "total"
        print(f"{label}={total}")
        return total


    main()
    """)
LOOP, SQUARE_BODY, SQUARE_RETURN, PRINT = 12, 5, 6, 14


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


@pytest.fixture
def dap():
    client = DAPClient.spawn(adapter_argv("spore"))
    yield client
    client.close()


def stopped(dap: DAPClient, reason: str | None = None) -> tuple[int, dict]:
    event = dap.wait_event("stopped")
    if reason is not None:
        assert event["body"]["reason"] == reason, event
    thread = event["body"]["threadId"]
    return thread, dap.top_frame(thread)


def values(dap: DAPClient, frame: dict) -> dict[str, tuple[str, str | None]]:
    return {name: (v["value"], v.get("type")) for name, v in dap.locals(frame["id"]).items()
            if not name.startswith("(") and name != "special variables"}


def test_initialize_offers_spore_compile_filter_on_by_default(dap: DAPClient) -> None:
    caps = dap.initialize()["body"]
    filters = {f["filter"]: f for f in caps["exceptionBreakpointFilters"]}
    assert filters["spore-compile"]["label"] == "Spore: graph compile errors"
    assert filters["spore-compile"]["default"] is True
    assert {"raised", "uncaught", "userUnhandled"} <= set(filters)  # debugpy's own stay
    assert caps["supportsConditionalBreakpoints"] and caps["supportsLogPoints"]
    assert caps["supportsExceptionInfoRequest"]


def test_breakpoint_condition_step_evaluate_continue(dap: DAPClient, program: Path) -> None:
    dap.start("launch", program=str(program), console="internalConsole",
              breakpoints={str(program): [{"line": LOOP, "condition": "i == 3"}]},
              exception_filters=["uncaught", "spore-compile"])
    pid = dap.debuggee_pid()
    thread, frame = stopped(dap, "breakpoint")
    assert (frame["name"], frame["line"], Path(frame["source"]["path"])) == ("main", LOOP, program)
    local = values(dap, frame)
    assert local["i"] == ("3", "int") and local["total"] == ("5", "int")  # 0+1+4 before i == 3
    threads = dap.request("threads")["body"]["threads"]
    assert any(t["id"] == thread for t in threads)
    answer = dap.request("evaluate", expression="square(i) + total", frameId=frame["id"], context="watch")["body"]
    assert answer["result"] == "14"

    dap.request("stepIn", threadId=thread)
    thread, frame = stopped(dap, "step")
    assert (frame["name"], frame["line"]) == ("square", SQUARE_BODY)
    names = [f["name"] for f in dap.frames(thread)]
    assert names[:3] == ["square", "main", "<module>"]
    dap.request("next", threadId=thread)
    thread, frame = stopped(dap, "step")
    assert frame["line"] == SQUARE_RETURN and values(dap, frame)["result"] == ("9", "int")

    dap.request("continue", threadId=thread)
    exited = dap.wait_event("exited")
    assert exited["body"]["exitCode"] == 0
    dap.wait_event("terminated")
    assert "total=30" in dap.output()
    dap.request("disconnect")
    dap.wait_closed()
    assert dap.wait_exit() == 0
    assert wait_gone([pid]) == []


def test_hit_count_and_logpoint(dap: DAPClient, program: Path) -> None:
    dap.start("launch", program=str(program),
              breakpoints={str(program): [{"line": SQUARE_BODY, "hitCondition": "3"},
                                          {"line": PRINT, "logMessage": "logged {label} is {total}"}]})
    thread, frame = stopped(dap, "breakpoint")
    assert frame["line"] == SQUARE_BODY and values(dap, frame)["n"] == ("2", "int")  # the third call
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    assert "logged total is 30" in dap.output()
    assert len(dap.events("stopped")) == 1  # the logpoint did not stop


def test_breakpoints_set_while_running_and_removed(dap: DAPClient, program: Path) -> None:
    dap.start("launch", program=str(program), breakpoints={str(program): [{"line": SQUARE_BODY}]})
    thread, frame = stopped(dap, "breakpoint")
    assert values(dap, frame)["n"] == ("0", "int")
    answer = dap.request("setBreakpoints", source={"path": str(program)}, breakpoints=[{"line": PRINT}])
    assert [b["verified"] for b in answer["body"]["breakpoints"]] == [True]
    dap.request("continue", threadId=thread)
    thread, frame = stopped(dap, "breakpoint")
    assert frame["line"] == PRINT and values(dap, frame)["total"] == ("30", "int")
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")


def test_raised_exception_stops_with_exception_info(dap: DAPClient, tmp_path: Path) -> None:
    prog = tmp_path / "raises.py"
    prog.write_text("def parse(text):\n    return int(text)\n\n\ntry:\n    parse('x')\nexcept ValueError:\n"
                    "    pass\nprint('after')\n")
    dap.start("launch", program=str(prog), exception_filters=["raised", "spore-compile"])
    thread, frame = stopped(dap, "exception")
    assert (frame["name"], frame["line"]) == ("parse", 2)
    info = dap.request("exceptionInfo", threadId=thread)["body"]
    assert info["exceptionId"].startswith("ValueError") and "invalid literal" in info["description"]
    assert info["breakMode"] == "always"
    dap.request("setExceptionBreakpoints", filters=[])  # else it stops again in the next user frame
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    assert "after" in dap.output()


def test_stop_on_entry_stops_at_the_programs_first_line(dap: DAPClient, program: Path) -> None:
    dap.start("launch", program=str(program), stopOnEntry=True)
    thread, frame = stopped(dap, "entry")
    assert (frame["name"], frame["line"], Path(frame["source"]["path"])) == ("<module>", 1, program)
    assert len(dap.frames(thread)) == 1  # the launcher's frames are not shown
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    assert "total=30" in dap.output()


def test_uncaught_exception_exit_code_is_pythons(dap: DAPClient, tmp_path: Path) -> None:
    prog = tmp_path / "boom.py"
    prog.write_text("raise SystemExit(3)\n")
    dap.start("launch", program=str(prog))
    assert dap.wait_event("exited")["body"]["exitCode"] == 3
    dap.wait_event("terminated")


def test_disconnect_without_terminating_leaves_the_debuggee_running(dap: DAPClient, tmp_path: Path) -> None:
    """As under debugpy: the debuggee runs on, freed from the debugger, and the session (the
    disconnect's answer) ends when it does."""
    prog = tmp_path / "waits.py"
    marker = tmp_path / "go"
    prog.write_text(f"import os, time\nn = 0\nwhile not os.path.exists({str(marker)!r}):\n    time.sleep(0.01)\n"
                    f"print('released')\n")
    dap.start("launch", program=str(prog), breakpoints={str(prog): [{"line": 2}]})
    dap.wait_event("stopped")
    pid = dap.debuggee_pid()
    seq = dap.send_request("disconnect", terminateDebuggee=False)
    try:
        assert wait_gone([pid], timeout=2.0) == [pid]  # not killed: it runs on, unstopped
    finally:
        marker.write_text("")
    dap.wait_response(seq)
    assert dap.wait_exit() == 0
    assert wait_gone([pid]) == []  # it ended by itself once released


def test_stop_on_entry_without_just_my_code_still_stops_on_the_program(dap: DAPClient, tmp_path: Path) -> None:
    """Everything is "my code" then, and the engine is loaded before the program (pydevd resolves the
    spore-compile filter's class): the entry stop must still be the program's first line, and the
    engine traced again after it (stepIn reaches engine code)."""
    prog = tmp_path / "entry.py"
    prog.write_text("import spore.errors as E\nerr = E.SporeError('x')\nprint('made', type(err).__name__)\n")
    dap.start("launch", program=str(prog), stopOnEntry=True, justMyCode=False,
              exception_filters=["uncaught", "spore-compile"])
    thread, frame = stopped(dap, "entry")
    assert (frame["name"], frame["line"], Path(frame["source"]["path"])) == ("<module>", 1, prog)
    dap.request("next", threadId=thread)
    thread, frame = stopped(dap, "step")
    assert frame["line"] == 2
    dap.request("stepIn", threadId=thread)
    thread, frame = stopped(dap, "step")
    assert frame["name"] in ("SporeError.__init__", "__init__"), frame
    assert frame["source"]["path"].endswith("spore/errors.py")
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    assert "made SporeError" in dap.output()


def test_console_script_with_log_dir(tmp_path: Path, program: Path) -> None:
    """The installed `spore-debug` script (what editors launch); `--log-dir` gets spore-debug's log
    and debugpy's own logs."""
    script = Path(sys.executable).with_name("spore-debug")
    assert script.exists()
    logs = tmp_path / "logs"
    with DAPClient.spawn([str(script), "--log-dir", str(logs)]) as dap:
        dap.start("launch", program=str(program))
        dap.wait_event("terminated")
        assert "total=30" in dap.output()
        dap.request("disconnect")
        assert dap.wait_exit() == 0
    names = sorted(p.name for p in logs.iterdir())
    assert any(n.startswith("spore-debug-") for n in names), names
    assert any(n.startswith("debugpy.adapter") for n in names), names
