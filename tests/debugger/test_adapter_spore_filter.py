"""The `spore-compile` exception filter as the adapter handles it: on when the client says so, on
by default when a client never sends setExceptionBreakpoints (the filter is `default: true`), and
off when the client leaves it out — then a graph-compile error is an ordinary uncaught exception.
(The stop itself — frame, locals, exceptionInfo — is pinned by test_graph_debug.py.)"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv

PROGRAM = textwrap.dedent("""\
    import numpy as np
    import spore as ms
    from spore import nn


    class Net(nn.Cell):
        def construct(self, x):
            try:
                x = x * 2
            except ValueError:
                pass
            return x


    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    print(Net()(ms.Tensor(np.ones((2, 2), np.float32))))
    """)
TRY_LINE = 8


@pytest.mark.parametrize("filters", [["spore-compile"], None, ["uncaught", "spore-compile"]],
                         ids=["filter-on", "never-sent", "with-uncaught"])
def test_compile_error_stops_on_the_users_line(tmp_path: Path, filters: list[str] | None) -> None:
    prog = tmp_path / "strict.py"
    prog.write_text(PROGRAM)
    with DAPClient.spawn(adapter_argv("spore")) as dap:
        dap.start("launch", program=str(prog), exception_filters=filters, timeout=60)
        stop = dap.wait_event("stopped", timeout=60)
        assert stop["body"]["reason"] == "exception"
        thread = stop["body"]["threadId"]
        frame = dap.top_frame(thread)
        assert (Path(frame["source"]["path"]), frame["line"], frame["name"]) == (prog, TRY_LINE, "Net.construct")
        info = dap.request("exceptionInfo", threadId=thread)["body"]
        assert info["details"]["fullTypeName"] == "spore.errors.GraphCompileError"
        assert info["breakMode"] == "always" and "hint:" in info["description"]
        dap.request("disconnect", terminateDebuggee=True)


def test_without_the_filter_a_compile_error_is_just_uncaught(tmp_path: Path) -> None:
    prog = tmp_path / "strict.py"
    prog.write_text(PROGRAM)
    with DAPClient.spawn(adapter_argv("spore")) as dap:
        dap.start("launch", program=str(prog), exception_filters=[], timeout=60)
        dap.wait_event("terminated", timeout=60)
        assert not dap.events("stopped")
        assert dap.wait_event("exited", fresh=False)["body"]["exitCode"] == 1
        assert "GraphCompileError" in dap.output("stderr")
