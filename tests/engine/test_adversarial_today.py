"""Adversarial Graph-vs-PyNative checks of issue 14's vision / sequence-loss / misc / quant ops that one
differential case cannot express (the single-call cases are tests/compiler/differential/cases_adversarial_ops.py):

- randomness over repeated calls: with `set_seed` both modes must draw the same sequence of windows / noise /
  samples call after call (Spore's rule: an unseeded op advances the global generator, an op with a nonzero
  seed draws the same values on every call), also when a random op sits inside value_and_grad in the graph;
- state written in place over several steps: `ops.SGD` / `ApplyAdagradDA` / `LARSUpdate` on a Cell's
  Parameters, read back inside the same construct; QAT nets (BN folding with `freeze_bn`, `quant_delay`,
  per-channel) and `nn.AdaFactor` / `nn.LARS` in a compiled `TrainOneStepCell`;
- the Tensor internals (`set_`, storage writes, `index`, `assign_value_cpp`, ...) used inside construct;
- NumPy oracles for edge cases in both modes: CTC with impossible and zero-length targets under every
  reduction and `zero_infinity` (its gradient by finite differences), grid_sample for every mode /
  padding_mode / align_corners with points on and far beyond the border;
- ROIAlign with no RoIs (both modes used to fail in a Reshape).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.ops import summary_ops
from spore.quant.qat import QuantizationAwareTraining

from ..compiler.differential.cases_tensor_nn import C, G, fl
from ..compiler.differential.harness import Probe, _split, run_case


@pytest.fixture(autouse=True)
def _pynative_after():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # graph-break notices
        yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)


def _snap(o):
    if isinstance(o, (tuple, list)):
        return [_snap(v) for v in o]
    return o.asnumpy().copy() if isinstance(o, ms.Tensor) else o


def _assert_same(a, b, what: str) -> None:
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), what
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{what}[{i}]")
        return
    if isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, what
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=what)
        return
    assert a == b, what


def _repeated(make_net, inputs: list[np.ndarray], calls: int = 3) -> list:
    """`calls` calls of a fresh net after set_seed(7) in PyNative and in Graph mode; asserts that every
    output and the Parameters after the last call agree, and returns PyNative's outputs."""
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = make_net()
        ms.set_seed(7)
        outs = [_snap(net(*[ms.Tensor(x) for x in inputs])) for _ in range(calls)]
        runs.append((outs, [p.asnumpy().copy() for p in net.get_parameters()]))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for k in range(calls):
        _assert_same(runs[0][0][k], runs[1][0][k], f"call {k + 1}")
    _assert_same(runs[0][1], runs[1][1], "parameters")
    return runs[0][0]


def _differs(a, b) -> bool:
    return any(not np.array_equal(x, y) for x, y in zip(np.atleast_1d(a) if not isinstance(a, list) else a,
                                                         np.atleast_1d(b) if not isinstance(b, list) else b))


# --- randomness over repeated calls ------------------------------------------------------------------------
class FracPool2d(nn.Cell):
    def construct(self, x):
        return ops.fractional_max_pool2d(x, 2, (3, 3), return_indices=True)


class FracPool3d(nn.Cell):
    def construct(self, x):
        return ops.fractional_max_pool3d(x, 2, (3, 3, 3))


class MixedRandom(nn.Cell):
    """Global-generator draws of several ops interleaved: the order must be PyNative's."""

    def construct(self, x):
        a = ops.standard_normal((3,))
        y = ops.fractional_max_pool2d(x, 2, (3, 3))
        b = ops.uniform((2,), ms.Tensor(0.0), ms.Tensor(1.0))
        z = ops.fractional_max_pool2d(x, 2, output_ratio=0.5)
        return a, y, b, z


class PoolValueAndGrad(nn.Cell):
    """The windows of the value and of its gradient are one draw, in both modes."""

    def construct(self, x):
        return ms.value_and_grad(lambda a: (ops.fractional_max_pool2d(a, 2, (3, 3)) ** 2).sum())(x)


class TFPool(nn.Cell):
    def __init__(self, cls, seed: int = 0, **kw) -> None:
        super().__init__()
        self.p = cls([1.0, 1.5, 1.5, 1.0], seed=seed, **kw)

    def construct(self, x):
        return ms.value_and_grad(lambda a: (self.p(a)[0] ** 2).sum())(x), self.p(x)


class Glimpse(nn.Cell):
    def __init__(self, noise: str) -> None:
        super().__init__()
        self.g = ops.ExtractGlimpse(uniform_noise=noise == "uniform", noise=noise)

    def construct(self, x):
        return self.g(x, ms.Tensor(np.array([3, 4], np.int32)), ms.Tensor(np.array([[0.9, -0.95]], np.float32)))


