"""Samples for the complex-number and FFT primitives (issue 14). The complex-valued ones have no
finite-difference check here (the shared checker perturbs real inputs only): their conjugate-Wirtinger
gradients are checked by finite differences on the real and imaginary parts separately in
tests/engine/test_complex_grad.py."""

import numpy as np

from . import Sample

r = np.random.default_rng(14)
_z = r.standard_normal((2, 3)) + 1j * r.standard_normal((2, 3))
_z6 = r.standard_normal((2, 6)) + 1j * r.standard_normal((2, 6))
_WIRT = "complex input: its Wirtinger gradient is checked in tests/engine/test_complex_grad.py"

SAMPLES = {
    "Complex": [Sample([r.standard_normal((2, 3)), r.standard_normal((2, 3))], grad=False, why=_WIRT),
                Sample([r.standard_normal((2, 3)).astype(np.float32), r.standard_normal((3,)).astype(np.float32)],
                       grad=False, why=_WIRT)],
    "Real": [Sample([_z], grad=False, why=_WIRT), Sample([_z.astype(np.complex64)], grad=False, why=_WIRT)],
    "Imag": [Sample([_z], grad=False, why=_WIRT)],
    "Conj": [Sample([_z], grad=False, why=_WIRT)],
    "Angle": [Sample([_z], grad=False, why=_WIRT), Sample([_z.astype(np.complex64)], grad=False, why=_WIRT)],
    "ComplexAbs": [Sample([_z], grad=False, why=_WIRT)],
    "ViewAsReal": [Sample([_z], grad=False, why=_WIRT)],
    "Eig": [Sample([r.standard_normal((3, 3))], {"compute_v": False}, grad=False, why=_WIRT),
            Sample([r.standard_normal((2, 3, 3)).astype(np.float32)], {"compute_v": True}, grad=False, why=_WIRT),
            Sample([_z6[:, :2].reshape(2, 2, 1).repeat(2, -1)], grad=False, why=_WIRT)],
    "MatrixLogarithm": [Sample([np.eye(3) * 2 + 0.3 * (r.standard_normal((3, 3)) + 1j * r.standard_normal((3, 3)))],
                               grad=False, why="MindSpore's MatrixLogarithm has no gradient"),
                        Sample([(np.eye(2) * 3 + 0.2 * r.standard_normal((2, 2, 2))).astype(np.complex64)],
                               grad=False, why="MindSpore's MatrixLogarithm has no gradient")],
    "FFTN": [
        Sample([_z6], {"kind": "c2c", "axes": (1,), "s": (4,), "norm": "backward", "inverse": False},
               grad=False, why=_WIRT),
        Sample([_z6.astype(np.complex64)], {"kind": "c2c", "axes": (0, 1), "s": (3, 6), "norm": "ortho",
                                            "inverse": True}, grad=False, why=_WIRT),
        Sample([r.standard_normal((2, 6))], {"kind": "r2c", "axes": (1,), "s": (7,), "norm": "forward"}),
        Sample([_z6], {"kind": "c2r", "axes": (1,), "s": (9,), "norm": "backward"}, grad=False, why=_WIRT),
    ],
}

# the existing primitives that take complex input (ops/complex_ops.py COMPLEX_OK): infer agrees with
# impl on complex tensors too (Graph mode plans buffers from infer's dtypes)
_ZZ = r.standard_normal((2, 3)) * 0.4 + 1j * r.standard_normal((2, 3)) * 0.4
_UNARY = ("Exp", "Expm1", "Log", "Log1p", "Log2", "Log10", "Sqrt", "Rsqrt", "Square", "Reciprocal", "Sin", "Cos",
          "Tan", "Sinh", "Cosh", "Tanh", "ACos", "Asin", "Atan", "Asinh", "Atanh", "Neg", "Abs", "Sign", "IsNan",
          "IsFinite", "Identity")
for _n in _UNARY:
    SAMPLES.setdefault(_n, []).append(Sample([_ZZ], grad=False, why=_WIRT))
for _n in ("Add", "Sub", "Mul", "RealDiv", "Pow", "Equal", "NotEqual", "TanhGrad"):
    SAMPLES.setdefault(_n, []).append(Sample([_ZZ, _ZZ[::-1].copy()], grad=False, why=_WIRT))
SAMPLES.setdefault("MatMul", []).append(Sample([_ZZ, _ZZ.T.copy()], grad=False, why=_WIRT))
SAMPLES.setdefault("BatchMatMul", []).append(Sample([_ZZ[None], _ZZ.T[None].copy()], grad=False, why=_WIRT))
SAMPLES.setdefault("MatrixInverse", []).append(Sample([np.eye(3) + _z6[:, :3].repeat(2, 0)[:3] * 0.3], grad=False,
                                                      why=_WIRT))
for _n, _attrs in (("ReduceSum", {"axis": (1,), "keep_dims": False}), ("ReduceMean", {"axis": (0,), "keep_dims": True}),
                   ("ReduceProd", {"axis": (1,), "keep_dims": False}), ("CumSum", {"axis": 1})):
    SAMPLES.setdefault(_n, []).append(Sample([_ZZ], _attrs, grad=False, why=_WIRT))
