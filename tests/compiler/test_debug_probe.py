"""The engine's side of debugging compiled code, without any debugger:

- a registered breakpoint probe makes a compiled call run its Python lines while the probe says a
  breakpoint is on one of the graph's lines, and the answer is cached per graph until the probe's
  version changes (one `version()` per call);
- compile errors and run-time errors of a compiled call are raised from a frame at the user's line
  whose locals are the construct's (or jit function's) arguments;
- an observer that raises `NonFiniteError` in a compiled node makes the call replay in PyNative, so
  the error comes from the real op, line and frame.
"""

from __future__ import annotations

import inspect
import sys
import traceback

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops
from spore.errors import GraphCompileError, NonFiniteError


class Probe:
    """A breakpoint table as plain data: {file: {lines}}, with a version bumped on each change."""

    def __init__(self) -> None:
        self.table: dict[str, set[int]] = {}
        self.v = 0
        self.version_calls = 0
        self.asked: list[tuple[str, tuple]] = []

    def set(self, file: str, *lines: int) -> None:
        self.table[file] = set(lines)
        self.v += 1

    def version(self):
        self.version_calls += 1
        return self.v

    def runs_eagerly(self, name, lines):
        self.asked.append((name, lines))
        return any(first <= ln <= last for f, first, last in lines for ln in self.table.get(f, ()))


@pytest.fixture
def probe():
    p = Probe()
    ide.set_breakpoint_probe(p)
    yield p
    ide.set_breakpoint_probe(None)


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        y = self.fc(x)
        return ops.relu(y)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        h = self.inner(x)
        h = h * 2.0
        return self.fc(h)


def _lines(fn) -> tuple[int, int]:
    src, first = inspect.getsourcelines(fn)
    return first, first + len(src) - 1


class CallCounter:
    """Counts Python calls of given code objects (an eager run calls construct; a compiled run never
    does: the frontend reads its source, not its code)."""

    def __init__(self, *fns) -> None:
        self.codes = {f.__code__: 0 for f in fns}

    def __enter__(self):
        self.prev = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def _hook(self, frame, event, arg):
        if event == "call" and frame.f_code in self.codes:
            self.codes[frame.f_code] += 1

    def __exit__(self, *exc):
        sys.setprofile(self.prev)

    def count(self, fn) -> int:
        return self.codes[fn.__code__]


def _x():
    return ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)


def test_covered_lines_are_the_user_functions_the_graph_interprets():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    assert ide.covered_lines(net) == []
    net(_x())
    covered = ide.covered_lines(net)
    assert (__file__, *_lines(Net.construct)) in covered
    assert (__file__, *_lines(Inner.construct)) in covered  # a user sub-cell is inlined into the graph
    assert all(f == __file__ for f, _, _ in covered)  # Spore's own Dense is not the user's code


def test_no_breakpoint_runs_compiled_and_a_breakpoint_runs_eagerly(probe):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    with CallCounter(Net.construct, Inner.construct) as calls:
        compiled = net(x).asnumpy()
    assert calls.count(Net.construct) == 0 and calls.count(Inner.construct) == 0
    probe.set(__file__, _lines(Net.construct)[0] + 2)  # `h = h * 2.0`
    with CallCounter(Net.construct, Inner.construct) as calls:
        eager = net(x).asnumpy()
    assert calls.count(Net.construct) == 1
    assert calls.count(Inner.construct) == 1  # inside the eager call its sub-cells run eagerly too (stepIn)
    np.testing.assert_allclose(eager, compiled, rtol=1e-6, atol=1e-6)
    with CallCounter(Inner.construct) as calls:
        net.inner(x)  # called on its own, outside the eager call: no breakpoint in it, compiled
    assert calls.count(Inner.construct) == 0
    probe.set(__file__)  # breakpoint removed: compiled again
    with CallCounter(Net.construct) as calls:
        net(x)
    assert calls.count(Net.construct) == 0


def test_a_breakpoint_in_an_inlined_sub_cell_runs_both_constructs_eagerly(probe):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    net(x)
    probe.set(__file__, _lines(Inner.construct)[0] + 1)
    with CallCounter(Net.construct, Inner.construct) as calls:
        net(x)
    assert calls.count(Net.construct) == 1 and calls.count(Inner.construct) == 1


def test_the_answer_is_cached_per_graph_until_the_version_changes(probe):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    net(x)
    asked = len(probe.asked)
    calls_before = probe.version_calls
    for _ in range(50):
        net(x)
    assert len(probe.asked) == asked  # no new question: the cached answer served 50 calls
    assert probe.version_calls - calls_before == 50  # one version() per compiled call
    probe.set(__file__, 1)  # a change anywhere: asked once again, then cached
    for _ in range(5):
        net(x)
    assert len(probe.asked) == asked + 1
    assert probe.asked[-1][0] == "Net.construct"


