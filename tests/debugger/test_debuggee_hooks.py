"""The debuggee's hooks in-process: `install()` defers engine work until the engine is imported,
the breakpoint probe answers from an injected breakpoint table (pydevd's shape, guarded), the NaN
guard stops at the op in both modes, and with the guard off nothing observes."""

from __future__ import annotations

import inspect
import io
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops
from spore_debug import debuggee
from spore_debug.debuggee.breakpoints import BreakpointProbe, PydevdBreakpoints
from spore_debug.debuggee.nan_guard import NanGuard, stats

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _clean_hooks():
    debuggee.uninstall()
    yield
    debuggee.uninstall()


class FakeSource:
    """A breakpoint table injected in place of pydevd's: {file: {lines}} and a change counter."""

    def __init__(self) -> None:
        self.table: dict[str, set[int]] = {}
        self.changes = 0
        self.lookups = 0

    def set(self, file: str, *lines: int) -> None:
        self.table[file] = set(lines)
        self.changes += 1

    def version(self):
        return self.changes

    def lines(self, filename: str):
        self.lookups += 1
        return self.table.get(filename, ())


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 2)

    def construct(self, x):
        h = self.fc1(x)
        h = ops.relu(h)
        return self.fc2(h)


FIRST = inspect.getsourcelines(Net.construct)[1]


def _x():
    return ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)


def _construct_runs(net, x) -> int:
    """How many times Net.construct's Python code ran during `net(x)`."""
    seen = []

    def hook(frame, event, arg):
        if event == "call" and frame.f_code is Net.construct.__code__:
            seen.append(frame)

    prev = sys.getprofile()
    sys.setprofile(hook)
    try:
        net(x)
    finally:
        sys.setprofile(prev)
    return len(seen)


def _run(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full, cwd=ROOT, timeout=120)


def test_install_before_the_engine_defers_until_it_is_imported():
    proc = _run("""
        import sys
        from spore_debug import debuggee
        debuggee.install(break_on_nan=True)
        debuggee.install(break_on_nan=True)  # idempotent
        assert "spore" not in sys.modules and "numpy" not in sys.modules, "install loaded the engine"
        import spore as ms
        from spore import ide
        print("probe", type(ide.breakpoint_probe()).__name__)
        print("busy-before-ops", "spore.ops" in sys.modules and ide.is_busy())
        t = ms.Tensor([1.0, 2.0])  # loads the ops: the guard observes from now on
        print("busy", ide.is_busy(), debuggee.installed())
    """)
    assert proc.returncode == 0, proc.stderr
    assert "probe BreakpointProbe" in proc.stdout
    assert "busy True {'installed': True, 'break_on_nan': True, 'probe': True, 'guard': True}" in proc.stdout


def test_break_on_nan_none_reads_the_environment():
    code = """
        import spore as ms
        from spore import ide
        from spore_debug import debuggee
        ms.Tensor([1.0])
        debuggee.install()
        print("guard", debuggee.installed()["guard"], ide.is_busy())
    """
    on = _run(code, {"SPORE_DEBUG_BREAK_ON_NAN": "1"})
    off = _run(code, {"SPORE_DEBUG_BREAK_ON_NAN": ""})
    assert "guard True True" in on.stdout, on.stderr
    assert "guard False False" in off.stdout, off.stderr


def test_with_the_guard_off_no_observer_is_installed():
    debuggee.install(break_on_nan=False)
    ms.set_context(mode=ms.GRAPH_MODE)
    Net()(_x())
    assert not ide.is_busy()
    assert debuggee.installed() == {"installed": True, "break_on_nan": False, "probe": True, "guard": False}
    debuggee.install(break_on_nan=True)
    assert ide.is_busy()
    debuggee.install(break_on_nan=False)  # switched off again: the observer is gone
    assert not ide.is_busy()


def test_a_breakpoint_in_construct_runs_that_call_eagerly_and_says_so_once():
    source, out = FakeSource(), io.StringIO()
    debuggee.install(break_on_nan=False, probe=BreakpointProbe(source, stream=out))
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    assert _construct_runs(net, x) == 0  # compiled
    source.set(__file__, FIRST + 2)  # `h = ops.relu(h)`
    assert _construct_runs(net, x) == 1
    assert _construct_runs(net, x) == 1
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "Net.construct is compiled" in lines[0] and "runs eagerly" in lines[0]
    assert f"test_debuggee_hooks.py:{FIRST + 2}" in lines[0]
    source.set(__file__, FIRST - 30)  # a breakpoint elsewhere in the file
    assert _construct_runs(net, x) == 0


