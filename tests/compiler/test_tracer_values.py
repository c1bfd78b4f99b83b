"""A traced tensor has no values: code that would read them either becomes graph ops (so every
call uses that call's values) or is refused on the user's line. These pin the cases that used to
bake a placeholder's zeros into the graph, and value checks that now run inside the kernels."""

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.ops.indexing import IndexOutOfRangeError


def both_modes(cell_factory, *calls):
    """Outputs of the same cell in PyNative and Graph mode over several calls."""
    out = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = cell_factory()
        out[mode] = [net(*[ms.Tensor(a) for a in args]) for args in calls]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return out[ms.PYNATIVE_MODE], out[ms.GRAPH_MODE]


def assert_same(eager, graph):
    for e, g in zip(eager, graph):
        e, g = (e, g) if isinstance(e, tuple) else ((e,), (g,))
        for a, b in zip(e, g):
            assert a.dtype is b.dtype and a.shape == b.shape
            np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-6)


X = np.arange(12, dtype=np.float32).reshape(4, 3) * 10


class Take(nn.Cell):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def construct(self, x, idx):
        return ops.take(x, idx, 0, mode=self.mode)


@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_take_clips_and_wraps_the_indices_of_each_call(mode):
    eager, graph = both_modes(lambda: Take(mode), (X, np.array([7, -2, 3])), (X, np.array([1, 9, -9])))
    assert_same(eager, graph)
    assert graph[0].asnumpy()[0].tolist() == X[3 if mode == "clip" else 3].tolist()


class Indexing(nn.Cell):
    def construct(self, x, t, u):
        return (x[t], x[t, 1:], x[:, u], x[t, u], x[x.argmax() // 3], x[ops.argsort(x[:, 0])],
                x[..., None, u[0]])


def test_tensor_indices_read_the_rows_of_each_call():
    eager, graph = both_modes(Indexing, (X, np.array([3, 0, -1]), np.array([2, 0, 1])),
                              (X * -1, np.array([1, 1, 2]), np.array([0, 0, 2])))
    assert_same(eager, graph)


class Writes(nn.Cell):
    def construct(self, x, t, v):
        y = x * 1
        y[0] = v
        y[t[0]] += 10
        y[:, 1:3] = v[:2]
        y[y > 50] = 0
        z = ops.zeros((4, 3))
        z[t] = 1.0
        w = x * 1
        w.fill_(2.0)
        w.set_dtype(ms.float64)
        return y, z, w


def test_in_place_writes_are_seen_by_every_later_read():
    eager, graph = both_modes(Writes, (X, np.array([2, 1, 3]), np.array([1, 2, 3], np.float32)),
                              (X / 2, np.array([0, 0, 1]), np.array([7, 8, 9], np.float32)))
    assert_same(eager, graph)


class WritesInput(nn.Cell):
    def construct(self, x, t):
        x[t] = -1.0
        return x.sum()


def test_a_write_into_an_argument_reaches_the_callers_tensor():
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = WritesInput()
        for k in range(2):
            x = ms.Tensor(X.copy())
            s = net(x, ms.Tensor(np.array([k, 3])))
            want = X.copy()
            want[[k, 3]] = -1
            np.testing.assert_array_equal(x.asnumpy(), want)
            assert float(s.asnumpy()) == float(want.sum())


class OutOfRange(nn.Cell):
    def construct(self, x, idx):
        return ops.gather(x, idx, 0)  # <- the bad index is reported here


def test_an_out_of_range_index_found_while_the_graph_runs_names_the_users_line():
    import inspect

    src, first = inspect.getsourcelines(OutOfRange.construct)
    line = first + next(i for i, s in enumerate(src) if "<- the bad index" in s)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = OutOfRange()
        net(ms.Tensor(X), ms.Tensor(np.array([0, 3])))
        with pytest.raises(IndexOutOfRangeError, match="index 4") as info:
            net(ms.Tensor(X), ms.Tensor(np.array([4, 0])))
        assert info.value.loc.file == __file__ and info.value.loc.line == line


class NLL(nn.Cell):
    def __init__(self):
        super().__init__()
        self.nll = ops.NLLLoss(reduction="mean", ignore_index=1)

    def construct(self, logits, labels, weight):
        return self.nll(logits, labels, weight)


def test_nll_loss_total_weight_is_computed_from_each_calls_labels():
    r = np.random.default_rng(0)
    calls = [(r.standard_normal((5, 3)).astype(np.float32), np.array(lab, np.int32),
              np.array([0.5, 2.0, 3.0], np.float32)) for lab in ([0, 2, 2, 1, 0], [1, 1, 2, 0, 2])]
    eager, graph = both_modes(NLL, *calls)
    assert_same(eager, graph)
    assert graph[0][1].asnumpy() == pytest.approx(0.5 + 3 + 3 + 0.5)


class Renorm(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = ms.Parameter(ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3)), name="table")

    def construct(self, ids):
        return ops.embedding(ids, self.table, max_norm=5.0)


def test_embedding_max_norm_renormalises_the_rows_each_call_looks_up():
    eager, graph = both_modes(Renorm, (np.array([0, 1]),), (np.array([3, 3]),))
    assert_same(eager, graph)


class Scheduled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lr = nn.CosineDecayLR(0.01, 0.1, 4)

    def construct(self, step):
        return self.lr(step)


def test_a_learning_rate_schedule_called_in_construct_follows_the_step():
    eager, graph = both_modes(Scheduled, *[(np.array(s, np.int32),) for s in (0, 2, 5)])
    assert_same(eager, graph)
    assert len({float(g.asnumpy()) for g in graph}) == 3


class Perm(nn.Cell):
    def construct(self, x):
        return x[ops.randperm(4)]


def test_randperm_draws_a_new_permutation_on_every_run():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Perm()
    rows = {tuple(net(ms.Tensor(np.arange(4.0, dtype=np.float32))).asnumpy().tolist()) for _ in range(12)}
    assert len(rows) > 1


class OneHotTensors(nn.Cell):
    def construct(self, idx, on, off):
        return ops.one_hot(idx, 4, on, off)


def test_one_hot_takes_tensor_on_and_off_values():
    f32 = np.float32
    eager, graph = both_modes(OneHotTensors, (np.array([0, 3, 1]), np.array(2.5, f32), np.array(-1.0, f32)),
                              (np.array([2, 2, 0]), np.array(7.0, f32), np.array(0.5, f32)))
    assert_same(eager, graph)


class Unique(nn.Cell):
    def construct(self, x):
        return ops.unique(x)[0]  # <- refused


class Strides(nn.Cell):
    def construct(self, x):
        return x.strides  # <- refused


@pytest.mark.parametrize("cls,match", [(Unique, "depends on the input's values"), (Strides, "strides")])
def test_value_dependent_results_are_refused_on_the_users_line(cls, match):
    import inspect

    src, first = inspect.getsourcelines(cls.construct)
    line = first + next(i for i, s in enumerate(src) if "<- refused" in s)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    with pytest.raises(ms.GraphCompileError, match=match) as info:
        cls()(ms.Tensor(np.array([3.0, 1.0, 3.0], np.float32)))
    assert info.value.loc.line == line