def test_a_failing_probe_counts_as_no_breakpoint():
    class Broken:
        def version(self):
            raise RuntimeError("debugger went away")

        def runs_eagerly(self, name, lines):
            raise AssertionError("not reached")

    ms.set_context(mode=ms.GRAPH_MODE)
    ide.set_breakpoint_probe(Broken())
    try:
        net = Net()
        with CallCounter(Net.construct) as calls:
            out = net(_x())
        assert calls.count(Net.construct) == 0 and out.shape == (3, 2)
    finally:
        ide.set_breakpoint_probe(None)
    with pytest.raises(TypeError):
        ide.set_breakpoint_probe(object())


def scaled(x, k):
    y = x * k
    return ops.relu(y)


def test_a_jit_function_with_a_breakpoint_runs_its_lines(probe):
    f = ms.jit(scaled, fullgraph=True)
    x = _x()
    f(x, 2.0)
    probe.set(__file__, _lines(scaled)[0] + 1)
    with CallCounter(scaled) as calls:
        out = f(x, 2.0)
    assert calls.count(scaled) == 1
    np.testing.assert_allclose(out.asnumpy(), np.maximum(x.asnumpy() * 2.0, 0), rtol=1e-6)


class Refused(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x, scale=2.0):
        h = self.fc(x)
        try:  # <- refused under STRICT
            h = h * scale
        except ValueError:
            pass
        return h


def _innermost(tb):
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame, tb.tb_lineno


def test_a_compile_error_is_raised_from_a_frame_holding_the_constructs_arguments():
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    net, x = Refused(), _x()
    with pytest.raises(GraphCompileError) as info:
        net(x)
    frame, line = _innermost(info.tb)
    assert (frame.f_code.co_filename, line) == (__file__, _lines(Refused.construct)[0] + 2)
    assert frame.f_code.co_name == "Refused.construct"
    assert set(frame.f_locals) == {"self", "x", "scale"}
    assert frame.f_locals["self"] is net and frame.f_locals["x"] is x and frame.f_locals["scale"] == 2.0
    last = traceback.extract_tb(info.tb)[-1]
    assert (last.filename, last.lineno) == (__file__, line)


def refused_fn(x, n):
    with open(__file__):  # <- with is refused in a graph
        pass
    return x * n


def test_a_fullgraph_jit_error_keeps_the_functions_arguments():
    x = _x()
    with pytest.raises(GraphCompileError) as info:
        ms.jit(refused_fn, fullgraph=True)(x, 3)
    frame, line = _innermost(info.tb)
    assert (frame.f_code.co_filename, line) == (__file__, _lines(refused_fn)[0] + 1)
    assert frame.f_locals == {"x": x, "n": 3}


def test_an_error_on_a_sub_cells_line_shows_that_cells_self_only():
    """The root's arguments are not shown at a line of another function (a user sub-cell): that
    construct's `self` is (its tensor arguments were only tracers while compiling)."""

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Refused()

        def construct(self, x):
            return self.inner(x)

    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    outer = Outer()
    with pytest.raises(GraphCompileError) as info:
        outer(_x())
    frame, line = _innermost(info.tb)
    assert line == _lines(Refused.construct)[0] + 2
    assert frame.f_locals == {"self": outer.inner}  # not Outer's `self`/`x` shown as if they were Refused's


class NanOnLog:
    """A minimal NaN guard: raises NonFiniteError at the first Log output with a NaN."""

    def __init__(self) -> None:
        self.modes: list[str] = []

    def before(self, event):
        pass

    def after(self, event):
        for o in event.outputs:
            if np.issubdtype(np.asarray(o).dtype, np.floating) and np.isnan(o).any():
                self.modes.append(event.mode)
                raise NonFiniteError(event.op, inputs=[], outputs=[], loc=event.loc, scope=event.scope,
                                     mode=event.mode)


class LogNet(nn.Cell):
    def construct(self, x):
        h = x - 1.0
        h = ops.log(h)  # NaN for x < 1
        return h * 2.0


def test_a_nan_in_a_compiled_node_is_replayed_in_pynative_at_the_real_op():
    ms.set_context(mode=ms.GRAPH_MODE)
    guard = NanOnLog()
    net, x = LogNet(), _x()
    with ide.observe_ops(guard), np.errstate(invalid="ignore"), pytest.raises(NonFiniteError) as info:
        net(x)
    assert guard.modes == ["graph", "pynative"]  # found by the graph, then the replay stopped at the op
    err = info.value
    assert err.op == "Log" and str(err).startswith("NaN produced by Log")
    assert err.loc.line == _lines(LogNet.construct)[0] + 2
    frames = [(tb.tb_frame, tb.tb_lineno) for tb in _walk(info.tb)]
    user = [(f, ln) for f, ln in frames if f.f_code.co_filename == __file__ and f.f_code.co_name == "construct"]
    assert user and user[-1][1] == err.loc.line
    assert "h" in user[-1][0].f_locals  # a real construct frame: the line before the op has run


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


