"""Optimizers against independent float64 NumPy implementations of MindSpore's documented formulas.

Every update test runs several steps (so state carries over) through both the fused C++ path and the
NumPy path (`use_fused=False`), with weight decay, parameter groups, loss scaling and learning-rate
schedules. The oracles below are written from the formulas in MindSpore's docs and kernels, not
from Spore's code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import ShapeError

STEPS = 4
NAMES = ["fc.weight", "fc.bias", "bn.gamma", "bn.beta"]  # gamma/beta are skipped by the default decay filter
SHAPES = [(4, 3), (4,), (3,), (3,)]


def make_params(seed: int = 0, dtype=np.float32) -> list[ms.Parameter]:
    rng = np.random.default_rng(seed)
    return [ms.Parameter(ms.Tensor(rng.standard_normal(s).astype(dtype)), name=n) for n, s in zip(NAMES, SHAPES)]


def make_grads(seed: int = 1, dtype=np.float32) -> list[tuple[ms.Tensor, ...]]:
    rng = np.random.default_rng(seed)
    return [tuple(ms.Tensor(rng.standard_normal(s).astype(dtype)) for s in SHAPES) for _ in range(STEPS)]


def values(params) -> list[np.ndarray]:
    return [p.asnumpy().astype(np.float64) for p in params]


def run(opt, grads) -> None:
    for g in grads:
        out = opt(g)
        assert bool(out) is True


def decayed(name: str) -> bool:
    return "beta" not in name and "gamma" not in name


def check(params, want, rtol=2e-5, atol=2e-6) -> None:
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=rtol, atol=atol, err_msg=p.name)


FUSED = pytest.mark.parametrize("fused", [True, False], ids=["fused", "numpy"])


# --- oracles ---------------------------------------------------------------------------------------
def adam_oracle(p0, grads, lrs, wds, b1=0.9, b2=0.999, eps=1e-8, scale=1.0, nesterov=False, amsgrad=False):
    """MindSpore nn.Adam -> ops.Adam: eps added to sqrt(v), lr bias-corrected."""
    out = []
    for i, p in enumerate(p0):
        m = np.zeros_like(p)
        v = np.zeros_like(p)
        vh = np.zeros_like(p)
        for t, gs in enumerate(grads, start=1):
            g = gs[i].asnumpy().astype(np.float64) / scale + wds[i] * p
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            vh = np.maximum(vh, v)
            lr_t = lrs[t - 1][i] * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            if amsgrad:
                p = p - lr_t * m / (np.sqrt(vh) + eps)
            elif nesterov:
                p = p - lr_t * (b1 * m + (1 - b1) * g) / (np.sqrt(v) + eps)
            else:
                p = p - lr_t * m / (np.sqrt(v) + eps)
        out.append(p)
    return out


def torch_style_adam(p0, grads, lr, b1, b2, eps):
    """PyTorch's Adam (eps added to sqrt of the bias-corrected v): NOT what MindSpore computes."""
    out = []
    for i, p in enumerate(p0):
        m = np.zeros_like(p)
        v = np.zeros_like(p)
        for t, gs in enumerate(grads, start=1):
            g = gs[i].asnumpy().astype(np.float64)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        out.append(p)
    return out


def adamwd_oracle(p0, grads, lr, wds, b1=0.9, b2=0.999, eps=1e-6):
    out = []
    for i, p in enumerate(p0):
        m = np.zeros_like(p)
        v = np.zeros_like(p)
        for t, gs in enumerate(grads):
            g = gs[i].asnumpy().astype(np.float64)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            p = p - lr[t] * (m / (np.sqrt(v) + eps) + wds[t][i] * p)
        out.append(p)
    return out


def momentum_oracle(p0, grads, lrs, wds, u, nesterov=False, scale=1.0):
    out = []
    for i, p in enumerate(p0):
        v = np.zeros_like(p)
        for t, gs in enumerate(grads):
            g = gs[i].asnumpy().astype(np.float64) / scale + wds[i] * p
            v = u * v + g
            p = p - lrs[t][i] * ((g + u * v) if nesterov else v)
        out.append(p)
    return out


def sgd_oracle(p0, grads, lr, wd, u, dampening, nesterov):
    """`wd`: one decay for every parameter, or one per parameter."""
    out = []
    wds = wd if isinstance(wd, list) else [wd] * len(p0)
    for i, p in enumerate(p0):
        a = np.zeros_like(p)
        for t, gs in enumerate(grads):
            g = gs[i].asnumpy().astype(np.float64) + wds[i] * p
            if u > 0:
                a = g if t == 0 else u * a + (1 - dampening) * g
                g = g + u * a if nesterov else a
            p = p - lr * g
        out.append(p)
    return out


