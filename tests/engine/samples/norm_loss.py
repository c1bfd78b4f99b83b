"""Samples for the normalization, loss, dropout and embedding primitives (float64, small)."""

import numpy as np

from . import Sample

r = np.random.default_rng(7)


def f(*shape):
    return r.standard_normal(shape)


def pos(*shape):
    return r.uniform(0.5, 1.5, shape)


def probs(*shape):
    p = r.uniform(0.1, 1.0, shape)
    return p / p.sum(axis=1, keepdims=True)


SECOND_ORDER = "a gradient kernel; second-order gradients of this loss/normalization are not provided"

SAMPLES = {
    "BatchNorm": [
        # training, NCHW with spatial dims: random cotangents on y, saved_mean and saved_rstd
        Sample([f(3, 2, 2, 2), pos(2), f(2), f(2), pos(2)], {"is_training": True, "epsilon": 1e-3}),
        # training, (N, C) rows
        Sample([f(4, 3), pos(3), f(3), f(3), pos(3)], {"is_training": True}),
        # inference: gradients also reach the running mean and variance
        Sample([f(2, 3, 2), pos(3), f(3), f(3), pos(3)], {"is_training": False, "epsilon": 1e-2}),
        # channels last
        Sample([f(2, 2, 2, 3), pos(3), f(3), f(3), pos(3)], {"is_training": True, "data_format": "NHWC"}),
    ],
    "BatchNormGrad": [
        Sample([f(3, 2, 2), f(3, 2, 2), pos(2), f(2), pos(2), f(2), f(2)], {"is_training": True},
               grad=False, why=SECOND_ORDER),
    ],
    "LayerNorm": [
        Sample([f(3, 4), pos(4), f(4)], {"begin_norm_axis": -1, "begin_params_axis": -1, "epsilon": 1e-5}),
        Sample([f(2, 3, 4), pos(3, 4), f(3, 4)], {"begin_norm_axis": 1, "begin_params_axis": 1}),
        # gamma spanning more axes than are normalised, and fewer
        Sample([f(2, 3, 4), pos(3, 4), f(3, 4)], {"begin_norm_axis": 2, "begin_params_axis": 1, "epsilon": 1e-4}),
        Sample([f(2, 3, 4), pos(4), f(4)], {"begin_norm_axis": 1, "begin_params_axis": 2, "epsilon": 1e-4}),
    ],
    "LayerNormGrad": [
        Sample([f(3, 4), f(3, 4), pos(4), f(3, 1), pos(3, 1), f(3, 1), f(3, 1)],
               {"begin_norm_axis": 1, "begin_params_axis": 1}, grad=False, why=SECOND_ORDER),
    ],
    "SparseSoftmaxCrossEntropyWithLogits": [
        Sample([3 * f(5, 4), np.array([0, 3, 1, -100, 2])], {"reduction": "none"}),
        Sample([3 * f(5, 4), np.array([0, 3, 1, 1, 2])], {"reduction": "mean"}),
        Sample([f(5, 4), np.array([0, 3, -100, 1, 2]), pos(4)],
               {"reduction": "mean", "label_smoothing": 0.2}, wrt=(0,)),
        Sample([f(2, 4, 3), np.array([[0, 1, 3], [2, -1, 0]])], {"reduction": "sum", "ignore_index": -1}),
    ],
    "SparseSoftmaxCrossEntropyWithLogitsGrad": [
        Sample([f(3), f(3, 4), np.array([0, 3, 1])], {"reduction": "none"}, grad=False, why=SECOND_ORDER),
    ],
    "SoftmaxCrossEntropyWithLogits": [
        Sample([3 * f(4, 5), probs(4, 5)], {"reduction": "none"}),
        Sample([f(2, 3, 2, 2), probs(2, 3, 2, 2)], {"reduction": "mean"}),
    ],
    "SoftmaxCrossEntropyWithLogitsGrad": [
        Sample([f(4), f(4, 5), probs(4, 5)], {"reduction": "none"}, grad=False, why=SECOND_ORDER),
    ],
    "SoftmaxCrossEntropyWithLogitsLabelsGrad": [
        Sample([np.array(1.5), f(4, 5)], {"reduction": "sum"}, grad=False, why=SECOND_ORDER),
    ],
    "NLLLoss": [
        Sample([f(4, 5), np.array([1, 4, -100, 0])], {"reduction": "mean"}),
        Sample([f(2, 3, 2), np.array([[0, 2], [1, 1]]), pos(3)], {"reduction": "none", "label_smoothing": 0.1},
               wrt=(0,)),
    ],
    "NLLLossGrad": [
        Sample([np.array(1.0), f(4, 5), np.array([1, 4, 2, 0])], {"reduction": "sum"}, grad=False, why=SECOND_ORDER),
    ],
    "BCEWithLogitsLoss": [
        Sample([3 * f(3, 4), r.uniform(0, 1, (3, 4)), pos(4), pos(4)], {"reduction": "mean"}),
        Sample([f(2, 3), r.uniform(0, 1, (2, 3)), pos(2, 3), pos(3)], {"reduction": "none"}),
    ],
    "BCEWithLogitsLossGrad": [
        Sample([np.array(1.0), f(2, 3), r.uniform(0, 1, (2, 3)), pos(3), pos(3)], {"reduction": "sum", "wrt": 0},
               grad=False, why=SECOND_ORDER),
    ],
    "BinaryCrossEntropy": [
        Sample([r.uniform(0.1, 0.9, (3, 4)), r.uniform(0, 1, (3, 4)), pos(3, 4)], {"reduction": "mean"}),
        Sample([r.uniform(0.1, 0.9, (2, 3)), r.uniform(0, 1, (2, 3)), pos(3)], {"reduction": "none"}),
    ],
    "BinaryCrossEntropyGrad": [
        Sample([np.array(1.0), r.uniform(0.1, 0.9, (2, 3)), r.uniform(0, 1, (2, 3)), pos(2, 3)],
               {"reduction": "sum", "wrt": 0}, grad=False, why=SECOND_ORDER),
    ],
    "MSELoss": [
        Sample([f(3, 4), f(4)], {"reduction": "mean"}),
        Sample([f(2, 3), f(2, 3)], {"reduction": "none"}),
        Sample([f(2, 1), f(3)], {"reduction": "sum"}),
    ],
    "SmoothL1Loss": [
        # differences kept away from the kinks at 0 and +-beta
        Sample([np.array([[0.3, -0.4, 2.0], [-1.7, 0.6, 3.1]]), np.zeros((2, 3))], {"beta": 1.0, "reduction": "none"}),
        Sample([np.array([[0.3, -0.4, 2.0], [-1.7, 0.6, 3.1]]), np.array([0.1, 0.2, -0.3])],
               {"beta": 0.5, "reduction": "mean"}),
        Sample([np.array([0.5, -1.2, 2.0]), np.array([0.1, 0.2, 0.3])], {"beta": 0.0, "reduction": "sum"}),
    ],
    "SmoothL1LossGrad": [
        Sample([np.array(1.0), f(2, 3), f(2, 3)], {"beta": 1.0, "reduction": "mean"}, grad=False, why=SECOND_ORDER),
    ],
    "Dropout": [
        Sample([f(4, 5)], {"keep_prob": 0.6, "seed": 3}),
        Sample([f(3, 2)], {"keep_prob": 1.0, "seed": 0}),
    ],
    "DropoutGrad": [
        Sample([f(4, 5), (r.uniform(0, 1, (4, 5)) < 0.5).astype(np.float64)], {"keep_prob": 0.5}, wrt=(0,)),
    ],
    "Embedding": [
        Sample([np.array([[1, 0, 1], [4, 4, 2]]), f(5, 3)], {}),
        Sample([np.array([1, 0, 1, 2, 2, 2]), f(4, 3)], {"padding_idx": 2, "scale_grad_by_freq": True},
               grad=False, why="padding_idx and scale_grad_by_freq deliberately change the table gradient "
                               "(checked against NumPy in test_ops_norm_loss)"),
    ],
    "EmbeddingRenorm": [
        Sample([np.array([[3.0, 4.0], [0.1, 0.1], [6.0, 8.0]]), np.array([0, 1, 0])], {"max_norm": 2.0},
               grad=False, why="rescales rows of the table in place before a lookup; not differentiated, as in "
                               "MindSpore"),
    ],
    "EmbeddingGrad": [
        Sample([f(2, 3, 4), np.array([[1, 0, 1], [4, 4, 2]])], {"num_weights": 5}, wrt=(0,)),
        Sample([f(6, 2), np.array([1, 0, 1, 2, 2, 2])], {"num_weights": 4, "padding_idx": 0,
                                                         "scale_grad_by_freq": True}, wrt=(0,)),
    ],
}

SAMPLES["BatchNormUpdate"] = [
    Sample([np.zeros(3), np.ones(3), np.arange(3.0), np.full(3, 0.5)], {"momentum": 0.1, "eps": 1e-5},
           grad=False, why="updates running statistics in place; no gradient by design"),
    Sample([np.zeros(3), np.ones(3), np.arange(3.0), np.full(3, 0.5)], {"momentum": 0.1, "eps": 1e-5, "count": 8},
           grad=False, why="updates running statistics in place (unbiased variance); no gradient by design"),
]