def test_the_check_reads_the_table_only_when_it_changed():
    source = FakeSource()
    debuggee.install(break_on_nan=False, probe=BreakpointProbe(source, stream=io.StringIO()))
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    net(x)
    lookups = source.lookups
    for _ in range(100):
        net(x)
    assert source.lookups == lookups
    source.set("/elsewhere.py", 3)
    net(x)
    net(x)
    assert source.lookups == lookups + 1  # one file range in this graph: one lookup, then cached


def _fake_pydevd(monkeypatch, debugger):
    """Modules shaped like pydevd's, as pydevd's own import would leave them in sys.modules."""
    constants = types.ModuleType("_pydevd_bundle.pydevd_constants")
    constants.get_global_debugger = lambda: debugger
    utils = types.ModuleType("pydevd_file_utils")
    utils.canonical_normalized_path = lambda f: os.path.normcase(os.path.realpath(f)) + "#canon"
    monkeypatch.setitem(sys.modules, "_pydevd_bundle.pydevd_constants", constants)
    monkeypatch.setitem(sys.modules, "pydevd_file_utils", utils)


def test_pydevd_breakpoints_are_read_from_its_table_and_counter(monkeypatch):
    class Debugger:
        mtime = 7
        ready_to_run = True
        breakpoints = {os.path.normcase(os.path.realpath(__file__)) + "#canon": {FIRST + 1: object()}}

    dbg = Debugger()
    _fake_pydevd(monkeypatch, dbg)
    source = PydevdBreakpoints()
    assert source.version() == (dbg, 7, True, False)
    assert list(source.lines(__file__)) == [FIRST + 1]
    assert list(source.lines("/not/this.py")) == []
    dbg.mtime = 8
    assert source.version() == (dbg, 8, True, False)
    other = Debugger()  # a new debugger (a new session) is a new version
    _fake_pydevd(monkeypatch, other)
    assert PydevdBreakpoints().version() == (other, 7, True, False)


def test_pydevd_missing_pieces_mean_no_debugger(monkeypatch):
    assert PydevdBreakpoints().version() is None or "_pydevd_bundle.pydevd_constants" in sys.modules
    monkeypatch.delitem(sys.modules, "_pydevd_bundle.pydevd_constants", raising=False)
    assert PydevdBreakpoints().version() is None and list(PydevdBreakpoints().lines(__file__)) == []

    class Bare:  # no mtime, no breakpoints: an unknown pydevd version
        pass

    _fake_pydevd(monkeypatch, Bare())
    source = PydevdBreakpoints()
    assert source.version()[1:] == (None, None, False)
    assert list(source.lines(__file__)) == []

    class Odd:
        mtime = "x"
        breakpoints = {"a": "not a dict"}

    _fake_pydevd(monkeypatch, Odd())
    assert list(PydevdBreakpoints().lines("a")) == []
    ms.set_context(mode=ms.GRAPH_MODE)
    debuggee.install(break_on_nan=False)  # the real probe over this odd debugger: compiled, no crash
    assert _construct_runs(Net(), _x()) == 0


class LogNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        h = self.fc(x)
        h = ops.log(h)
        return h * 2.0


LOG_LINE = inspect.getsourcelines(LogNet.construct)[1] + 2


def _innermost_user_frame(tb):
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == __file__:
            found = (tb.tb_frame, tb.tb_lineno)
        tb = tb.tb_next
    return found


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_the_nan_guard_stops_at_the_op_and_the_users_line(mode):
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    debuggee.install(break_on_nan=True)
    net = LogNet()
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) - 6)
    with np.errstate(invalid="ignore"), pytest.raises(ide.NonFiniteError) as info:
        net(x)
    err = info.value
    assert str(err).splitlines()[0] == "NaN produced by Log"
    assert (err.loc.file, err.loc.line) == (__file__, LOG_LINE)
    assert err.inputs[0]["nan"] == 0 and err.outputs[0]["nan"] > 0 and err.outputs[0]["shape"] == [3, 3]
    frame, line = _innermost_user_frame(info.tb)
    assert line == LOG_LINE and frame.f_code.co_name == "construct"
    assert set(frame.f_locals) >= {"self", "x", "h"} and frame.f_locals["self"] is net