class Sampler(nn.Cell):
    def __init__(self, op) -> None:
        super().__init__()
        self.op = op

    def construct(self, t):
        return self.op(t)


_X7 = np.random.default_rng(0).standard_normal((1, 2, 7, 7)).astype(np.float32)  # non-integer window stride
_X5D = np.random.default_rng(1).standard_normal((1, 1, 7, 7, 7)).astype(np.float32)
_NHWC = np.random.default_rng(2).standard_normal((1, 9, 9, 2)).astype(np.float32)


def test_unseeded_fractional_pools_advance_alike_in_both_modes():
    for net, x in ((FracPool2d, _X7), (FracPool3d, _X5D), (MixedRandom, _X7), (PoolValueAndGrad, _X7)):
        outs = _repeated(net, [x])
        assert _differs(outs[0], outs[1]) or _differs(outs[1], outs[2]), f"{net.__name__}: the draws never advanced"


def test_tf_fractional_pools_seeded_repeat_unseeded_advance():
    for cls in (ops.FractionalMaxPool, ops.FractionalAvgPool):
        outs = _repeated(lambda c=cls: TFPool(c), [_NHWC])
        assert _differs(outs[0], outs[1]) or _differs(outs[1], outs[2]), f"{cls.__name__}: unseeded draws repeat"
        outs = _repeated(lambda c=cls: TFPool(c, seed=3), [_NHWC])
        for k in (1, 2):  # Spore's rule for seeded ops: the same regions on every call
            _assert_same(outs[0], outs[k], f"{cls.__name__}(seed=3) call {k + 1}")


def test_glimpse_noise_and_candidate_samplers_advance_alike():
    for noise in ("uniform", "gaussian"):
        outs = _repeated(lambda n=noise: Glimpse(n), [_NHWC[:, :6, :6]])
        assert _differs(outs[0], outs[1])
    tc = np.array([[1], [3]], np.int64)
    for make in (lambda: ops.UniformCandidateSampler(1, 3, True, 6),
                 lambda: ops.UniformCandidateSampler(1, 3, True, 6, 5),  # its own generator advances per call
                 lambda: ops.LogUniformCandidateSampler(1, 3, True, 6)):
        outs = _repeated(lambda m=make: Sampler(m()), [tc], calls=4)
        assert any(_differs(outs[0][0], outs[k][0]) for k in (1, 2, 3))


# --- Parameters written in place over several steps ----------------------------------------------------------
def _param(shape, seed: int, name: str, positive: bool = False) -> ms.Parameter:
    v = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ms.Parameter(ms.Tensor(np.abs(v) if positive else v), name=name)


class SGDSteps(nn.Cell):
    """Two SGD steps per call, each on a gradient taken inside the construct, with reads in between."""

    def __init__(self, nesterov: bool) -> None:
        super().__init__()
        self.w, self.acc = _param((3,), 1, "w"), _param((3,), 2, "acc")
        self.stat = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="stat")
        self.op = ops.SGD(0.0, 0.01, nesterov)

    def construct(self, x):
        before = self.w * 1
        g = ms.grad(lambda w: ((w * x) ** 2).sum())(self.w)
        out = self.op(self.w, g, 0.1, self.acc, 0.9, self.stat)
        after = self.w * 1
        g2 = ms.grad(lambda w: ((w * x) ** 2).sum())(self.w)
        self.op(self.w, g2, 0.1, self.acc, 0.9, self.stat)
        return before, out, after, self.w + 0, self.acc + 0, self.stat + 0


class SGDLoopBranch(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w, self.acc = _param((3,), 1, "w"), _param((3,), 2, "acc")
        self.stat = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="stat")
        self.op = ops.SGD(0.1)

    def construct(self, x):
        sums = []
        for i in range(3):
            g = ms.grad(lambda w: ((w - x) ** 2).sum())(self.w)
            self.op(self.w, g, 0.05 * (i + 1), self.acc, 0.5, self.stat)
            sums.append(self.w.sum())
        if self.w.sum() > 0:
            self.op(self.w, x, 0.1, self.acc, 0.9, self.stat)
        else:
            self.op(self.w, -x, 0.2, self.acc, 0.0, self.stat)
        return sums[0], sums[1], sums[2], self.w * 2