# --- Adam ------------------------------------------------------------------------------------------
@FUSED
def test_adam_matches_mindspore_formula_not_pytorchs_eps_placement(fused):
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.Adam(params, learning_rate=0.01, eps=0.1)  # a large eps makes its placement visible
    opt.use_fused = fused
    run(opt, grads)
    check(params, adam_oracle(p0, grads, [[0.01] * 4] * STEPS, [0.0] * 4, eps=0.1))
    torch_like = torch_style_adam(p0, grads, 0.01, 0.9, 0.999, 0.1)
    assert not np.allclose(params[0].asnumpy(), torch_like[0], rtol=1e-4)
    # the beta powers are float32 Parameters that count the steps
    np.testing.assert_allclose(opt.beta1_power.asnumpy(), 0.9 ** STEPS, rtol=1e-6)
    np.testing.assert_allclose(opt.beta2_power.asnumpy(), 0.999 ** STEPS, rtol=1e-6)


@FUSED
@pytest.mark.parametrize("nesterov,amsgrad", [(True, False), (False, True)])
def test_adam_weight_decay_skips_beta_gamma_and_variants(fused, nesterov, amsgrad):
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.Adam(params, learning_rate=0.02, weight_decay=0.1, use_nesterov=nesterov, use_amsgrad=amsgrad,
                  eps=1e-3, loss_scale=8.0)
    opt.use_fused = fused
    scaled = [tuple(ms.Tensor(g.asnumpy() * 8.0) for g in gs) for gs in grads]  # grads of the scaled loss
    run(opt, scaled)
    wds = [0.1 if decayed(n) else 0.0 for n in NAMES]
    check(params, adam_oracle(p0, grads, [[0.02] * 4] * STEPS, wds, eps=1e-3, nesterov=nesterov, amsgrad=amsgrad))
    assert (opt.vhat is not None) == amsgrad


@FUSED
def test_adam_groups_with_own_lr_decay_and_order(fused):
    params = make_params()
    w, b, gamma, beta = params
    p0, grads = values(params), make_grads()
    groups = [{"params": [w, gamma], "lr": 0.05, "weight_decay": 0.2},  # groups decay every member, gamma too
              {"params": [b, beta]},
              {"order_params": [w, b, gamma, beta]}]
    opt = nn.Adam(groups, learning_rate=0.01, weight_decay=0.0)
    opt.use_fused = fused
    assert [p.name for p in opt.parameters] == NAMES
    assert opt.decay_flags == (True, False, True, False)
    run(opt, grads)
    lrs = [[0.05, 0.01, 0.05, 0.01]] * STEPS
    check(params, adam_oracle(p0, grads, lrs, [0.2, 0.0, 0.2, 0.0]))
    np.testing.assert_allclose(opt.get_lr_parameter(w).asnumpy(), 0.05)
    assert opt.get_lr_parameter(b).name == "learning_rate"
    assert opt.get_lr_parameter([w, gamma])[1].name == "learning_rate_group_0"


@FUSED
def test_adam_with_schedule_and_list_learning_rates(fused):
    sched = nn.ExponentialDecayLR(0.1, 0.5, 1)  # lr = 0.1 * 0.5 ** step
    for lr in (sched, [0.1 * 0.5 ** t for t in range(STEPS)], ms.Tensor([0.1 * 0.5 ** t for t in range(STEPS)])):
        params = make_params()
        p0, grads = values(params), make_grads()
        opt = nn.Adam(params, learning_rate=lr)
        opt.use_fused = fused
        assert opt.dynamic_lr
        run(opt, grads)
        check(params, adam_oracle(p0, grads, [[0.1 * 0.5 ** t] * 4 for t in range(STEPS)], [0.0] * 4))
        assert int(opt.global_step.asnumpy()[0]) == STEPS


# --- AdamWeightDecay / AdamW ---------------------------------------------------------------------
@FUSED
def test_adam_weight_decay_is_decoupled_and_not_bias_corrected(fused):
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.3)
    opt.use_fused = fused
    run(opt, grads)
    wds = [[0.3 if decayed(n) else 0.0 for n in NAMES]] * STEPS
    check(params, adamwd_oracle(p0, grads, [0.01] * STEPS, wds))
    assert [s.name for s in opt.moments1] == [f"adam_m.{n}" for n in NAMES]
    assert nn.AdamW is nn.AdamWeightDecay


