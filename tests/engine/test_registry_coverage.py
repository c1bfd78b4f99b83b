"""Every registered primitive, public or internal, has samples; on each, infer agrees with impl and
(where the op is differentiable) the tape's gradient agrees with finite differences.

Internal primitives register when the modules that make them load, so those modules are imported
here; `test_every_primitive_is_registered` keeps new ad-hoc `Primitive(...)` objects from escaping.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

import spore as ms
import spore.amp  # noqa: F401  (GuardedOptimizerStep)
import spore.compiler.passes  # noqa: F401  (the fused kernels)
import spore.compiler.runtime_ops  # noqa: F401  (Assert)
import spore.quant.fake_quant  # noqa: F401  (FakeQuant, FakeQuantGrad)
from spore.common.dtype import from_numpy
from spore.compiler.executor import Executable
from spore.compiler.ir import Eqn, Graph, Var
from spore.ops.primitive import INTERNAL, REGISTRY, Aval

from .gradcheck import check_vjp
from .samples import all_samples

ALL = {**REGISTRY, **INTERNAL}
SAMPLES = all_samples()
CASES = [(name, i, s) for name, ss in sorted(SAMPLES.items()) for i, s in enumerate(ss)]
ENGINE = Path(ms.__file__).parent
# Primitive objects built outside `register`, and why. GraphCall[...] / GraphBackward[...] are made
# per compiled function (their rules close over its graphs); the compiled-function tests run them.
UNREGISTERED = {"compiler/jit.py": 2}


def test_every_registered_primitive_has_a_sample():
    missing = sorted(set(ALL) - set(SAMPLES))
    assert not missing, f"primitives without samples in tests/engine/samples: {missing}"


def test_samples_name_only_registered_primitives():
    unknown = sorted(set(SAMPLES) - set(ALL))
    assert not unknown, f"samples for primitives that do not exist: {unknown}"


def test_internal_primitives_are_marked_and_kept_out_of_the_public_registry():
    assert INTERNAL, "no internal primitive registered"
    assert all(p.internal for p in INTERNAL.values())
    assert not any(p.internal for p in REGISTRY.values())


def test_every_primitive_is_registered():
    """Each `Primitive(...)` in the engine is passed straight to `register`, except the exemptions."""
    found: dict[str, int] = {}
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        registered = {id(c.args[0]) for c in ast.walk(tree) if isinstance(c, ast.Call)
                      and getattr(c.func, "id", None) == "register" and c.args}
        for c in ast.walk(tree):
            if isinstance(c, ast.Call) and getattr(c.func, "id", None) == "Primitive" and id(c) not in registered:
                rel = path.relative_to(ENGINE).as_posix()
                found[rel] = found.get(rel, 0) + 1
    assert found == UNREGISTERED


def _run_as_graph(prim, arrays: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    """`prim` on `arrays` as the single equation of a compiled graph, run by the executor."""
    ins = [Var(Aval(a.shape, from_numpy(a.dtype))) for a in arrays]
    avals = prim.infer(*[v.aval for v in ins], **attrs)
    outs = [Var(a) for a in (avals if prim.multi_output else (avals,))]
    graph = Graph("sample", ins, [], [Eqn(prim, list(ins), dict(attrs), outs)], list(outs))
    return Executable(graph)(*arrays)


@pytest.mark.parametrize("name,i,sample", CASES, ids=[f"{n}-{i}" for n, i, _ in CASES])
def test_infer_matches_impl(name, i, sample):
    prim = ALL[name]
    arrays = [np.asarray(a) for a in sample.inputs]
    tensors = [ms.Tensor(a) for a in arrays]
    avals = prim.infer(*tensors, **sample.attrs)
    if sample.graph:
        outs = [ms.Tensor(np.asarray(o)) for o in _run_as_graph(prim, arrays, sample.attrs)]
    else:
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
    check_vjp(ALL[name], sample.inputs, sample.attrs, wrt=sample.wrt, rtol=sample.rtol, atol=sample.atol)


@pytest.mark.parametrize("name,i,sample", [c for c in CASES if not c[2].grad],
                         ids=[f"{n}-{i}" for n, i, s in CASES if not s.grad])
def test_non_differentiable_samples_say_why(name, i, sample):
    assert sample.why, f"{name}: a sample with grad=False must say why"
