"""Tensors shown as tensors over real DAP: debugpy's own adapter, a plain program, no Spore launcher.

`variables` shows the summary, expanding lists the children with evaluate names that index the
tensor, and `evaluate` (debug console, hover) shows the same string. Three ways the presentation
reaches pydevd are driven: discovery of the `pydevd_plugins` portion on `sys.path` (what a regular
install gives), `register()` in a process where pydevd is already running, and `register()` before
`debugpy.listen` (deferred until pydevd loads).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.debugger.dap_client import TIMEOUT, DAPClient, adapter_argv

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = """\
import numpy as np
import spore as ms
from spore import nn

x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
w = ms.Parameter(ms.Tensor(np.ones((3,), np.float32)), name="w")
net = nn.SequentialCell([nn.Dense(4, 2), nn.ReLU()])
print("ready")
"""
READY_LINE = 8


def plugin_site(tmp_path: Path) -> Path:
    """A directory laid out as site-packages is after a regular install: holding `pydevd_plugins`."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "pydevd_plugins").symlink_to(ROOT / "debugger" / "pydevd_plugins", target_is_directory=True)
    return site


def env_with(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **extra)
    return env


def stop_at(dap: DAPClient, program: Path, lines: list[int], **launch: object) -> int:
    dap.start("launch", breakpoints={str(program): [{"line": n} for n in lines]}, program=str(program),
              console="internalConsole", justMyCode=True, **launch)
    return int(dap.wait_event("stopped")["body"]["threadId"])


def children(dap: DAPClient, ref: int) -> dict[str, dict]:
    return {v["name"]: v for v in dap.request("variables", variablesReference=ref)["body"]["variables"]}


@pytest.mark.parametrize("adapter", ["debugpy", "spore"])
def test_a_debug_session_shows_tensors_parameters_and_cells(tmp_path, adapter):
    """debugpy's own adapter on a plain program, and spore-debug (which forwards all of it). The
    plugin is found by pydevd's discovery, as after a regular install (see the register tests for
    the editable install)."""
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    env = env_with(PYTHONPATH=str(plugin_site(tmp_path)))
    with DAPClient.spawn(adapter_argv(adapter), env=env) as dap:
        thread = stop_at(dap, program, [READY_LINE], env=env)
        frame = dap.top_frame(thread)
        assert frame["line"] == READY_LINE
        local = dap.locals(frame["id"])
        assert local["x"]["value"] == "Tensor[2, 3, 4] f32 μ=11.5 σ=6.922 [0, 23]"
        assert local["w"]["value"] == "Parameter[3] f32 'w' [1, 1, 1]"
        assert local["net"]["value"] == "SequentialCell(training=False, 2 sub-cells, 2 parameters, 10 values)"

        kids = children(dap, local["x"]["variablesReference"])
        assert list(kids) == ["shape", "dtype", "stats", "grad", "numpy", "[0]", "[1]"]
        assert kids["shape"]["value"] == "(2, 3, 4)" and kids["numpy"]["type"] == "ndarray"
        assert kids["numpy"]["evaluateName"] == "x.asnumpy()"
        assert kids["[1]"]["value"] == "[3, 4] f32 μ=17.5 σ=3.452 [12, 23]"
        assert kids["[1]"]["evaluateName"] == "x[1]"
        rows = children(dap, kids["[1]"]["variablesReference"])
        assert [(r["name"], r["evaluateName"]) for r in rows.values()] == [
            ("[0]", "x[1, 0]"), ("[1]", "x[1, 1]"), ("[2]", "x[1, 2]")]
        elems = children(dap, rows["[2]"]["variablesReference"])
        assert [(e["value"], e["evaluateName"], e["variablesReference"]) for e in elems.values()] == [
            ("20.0", "x[1, 2, 0]", 0), ("21.0", "x[1, 2, 1]", 0), ("22.0", "x[1, 2, 2]", 0), ("23.0", "x[1, 2, 3]", 0)]

        for context in ("repl", "watch", "hover"):
            result = dap.request("evaluate", expression="x", frameId=frame["id"], context=context)["body"]
            assert result["result"] == local["x"]["value"] and result["variablesReference"] > 0
        sliced = dap.request("evaluate", expression=rows["[2]"]["evaluateName"], frameId=frame["id"],
                             context="repl")["body"]
        assert sliced["result"] == "Tensor[4] f32 [20, 21, 22, 23]"  # few values: shown themselves
        shares = dap.request("evaluate", expression="x.asnumpy() is x.asnumpy()", frameId=frame["id"],
                             context="repl")["body"]
        assert shares["result"] == "True"  # the numpy child is the tensor's buffer, not a copy

        net = children(dap, local["net"]["variablesReference"])
        assert list(net) == ["training", "0", "1", "parameters (all)", "attributes"]
        assert net["attributes"]["value"] == "requires_grad"  # the set_grad flag: no registries, no __dict__
        assert net["0"]["evaluateName"] == "net[0]" and net["0"]["value"].startswith("Dense(training=False")
        dense = children(dap, net["0"]["variablesReference"])
        assert dense["weight"]["value"].startswith("Parameter[2, 4] f32 '0.weight'")
        assert dense["weight"]["evaluateName"] == "net[0].weight"
        dap.request("continue", threadId=thread)


