"""Debugging Graph-mode code end to end: `spore-debug` over real stdio, debugpy's adapter behind it,
the program run by `spore_debug.run` with Spore's hooks.

- a breakpoint on a line of a GRAPH_MODE `construct` hits on that line, its tensor locals hold
  PyNative's values, `next` walks the construct's lines, `stepIn` enters a user sub-cell's
  construct, and once the breakpoint is cleared the program finishes with the same output as
  without the debugger; `stepIn` on the line calling a compiled Cell lands on its construct;
- a compile error (a `try:` under STRICT, a `with` in a `fullgraph=True` jit function) stops with
  reason `exception` on the user's line with the construct's arguments as locals;
- `breakOnNaN` stops at the op's line ("NaN produced by Log") in PyNative and in Graph mode.
(Attaching to `python -m spore_debug.run --listen` is tested with the adapter: test_adapter_attach.py.)
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spore as ms
from tests.debugger.dap_client import DAPClient, Message, adapter_argv

TIMEOUT = 90.0

NETDEF = textwrap.dedent("""
    import numpy as np
    import spore as ms
    from spore import nn, ops


    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(8, 8)

        def construct(self, x):
            y = self.fc(x)  # BLOCK1
            return ops.relu(y) + x


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            self.block = Block()
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            h = self.fc1(x)  # L1
            h = ops.relu(h)  # L2
            h = self.block(h)  # L3
            out = self.fc2(h)  # L4
            return out


    def make():
        ms.set_seed(0)
        net = Net()
        x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
        return net, x
""")

MAIN = textwrap.dedent("""
    import sys

    import numpy as np
    import spore as ms
    from graphnet_defs import make

    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = make()
    for step in range(3):
        out = net(x)  # CALL
    print("result", np.round(out.asnumpy().astype(np.float64), 6).tolist())
    print("checksum", float(out.asnumpy().astype(np.float64).sum()))
""")

COMPILE_ERRORS = textwrap.dedent("""
    import sys

    import numpy as np
    import spore as ms
    from spore import nn, ops


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)

        def construct(self, x, scale=2.0):
            h = self.fc(x)
            try:  # ERR-CELL
                h = h * scale
            except ValueError:
                pass
            return h


    @ms.jit(fullgraph=True)
    def scaled(x, n):
        with open(__file__):  # ERR-JIT
            pass
        return x * n


    x = ms.Tensor(np.ones((3, 4), np.float32))
    if sys.argv[1] == "cell":
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
        print(Net()(x))
    else:
        print(scaled(x, 3))
""")

NAN = textwrap.dedent("""
    import sys

    import numpy as np
    import spore as ms
    from spore import nn, ops

    if sys.argv[1] == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        def construct(self, x):
            h = self.fc(x)
            h = ops.log(h)  # NAN
            return h * 2.0


    ms.set_seed(0)
    net = Net()
    with np.errstate(invalid="ignore"):
        print(net(ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) - 6)))
