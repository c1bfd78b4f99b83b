"""`Profiler` records one event per op with the user's line, in PyNative and in Graph mode, and
`analyse()` writes a Chrome trace that parses and prints a top-ops table."""

import inspect
import json

import numpy as np

import spore as ms
from spore.compiler.jit import jit
from spore.ops import functional as F
from spore.profiler import Profiler


def f(x):
    y = F.matmul(x, x)
    return F.relu(y) + 1.0


def test_pynative_events_name_the_users_line(tmp_path):
    x = ms.Tensor(np.ones((4, 4), np.float32))
    prof = Profiler(output_path=str(tmp_path))
    f(x)
    path = prof.analyse()
    ops = [e.op for e in prof.events]
    assert ops == ["MatMul", "ReLU", "Add"]
    line = inspect.getsourcelines(f)[1] + 1
    assert prof.events[0].file == __file__ and prof.events[0].line == line
    trace = json.load(open(path))
    assert {e["name"] for e in trace["traceEvents"]} == {"MatMul", "ReLU", "Add"}
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in trace["traceEvents"])


def test_graph_mode_events_carry_source_and_fusion(tmp_path, capsys):
    x = ms.Tensor(np.ones((4, 4), np.float32))
    g = jit(f, fullgraph=True)
    g(x)  # compile outside the profiler
    prof = Profiler(output_path=str(tmp_path))
    g(x)
    prof.analyse()
    out = capsys.readouterr().out
    assert "graph" in out and "source" in out
    assert prof.events and all(e.mode == "graph" for e in prof.events)
    assert any(e.file == __file__ for e in prof.events)
    assert not any(e.op == "MatMul" and e.line is None for e in prof.events)


def test_profiler_stops_recording_after_analyse(tmp_path):
    x = ms.Tensor(np.ones((2, 2), np.float32))
    prof = Profiler(output_path=str(tmp_path))
    f(x)
    prof.analyse()
    n = len(prof.events)
    f(x)
    assert len(prof.events) == n
