"""Execution observers see every op in both modes — PyNative kernels, Graph-mode nodes (inside
`if`/`while` bodies too), graph-break statements — with the op, the user's line and the values;
their exceptions stop the run; nothing is reported once they are removed."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops


class Log:
    """Records (op, mode, line, input values, output values) of every event."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.seen_before: list[str] = []

    def before(self, event) -> None:
        assert event.outputs == []  # nothing has run yet
        self.seen_before.append(event.op)

    def after(self, event) -> None:
        loc = event.loc
        self.events.append((event.op, event.mode, loc.line if loc else None,
                            [np.array(a, copy=True) for a in event.inputs],
                            [np.array(o, copy=True) for o in event.outputs], event.duration))


def f(x, y):
    z = ops.matmul(x, y)
    return ops.relu(z) + 1.0


LINE = inspect.getsourcelines(f)[1]


def test_pynative_kernels_are_reported_with_line_and_values():
    x = ms.Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
    y = ms.Tensor(np.eye(2, dtype=np.float32))
    log = Log()
    with ide.observe_ops(log):
        out = f(x, y)
    ops_seen = [e[0] for e in log.events]
    assert ops_seen == ["MatMul", "ReLU", "Add"] == log.seen_before
    assert all(e[1] == "pynative" for e in log.events)
    assert [e[2] for e in log.events] == [LINE + 1, LINE + 2, LINE + 2]
    mm = log.events[0]
    np.testing.assert_array_equal(mm[3][0], x.asnumpy())
    np.testing.assert_array_equal(mm[4][0], x.asnumpy() @ y.asnumpy())
    np.testing.assert_array_equal(log.events[-1][4][0], out.asnumpy())
    assert all(e[5] >= 0 for e in log.events)


def test_graph_nodes_are_reported_with_the_users_line():
    g = ms.jit(f, fullgraph=True)
    x = ms.Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
    y = ms.Tensor(np.eye(2, dtype=np.float32))
    g(x, y)  # compile outside the observer
    log = Log()
    with ide.observe_ops(log):
        out = g(x, y)
    assert log.events and all(e[1] == "graph" for e in log.events)
    assert {e[2] for e in log.events} <= {LINE + 1, LINE + 2}
    np.testing.assert_allclose(log.events[-1][4][0], out.asnumpy())
    # the observed run computes what the plain run computes
    np.testing.assert_allclose(out.asnumpy(), np.maximum(x.asnumpy() @ y.asnumpy(), 0) + 1)


class Loop(nn.Cell):
    def construct(self, x, n):
        i = ms.Tensor(0, ms.int32)
        while i < n:
            x = x * 2.0
            i = i + 1
        if x.sum() > 10.0:
            x = x - 1.0
        return x


def test_nodes_inside_while_and_if_bodies_are_reported_each_time_they_run():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Loop()
    x = ms.Tensor(np.ones(3, np.float32))
    n = ms.Tensor(3, ms.int32)
    expected = net(x, n).asnumpy()
    log = Log()
    with ide.observe_ops(log):
        out = net(x, n)
    np.testing.assert_array_equal(out.asnumpy(), expected)
    body_line = inspect.getsourcelines(Loop.construct)[1] + 3  # x = x * 2.0
    muls = [e for e in log.events if e[0] == "Mul" and e[2] == body_line]
    assert len(muls) == 3  # one per iteration
    np.testing.assert_array_equal(muls[-1][4][0], np.full(3, 8.0, np.float32))
    assert any(e[0] == "Sub" for e in log.events)  # the taken branch


class Boom(Exception):
    pass


class StopAt:
    def __init__(self, op: str) -> None:
        self.op = op

    def before(self, event) -> None:
        if self.op == event.op or self.op in event.fused:  # (Graph mode may fuse it with its neighbours)
            raise Boom(event.op)

    def after(self, event) -> None:
        pass


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_an_observer_can_stop_the_run(mode):
    x = ms.Tensor(np.ones((2, 2), np.float32))
    fn = f if mode == "pynative" else ms.jit(f, fullgraph=True)
    with ide.observe_ops(StopAt("ReLU")), pytest.raises(Boom):
        fn(x, x)
    fn(x, x)  # removed on exit: runs normally again


def test_removed_observers_see_nothing_and_bad_observers_are_refused():
    log = Log()
    x = ms.Tensor(np.ones((2, 2), np.float32))
    with ide.observe_ops(log):
        pass
    f(x, x)
    assert log.events == []
    ide.add_observer(log)
    try:
        f(x, x)
    finally:
        ide.remove_observer(log)
    n = len(log.events)
    assert n == 3
    f(x, x)
    assert len(log.events) == n
    with pytest.raises(TypeError, match="before"):
        ide.add_observer(object())
    assert not ide.is_busy()


def test_graph_break_statements_are_one_python_event():
    class Printing(nn.Cell):
        def construct(self, x):
            y = x * 2.0
            print("y", y.shape)
            return y + 1.0

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Printing()
    x = ms.Tensor(np.ones(2, np.float32))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net(x)
        log = Log()
        with ide.observe_ops(log):
            net(x)
    kinds = [(e[0], e[1]) for e in log.events]
    assert ("GraphBreak", "python") in kinds
    brk = next(e for e in log.events if e[0] == "GraphBreak")
    assert brk[2] == inspect.getsourcelines(Printing.construct)[1] + 2
    assert ("Mul", "graph") in kinds and ("Add", "graph") in kinds