class AdagradDASteps(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w, self.ga, self.gs = _param((3,), 1, "w"), _param((3,), 2, "ga"), _param((3,), 3, "gs", True)
        self.step = ms.Parameter(ms.Tensor(np.array(1, np.int32)), name="step")
        self.op = ops.ApplyAdagradDA()

    def construct(self, x):
        g = ms.grad(lambda w: ((w * x - 1) ** 2).sum())(self.w)
        (v,) = self.op(self.w, self.ga, self.gs, g, 0.1, 0.01, 0.001, self.step)
        self.step += 1
        mid = self.w * 1
        (v2,) = self.op(self.w, self.ga, self.gs, g * 0.5, 0.1, 0.0, 0.001, self.step)
        return v, mid, v2, self.ga + 0, self.gs + 0, self.step + 0


class LarsSteps(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.w = _param((3,), 1, "w")
        self.op = ops.LARSUpdate(1e-5, 0.01, True)

    def construct(self, x):
        g = ms.grad(lambda w: ((w * x) ** 2).sum())(self.w)
        d = self.op(self.w, g, ops.reduce_sum(self.w * self.w), ops.reduce_sum(g * g), 0.01, 0.1)
        ops.assign_sub(self.w, d * 0.1)
        return d, self.w + 0


_XX = np.array([0.5, -1.0, 2.0], np.float32)


def test_optimizer_step_primitives_update_parameters_alike_over_steps():
    for make in (lambda: SGDSteps(False), lambda: SGDSteps(True), SGDLoopBranch, AdagradDASteps, LarsSteps):
        outs = _repeated(make, [_XX], calls=3)
        assert _differs(outs[0], outs[1])  # the state advanced between calls


def test_sgd_step_against_numpy():
    """One call of SGDSteps(False) against MindSpore's SGD rule written out in NumPy."""
    net = SGDSteps(False)
    w, acc, stat = (p.asnumpy().astype(np.float64).copy() for p in (net.w, net.acc, net.stat))
    ms.set_context(mode=ms.GRAPH_MODE)
    got = _snap(net(ms.Tensor(_XX)))
    x = _XX.astype(np.float64)
    for _ in range(2):
        g = 2 * w * x * x + 0.01 * w
        acc = np.where(stat > 0, g, acc * 0.9 + g)
        stat = np.zeros_like(stat)
        w = w - 0.1 * acc
    np.testing.assert_allclose(got[3], w, rtol=1e-5)
    np.testing.assert_allclose(got[4], acc, rtol=1e-5)
    np.testing.assert_array_equal(got[5], stat)


class SmallNet(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, pad_mode="valid", has_bias=False)
        self.bn = nn.BatchNorm2d(3)
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(3 * 4 * 4, 4)

    def construct(self, x):
        return self.fc(self.flat(self.relu(self.bn(self.conv(x)))))


def _train(mode, make, optimizer, steps: int = 4):
    ms.set_context(mode=mode)
    ms.set_seed(11)
    net = make()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               optimizer(net.trainable_params()))
    step.set_train()
    r = np.random.default_rng(0)
    losses = [float(step(ms.Tensor(r.standard_normal((2, 1, 6, 6)).astype(np.float32)),
                         ms.Tensor(r.integers(0, 4, 2).astype(np.int32))).asnumpy()) for _ in range(steps)]
    state = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    net.set_train(False)
    ev = net(ms.Tensor(np.ones((1, 1, 6, 6), np.float32))).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, state, ev


def _same_training(make, optimizer) -> None:
    (la, pa, ea), (lb, pb, eb) = _train(ms.PYNATIVE_MODE, make, optimizer), _train(ms.GRAPH_MODE, make, optimizer)
    np.testing.assert_allclose(la, lb, rtol=1e-5, atol=1e-6)
    assert sorted(pa) == sorted(pb)
    for k in pa:
        np.testing.assert_allclose(pa[k], pb[k], rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(ea, eb, rtol=1e-4, atol=1e-5)
    assert len(set(la)) > 1


def _momentum(params):
    return nn.Momentum(params, 0.1, 0.9)


@pytest.mark.parametrize("kw", [
    {"bn_fold": True, "freeze_bn": 2},  # the BN statistics freeze between step 2 and 3
    {"bn_fold": False, "quant_delay": (2, 2)},  # fake quantization starts at step 3
    {"bn_fold": True, "freeze_bn": 3, "quant_delay": (1, 3), "per_channel": (True, False), "symmetric": (True, False)},
], ids=["fold-freeze2", "nofold-delay2", "fold-perchannel"])
def test_qat_training_steps_alike_in_both_modes(kw):
    _same_training(lambda: QuantizationAwareTraining(**kw).quantize(SmallNet()), _momentum)


@pytest.mark.parametrize("optimizer", [
    lambda p: nn.AdaFactor(p, learning_rate=None, relative_step=True, warmup_init=True, scale_parameter=True),
    lambda p: nn.AdaFactor(p, learning_rate=0.05, relative_step=False, scale_parameter=False, beta1=0.9,
                           weight_decay=0.01),
    lambda p: nn.LARS(nn.SGD(p, 0.1, weight_decay=0.01), coefficient=0.02, use_clip=True),
], ids=["adafactor-relative-warmup", "adafactor-beta1-decay", "lars-sgd-clip"])
def test_adafactor_lars_variants_train_alike(optimizer):
    _same_training(SmallNet, optimizer)


# --- Tensor internals inside construct --------------------------------------------------------------------------
def set_then_use(x, y):
    x.set_(y)
    return x * 2


def set_from_storage(x, y):
    x.set_(y.untyped_storage(), 1, (2,))
    return x + 1


def storage_write(x):
    s = x.untyped_storage()
    s[0] = 0
    return x * 1


def storage_fill(x):
    x.storage().fill_(0)
    return x + 0


def assign_cpp_then_use(x, y):
    z = x.assign_value_cpp(y * 3)
    return z + 1, x


def index_grad(x, i):
    return ms.grad(lambda a: (a.index([i]) ** 2).sum())(x)


def index_mask(x, m):
    return x.index([m])


def index_none(x, j):
    return x.index([None, j])


def bytes_round_trip(x):
    return ms.Tensor.convert_bytes_to_tensor((x * 2).get_bytes(), (2, 3), ms.float32)


def delete_then_use(x):
    x.delete_()
    return x + 1


def _fixed(a: np.ndarray) -> G:
    return G(lambda r: a.copy())


INTERNAL_CASES = [
    C("Tensor.set_[then use]", set_then_use, fl(2, 3), fl(3, 2)),
    C("Tensor.set_[storage offset]", set_from_storage, fl(3), fl(4)),
    C("Tensor.untyped_storage[byte write]", storage_write, fl(3)),
    C("Tensor.storage[fill_]", storage_fill, fl(3)),
    C("Tensor.assign_value_cpp[then use]", assign_cpp_then_use, fl(2, 3), fl(2, 3)),
    C("Tensor.index[grad, repeated rows]", index_grad, fl(4, 3), _fixed(np.array([0, 2, 2], np.int64))),
    C("Tensor.index[bool mask]", index_mask, fl(4, 3), _fixed(np.array([True, False, True, True]))),
    C("Tensor.index[None then index]", index_none, fl(4, 3), _fixed(np.array([2, 0], np.int32))),
    C("Tensor.get_bytes[round trip]", bytes_round_trip, fl(2, 3)),
    C("Tensor.delete_[then use]", delete_then_use, fl(2)),
]


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
@pytest.mark.parametrize("case", INTERNAL_CASES, ids=[c.name for c in INTERNAL_CASES])
def test_tensor_internals_inside_construct(case, level):
    ms.set_context(jit_syntax_level=getattr(ms, level))
    outcome = run_case(case)
    assert outcome.kind in ("identical", "refused"), f"{case.name}: {outcome.kind}: {outcome.detail}"
    if level == "LAX":
        assert outcome.kind == "identical", outcome.detail  # a graph break runs it with PyNative's behaviour


# --- summaries staged from a compiled construct ---------------------------------------------------------------
class Summaries(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.s, self.t, self.h = ops.ScalarSummary(), ops.TensorSummary(), ops.HistogramSummary()

    def construct(self, x):
        self.s("loss", x.sum())
        y = x * 2
        self.t("y", y)
        if x.sum() > 0:
            self.h("pos", y)
        g = ms.grad(lambda a: (a * a).sum())(x)
        self.s("gnorm", g.sum())
        return y


def test_summaries_stage_the_same_values_per_call():
    staged = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net, per_call = Summaries(), []
        summary_ops.take_pending()
        for v in ([1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]):
            net(ms.Tensor(np.array(v, np.float32)))
            per_call.append(sorted((p, n, v.tolist()) for p, n, v in summary_ops.take_pending()))
        staged.append(per_call)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert staged[0] == staged[1]
    assert [len(c) for c in staged[0]] == [4, 3, 4]  # the histogram only when the sum is positive
    assert ("scalar", "gnorm", 6.0) in staged[0][0]


# --- NumPy oracles for edge cases, in both modes --------------------------------------------------------------
def _call(mode, fn, *args, **kw):
    """fn(*args) in `mode`, arrays as Tensor inputs of a compiled construct (the harness's Probe)."""
    ms.set_context(mode=mode)
    template, kw_template, kw_names, arrays = _split(args, kw)
    try:
        return Probe(fn, template, kw_template, kw_names)(*[ms.Tensor(a) for a in arrays])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _logsumexp(v: list[float]) -> float:
    m = max(v)
    return m if m == -np.inf else m + float(np.log(sum(np.exp(x - m) for x in v)))


def _ctc_numpy(lp: np.ndarray, targets: np.ndarray, in_lens, tgt_lens, blank: int = 0) -> np.ndarray:
    """The CTC negative log-likelihood per batch row by the alpha recursion over the blank-extended label."""
    out = []
    for b in range(lp.shape[1]):
        ext = [blank]
        for c in targets[b][:tgt_lens[b]]:
            ext += [int(c), blank]
        alpha = np.full(len(ext), -np.inf)
        alpha[0] = lp[0, b, blank]
        if len(ext) > 1:
            alpha[1] = lp[0, b, ext[1]]
        for t in range(1, in_lens[b]):
            nxt = np.full(len(ext), -np.inf)
            for s in range(len(ext)):
                terms = [alpha[s]] + ([alpha[s - 1]] if s >= 1 else [])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    terms.append(alpha[s - 2])
                nxt[s] = _logsumexp(terms) + lp[t, b, ext[s]]
            alpha = nxt
        out.append(-_logsumexp([alpha[-1]] + ([alpha[-2]] if len(ext) > 1 else [])))
    return np.array(out)


_R = np.random.default_rng(5)
_Z = _R.standard_normal((5, 4, 4))
_LP = _Z - np.log(np.exp(_Z).sum(-1, keepdims=True))
_TGT = np.array([[1, 2, 2], [3, 3, 3], [1, 0, 0], [2, 1, 3]], np.int64)
_IN, _TL = (5, 4, 3, 2), (3, 3, 0, 3)  # row 1 needs 5 frames (has 4), row 3 needs 3 (has 2): infinite loss


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_ctc_edge_cases_against_numpy(reduction, zero_infinity):
    ref = _ctc_numpy(_LP, _TGT, _IN, _TL)
    assert np.isinf(ref[1]) and np.isinf(ref[3]) and np.isfinite(ref[[0, 2]]).all()
    if zero_infinity:
        ref[np.isinf(ref)] = 0.0
    want = {"none": ref, "sum": ref.sum(), "mean": (ref / np.maximum(_TL, 1)).mean()}[reduction]
    lp = _LP.astype(np.float32)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        got = _call(mode, ops.ctc_loss, lp, _TGT, _IN, _TL, 0, reduction, zero_infinity)[0].asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        cell = nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)
        got = _call(mode, cell, lp, _TGT, np.array(_IN), np.array(_TL)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def ctc_sum_zero_inf_grad(lp, t):
    return ms.grad(lambda a: ops.ctc_loss(a, t, _IN, _TL, 0, "sum", True)[0])(lp)


def test_ctc_zero_infinity_gradient_by_finite_differences():
    def total(v: np.ndarray) -> float:
        ref = _ctc_numpy(v, _TGT, _IN, _TL)
        return float(ref[np.isfinite(ref)].sum())

    eps, fd = 1e-5, np.zeros_like(_LP)
    for idx in np.ndindex(_LP.shape):
        d = np.zeros_like(_LP)
        d[idx] = eps
        fd[idx] = (total(_LP + d) - total(_LP - d)) / (2 * eps)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        g = _call(mode, ctc_sum_zero_inf_grad, _LP, _TGT).asnumpy()
        assert np.isfinite(g).all()
        assert not g[:, 1].any() and not g[:, 3].any()  # the impossible rows contribute nothing
        np.testing.assert_allclose(g, fd, atol=1e-6)


def _reflect(c: np.ndarray, size: int, align_corners: bool) -> np.ndarray:
    lo, hi = (0.0, 2.0 * (size - 1)) if align_corners else (-1.0, 2.0 * size - 1)
    if hi <= lo:
        return np.zeros_like(c)
    half, span = lo / 2, (hi - lo) / 2
    c = np.abs(c - half)
    extra, flips = np.fmod(c, span), np.floor(c / span)
    return np.clip(np.where(flips % 2 == 0, extra + half, span - extra + half), 0, size - 1)


def _grid_sample_numpy(x: np.ndarray, grid: np.ndarray, mode: str, padding: str, align_corners: bool) -> np.ndarray:
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])
    for b, i, j in np.ndindex(n, *grid.shape[1:3]):
        gx, gy = grid[b, i, j]
        ix = (gx + 1) / 2 * (w - 1) if align_corners else ((gx + 1) * w - 1) / 2
        iy = (gy + 1) / 2 * (h - 1) if align_corners else ((gy + 1) * h - 1) / 2
        if padding == "border":
            ix, iy = np.clip(ix, 0, w - 1), np.clip(iy, 0, h - 1)
        elif padding == "reflection":
            ix, iy = _reflect(np.array(ix), w, align_corners), _reflect(np.array(iy), h, align_corners)

        def at(yy: int, xx: int) -> np.ndarray:
            return x[b, :, yy, xx] if 0 <= yy < h and 0 <= xx < w else np.zeros(c)

        if mode == "nearest":
            out[b, :, i, j] = at(int(np.rint(iy)), int(np.rint(ix)))  # round half to even, as the kernels
        else:
            x0, y0 = int(np.floor(ix)), int(np.floor(iy))
            wx, wy = ix - x0, iy - y0
            out[b, :, i, j] = (at(y0, x0) * (1 - wx) * (1 - wy) + at(y0, x0 + 1) * wx * (1 - wy)
                               + at(y0 + 1, x0) * (1 - wx) * wy + at(y0 + 1, x0 + 1) * wx * wy)
    return out


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_against_numpy(mode, padding, align_corners):
    r = np.random.default_rng(3)
    x = r.standard_normal((2, 2, 3, 4))
    grid = r.uniform(-3, 3, (2, 3, 5, 2))
    grid[0, 0, :4] = [[-1, -1], [1, 1], [-1, 1], [1, -1]]  # exactly on the corners
    grid[1, 0, :2] = [[3.0, -3.0], [-2.0, 2.0]]  # whole reflections away
    want = _grid_sample_numpy(x, grid, mode, padding, align_corners)
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        got = _call(m, ops.grid_sample, x, grid, mode, padding, align_corners).asnumpy()
        np.testing.assert_allclose(got, want, atol=1e-9)


# --- ROIAlign with no RoIs -------------------------------------------------------------------------------------------
def roi_grad_no_rois(x, rois):
    return ms.grad(lambda a: (ops.ROIAlign(2, 3, 0.5, 2)(a, rois) ** 2).sum())(x)


@pytest.mark.parametrize("sample_num", [2, 0])
def test_roi_align_without_rois_is_empty(sample_num):
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32)
    none = np.zeros((0, 5), np.float32)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        out = _call(mode, ops.ROIAlign(2, 3, 0.5, sample_num), x, none)
        assert out.shape == (0, 2, 2, 3) and out.dtype == ms.float32
        g = _call(mode, roi_grad_no_rois, x, none).asnumpy()
        assert g.shape == x.shape and not g.any()


