"""Samples for the misc slice's internal primitive (issue 14): `SummaryStage`, the equation a
compiled summary operator (ops.ScalarSummary, ...) becomes."""

import numpy as np

import spore.ops.summary_ops  # noqa: F401  (registers SummaryStage)

from . import Sample

r = np.random.default_rng(11)

_STAGE = "stages a summary value for the next record (writes state); no gradient by design"

SAMPLES = {
    "SummaryStage": [Sample([r.standard_normal((2, 3)).astype(np.float32)], {"plugin": "histogram", "name": "x"},
                            grad=False, why=_STAGE),
                     Sample([np.float32(0.5)], {"plugin": "scalar", "name": "loss"}, grad=False, why=_STAGE)],
}
