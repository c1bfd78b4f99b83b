"""Bucketed, overlapped gradient reduction gives the same parameters as one bucket reduced after
the backward pass, and its buckets really start during the backward.

argv: out.json. Trains the SimpleCNN 3 steps three ways from the same start: overlap with tiny
buckets, no overlap with one big bucket, and fp16 / top-k compression (their drift is reported).
"""

import json
import sys

import numpy as np

import spore as ms
from spore import nn
from spore.communication import get_group_size, get_rank, init

sys.path.insert(0, __file__.rsplit("/", 3)[0])
from tests.parallel.nets import make_net  # noqa: E402

init()
rank, size = get_rank(), get_group_size()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)


def run(bucket_mb, overlap, compression=None):
    ms.set_seed(5)
    net, shape, classes = make_net("cnn")
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                               opt)
    step.grad_reducer = nn.DistributedGradReducer(step.weights, bucket_size_mb=bucket_mb, overlap=overlap,
                                                  compression=compression)
    rng = np.random.default_rng(rank)
    for _ in range(3):
        x = rng.standard_normal((4,) + shape).astype(np.float32)
        y = rng.integers(0, classes, 4).astype(np.int32)
        step(ms.Tensor(x), ms.Tensor(y))
    reducer = step.grad_reducer
    return [p.asnumpy() for p in net.get_parameters()], len(reducer.buckets), reducer.early_buckets


small, n_small, early_small = run(0.002, True)
big, n_big, early_big = run(100.0, False)
fp16, _, _ = run(0.002, True, "fp16")
topk, _, _ = run(0.002, True, "topk")


def rel(a, b):
    return max(float(np.abs(x - y).max() / (np.abs(y).max() + 1e-12)) for x, y in zip(a, b))


print("RESULT " + json.dumps({"rank": rank, "buckets_small": n_small, "early_small": early_small,
                              "buckets_big": n_big, "early_big": early_big, "diff_bucketed": rel(small, big),
                              "drift_fp16": rel(fp16, big), "drift_topk": rel(topk, big)}), flush=True)