# --- a second derivative of ctc_loss is refused alike -----------------------------------------------------------
def ctc_second_order(lp, t):
    return ms.grad(lambda a: ms.grad(lambda b: ops.ctc_loss(b, t, (4, 4), (2, 1))[0])(a).sum())(lp)


@pytest.mark.parametrize("level", ["LAX", "STRICT"])
def test_ctc_second_derivative_is_refused_in_both_modes(level):
    """CTCLossV2Grad has no gradient rule (nor has MindSpore's): PyNative raises GradError; Graph mode raises
    it too (LAX runs the statement as PyNative does) or refuses it at compile time on the user's line."""
    ms.set_context(jit_syntax_level=getattr(ms, level))
    lp = _LP[:4, :2, :3].astype(np.float32)
    t = np.array([[1, 2], [1, 1]], np.int64)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        with pytest.raises(ms.errors.SporeError, match="CTCLossV2Grad has no gradient rule"):
            _call(mode, ctc_second_order, lp, t)


# --- Python values a compiled graph baked in, changed between calls --------------------------------------------
GLOBAL_MASK = ms.Tensor(np.array([1.0, 0.0], np.float32))


class Configurable(nn.Cell):
    """Reads, while compiling, values a user may change between calls: attributes of Spore's own Cells and
    ops (their code runs over tracers, not interpreted), and non-plain attributes / globals of user code."""

    def __init__(self) -> None:
        super().__init__()
        self.ctc = nn.CTCLoss()
        self.roi = ops.ROIAlign(2, 2, 1.0, 2)
        self.gs = ops.GridSampler2D()
        self.mask = ms.Tensor(np.array([1.0, 0.0], np.float32))
        self.fn = ops.relu

    def construct(self, x, lp, t, f, r, g):
        return (self.ctc(lp, t, (4, 4), (2, 1)), self.roi(f, r), self.gs(f, g), x * self.mask,
                self.fn(x - 0.5), x * GLOBAL_MASK)


