"""Samples for the QAT fake-quant primitives declared in spore/quant/fake_quant.py (registered when
spore.quant.fake_quant loads; test_registry_coverage imports it).

Neither has a finite-difference gradient check: FakeQuant's forward is a staircase whose derivative
is zero almost everywhere, and its gradient is by definition the straight-through estimator, which
tests/quant/test_fake_quant.py checks against the derivative of the clamp it passes through.
"""

import numpy as np

from . import Sample

r = np.random.default_rng(16)
_X = r.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
_LO = np.array([-1.0, -0.5, -1.5], np.float32)
_HI = np.array([1.0, 1.5, 0.5], np.float32)
_STE = "the forward is a staircase; the straight-through gradient is checked in tests/quant/test_fake_quant.py"

SAMPLES = {
    "FakeQuant": [
        Sample([_X, np.array([-1.0], np.float32), np.array([1.0], np.float32)], grad=False, why=_STE),
        Sample([_X, _LO, _HI], {"num_bits": 4, "symmetric": True, "narrow_range": True, "channel_axis": 1},
               grad=False, why=_STE),
    ],
    "FakeQuantGrad": [
        Sample([_X, _X, np.array(-1.0, np.float32), np.array(1.0, np.float32)], grad=False,
               why="a gradient (the STE mask): not differentiated again"),
        Sample([_X, _X, _LO, _HI], {"channel_axis": -2}, grad=False, why="a gradient (the STE mask)"),
    ],
}
