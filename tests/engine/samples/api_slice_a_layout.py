"""Samples for slice A's Geqrf primitive (issue 14)."""

import numpy as np

from . import Sample

r = np.random.default_rng(3)

SAMPLES = {
    "Geqrf": [Sample([r.standard_normal((3, 3))], grad=False, why="LAPACK's compact QR form has no gradient"),
              Sample([r.standard_normal((2, 4, 2))], grad=False, why="LAPACK's compact QR form has no gradient")],
}