def test_register_presents_tensors_in_a_running_debugger_even_after_they_were_shown(tmp_path):
    """Where discovery does not reach (an editable install made before the plugin): the program
    registers itself; a tensor shown before that is shown as a tensor after it."""
    program = tmp_path / "prog.py"
    program.write_text(textwrap.dedent("""\
        import numpy as np
        import spore as ms
        x = ms.Tensor(np.arange(8, dtype=np.float32))
        before = 1
        from spore_debug.presentation_pydevd import register
        done = (register(), register())
        after = 1
        """))
    env = env_with()
    with DAPClient.spawn(adapter_argv("debugpy"), env=env) as dap:
        thread = stop_at(dap, program, [4, 7], env=env)
        first = dap.locals(dap.top_frame(thread)["id"])["x"]["value"]
        assert first in (repr_of_arange8(), "Tensor[8] f32 μ=3.5 σ=2.291 [0, 7]")
        dap.request("continue", threadId=thread)
        stop = dap.wait_event("stopped")
        frame = dap.top_frame(stop["body"]["threadId"])
        assert frame["line"] == 7
        local = dap.locals(frame["id"])
        assert local["x"]["value"] == "Tensor[8] f32 μ=3.5 σ=2.291 [0, 7]"
        assert local["done"]["value"] == "(True, True)"
        count = ("sum(type(p).__name__ == 'SporeResolver' for p in __import__('_pydevd_bundle.pydevd_extension_utils',"
                 " fromlist=['_']).extensions_of_type(__import__('_pydevd_bundle.pydevd_extension_api',"
                 " fromlist=['_']).TypeResolveProvider))")
        result = dap.request("evaluate", expression=count, frameId=frame["id"], context="repl")["body"]["result"]
        assert result == "1"  # registered once, however many calls and whatever discovery found
        dap.request("continue", threadId=stop["body"]["threadId"])


def repr_of_arange8() -> str:
    import numpy as np

    import spore as ms

    return repr(ms.Tensor(np.arange(8, dtype=np.float32)))


