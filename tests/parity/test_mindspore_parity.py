"""Spore against outputs written by real MindSpore 2.10 (tests/fixtures/mindspore-2.10/parity.npz,
made by generate.py): every layer, loss and optimizer in cases.py, in both modes.

MindSpore's initial parameters are loaded by name, so a layer whose parameter names or shapes differ
from MindSpore's fails here, and so would a checkpoint interchange. Then the outputs, the gradients
of sum(output * MindSpore's cotangent) with respect to the inputs and every trainable parameter,
BatchNorm's moving statistics after a training-mode forward, three optimizer steps, and learning-rate
schedules must all equal MindSpore's within each case's tolerance.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import spore as ms

from .cases import layer_cases, loss_cases, lr_cases, optim_cases
from .runner import run_layer, run_lr, run_optim

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore-2.10" / "parity.npz"


def _read() -> tuple[dict, dict]:
    with np.load(FIXTURE, allow_pickle=False) as z:
        meta = json.loads(bytes(z["__meta__"]).decode())
        ref: dict = defaultdict(lambda: defaultdict(dict))
        for key in z.files:
            if key == "__meta__":
                continue
            case, field, sub = key.split("|")
            ref[case][field][sub] = z[key]
    return ref, meta


REF, META = _read()
LAYERS = {c.name: c for c in layer_cases() + loss_cases()}
OPTIMS = {c.name: c for c in optim_cases()}
LRS = {c.name: c for c in lr_cases()}


def _listed(d: dict) -> list:
    return [d[str(i)] for i in range(len(d))]


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_the_fixture_was_written_by_mindspore_2_10_and_covers_every_case():
    assert META["mindspore"] == "2.10.0"
    assert set(REF) == set(LAYERS) | set(OPTIMS) | set(LRS)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_and_loss_match_mindspore(name, mode):
    case, ref = LAYERS[name], REF[name]
    got = run_layer(ms, case, params=dict(ref["params"]), cots=_listed(ref["cots"]))
    for a, b in zip(got["inputs"], _listed(ref["inputs"])):
        np.testing.assert_array_equal(a, b, err_msg="inputs differ: the seeded generator changed")
    tol = {"rtol": case.rtol, "atol": case.atol}
    want_out = _listed(ref["outputs"])
    assert len(got["outputs"]) == len(want_out), f"{name}: {len(got['outputs'])} outputs, MindSpore {len(want_out)}"
    for i, (a, b) in enumerate(zip(got["outputs"], want_out)):
        assert a.shape == b.shape, f"{name} output {i}: shape {a.shape}, MindSpore {b.shape}"
        np.testing.assert_allclose(a, b, **tol, err_msg=f"{name} output {i}")
    oracle = _finite_differences(case, got) if case.wrong_in_mindspore else _listed(ref.get("grads_in", {}))
    for i, (a, b) in enumerate(zip(got["grads_in"], oracle, strict=True)):
        np.testing.assert_allclose(a, b, **(tol if not case.wrong_in_mindspore else {"rtol": 1e-2, "atol": 1e-3}),
                                   err_msg=f"{name} gradient of input {i}")
    assert set(got["grads_w"]) == set(ref.get("grads_w", {})), f"{name}: trainable parameters differ"
    for pname, g in got["grads_w"].items():
        np.testing.assert_allclose(g, ref["grads_w"][pname], **tol, err_msg=f"{name} gradient of {pname}")
    for pname, p in got["params_after"].items():
        np.testing.assert_allclose(p, ref["params_after"][pname], **tol, err_msg=f"{name} {pname} after forward")


def _finite_differences(case, got: dict) -> list[np.ndarray]:
    """Central differences of sum(output * cotangent), in float64, for a case whose MindSpore gradient
    is wrong (the case says why)."""
    net = case.make(ms)
    net.set_train(case.train)
    cots = got["cots"]

    def f(arrays: list[np.ndarray]) -> float:
        outs = net(*[ms.Tensor(a) for a in arrays])
        outs = outs if isinstance(outs, tuple) else (outs,)
        return float(sum((o.asnumpy().astype(np.float64) * c).sum() for o, c in zip(outs, cots)))

    grads = []
    for pos in case.grad:
        x = [a.astype(np.float64) for a in got["inputs"]]
        g = np.zeros_like(x[pos])
        for idx in np.ndindex(g.shape):
            h = 1e-4 * max(1.0, abs(x[pos][idx]))
            x[pos][idx] += h
            up = f(x)
            x[pos][idx] -= 2 * h
            down = f(x)
            x[pos][idx] += h
            g[idx] = (up - down) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("name", sorted(OPTIMS))
def test_optimizer_steps_match_mindspore(name, mode):
    case, ref = OPTIMS[name], REF[name]
    got = run_optim(ms, case, params=dict(ref["params"]))
    tol = {"rtol": case.rtol, "atol": case.atol}
    np.testing.assert_allclose(got["losses"], ref["losses"]["0"], **tol, err_msg=f"{name} losses")
    for pname, p in got["final"].items():
        np.testing.assert_allclose(p, ref["final"][pname], **tol, err_msg=f"{name} {pname} after {case.steps} steps")


@pytest.mark.parametrize("name", sorted(LRS))
def test_learning_rate_schedule_matches_mindspore(name):
    np.testing.assert_allclose(run_lr(ms, LRS[name]), REF[name]["lr"]["0"], rtol=1e-6, atol=1e-8)