def test_non_finite_error_renders_op_line_and_stats():
    loc = ms.errors.SourceLoc(__file__, _lines(LogNet.construct)[0] + 2)
    err = NonFiniteError("Log", "NaN", inputs=[{"shape": [2], "dtype": "float32", "min": -1.0, "max": 2.0,
                                                 "mean": 0.5, "nan": 0, "inf": 0}],
                         outputs=[{"shape": [2], "dtype": "float32", "nan": 1, "inf": 0}], loc=loc, scope="LogNet")
    text = str(err)
    assert text.splitlines()[0] == "NaN produced by Log"
    assert "ops.log(h)" in text and "input 0: float32[2] min=-1 max=2 mean=0.5 nan=0 inf=0" in text
    assert "output 0: float32[2] nan=1 inf=0" in text
    d = ide.error_dict(err)
    assert d["type"] == "NonFiniteError" and d["op"] == "Log" and d["line"] == loc.line
    assert isinstance(err, FloatingPointError)


def _train(probe_on: bool, probe: Probe) -> tuple[list[float], np.ndarray]:
    ms.set_seed(0)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    probe.set(__file__, *((_lines(Net.construct)[0] + 2,) if probe_on else ()))
    x, y = _x(), ms.Tensor(np.zeros((3, 2), np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    return losses, net.fc.weight.asnumpy().copy()


def test_a_training_step_with_a_breakpoint_in_the_network_trains_the_same(probe):
    """Spore's own TrainOneStepCell is compiled around the user's network: with a breakpoint in the
    network the whole step runs eagerly (gradients and the optimizer update in PyNative)."""
    compiled_losses, compiled_w = _train(False, probe)
    with CallCounter(Net.construct) as calls:
        eager_losses, eager_w = _train(True, probe)
    assert calls.count(Net.construct) == 3  # the network's lines ran at each of the 3 steps
    assert probe.asked[-1][0] == "TrainOneStepCell.construct"
    np.testing.assert_allclose(eager_losses, compiled_losses, rtol=1e-5)
    np.testing.assert_allclose(eager_w, compiled_w, rtol=1e-5, atol=1e-7)
    assert eager_losses[2] < eager_losses[0]


class Breaking(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)

    def construct(self, x):
        h = self.fc(x)
        h = ops.relu(h)  # in the compiled segment before the break
        print("mean", float(h.mean().asnumpy()), file=SINK)  # the graph break: runs in Python
        return h * 2.0


class _Sink:
    def write(self, text):
        return len(text)


SINK = _Sink()


def _lines_run(fn, target_file: str) -> set[int]:
    """The lines of `target_file` that ran as Python during fn()."""
    seen: set[int] = set()

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == target_file:
            if event == "line":
                seen.add(frame.f_lineno)
            return tracer
        return None

    prev = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(prev)
    return seen


def test_a_breakpoint_in_a_compiled_segment_of_a_graph_break_runs_that_segment_in_python(probe):
    import warnings

    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Breaking(), _x()
    relu_line = _lines(Breaking.construct)[0] + 2
    print_line = relu_line + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net(x)
        compiled = _lines_run(lambda: net(x), __file__)
        assert print_line in compiled and relu_line not in compiled  # the segment runs compiled
        probe.set(__file__, relu_line)
        eager = _lines_run(lambda: net(x), __file__)
    assert relu_line in eager  # the breakpointed segment's statements ran as Python (a breakpoint hits)
    assert any("segment" in name for name, _ in probe.asked)


class GraphOnlyNan(NanOnLog):
    """Reports only compiled nodes: the PyNative replay then finds nothing (a value that does not
    recur), and the graph's own report stands."""

    def after(self, event):
        if event.mode == "graph":
            super().after(event)


def test_a_graph_nan_that_does_not_recur_in_pynative_is_raised_at_the_nodes_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    guard = GraphOnlyNan()
    net, x = LogNet(), _x()
    with ide.observe_ops(guard), np.errstate(invalid="ignore"), pytest.raises(NonFiniteError) as info:
        net(x)
    assert guard.modes == ["graph"]
    err = info.value
    assert err.mode == "graph" and err.loc is not None  # (the op may be a fused node here)
    frame, line = _innermost(info.tb)
    assert (frame.f_code.co_filename, line) == (__file__, err.loc.line)
    first, last = _lines(LogNet.construct)
    assert first < line <= last
    assert frame.f_locals == {"self": net, "x": x}  # the construct's arguments, as for compile errors
    assert info.value.__context__ is None  # not "during handling of ..." the graph run's error