def _configurable_inputs() -> list:
    r = np.random.default_rng(0)
    z = r.standard_normal((4, 2, 3))
    return [np.array([1.0, -2.0], np.float32), (z - np.log(np.exp(z).sum(-1, keepdims=True))).astype(np.float32),
            np.array([[1, 2], [1, 1]], np.int64), np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5),
            np.array([[0, 0.3, 0.2, 4.6, 4.1]], np.float32), r.uniform(-1.2, 1.2, (1, 2, 2, 2)).astype(np.float32)]


def _edits(net: Configurable) -> list:
    def rebind_global() -> None:
        global GLOBAL_MASK
        GLOBAL_MASK = ms.Tensor(np.array([-1.0, 4.0], np.float32))

    return [lambda: setattr(net.ctc, "reduction", "sum"), lambda: setattr(net.ctc, "blank", 2),
            lambda: setattr(net.roi, "sample_num", 0), lambda: setattr(net.roi, "spatial_scale", 0.5),
            lambda: setattr(net.gs, "align_corners", True), lambda: setattr(net.gs, "padding_mode", "reflection"),
            lambda: setattr(net, "mask", ms.Tensor(np.array([2.0, 3.0], np.float32))),
            lambda: setattr(net, "roi", ops.ROIAlign(3, 1, 0.5, 1)), lambda: setattr(net, "fn", ops.sigmoid),
            rebind_global]


