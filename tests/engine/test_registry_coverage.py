"""Every registered primitive has samples; on each, infer agrees with impl and (where the op is
differentiable) the tape's gradient agrees with finite differences."""

import numpy as np
import pytest

import spore as ms
from spore.ops.primitive import REGISTRY

from .gradcheck import check_vjp
from .samples import all_samples

SAMPLES = all_samples()
CASES = [(name, i, s) for name, ss in sorted(SAMPLES.items()) for i, s in enumerate(ss)]


def test_every_registered_primitive_has_a_sample():
    missing = sorted(set(REGISTRY) - set(SAMPLES))
    assert not missing, f"primitives without samples in tests/engine/samples: {missing}"


def test_samples_name_only_registered_primitives():
    unknown = sorted(set(SAMPLES) - set(REGISTRY))
    assert not unknown, f"samples for primitives that do not exist: {unknown}"


@pytest.mark.parametrize("name,i,sample", CASES, ids=[f"{n}-{i}" for n, i, _ in CASES])
def test_infer_matches_impl(name, i, sample):
    prim = REGISTRY[name]
    tensors = [ms.Tensor(np.asarray(a)) for a in sample.inputs]
    avals = prim.infer(*tensors, **sample.attrs)
    out = prim(*tensors, **sample.attrs)
    outs = out if isinstance(out, tuple) else (out,)
    avals = avals if isinstance(avals, tuple) else (avals,)
    assert len(outs) == len(avals)
    for o, a in zip(outs, avals):
        assert tuple(o.shape) == tuple(a.shape), f"{name}: infer says {a.shape}, impl made {o.shape}"
        assert o.dtype is a.dtype, f"{name}: infer says {a.dtype}, impl made {o.dtype}"


@pytest.mark.parametrize("name,i,sample", [c for c in CASES if c[2].grad],
                         ids=[f"{n}-{i}" for n, i, s in CASES if s.grad])
def test_gradient_matches_finite_differences(name, i, sample):
    check_vjp(REGISTRY[name], sample.inputs, sample.attrs, wrt=sample.wrt, rtol=sample.rtol, atol=sample.atol)


@pytest.mark.parametrize("name,i,sample", [c for c in CASES if not c[2].grad],
                         ids=[f"{n}-{i}" for n, i, s in CASES if not s.grad])
def test_non_differentiable_samples_say_why(name, i, sample):
    assert sample.why, f"{name}: a sample with grad=False must say why"
