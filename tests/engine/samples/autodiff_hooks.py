"""Samples for the internal primitives of the autodiff slice of issue 14 (autodiff/hooks.py,
ops/functional_control.py, ops/primitive_helpers.py). The hook identities are checked with hooks
that keep the gradient (so finite differences of the identity apply); CustomBprop with a bprop
that is the true gradient of its forward."""

import os
import tempfile

import numpy as np

from spore import ops
from spore.ops.primitive import Aval
from spore.ops.primitive_helpers import _PyFuncSpec, _Spec

from . import Sample

r = np.random.default_rng(11)


def f(*shape: int) -> np.ndarray:
    return r.standard_normal(shape)


def _square_spec() -> _Spec:
    import spore as ms

    return _Spec("Square", lambda x: ops.mul(x, x), lambda x, out, dout: (ops.mul(ops.mul(dout, x), 2.0),),
                 [Aval((2, 3), ms.float64)], False)


def _pyfunc_spec() -> _PyFuncSpec:
    import spore as ms

    return _PyFuncSpec(lambda a: (np.cumsum(a, 0),), [Aval((4,), ms.float64)])


SAMPLES = {
    "HookBackward": [Sample([f(2, 3), f(3)], {"hook": lambda grads: None, "name": ""})],
    "InsertGradientOf": [Sample([f(2, 3)], {"f": lambda g: g})],
    "DumpGradient": [Sample([f(3)], {"path": os.path.join(tempfile.gettempdir(), "spore_sample_dump"),
                                     "when": "out"})],
    "CustomBprop": [Sample([f(2, 3)], {"spec": _square_spec()})],
    "PyFunc": [Sample([f(4)], {"spec": _pyfunc_spec()}, grad=False, why="runs a Python function: not differentiable")],
    "AssertData": [Sample([np.array(True), f(3)], {"summarize": 2}, grad=False, why="checks a value; no gradient")],
}
