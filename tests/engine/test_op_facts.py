"""Facts about an op live in its declaration, and the tables built from them agree with the kernels:
every elementwise op that declares a `ufunc` and a C++ `opcode` computes, through both, what its
`impl` computes; the C++ kernel's opcode enum is exactly the declared opcodes; the executor's
in-place reuse and the fusion pass read the same declarations."""

import inspect
import pathlib
import re

import numpy as np
import pytest

import spore as ms  # noqa: F401  (registers every op)
from spore import _kernels
from spore.ops.primitive import REGISTRY

FUSIBLE = sorted((p for p in REGISTRY.values() if p.opcode is not None), key=lambda p: p.opcode)
CSRC = pathlib.Path(__file__).resolve().parents[2] / "engine" / "csrc" / "fused.cpp"


def _inputs(prim, rng):
    n = len(inspect.signature(prim.impl).parameters)
    low = 0.1 if prim.name in ("Log", "Sqrt", "Reciprocal", "RealDiv") else -3.0
    return [rng.uniform(low, 3.0, 37).astype(np.float32) for _ in range(n)]


def test_the_cpp_opcode_enum_is_exactly_the_declared_opcodes():
    enum = re.search(r"enum Op : int \{(.*?)\};", CSRC.read_text(), re.S).group(1)
    cpp = sorted(int(v) for v in re.findall(r"= (\d+)", enum))
    assert cpp == [p.opcode for p in FUSIBLE]
    assert len({p.opcode for p in FUSIBLE}) == len(FUSIBLE)


@pytest.mark.parametrize("prim", FUSIBLE, ids=[p.name for p in FUSIBLE])
def test_ufunc_and_cpp_opcode_compute_what_impl_computes(prim):
    rng = np.random.default_rng(prim.opcode)
    xs = _inputs(prim, rng)
    want = prim.impl(*xs)
    buf = np.empty_like(xs[0])
    np.testing.assert_allclose(prim.ufunc(*xs, out=buf), want, rtol=2e-6, atol=1e-7)
    b = ("in", 1) if len(xs) == 2 else ("in", 0)
    program = [[prim.opcode, 0, 0, 0, b[1]]]
    got = _kernels.fused_elementwise(program, xs, [(1, x.size) for x in xs], [xs[0].size])
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_in_place_reuse_is_declared_only_on_ops_that_can_write_into_a_buffer():
    for p in REGISTRY.values():
        if p.inplace:
            assert p.ufunc is not None, p.name
