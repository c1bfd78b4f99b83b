"""Child processes under `spore-debug`: debugpy asks the client to `startDebugging` an attach
session for each Python subprocess (a reverse request, passed through); the editor starts another
`spore-debug` with that configuration, which attaches to the parent session's debugpy adapter,
and a breakpoint in the child's code hits."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.debugger.dap_client import DAPClient, adapter_argv, wait_gone


def test_breakpoint_in_a_subprocess_through_start_debugging(tmp_path: Path) -> None:
    child = tmp_path / "child.py"
    child.write_text("x = 5\ny = x + 1\nprint('child says', y)\n")
    parent = tmp_path / "parent.py"
    parent.write_text(textwrap.dedent(f"""\
        import subprocess, sys
        subprocess.run([sys.executable, {str(child)!r}], check=True)
        print("parent done")
        """))
    with DAPClient.spawn(adapter_argv("spore")) as dap:
        dap.start("launch", program=str(parent), subProcess=True)
        dap.wait_until(lambda: any(r["command"] == "startDebugging" for r in dap.reverse), what="startDebugging")
        asked = next(r for r in dap.reverse if r["command"] == "startDebugging")["arguments"]
        assert asked["request"] == "attach" and asked["configuration"]["subProcessId"] > 0
        with DAPClient.spawn(adapter_argv("spore")) as sub:
            sub.start(asked["request"], breakpoints={str(child): [{"line": 2}]}, **asked["configuration"])
            thread = sub.wait_event("stopped")["body"]["threadId"]
            frame = sub.top_frame(thread)
            assert (frame["line"], Path(frame["source"]["path"])) == (2, child)
            assert sub.locals(frame["id"])["x"]["value"] == "5"
            pid = sub.debuggee_pid()
            assert pid != dap.debuggee_pid()
            sub.request("continue", threadId=thread)
            sub.wait_event("terminated")
            sub.request("disconnect")
            assert sub.wait_exit() == 0
        dap.wait_event("terminated")
        assert dap.wait_event("exited", fresh=False)["body"]["exitCode"] == 0
        assert "child says 6" in dap.output() and "parent done" in dap.output()
        assert wait_gone([pid]) == []