def test_adam_weight_decay_with_dynamic_weight_decay_and_lr():
    params = make_params()
    p0, grads = values(params), make_grads()
    wd_sched = nn.PolynomialDecayLR(0.4, 0.1, STEPS, 1.0)  # 0.4, 0.325, 0.25, 0.175
    opt = nn.AdamWeightDecay(params, learning_rate=nn.WarmUpLR(0.02, 2), weight_decay=wd_sched)
    assert opt.dynamic_weight_decay and opt.dynamic_lr
    run(opt, grads)
    lrs = [0.02 * min(t, 2) / 2 for t in range(STEPS)]
    wds = [[(0.4 - 0.1) * (1 - t / STEPS) + 0.1 if decayed(n) else 0.0 for n in NAMES] for t in range(STEPS)]
    check(params, adamwd_oracle(p0, grads, lrs, wds))


# --- Momentum and SGD ----------------------------------------------------------------------------
@FUSED
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_formula_with_decay_scale_and_groups(fused, nesterov):
    params = make_params()
    p0, grads = values(params), make_grads()
    groups = [{"params": params[:2], "lr": [0.1, 0.05, 0.02, 0.01]}, {"params": params[2:], "weight_decay": 0.05}]
    opt = nn.Momentum(groups, learning_rate=0.2, momentum=0.9, weight_decay=0.01, loss_scale=2.0,
                      use_nesterov=nesterov)
    opt.use_fused = fused
    scaled = [tuple(ms.Tensor(g.asnumpy() * 2.0) for g in gs) for gs in grads]
    run(opt, scaled)
    lrs = [[lr, lr, 0.2, 0.2] for lr in (0.1, 0.05, 0.02, 0.01)]
    check(params, momentum_oracle(p0, grads, lrs, [0.01, 0.01, 0.05, 0.05], 0.9, nesterov))
    assert [s.name for s in opt.moments] == [f"moments.{n}" for n in NAMES]


@FUSED
@pytest.mark.parametrize("momentum,dampening,nesterov", [(0.0, 0.0, False), (0.9, 0.2, False), (0.9, 0.0, True)])
def test_sgd_matches_formula_and_skips_beta_gamma_in_weight_decay(fused, momentum, dampening, nesterov):
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.SGD(params, learning_rate=0.05, momentum=momentum, dampening=dampening, weight_decay=0.1,
                 nesterov=nesterov)
    opt.use_fused = fused
    run(opt, grads)
    # as MindSpore 2.10's nn.SGD (measured): the default filter leaves bn.gamma and bn.beta undecayed
    check(params, sgd_oracle(p0, grads, 0.05, [0.1, 0.1, 0.0, 0.0], momentum, dampening, nesterov))


def test_sgd_argument_checks_follow_mindspore():
    params = make_params()
    with pytest.raises(ValueError, match="nesterov needs momentum > 0"):
        nn.SGD(params, momentum=0.0, nesterov=True)
    with pytest.raises(ValueError, match="dampening"):
        nn.SGD(params, momentum=0.9, dampening=-1.0)
    with pytest.raises(TypeError, match="dynamic weight decay"):
        nn.SGD(params, weight_decay=nn.WarmUpLR(0.1, 2))


# --- Adagrad and RMSProp -------------------------------------------------------------------------
def test_adagrad_matches_apply_adagrad():
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.Adagrad(params, accum=0.1, learning_rate=0.1, weight_decay=0.01)
    run(opt, grads)
    want = []
    for i, p in enumerate(p0):
        acc = np.full_like(p, 0.1)
        for gs in grads:
            g = gs[i].asnumpy().astype(np.float64) + (0.01 if decayed(NAMES[i]) else 0.0) * p
            acc = acc + g * g
            p = p - 0.1 * g / np.sqrt(acc)
        want.append(p)
    check(params, want)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_matches_apply_rmsprop(centered):
    params = make_params()
    p0, grads = values(params), make_grads()
    opt = nn.RMSProp(params, learning_rate=0.01, decay=0.8, momentum=0.5, epsilon=1e-6, centered=centered)
    run(opt, grads)
    want = []
    for i, p in enumerate(p0):
        ms_, mg, mom = np.ones_like(p), np.zeros_like(p), np.zeros_like(p)  # mean_square starts at ONE
        for gs in grads:
            g = gs[i].asnumpy().astype(np.float64)
            ms_ = 0.8 * ms_ + 0.2 * g * g
            mg = 0.8 * mg + 0.2 * g
            denom = ms_ - mg * mg if centered else ms_
            mom = 0.5 * mom + 0.01 * g / np.sqrt(denom + 1e-6)
            p = p - mom
        want.append(p)
    check(params, want)
    assert any(s.name == "mean_square.fc.weight" for s in opt.ms)