""")


def line_of(text: str, marker: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if ln.rstrip().endswith(f"# {marker}"))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "graphnet_defs.py").write_text(NETDEF)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "errors_prog.py").write_text(COMPILE_ERRORS)
    (tmp_path / "nan_prog.py").write_text(NAN)
    return tmp_path


def pynative_reference(project):
    """The same network run eagerly in this process: (x, h after fc1, h after relu, h after block, out)."""
    spec = importlib.util.spec_from_file_location("graphnet_defs_ref", project / "graphnet_defs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net, x = mod.make()
    h1 = net.fc1(x)
    h2 = ms.ops.relu(h1)
    h3 = net.block(h2)
    return x.asnumpy(), h1.asnumpy(), h2.asnumpy(), h3.asnumpy(), net(x).asnumpy()


def stdout_of(dap: DAPClient) -> str:
    return "".join(e["body"].get("output", "") for e in dap.events("output") if e["body"].get("category") == "stdout")


def evaluate_list(dap: DAPClient, frame_id: int, expr: str) -> np.ndarray:
    body = dap.request("evaluate", expression=f"{expr}.asnumpy().astype('float64').tolist()", frameId=frame_id,
                       context="repl")["body"]
    return np.array(ast.literal_eval(body["result"]))


def stop_or_end(dap: DAPClient, seen: int, timeout: float = TIMEOUT) -> Message | None:
    """The first `stopped` event after the `seen` ones, or None once the session terminated first."""

    def find():
        stops = dap.events("stopped")
        if len(stops) > seen:
            return stops[seen]
        return "end" if dap.events("terminated") else None

    got = dap._wait(find, timeout, "a stop or the end of the session")
    if got == "end":
        return None
    dap.wait_event("stopped")  # advance the client's cursor past this stop
    return got


def launch(dap: DAPClient, project, program: str, args: list[str], breakpoints=None, filters=None, **extra):
    response = dap.start("launch", breakpoints=breakpoints, exception_filters=filters, timeout=TIMEOUT,
                         program=str(project / program), args=args, cwd=str(project), console="internalConsole",
                         **extra)
    assert response["success"], response


def finish(dap: DAPClient, thread_id: int) -> None:
    """Continue past every remaining stop (an exception surfaces once per user frame) to the end."""
    for _ in range(5):
        seen = len(dap.events("stopped"))
        dap.request("continue", threadId=thread_id)
        if stop_or_end(dap, seen) is None:
            break
    dap.wait_event("terminated", TIMEOUT)


def plain_run(project, program: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, program, *args], cwd=str(project), capture_output=True, text=True,
                          timeout=TIMEOUT)


def test_a_breakpoint_in_a_graph_mode_construct_hits_with_pynative_values(project):
    defs = str(project / "graphnet_defs.py")
    l1, l2, l3, l4 = (line_of(NETDEF, f"L{i}") for i in range(1, 5))
    x_ref, h1_ref, h2_ref, h3_ref, out_ref = pynative_reference(project)
    with DAPClient.spawn(adapter_argv("spore"), cwd=str(project)) as dap:
        launch(dap, project, "main.py", [], breakpoints={defs: [{"line": l2}]})
        stop = dap.wait_event("stopped", TIMEOUT)
        assert stop["body"]["reason"] == "breakpoint"
        tid = stop["body"]["threadId"]
        top = dap.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (defs, l2)
        names = dap.locals(top["id"])
        assert {"self", "x", "h"} <= set(names)
        assert names["h"]["value"].startswith("Tensor[3, 8] f32")  # shown as a tensor (the hooks register it)
        np.testing.assert_array_equal(evaluate_list(dap, top["id"], "x"), x_ref)
        np.testing.assert_array_equal(evaluate_list(dap, top["id"], "h"), h1_ref)
        assert "Net.construct is compiled" in dap.output() and "runs eagerly" in dap.output()

        dap.request("next", threadId=tid)
        assert dap.wait_event("stopped", TIMEOUT)["body"]["reason"] == "step"
        top = dap.top_frame(tid)
        assert top["line"] == l3
        np.testing.assert_array_equal(evaluate_list(dap, top["id"], "h"), h2_ref)

        dap.request("stepIn", threadId=tid)  # into the user sub-cell's construct (Spore's Cell.__call__ skipped)
        dap.wait_event("stopped", TIMEOUT)
        top = dap.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (defs, line_of(NETDEF, "BLOCK1"))
        np.testing.assert_array_equal(evaluate_list(dap, top["id"], "x"), h2_ref)

        dap.request("stepOut", threadId=tid)
        dap.wait_event("stopped", TIMEOUT)
        top = dap.top_frame(tid)
        assert top["line"] == l3  # back in Net.construct, on the call line (as pydevd returns from a call)
        dap.request("next", threadId=tid)
        dap.wait_event("stopped", TIMEOUT)
        top = dap.top_frame(tid)
        assert top["line"] == l4
        np.testing.assert_array_equal(evaluate_list(dap, top["id"], "h"), h3_ref)

        dap.request("continue", threadId=tid)  # the loop's second call hits the breakpoint again
        stop = dap.wait_event("stopped", TIMEOUT)
        assert stop["body"]["reason"] == "breakpoint" and dap.top_frame(tid)["line"] == l2

        dap.request("setBreakpoints", source={"path": defs}, breakpoints=[])  # back to compiled
        dap.request("continue", threadId=tid)
        dap.wait_event("terminated", TIMEOUT)
        shown = stdout_of(dap)
    plain = plain_run(project, "main.py")
    assert plain.returncode == 0, plain.stderr
    assert shown == plain.stdout
    result = ast.literal_eval(plain.stdout.splitlines()[0].split(" ", 1)[1])
    np.testing.assert_allclose(result, out_ref, rtol=1e-5, atol=1e-6)  # the compiled run itself is right


def test_step_in_on_the_call_line_enters_the_compiled_construct(project):
    main, defs = str(project / "main.py"), str(project / "graphnet_defs.py")
    with DAPClient.spawn(adapter_argv("spore"), cwd=str(project)) as dap:
        launch(dap, project, "main.py", [], breakpoints={main: [{"line": line_of(MAIN, "CALL")}]})
        tid = dap.wait_event("stopped", TIMEOUT)["body"]["threadId"]
        assert dap.top_frame(tid)["line"] == line_of(MAIN, "CALL")
        dap.request("stepIn", threadId=tid)
        assert dap.wait_event("stopped", TIMEOUT)["body"]["reason"] == "step"
        top = dap.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (defs, line_of(NETDEF, "L1"))
        assert {"self", "x"} <= set(dap.locals(top["id"]))
        dap.request("setBreakpoints", source={"path": main}, breakpoints=[])
        dap.request("continue", threadId=tid)  # the remaining calls: compiled, no stop
        dap.wait_event("terminated", TIMEOUT)
        assert stdout_of(dap) == plain_run(project, "main.py").stdout


@pytest.mark.parametrize("which, marker, name, local_names", [
    ("cell", "ERR-CELL", "Net.construct", {"self", "x", "scale"}),
    ("jit", "ERR-JIT", "scaled", {"x", "n"}),
])
def test_a_compile_error_stops_on_the_users_line_with_the_arguments(project, which, marker, name, local_names):
    prog = str(project / "errors_prog.py")
    with DAPClient.spawn(adapter_argv("spore"), cwd=str(project)) as dap:
        launch(dap, project, "errors_prog.py", [which], filters=["spore-compile"])
        stop = dap.wait_event("stopped", TIMEOUT)
        assert stop["body"]["reason"] == "exception"
        tid = stop["body"]["threadId"]
        top = dap.top_frame(tid)
        assert (top["source"]["path"], top["line"], top["name"]) == (prog, line_of(COMPILE_ERRORS, marker), name)
        variables = dap.locals(top["id"])
        assert local_names <= set(variables) and not {"err", "_e", "entry"} & set(variables)
        shape = dap.request("evaluate", expression="tuple(x.shape)", frameId=top["id"], context="repl")["body"]
        assert shape["result"] == "(3, 4)"
        info = dap.request("exceptionInfo", threadId=tid)["body"]
        assert "GraphCompileError" in info["exceptionId"]
        assert "is not supported" in info["description"] and "hint:" in info["description"]
        finish(dap, tid)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_break_on_nan_stops_at_the_op_that_made_it(project, mode):
    prog = str(project / "nan_prog.py")
    with DAPClient.spawn(adapter_argv("spore"), cwd=str(project)) as dap:
        launch(dap, project, "nan_prog.py", [mode], filters=["spore-compile"], breakOnNaN=True)
        stop = dap.wait_event("stopped", TIMEOUT)
        assert stop["body"]["reason"] == "exception"
        tid = stop["body"]["threadId"]
        top = dap.top_frame(tid)
        assert (top["source"]["path"], top["line"]) == (prog, line_of(NAN, "NAN"))
        assert {"self", "x", "h"} <= set(dap.locals(top["id"]))  # the construct's real frame
        info = dap.request("exceptionInfo", threadId=tid)["body"]
        assert info["description"].startswith("NaN produced by Log")
        assert "input 0:" in info["description"] and "nan=" in info["description"]
        finish(dap, tid)


def test_without_break_on_nan_the_same_program_runs_through(project):
    with DAPClient.spawn(adapter_argv("spore"), cwd=str(project)) as dap:
        launch(dap, project, "nan_prog.py", ["graph"], filters=["spore-compile"])
        assert stop_or_end(dap, 0) is None
        assert "nan" in stdout_of(dap).lower()