def test_graph_recompiles_when_a_baked_in_value_changes(monkeypatch):
    """Each edit changes what PyNative computes; Graph mode used to run its stale graph for all but the
    plain attributes of user Cells (nested Spore Cells' / ops' settings, rebound tensors, ops, functions)."""
    from spore.compiler import jit as jit_mod

    global GLOBAL_MASK
    start_mask = GLOBAL_MASK
    inputs = [ms.Tensor(a) for a in _configurable_inputs()]
    runs = []
    compiles = []
    real_compile = jit_mod.JitFunction.compile
    monkeypatch.setattr(jit_mod.JitFunction, "compile",
                        lambda self, *a, **k: compiles.append(self.name) or real_compile(self, *a, **k))
    try:
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            GLOBAL_MASK = start_mask
            ms.set_context(mode=mode)
            net = Configurable()
            outs = [_snap(net(*inputs))]
            for edit in _edits(net):
                edit()
                outs.append(_snap(net(*inputs)))
            before = len(compiles)
            outs.append(_snap(net(*inputs)))  # nothing changed: the last graph serves again
            assert len(compiles) == before
            runs.append(outs)
    finally:
        GLOBAL_MASK = start_mask
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for k, (a, b) in enumerate(zip(*runs)):
        _assert_same(a, b, f"after edit {k}")
        if 0 < k <= len(_edits(Configurable())):
            assert any(_differs(x, y) for x, y in zip(runs[0][k - 1], a)), f"edit {k} changed nothing"
    assert compiles  # Graph mode compiled (the edits before sample_num=0 recompile the whole construct; that one
    # needs the RoIs' values, so from then on the construct runs in segments around a graph break)


