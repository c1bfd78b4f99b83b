"""The Spore kernel's debugger, driven as JupyterLab and VS Code drive it: `debug_request` messages on
the control channel (ipykernel's debug protocol, debugpy inside the kernel), `debug_event` messages
on iopub, cells executed in the background while the debugger is attached.

Checked: the debugger starts with Spore's hooks (the `spore-compile` filter is offered); a breakpoint
inside a Graph-mode `construct` defined in a cell stops on that line with real tensors whose values
are what the layer computes; a graph-compile error stops on the cell's line with the construct's
arguments as locals and the hint in `exceptionInfo`; the `spore-nan` filter stops at the op making
the first NaN; tensors and Cells show as tensors (stopped or not); the kernel still starts without
the engine.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from queue import Empty
from typing import Any

import pytest

from .harness import TIMEOUT, Kernel

SEQ = iter(range(1, 1_000_000))

DEFINE = """\
import numpy as np
import spore as ms
from spore import nn
ms.set_context(mode=ms.GRAPH_MODE)

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        y = self.fc(x)
        z = y * 2
        return z

net = Net()
x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
"""
Z_LINE = 13  # `z = y * 2`

REFUSED = """\
class Refused(nn.Cell):
    def construct(self, x):
        scale = 2.0
        try:
            h = x * scale
        except ValueError:
            h = x
        return h

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
refused = Refused()
"""
TRY_LINE = 4


def debug(kernel: Kernel, command: str, **arguments: Any) -> dict[str, Any]:
    """One debug_request on the control channel; its reply's content (a DAP response)."""
    msg = kernel.kc.session.msg("debug_request", {"type": "request", "seq": next(SEQ), "command": command,
                                                   "arguments": arguments})
    kernel.kc.control_channel.send(msg)
    deadline = time.monotonic() + TIMEOUT
    while True:
        reply = kernel.kc.control_channel.get_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply["content"]


