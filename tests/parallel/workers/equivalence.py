"""Train K steps of a network with data parallelism and save the final parameters.

argv: net (mlp|cnn|bn) mode (pynative|graph) global_batch steps out.npz [bucket_mb]
On N ranks each rank takes its contiguous 1/N of every global batch; alone, the whole batch.
"""

import sys

import numpy as np

import spore as ms
from spore import nn
from spore.communication import get_group_size, get_rank, init

sys.path.insert(0, __file__.rsplit("/", 3)[0])
from tests.parallel.nets import make_net  # noqa: E402

net_name, mode, global_batch, steps, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
bucket_mb = float(sys.argv[6]) if len(sys.argv) > 6 else 25.0
init()
rank, size = get_rank(), get_group_size()
ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                             comm_fusion={"allreduce": {"mode": "size", "config": bucket_mb}})
ms.set_seed(1 + rank * 1000)   # different initial weights per rank: the start-up broadcast must fix them
net, x_shape, classes = make_net(net_name)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
step.set_train()
data = np.random.default_rng(7)
local = global_batch // size
losses = []
for k in range(steps):
    x = data.standard_normal((global_batch,) + x_shape).astype(np.float32)
    y = data.integers(0, classes, global_batch).astype(np.int32)
    sl = slice(rank * local, (rank + 1) * local)
    losses.append(float(step(ms.Tensor(x[sl]), ms.Tensor(y[sl])).asnumpy()))
if rank == 0:
    np.savez(out, **{p.name: p.asnumpy() for p in net.get_parameters()}, __losses=np.array(losses))
print(f"rank {rank}/{size} done", flush=True)
