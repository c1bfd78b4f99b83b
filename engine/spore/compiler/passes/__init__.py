"""Graph optimizations, each a function Graph -> Graph, run in order by `optimize`.

They run on graphs that are already differentiated (the gradient transform works on the traced
graph), so fused or simplified equations never need gradient rules of their own.
"""

from __future__ import annotations

from ..ir import Graph
from .cse import eliminate_common_subexpressions
from .dce import eliminate_dead_code
from .fold import fold_constants
from .fusion import fuse
from .relu_pool import swap_relu_maxpool
from .simplify import simplify

PIPELINE = (fold_constants, simplify, eliminate_common_subexpressions, eliminate_dead_code, swap_relu_maxpool,
            fuse, eliminate_dead_code)


def optimize(graph: Graph) -> Graph:
    """Run the whole pass pipeline."""
    for p in PIPELINE:
        graph = p(graph)
    return graph