# --- dtypes and paths ----------------------------------------------------------------------------
def test_float64_parameters_take_the_numpy_path_exactly():
    params = make_params(dtype=np.float64)
    p0, grads = values(params), make_grads(dtype=np.float64)
    opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9, weight_decay=0.01)
    run(opt, grads)
    wds = [0.01 if decayed(n) else 0.0 for n in NAMES]
    # learning_rate and momentum are float32 Parameters (as in MindSpore): the oracle uses their values
    lr, u = float(np.float32(0.1)), float(np.float32(0.9))
    check(params, momentum_oracle(p0, grads, [[lr] * 4] * STEPS, wds, u), rtol=1e-12, atol=1e-12)
    assert all(p.asnumpy().dtype == np.float64 for p in params)


def test_float16_parameters_update_and_keep_their_dtype():
    params = make_params(dtype=np.float16)
    p0, grads = values(params), make_grads()
    opt = nn.Adam(params, learning_rate=0.01)
    run(opt, grads)
    assert all(p.asnumpy().dtype == np.float16 for p in params)
    check(params, adam_oracle(p0, grads, [[0.01] * 4] * STEPS, [0.0] * 4), rtol=0, atol=2e-3)
    assert not np.allclose(params[0].asnumpy(), p0[0], atol=1e-3)