def test_register_before_debugpy_listen_takes_effect_when_pydevd_loads(tmp_path):
    program = tmp_path / "listen.py"
    program.write_text(textwrap.dedent("""\
        import sys
        from spore_debug.presentation_pydevd import register
        deferred = register()
        assert "_pydevd_bundle.pydevd_extension_utils" not in sys.modules
        import debugpy
        host, port = debugpy.listen(("127.0.0.1", 0))
        print(port, flush=True)
        debugpy.wait_for_client()
        import numpy as np
        import spore as ms
        big = ms.Tensor(np.ones((1000, 1000), np.float32))
        open(sys.argv[1], "w").write(f"done {deferred}")
        """))
    env = env_with()
    result = tmp_path / "result.txt"
    proc = subprocess.Popen([sys.executable, str(program), str(result)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, start_new_session=True)
    try:
        port = int(proc.stdout.readline())
        with DAPClient.connect("127.0.0.1", port) as dap:  # debugpy.listen serves DAP itself (its own adapter)
            dap.start("attach", breakpoints={str(program): [{"line": 12}]}, justMyCode=True)
            stop = dap.wait_event("stopped")
            frame = dap.top_frame(stop["body"]["threadId"])
            local = dap.locals(frame["id"])
            assert local["big"]["value"] == "Tensor[1000, 1000] f32 μ=1 σ=0 [1, 1]"
            assert local["deferred"]["value"] == "False"
            dap.request("continue", threadId=stop["body"]["threadId"])
            assert proc.wait(TIMEOUT) == 0
        assert result.read_text() == "done False"
    finally:
        try:  # the program and the adapter debugpy.listen started for it: one process group, ours
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(5)
        proc.stdout.close()


def test_a_hundred_million_element_tensor_over_dap_costs_no_copy_in_the_debuggee(tmp_path):
    """The debuggee's peak RSS (ru_maxrss) before and after showing, expanding and paging into a
    400 MB tensor: a copy, a full float64 temporary or a formatted dump would show up in it."""
    program = tmp_path / "big.py"
    program.write_text(textwrap.dedent("""\
        import resource
        import numpy as np
        import spore as ms
        big = ms.Tensor(np.ones(10**8, np.float32))
        peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        base = peak()
        print("stop")
        """))
    env = env_with(PYTHONPATH=str(plugin_site(tmp_path)))
    with DAPClient.spawn(adapter_argv("debugpy"), env=env) as dap:
        thread = stop_at(dap, program, [7], env=env)
        frame = dap.top_frame(thread)
        local = dap.locals(frame["id"])
        assert local["big"]["value"] == "Tensor[100000000] f32 μ≈1 σ≈0 [1, 1]"
        kids = children(dap, local["big"]["variablesReference"])
        assert list(kids)[5:7] == ["[0:1000000]", "[1000000:2000000]"] and len(kids) == 5 + 100
        level = kids["[1000000:2000000]"]
        while level["variablesReference"]:
            level = next(iter(children(dap, level["variablesReference"]).values()))
        assert level["evaluateName"] == "big[1000000]" and level["value"] == "1.0"
        stats = children(dap, kids["stats"]["variablesReference"])
        assert stats["sampled"]["value"] == "True"
        growth = dap.request("evaluate", expression="(peak() - base) // 1024", frameId=frame["id"],
                             context="repl")["body"]["result"]
        assert int(growth) < 64, f"debuggee peak RSS grew by {growth} MiB"  # the tensor is 381 MiB
        dap.request("continue", threadId=thread)


def test_pydevd_loads_the_plugin_without_loading_numpy_or_the_engine(tmp_path):
    """Discovery imports the plugin in every debugpy session: a program that never uses Spore must
    not pay for NumPy or the engine because of it."""
    program = tmp_path / "plain.py"
    program.write_text("import sys\ntotal = sum(range(10))\nprint(total)\n")
    env = env_with(PYTHONPATH=str(plugin_site(tmp_path)))
    with DAPClient.spawn(adapter_argv("debugpy"), env=env) as dap:
        thread = stop_at(dap, program, [3], env=env)
        frame = dap.top_frame(thread)
        probe = ("('pydevd_plugins.extensions.pydevd_plugin_spore' in sys.modules, "
                 "sorted(m for m in ('numpy', 'spore', 'spore.tensor') if m in sys.modules))")
        result = dap.request("evaluate", expression=probe, frameId=frame["id"], context="repl")["body"]["result"]
        assert result == "(True, [])"
        assert dap.locals(frame["id"])["total"]["value"] == "45"
        dap.request("continue", threadId=thread)
