"""Samples for the movement, indexing, selection and sorting primitives (shape_ops.py, indexing.py,
and the selection/sorting part of array.py)."""

import numpy as np

import spore as ms
from spore.ops.indexing import normalize_index

from . import Sample

r = np.random.default_rng(7)


def f(*shape):
    return r.standard_normal(shape)


def ix(shape, index):
    """The normalised (static) GetItem/SetItem index for `index` on a tensor of `shape`."""
    return normalize_index("sample", shape, index)


SAMPLES = {
    "Transpose": [Sample([f(2, 3, 4)], {"perm": (2, 0, 1)}), Sample([f(3, 5)], {"perm": (1, 0)})],
    "Concat": [Sample([f(2, 3), f(4, 3)], {"axis": 0}), Sample([f(2, 1), f(2, 3), f(2, 2)], {"axis": -1})],
    "Split": [Sample([f(5, 3)], {"axis": 0, "sizes": (2, 3)}), Sample([f(2, 6)], {"axis": 1, "sizes": (1, 0, 5)})],
    "Stack": [Sample([f(2, 3), f(2, 3), f(2, 3)], {"axis": 1}), Sample([f(4), f(4)], {"axis": -1})],
    "Unstack": [Sample([f(3, 2, 4)], {"axis": 1})],
    "Tile": [Sample([f(2, 3)], {"multiples": (2, 1, 3)}), Sample([f(2, 1, 3)], {"multiples": (2, 2)})],
    "Pad": [Sample([f(2, 3)], {"paddings": ((1, 0), (2, 1)), "value": 0.5})],
    "GetItem": [
        Sample([f(4, 5)], {"index": ix((4, 5), (1, slice(None, None, -2)))}),
        Sample([f(3, 4, 2)], {"index": ix((3, 4, 2), (np.array([0, 2, 0]), slice(1, 3)))}),
        Sample([f(3, 4, 2)], {"index": ix((3, 4, 2), (slice(None), None, np.array([[1, 1], [3, 0]]), 1))}),
        Sample([f(3, 4)], {"index": ix((3, 4), np.array([[True, False, True, False]] * 3))}),
        Sample([f(3, 4, 5)], {"index": ix((3, 4, 5), (np.array([0, 2]), slice(None), np.array([4, 4])))}),
        # index tensors known only when a graph runs are inputs ("tensor" entries), negatives included
        Sample([f(4, 3), np.array([3, 0, -1])], {"index": (("tensor", 0, (3,)),)}, wrt=(0,)),
        Sample([f(4, 3, 2), np.array([[1], [2]]), np.array([0, -1])],
               {"index": (("slice", 0, 4, 2), ("tensor", 0, (2, 1)), ("tensor", 1, (2,)))}, wrt=(0,)),
    ],
    "GetItemGrad": [Sample([f(2, 3)], {"shape": (4, 3), "index": ix((4, 3), np.array([1, 1]))}),
                    Sample([f(2)], {"shape": (3, 4), "index": ix((3, 4), (slice(0, 2), -1))}),
                    Sample([f(3, 3), np.array([1, 1, 0])], {"shape": (4, 3), "index": (("tensor", 0, (3,)),)},
                           wrt=(0,))],
    "SetItem": [Sample([f(4, 3), f(3)], {"index": ix((4, 3), 2)}),
                Sample([f(4, 3), f(2, 1)], {"index": ix((4, 3), (np.array([3, 0]), slice(None, None, 2)))}),
                Sample([f(3, 3), np.array(r.standard_normal())], {"index": ix((3, 3), np.eye(3, dtype=bool))}),
                Sample([f(4, 3), f(2, 3), np.array([2, -4])], {"index": (("tensor", 0, (2,)),)}, wrt=(0, 1))],
    "Gather": [Sample([f(5, 3), np.array([[4, 0], [0, 2]])], {"axis": 0}),
               Sample([f(2, 4, 3), np.array([3, 3, 1])], {"axis": 1}),
               Sample([f(2, 4, 3), np.array([[3, 0], [1, 1]])], {"axis": 1, "batch_dims": 1})],
    "GatherGrad": [Sample([f(2, 2, 3), np.array([[4, 0], [0, 4]])], {"shape": (5, 3), "axis": 0}),
                   Sample([f(2, 2, 3), np.array([[3, 0], [1, 1]])],
                          {"shape": (2, 4, 3), "axis": 1, "batch_dims": 1})],
    "GatherD": [Sample([f(3, 4), np.array([[0, 2], [1, 1], [3, 0]])], {"dim": 1}),
                Sample([f(3, 4), np.array([[2, 0, 1, 1]])], {"dim": 0})],
    "GatherDGrad": [Sample([f(3, 2), np.array([[0, 2], [1, 1], [3, 0]])], {"dim": 1, "shape": (3, 4)})],
    "GatherNd": [Sample([f(3, 4, 2), np.array([[0, 1], [2, 3], [0, 1]])]),
                 Sample([f(3, 4), np.array([[[2], [0]]])])],
    "TensorScatterAdd": [Sample([f(4, 3), np.array([[1], [1], [3]]), f(3, 3)])],
    "TensorScatterUpdate": [Sample([f(4, 3), np.array([[1, 0], [3, 2]]), f(2)])],
    "TensorScatterElements": [
        Sample([f(3, 4), np.array([[0, 2], [1, 0], [3, 1]]), f(3, 2)], {"axis": 1}),
        Sample([f(3, 4), np.array([[0, 0], [0, 1]]), f(2, 2)], {"axis": 0, "reduction": "add"})],
    "Select": [Sample([np.array([[True, False, True]] * 2), f(2, 3), f(2, 1)]),
               Sample([np.array([True, False]), f(3, 2), np.array(r.standard_normal())])],
    "OneHot": [Sample([np.array([0, 2, 5, -1])], {"depth": 3, "on_value": 1.0, "off_value": 0.0,
                                                  "dtype": ms.float32}, grad=False,
                      why="an encoding of integer indices"),
               Sample([np.array([[1, 0]])], {"depth": 2, "axis": 0}, grad=False, why="an encoding of integer indices")],
    "Sort": [Sample([f(3, 4)], {"axis": 1}), Sample([f(4, 2)], {"axis": 0, "descending": True})],
    "TopK": [Sample([f(3, 5)], {"k": 2}), Sample([f(4, 3)], {"k": 3, "axis": 0, "largest": False})],
    "Unique": [Sample([np.array([[3, 1], [3, 2]], np.int32)], grad=False,
                      why="output size depends on the values")],
    "NonZero": [Sample([np.array([[0.0, 1.5], [2.0, 0.0]])], grad=False, why="integer coordinates")],
}

import spore as _ms  # noqa: E402

SAMPLES["RandomDraw"] = [
    Sample([], {"kind": "permutation", "shape": (6,), "dtype": _ms.int64, "seed": (3, 1)}, grad=False,
           why="random permutation"),
    Sample([], {"kind": "uniform", "shape": (3, 2), "dtype": _ms.float32}, grad=False, why="random draw; no inputs"),
    Sample([], {"kind": "normal", "shape": (4,), "dtype": _ms.float64, "seed": 3}, grad=False, why="random draw"),
    Sample([], {"kind": "integers", "shape": (5,), "dtype": _ms.int64, "low": 2, "high": 9}, grad=False,
           why="integer draw"),
]