def test_the_nan_guard_passes_finite_values_and_names_inf():
    guard = NanGuard()

    class Event:
        op, mode, fused, scope, loc = "Div", "pynative", (), "", None
        inputs = [np.ones(2, np.float32), np.zeros(2, np.float32)]
        outputs = [np.array([np.inf, 1.0], np.float32)]

    guard.after(types.SimpleNamespace(outputs=[np.ones(3, np.float32), np.arange(3)], inputs=[]))  # finite: quiet
    with pytest.raises(ide.NonFiniteError) as info:
        guard.after(Event())
    assert str(info.value).startswith("Inf produced by Div")
    assert info.value.outputs[0] == {"shape": [2], "dtype": "float32", "nan": 0, "inf": 1, "min": 1.0, "max": 1.0,
                                     "mean": 1.0}
    assert stats(np.array([np.nan, np.nan]))["nan"] == 2 and "min" not in stats(np.array([np.nan]))


def test_the_nan_guard_marks_an_input_the_op_overwrote():
    buf = np.array([np.nan, 1.0], np.float32)
    event = types.SimpleNamespace(op="ReLU", mode="graph", fused=("ReLU", "Mul"), scope="Net", loc=None,
                                  inputs=[buf], outputs=[buf])
    with pytest.raises(ide.NonFiniteError) as info:
        NanGuard().after(event)
    assert info.value.inputs == [{"shape": [2], "dtype": "float32", "overwritten": True}]
    assert info.value.op == "ReLU (fused: ReLU + Mul)"


def test_stepping_into_a_compiled_call_runs_it_eagerly(monkeypatch):
    """pydevd keeps the thread's step command on `threading.current_thread().additional_info`: while
    it is a step-in, a compiled call runs its construct (where the step lands), and compiled again
    once the step is over."""
    import threading

    class Debugger:
        mtime, ready_to_run, breakpoints = 1, True, {}

    _fake_pydevd(monkeypatch, Debugger())
    info = types.SimpleNamespace(pydev_step_cmd=-1)
    monkeypatch.setattr(threading.current_thread(), "additional_info", info, raising=False)
    debuggee.install(break_on_nan=False, probe=BreakpointProbe(stream=io.StringIO()))
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = Net(), _x()
    assert _construct_runs(net, x) == 0
    info.pydev_step_cmd = 144  # CMD_STEP_INTO_MY_CODE: what stepIn under justMyCode sends
    assert _construct_runs(net, x) == 1
    info.pydev_step_cmd = 108  # CMD_STEP_OVER: `next` over the call does not enter it
    assert _construct_runs(net, x) == 0


def test_when_imported_runs_after_the_module_executed_and_leaves_no_trace(tmp_path, monkeypatch, capsys):
    import inspect as _inspect

    from spore_debug.debuggee import deferred

    (tmp_path / "deferred_target_mod.py").write_text("def f():\n    return 1\n\nLAST = 'set at the end'\n")
    (tmp_path / "deferred_failing_mod.py").write_text("VALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []
    deferred.when_imported("deferred_target_mod", lambda m: seen.append(getattr(m, "LAST", None)))
    deferred.when_imported("deferred_failing_mod", lambda m: 1 / 0)
    assert seen == []
    import deferred_failing_mod
    import deferred_target_mod

    assert seen == ["set at the end"]  # called once the module's body had run
    assert type(deferred_target_mod.__loader__).__name__ == "SourceFileLoader"  # the real loader again
    assert "return 1" in _inspect.getsource(deferred_target_mod.f)
    assert deferred_failing_mod.VALUE == 2  # a failing hook does not break the program's import
    assert "a hook on deferred_failing_mod failed" in capsys.readouterr().err
    assert not any(type(f).__name__ == "_AfterImport" for f in sys.meta_path)  # nothing pending: gone
    deferred.when_imported("deferred_target_mod", lambda m: seen.append("now"))  # already loaded: at once
    assert seen[-1] == "now"
    for name in ("deferred_target_mod", "deferred_failing_mod"):
        sys.modules.pop(name, None)
