""""Spore: Inspect Tensor" while debugging: the exact DAP `evaluate` the extension sends, over real DAP.

The extension (vscode-extension/src/tensorView) evaluates, in the selected frame and with context
"clipboard", ``__import__('spore_kernel.tensor_view').tensor_view.json_text((EXPR))`` and parses the
result as a Python string literal holding the spore.tensor/1 JSON. This runs that request through
debugpy's own adapter and through spore-debug on a paused program, with a bundle far over the
lengths pydevd cuts values at in other contexts, and checks the error a non-tensor gives.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient, adapter_argv

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """\
import numpy as np
import spore as ms

x = ms.Tensor(np.arange(3 * 200 * 300, dtype=np.float64).reshape(3, 200, 300) / 7)  # long digits
w = ms.Parameter(ms.Tensor(np.array([1.0, np.nan], np.float32)), name="it's <w>")
n = 3
print("ready")
"""
READY_LINE = 7


def debuggee_expression(expr: str) -> str:
    """What src/tensorView/expression.ts debuggeeExpression() builds."""
    return f"__import__('spore_kernel.tensor_view').tensor_view.json_text(({expr}))"


@pytest.mark.parametrize("adapter", ["debugpy", "spore"])
def test_inspect_tensor_evaluates_the_bundle_in_the_paused_frame(tmp_path: Path, adapter: str) -> None:
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "kernel"), str(ROOT / "engine")]))
    with DAPClient.spawn(adapter_argv(adapter), env=env) as dap:
        dap.start("launch", breakpoints={str(program): [{"line": READY_LINE}]}, program=str(program),
                  console="internalConsole", justMyCode=True, env=env)
        thread = int(dap.wait_event("stopped")["body"]["threadId"])
        frame = dap.top_frame(thread)

        def evaluate(expr: str, check: bool = True, context: str = "clipboard") -> dict:
            return dap.request("evaluate", expression=debuggee_expression(expr), frameId=frame["id"],
                               context=context, check=check)

        result = evaluate("x")["body"]["result"]
        assert len(result) > 1 << 16  # pydevd cuts strings at 2**16 characters in other contexts ...
        assert len(evaluate("x", context="repl")["body"]["result"]) < len(result)  # ... as here
        bundle = json.loads(ast.literal_eval(result))
        assert bundle["schema"] == "spore.tensor/1" and bundle["stats"]["shape"] == [3, 200, 300]
        hm = bundle["heatmap"]
        assert hm["slice"] == [0] and hm["shape"] == [200, 300] and len(hm["rows"]) == 64
        assert hm["data"][5][7] == pytest.approx((hm["rows"][5] * 300 + hm["cols"][7]) / 7, rel=1e-15)

        named = json.loads(ast.literal_eval(evaluate("w")["body"]["result"]))
        assert named["name"] == "it's <w>" and named["stats"]["n_nan"] == 1 and named["type"] == "Parameter"

        # pydevd answers a raising expression with success and the exception as the value: the
        # extension reads `type` (here not "str") to tell an error from the JSON text
        refused = evaluate("n", check=False)
        body = refused.get("body", {})
        message = refused.get("message", "") + body.get("result", "")
        assert "expected a Spore Tensor or Parameter, got builtins.int" in message
        assert refused["success"] is False or body.get("type") == "TypeError"
        assert evaluate("x")["body"]["type"] == "str"
        dap.request("continue", threadId=thread)