def test_nested_spore_cell_edit_recompiles_a_spore_root():
    """A Spore Cell compiled as the root (no user construct around it) is guarded too."""
    x = _configurable_inputs()
    lp, t = ms.Tensor(x[1]), ms.Tensor(x[2])
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        loss = nn.CTCLoss()
        first = loss(lp, t, ms.Tensor(np.array([4, 4])), ms.Tensor(np.array([2, 1]))).asnumpy()
        loss.reduction = "none"
        got[mode] = (first, loss(lp, t, ms.Tensor(np.array([4, 4])), ms.Tensor(np.array([2, 1]))).asnumpy())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got[ms.GRAPH_MODE][1].shape == (2,)
    for a, b in zip(got[ms.PYNATIVE_MODE], got[ms.GRAPH_MODE]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_training_steps_compile_once(monkeypatch):
    """The guards on Spore's own Cells and ops never recompile a training loop that changes nothing."""
    from spore.compiler import jit as jit_mod

    compiles = []
    real_compile = jit_mod.JitFunction.compile
    monkeypatch.setattr(jit_mod.JitFunction, "compile",
                        lambda self, *a, **k: compiles.append(self.name) or real_compile(self, *a, **k))
    for make in (SmallNet, lambda: QuantizationAwareTraining(bn_fold=True, freeze_bn=2).quantize(SmallNet())):
        compiles.clear()
        _train(ms.GRAPH_MODE, make, lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9)), steps=5)
        assert compiles.count("TrainOneStepCell.construct") == 1, compiles