def test_fused_and_numpy_paths_agree():
    outs = []
    for fused in (True, False):
        params = make_params()
        opt = nn.Adam(params, learning_rate=0.01, weight_decay=0.01, use_amsgrad=True)
        opt.use_fused = fused
        run(opt, make_grads())
        outs.append([p.asnumpy().copy() for p in params] + [m.asnumpy().copy() for m in opt.moment2])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_replaced_parameter_buffer_is_the_one_updated():
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=1.0)
    p.set_data(ms.Tensor(np.ones(3, np.float32)))  # e.g. a checkpoint load after the optimizer was built
    opt((ms.Tensor(np.full(3, 0.5, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), 0.5)


# --- learning rate, global_step and state ------------------------------------------------------
def test_fixed_learning_rate_is_an_assignable_parameter_and_step_stays():
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=0.5)
    lr = opt.get_lr()
    assert isinstance(lr, ms.Parameter) and lr.name == "learning_rate"
    g = (ms.Tensor(np.ones(2, np.float32)),)
    opt(g)
    np.testing.assert_allclose(p.asnumpy(), -0.5)
    lr.set_data(ms.Tensor(np.float32(0.25)))  # what a LearningRateScheduler callback does
    opt(g)
    np.testing.assert_allclose(p.asnumpy(), -0.75)
    assert int(opt.global_step.asnumpy()[0]) == 0  # a fixed rate does not count steps (as in MindSpore)


def test_get_lr_with_dynamic_rate_returns_the_step_value_and_advances():
    opt = nn.Momentum(make_params(), learning_rate=[0.3, 0.2, 0.1], momentum=0.0)
    got = [float(opt.get_lr().asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(got, [0.3, 0.2, 0.1], rtol=1e-7)
    assert int(opt.global_step.asnumpy()[0]) == 3


def test_learning_rate_list_shorter_than_training_raises():
    opt = nn.SGD(make_params(), learning_rate=[0.1, 0.1])
    grads = make_grads()
    run(opt, grads[:2])
    with pytest.raises(IndexError, match="learning-rate list has 2 values but step 2"):
        opt(grads[2])


def test_user_schedule_subclass_drives_the_optimizer():
    class Halving(nn.LearningRateSchedule):
        def construct(self, global_step):
            return ms.Tensor(np.float32(1.0 / 2 ** float(global_step.asnumpy())))

    p = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=Halving())
    for _ in range(3):
        opt((ms.Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), -(1 + 0.5 + 0.25))


def test_state_parameters_are_named_listed_and_follow_renames():
    params = make_params()
    opt = nn.Adam(params)
    names = [n for n, _ in opt.parameters_and_names()]
    assert names[:4] == NAMES
    for expected in ("learning_rate", "global_step", "beta1_power", "beta2_power", "moment1.fc.weight",
                     "moment2.bn.beta"):
        assert expected in names
    assert len(names) == len(set(names))
    params[0].name = "net.fc.weight"  # e.g. a Cell attached the layer under a parent
    assert "moment1.net.fc.weight" in opt.parameters_dict()
    assert isinstance(opt.parameters, ms.ParameterTuple)
    assert all(not s.requires_grad for s in opt.moment1)
    assert opt.trainable_params() == params


def test_custom_optimizer_on_the_base_class():
    class PlainSGD(nn.Optimizer):
        def construct(self, gradients):
            gradients = self.scale_grad(self.decay_weight(gradients))
            lr = float(self.get_lr().asnumpy())
            for p, g in zip(self.parameters, gradients):
                p.set_data(ms.Tensor(p.asnumpy() - lr * g.asnumpy()))
            return True

    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = PlainSGD(0.1, [p], weight_decay=0.5, loss_scale=2.0)
    opt((ms.Tensor(np.full(2, 4.0, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), 1 - 0.1 * (4.0 / 2.0 + 0.5 * 1.0))


# --- errors --------------------------------------------------------------------------------------
def test_wrong_number_of_gradients_is_a_shape_error():
    opt = nn.Adam(make_params())
    with pytest.raises(ShapeError, match="4 gradients, one per parameter"):
        opt(make_grads()[0][:3])


def test_wrong_gradient_shape_names_the_parameter_and_changes_nothing():
    params = make_params()
    before = values(params)
    opt = nn.Adam(params)
    grads = list(make_grads()[0])
    grads[2] = ms.Tensor(np.ones(5, np.float32))
    with pytest.raises(ShapeError, match=r"parameter 'bn.gamma' \(position 2\)"):
        opt(tuple(grads))
    check(params, before, rtol=0, atol=0)
    np.testing.assert_array_equal(opt.beta1_power.asnumpy(), 1.0)


def test_missing_gradient_is_reported():
    opt = nn.Momentum(make_params(), 0.1, 0.9)
    grads = list(make_grads()[0])
    grads[1] = None
    with pytest.raises(ShapeError, match="fc.bias"):
        opt(tuple(grads))


@pytest.mark.parametrize("make,err,msg", [
    (lambda ps: nn.Adam([]), ValueError, "must not be empty"),
    (lambda ps: nn.Adam(ps, learning_rate="fast"), TypeError, "learning_rate"),
    (lambda ps: nn.Adam(ps, learning_rate=-1.0), ValueError, "at least 0"),
    (lambda ps: nn.Adam(ps, beta1=1.0), ValueError, "beta1"),
    (lambda ps: nn.Adam(ps, loss_scale=0.0), ValueError, "loss_scale"),
    (lambda ps: nn.Adam(ps, weight_decay=-0.1), ValueError, "weight_decay"),
    (lambda ps: nn.Adam([ps[0], ps[0]]), RuntimeError, "given twice"),
    (lambda ps: nn.Adam([{"params": ps, "momentum": 0.9}]), KeyError, "unknown keys"),
    (lambda ps: nn.Adam([{"params": ps[:2]}, {"order_params": ps}]), ValueError, "order_params"),
    (lambda ps: nn.Adam([ps[0], {"params": ps[1:]}]), TypeError, "list of Parameters or a list of group dicts"),
])
def test_construction_errors(make, err, msg):
    with pytest.raises(err, match=msg):
        make(make_params())


def test_weight_decay_may_be_any_cell_like_schedule():
    class StepDecay:  # what a MindSpore user passes: a Cell whose construct maps global_step to a decay
        def construct(self, global_step):
            return ms.Tensor(np.float32(0.1 * (1 + float(global_step.asnumpy()))))

        def __call__(self, global_step):
            return self.construct(global_step)

    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.Momentum([p], learning_rate=0.5, momentum=0.0, weight_decay=StepDecay())
    assert opt.dynamic_weight_decay
    want = 1.0
    for step in range(3):
        assert opt.get_weight_decay() == pytest.approx(0.1 * (1 + step))
        opt((ms.Tensor(np.zeros(2, np.float32)),))
        want -= 0.5 * 0.1 * (1 + step) * want
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6)


def test_trains_a_dense_layer_through_train_one_step_cell():
    """End to end with the Cell wrappers: the gradients come in optimizer.parameters order."""
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((16, 3)).astype(np.float32))
    y = ms.Tensor(x.asnumpy() @ np.array([[1.0], [2.0], [-1.0]], np.float32))
    opt = nn.Adam(net.trainable_params(), learning_rate=0.05)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    train.set_train()
    first = float(train(x, y).asnumpy())
    for _ in range(60):
        last = float(train(x, y).asnumpy())
    assert last < first * 0.05
    assert "moment1.weight" in opt.parameters_dict()


def test_init_arguments_are_recorded_like_mindspore():
    params = make_params()
    opt = nn.Momentum(params, 0.1, 0.9, use_nesterov=True)
    assert opt.init_params["params"] == params
    assert opt.init_args == {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.0, "loss_scale": 1.0,
                             "use_nesterov": True}
