"""`spore-debug`'s launch options reach the program as under plain Python: `module` launches,
args/cwd/env, the integrated terminal through the client's `runInTerminal`, and justMyCode hiding
Spore's own frames (the engine is an editable install, which pydevd would take for user code)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv, wait_gone

REPORT = textwrap.dedent("""\
    import json, os, sys
    print("REPORT " + json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "env": os.environ.get("SPORE_T"),
                                  "name": __name__}))
    """)

NET = textwrap.dedent("""\
    import numpy as np
    import spore as ms
    from spore import nn


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)

        def construct(self, x):
            y = self.dense(x)
            return y


    net = Net()
    out = net(ms.Tensor(np.ones((1, 3), np.float32)))
    print("shape", out.shape)
    """)
NET_BODY = 12


@pytest.fixture
def dap():
    client = DAPClient.spawn(adapter_argv("spore"))
    yield client
    client.close()


def reported(dap: DAPClient) -> dict:
    dap.wait_event("terminated")
    line = next(x for x in dap.output().splitlines() if x.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


def test_program_args_cwd_env_reach_the_program(dap: DAPClient, tmp_path: Path) -> None:
    prog = tmp_path / "report.py"
    prog.write_text(REPORT)
    work = tmp_path / "work"
    work.mkdir()
    dap.start("launch", program=str(prog), args=["--flag", "two words"], cwd=str(work), env={"SPORE_T": "v1"})
    got = reported(dap)
    assert got == {"argv": [str(prog), "--flag", "two words"], "cwd": str(work), "env": "v1", "name": "__main__"}


def test_program_without_cwd_runs_in_its_directory(dap: DAPClient, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "report.py").write_text(REPORT)
    dap.start("launch", program=str(sub / "report.py"))
    assert reported(dap)["cwd"] == str(sub)


def test_module_launch(dap: DAPClient, tmp_path: Path) -> None:
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(REPORT + "x = 41\ny = x + 1\n")
    dap.start("launch", module="mypkg", args=["a", "b"], cwd=str(tmp_path), env={"SPORE_T": "m"},
              breakpoints={str(pkg / "__main__.py"): [{"line": 5}]})
    thread = dap.wait_event("stopped")["body"]["threadId"]
    frame = dap.top_frame(thread)
    assert (frame["line"], Path(frame["source"]["path"])) == (5, pkg / "__main__.py")
    assert dap.locals(frame["id"])["x"]["value"] == "41"
    process = dap.wait_event("process", fresh=False)["body"]
    assert process["name"] == "mypkg"  # the user's module, not the launcher
    dap.request("continue", threadId=thread)
    got = reported(dap)
    assert got["argv"][1:] == ["a", "b"] and got["argv"][0].endswith(os.path.join("mypkg", "__main__.py"))
    assert (got["cwd"], got["env"], got["name"]) == (str(tmp_path), "m", "__main__")


@pytest.mark.parametrize("console, kind", [("integratedTerminal", "integrated"), ("externalTerminal", "external")])
def test_terminal_consoles_go_through_run_in_terminal(dap: DAPClient, tmp_path: Path, console: str, kind: str) -> None:
    prog = tmp_path / "report.py"
    prog.write_text(REPORT + "z = 7\nprint('z', z)\n")
    dap.start("launch", program=str(prog), console=console, args=["t"], env={"SPORE_T": "term"},
              breakpoints={str(prog): [{"line": 5}]})
    asked = [r for r in dap.reverse if r["command"] == "runInTerminal"]
    assert len(asked) == 1 and asked[0]["arguments"]["kind"] == kind
    assert "spore_debug.run" in asked[0]["arguments"]["args"]
    thread = dap.wait_event("stopped")["body"]["threadId"]
    assert dap.locals(dap.top_frame(thread)["id"])["z"]["value"] == "7"
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated")
    terminal = dap.terminals[0]
    terminal.wait(30)
    assert terminal.stdout is not None
    text = terminal.stdout.read().decode()  # the program wrote to the terminal, not to output events
    line = next(x for x in text.splitlines() if x.startswith("REPORT "))
    got = json.loads(line[len("REPORT "):])
    assert got["argv"] == [str(prog), "t"] and got["env"] == "term"
    assert "REPORT" not in dap.output()


@pytest.mark.parametrize("just_my_code", [True, False])
def test_just_my_code_hides_spores_own_frames(dap: DAPClient, tmp_path: Path, just_my_code: bool) -> None:
    prog = tmp_path / "net.py"
    prog.write_text(NET)
    dap.start("launch", program=str(prog), justMyCode=just_my_code, breakpoints={str(prog): [{"line": NET_BODY}]})
    pid = dap.debuggee_pid()
    thread = dap.wait_event("stopped", timeout=60)["body"]["threadId"]
    frames = dap.frames(thread)
    assert (frames[0]["name"], frames[0]["line"]) == ("construct", NET_BODY)
    engine = [f for f in frames if "/engine/spore/" in f.get("source", {}).get("path", "")]
    launcher = [f for f in frames if "spore_debug" in f.get("source", {}).get("path", "")]
    assert launcher == []  # the debugger's own launcher is never shown
    if just_my_code:
        assert [f["name"] for f in frames] == ["construct", "<module>"]
        assert engine == []
    else:  # the same stop shows the engine's Cell.__call__ between the user's frames
        assert engine and frames[-1]["name"] != "construct"
    dap.request("continue", threadId=thread)
    dap.wait_event("terminated", timeout=60)
    assert "shape (1, 2)" in dap.output()
    dap.request("disconnect")
    assert dap.wait_exit() == 0
    assert wait_gone([pid]) == []