class ConstantHolder(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.mask = ms.Tensor(np.array([1.0, 0.0], np.float32))

    def construct(self, x):
        return x * self.mask


def test_graph_recompiles_when_a_tensor_constant_is_written_in_place():
    """A concrete tensor the graph holds as a constant, written in place between calls (t[0] = v,
    assign_value): Graph mode used to keep the compiled values."""
    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = ConstantHolder()
        outs = [net(x).asnumpy()]
        net.mask[0] = 7.0
        outs.append(net(x).asnumpy())
        net.mask.assign_value(ms.Tensor(np.array([3.0, 3.0], np.float32)))
        outs.append(net(x).asnumpy())
        got[mode] = outs
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(got[ms.PYNATIVE_MODE], [[1.0, -0.0], [7.0, -0.0], [3.0, -6.0]])
    np.testing.assert_array_equal(got[ms.GRAPH_MODE], got[ms.PYNATIVE_MODE])


class CountsInABuffer(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.buf = ms.Tensor(np.array([1.0, 2.0], np.float32))

    def construct(self, x):
        self.buf[0] = self.buf[0] + 1  # a plain tensor (not a Parameter) written in place
        return self.buf * x


def test_a_tensor_attribute_written_inside_construct_advances_as_in_pynative():
    """Graph mode (a graph break around the write) used to compute every call from the compiled value,
    [2, 2] four times, where PyNative counts up; the constant's guard now sees the new buffer."""
    x = ms.Tensor(np.array([1.0, 1.0], np.float32))
    got = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = CountsInABuffer()
        got[mode] = [net(x).asnumpy().tolist() for _ in range(4)] + [net.buf.asnumpy().tolist()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got[ms.PYNATIVE_MODE] == [[2.0, 2.0], [3.0, 2.0], [4.0, 2.0], [5.0, 2.0], [5.0, 2.0]]
    assert got[ms.GRAPH_MODE] == got[ms.PYNATIVE_MODE]


def _closure_state():
    k = 1.0
    box = [ms.Tensor(np.array([1.0, 1.0], np.float32))]

    def scaled(x):
        return x * k

    def set_k(v: float) -> None:
        nonlocal k
        k = v

    def boxed(x):
        return x * box[0]

    return scaled, set_k, boxed, box


SCALED, SET_K, BOXED, BOX = _closure_state()


class ClosureAndClassState(nn.Cell):
    CONST = ms.Tensor(np.array([1.0, 2.0], np.float32))

    def construct(self, x):
        return SCALED(x), BOXED(x), x * self.CONST


def test_graph_recompiles_when_closure_or_class_state_changes():
    """A closure's free variable rebound by `nonlocal`, an item of a list it holds replaced, a class-level
    tensor attribute rebound: PyNative reads the new values; Graph mode used to keep the compiled ones."""
    x = ms.Tensor(np.array([1.0, 3.0], np.float32))
    edits = [lambda: SET_K(5.0), lambda: BOX.__setitem__(0, ms.Tensor(np.array([2.0, 3.0], np.float32))),
             lambda: setattr(ClosureAndClassState, "CONST", ms.Tensor(np.array([4.0, 4.0], np.float32)))]
    start = ClosureAndClassState.CONST
    got = {}
    try:
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            SET_K(1.0)
            BOX[0] = ms.Tensor(np.array([1.0, 1.0], np.float32))
            ClosureAndClassState.CONST = start
            ms.set_context(mode=mode)
            net = ClosureAndClassState()
            outs = [_snap(net(x))]
            for edit in edits:
                edit()
                outs.append(_snap(net(x)))
            got[mode] = outs
    finally:
        ClosureAndClassState.CONST = start
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(np.array(got[ms.PYNATIVE_MODE][-1]), [[5.0, 15.0], [2.0, 9.0], [4.0, 12.0]])
    for k, (a, b) in enumerate(zip(got[ms.PYNATIVE_MODE], got[ms.GRAPH_MODE])):
        _assert_same(a, b, f"after edit {k}")


class BreakingNet(nn.Cell):
    """ScaleAndTranslate and the adaptive ROIAlign read values on the host: graph breaks inside the
    training step, whose gradients must still reach the convolution and the Dense layer."""

    def __init__(self, sample_num: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="same")
        self.roi = ops.ROIAlign(2, 2, 1.0, sample_num)
        self.sat = ops.ScaleAndTranslate()
        self.fc = nn.Dense(8, 3)
        self.rois = ms.Tensor(np.array([[0, 0.5, 0.5, 4.0, 5.0], [0, 1, 1, 3, 2]], np.float32))

    def construct(self, x):
        f = self.conv(x).transpose(0, 2, 3, 1)
        g = self.sat(f, ms.Tensor(np.array([6, 6], np.int32)), ms.Tensor(np.array([1.0, 1.0], np.float32)),
                     ms.Tensor(np.array([0.0, 0.0], np.float32))).transpose(0, 3, 1, 2)
        return self.fc(self.roi(g, self.rois).reshape(2, -1))


@pytest.mark.parametrize("sample_num", [2, 0])
def test_training_through_graph_breaks_matches_pynative(sample_num):
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = BreakingNet(sample_num)
        start = [p.asnumpy().copy() for p in net.trainable_params()]
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                          reduction="mean")),
                                   nn.SGD(net.trainable_params(), 0.5))
        x = ms.Tensor(np.random.default_rng(0).standard_normal((1, 1, 6, 6)).astype(np.float32))
        losses = [float(step(x, ms.Tensor(np.array([0, 2], np.int32))).asnumpy()) for _ in range(3)]
        runs.append((losses, [p.asnumpy().copy() for p in net.trainable_params()], start))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    (la, pa, sa), (lb, pb, _) = runs
    np.testing.assert_allclose(la, lb, rtol=1e-5)
    for u, v, s0 in zip(pa, pb, sa):
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
        assert not np.array_equal(u, s0)  # every layer trained (no gradient lost at a break)
