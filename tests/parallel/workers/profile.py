"""Profile a few data-parallel steps on each rank; rank 0 merges the traces into one timeline.

argv: out_dir. Small buckets, so communication of the first buckets overlaps the rest of the backward.
"""

import os
import sys

import numpy as np

import spore as ms
from spore import nn
from spore.communication import _backend, get_rank, init
from spore.parallel import merge_chrome_traces

sys.path.insert(0, __file__.rsplit("/", 3)[0])
from tests.parallel.nets import make_net  # noqa: E402

out = sys.argv[1]
init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                             comm_fusion={"allreduce": {"mode": "size", "config": 0.002}})
ms.set_seed(0)
net, shape, classes = make_net("cnn")
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
                           nn.SGD(net.trainable_params(), learning_rate=0.1))
rng = np.random.default_rng(rank)
x = ms.Tensor(rng.standard_normal((16,) + shape).astype(np.float32))
y = ms.Tensor(rng.integers(0, classes, 16).astype(np.int32))
step(x, y)   # warm-up outside the profile
profiler = ms.Profiler(output_path=out)
for _ in range(3):
    step(x, y)
profiler.analyse()
_backend.barrier()
if rank == 0:
    paths = [os.path.join(out, f"spore_trace_rank{r}.json") for r in range(_backend.size())]
    merge_chrome_traces(paths, os.path.join(out, "timeline.json"))