def wait_debug_event(kernel: Kernel, event: str) -> dict[str, Any]:
    """The next iopub `debug_event` named `event` (other iopub traffic is passed over)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no debug_event {event!r} within {TIMEOUT}s")
        try:
            msg = kernel.kc.get_iopub_msg(timeout=left)
        except Empty:
            continue
        if msg["msg_type"] == "debug_event" and msg["content"].get("event") == event:
            return msg["content"]


def locals_of(kernel: Kernel, frame_id: int) -> dict[str, dict[str, Any]]:
    scopes = debug(kernel, "scopes", frameId=frame_id)["body"]["scopes"]
    ref = next(s for s in scopes if s["name"] == "Locals")["variablesReference"]
    return {v["name"]: v for v in debug(kernel, "variables", variablesReference=ref)["body"]["variables"]}


def evaluate(kernel: Kernel, expression: str, frame_id: int) -> str:
    reply = debug(kernel, "evaluate", expression=expression, frameId=frame_id, context="repl")
    assert reply["success"], reply
    return reply["body"]["result"]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kernel, dict[str, Any]]]:
    """A Spore kernel with the debugger initialized and attached (as JupyterLab does on toggle)."""
    kernel = Kernel(tmp_path_factory.mktemp("spore-kernel-debug"))
    try:
        before = kernel.ok("import sys\n'spore.tensor' in sys.modules, 'numpy' in sys.modules")
        assert before.result_data()["text/plain"] == "(False, False)"
        init = debug(kernel, "initialize", clientID="spore-tests", adapterID="", pathFormat="path",
                     linesStartAt1=True, columnsStartAt1=True, supportsVariableType=True,
                     supportsVariablePaging=True, locale="en")
        assert init["success"], init
        attach = debug(kernel, "attach")
        assert attach["success"], attach
        yield kernel, init
    finally:
        try:
            debug(kernel, "disconnect", restart=False, terminateDebuggee=True)
        finally:
            kernel.close()


def test_the_debugger_starts_with_the_spore_filter_and_without_loading_the_engine(session):
    kernel, init = session
    filters = {f["filter"]: f for f in init["body"]["exceptionBreakpointFilters"]}
    assert filters["spore-compile"]["label"] == "Spore: graph compile errors" and filters["spore-compile"]["default"]
    assert {"raised", "uncaught"} <= set(filters)  # debugpy's own filters kept
    info = debug(kernel, "debugInfo")["body"]
    assert info["isStarted"] is True
    # starting the debugger hooked the engine's import, it did not load the engine
    res = kernel.ok("import sys\n'spore.tensor' in sys.modules, 'numpy' in sys.modules")
    assert res.result_data()["text/plain"] == "(False, False)"


def test_a_breakpoint_in_a_graph_mode_construct_of_a_cell_stops_there_with_real_tensors(session):
    kernel, _ = session
    source = debug(kernel, "dumpCell", code=DEFINE)["body"]["sourcePath"]
    bps = debug(kernel, "setBreakpoints", source={"path": source}, breakpoints=[{"line": Z_LINE}],
                sourceModified=False)["body"]["breakpoints"]
    assert bps[0]["verified"] and bps[0]["line"] == Z_LINE
    assert debug(kernel, "configurationDone")["success"]
    kernel.ok(DEFINE)

    msg_id = kernel.kc.execute("out = net(x)\nmode = ms.get_context('mode')")  # runs until the stop
    stopped = wait_debug_event(kernel, "stopped")["body"]
    assert stopped["reason"] == "breakpoint"
    thread = stopped["threadId"]
    frames = debug(kernel, "stackTrace", threadId=thread)["body"]["stackFrames"]
    top = frames[0]
    assert (top["source"]["path"], top["line"]) == (source, Z_LINE)
    assert "construct" in top["name"]
    shown = [f.get("source", {}).get("path", "") for f in frames]
    assert not [p for p in shown if "/engine/spore/" in p or "/spore_debug/" in p], shown  # Spore's own: hidden

    local = locals_of(kernel, top["id"])
    assert local["x"]["value"] == "Tensor[2, 4] f32 μ=3.5 σ=2.291 [0, 7]"
    assert local["y"]["value"].startswith("Tensor[2, 3] f32 ")
    assert local["self"]["value"] == "Net(training=False, 1 sub-cells, 2 parameters, 15 values)"
    # y holds what the Dense layer computes (x @ W.T + b), not a placeholder
    err = evaluate(kernel, "float(abs(y.asnumpy() - (x.asnumpy() @ self.fc.weight.asnumpy().T"
                           " + self.fc.bias.asnumpy())).max())", top["id"])
    assert float(err) < 1e-5
    kids = {v["name"]: v for v in debug(kernel, "variables",
                                        variablesReference=local["y"]["variablesReference"])["body"]["variables"]}
    assert list(kids)[:5] == ["shape", "dtype", "stats", "grad", "numpy"]
    assert kids["[1]"]["evaluateName"] == "y[1]" and kids["[1]"]["value"].startswith("[3] f32 [")

    nxt = debug(kernel, "next", threadId=thread)
    assert nxt["success"]
    stepped = wait_debug_event(kernel, "stopped")["body"]
    assert stepped["reason"] == "step"
    top = debug(kernel, "stackTrace", threadId=thread)["body"]["stackFrames"][0]
    assert (top["source"]["path"], top["line"]) == (source, Z_LINE + 1)
    z = locals_of(kernel, top["id"])["z"]["value"]
    assert z.startswith("Tensor[2, 3] f32 ")

    debug(kernel, "setBreakpoints", source={"path": source}, breakpoints=[], sourceModified=False)
    assert debug(kernel, "continue", threadId=thread)["success"]
    result = kernel.collect(msg_id)
    assert result.status == "ok", result.reply
    check = kernel.ok("float(abs(out.asnumpy() - 2 * (x.asnumpy() @ net.fc.weight.asnumpy().T"
                      " + net.fc.bias.asnumpy())).max()) < 1e-5, mode == ms.GRAPH_MODE")
    assert check.result_data()["text/plain"] == "(True, True)"


def test_a_graph_compile_error_stops_on_the_cells_line_with_the_constructs_arguments(session):
    kernel, _ = session
    source = debug(kernel, "dumpCell", code=REFUSED)["body"]["sourcePath"]
    assert debug(kernel, "setExceptionBreakpoints", filters=["spore-compile"])["success"]
    assert debug(kernel, "configurationDone")["success"]
    kernel.ok(REFUSED)

    msg_id = kernel.kc.execute("refused(x)")
    stopped = wait_debug_event(kernel, "stopped")["body"]
    assert stopped["reason"] == "exception"
    thread = stopped["threadId"]
    top = debug(kernel, "stackTrace", threadId=thread)["body"]["stackFrames"][0]
    assert (top["source"]["path"], top["line"]) == (source, TRY_LINE)
    local = locals_of(kernel, top["id"])
    assert {"self", "x"} <= set(local)  # the construct's arguments (nothing of its body ran yet)
    assert local["x"]["value"] == "Tensor[2, 4] f32 μ=3.5 σ=2.291 [0, 7]"
    info = debug(kernel, "exceptionInfo", threadId=thread)["body"]
    assert info["details"]["fullTypeName"] == "spore.errors.GraphCompileError"
    assert "try" in info["description"] and "PYNATIVE_MODE" in info["description"]

    debug(kernel, "setExceptionBreakpoints", filters=[])
    assert debug(kernel, "continue", threadId=thread)["success"]
    result = kernel.collect(msg_id)
    assert result.status == "error" and result.reply["content"]["ename"] == "GraphCompileError"
    kernel.ok("ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)")


def test_variables_of_the_notebook_show_tensors_when_not_stopped(session):
    kernel, _ = session
    kernel.ok("w = ms.Parameter(ms.Tensor(np.ones((3,), np.float32)), name='w')")
    found = {v["name"]: v for v in debug(kernel, "inspectVariables")["body"]["variables"]}
    assert found["x"]["value"] == "Tensor[2, 4] f32 μ=3.5 σ=2.291 [0, 7]"
    assert found["w"]["value"] == "Parameter[3] f32 'w' [1, 1, 1]"
    assert found["net"]["value"] == "Net(training=False, 1 sub-cells, 2 parameters, 15 values)"


def test_the_nan_filter_stops_at_the_first_op_that_makes_a_nan_and_switches_off_again(session):
    kernel, init = session
    assert "spore-nan" in {f["filter"] for f in init["body"]["exceptionBreakpointFilters"]}
    code = ("ms.set_context(mode=ms.PYNATIVE_MODE)\n"
            "v = ms.Tensor(np.array([1.0, -1.0], np.float32))\n"
            "bad = ms.ops.log(v)\n")
    source = debug(kernel, "dumpCell", code=code)["body"]["sourcePath"]
    assert debug(kernel, "setExceptionBreakpoints", filters=["spore-nan"])["success"]
    msg_id = kernel.kc.execute(code)
    stopped = wait_debug_event(kernel, "stopped")["body"]
    assert stopped["reason"] == "exception"
    thread = stopped["threadId"]
    top = debug(kernel, "stackTrace", threadId=thread)["body"]["stackFrames"][0]
    assert (top["source"]["path"], top["line"]) == (source, 3)
    assert evaluate(kernel, "v", top["id"]) == "Tensor[2] f32 [1, -1]"  # the op's input, as a tensor
    info = debug(kernel, "exceptionInfo", threadId=thread)["body"]
    assert info["description"].startswith("NaN produced by Log")
    assert info["details"]["fullTypeName"] == "spore.errors.NonFiniteError"

    assert debug(kernel, "setExceptionBreakpoints", filters=[])["success"]  # guard off again
    assert debug(kernel, "continue", threadId=thread)["success"]
    result = kernel.collect(msg_id)
    assert result.status == "error" and result.reply["content"]["ename"] == "NonFiniteError"
    again = kernel.ok("bool(np.isnan(ms.ops.log(v).asnumpy()).any())")
    assert again.result_data()["text/plain"] == "True"  # no guard: the NaN is just a value
