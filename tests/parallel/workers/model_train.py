"""`Model.train` / `Model.eval` under DATA_PARALLEL with an automatically sharded dataset.

argv: mode (pynative|graph) batch out_dir. Writes <out_dir>/result_rank<r>.json (indices read per
epoch, eval metrics) and rank 0's final parameters <out_dir>/params.npz; checkpoints go to
<out_dir>/ckpt (rank 0 only) and, with save_on_all_ranks, to <out_dir>/ckpt_all/rank_<r>.
"""

import json
import os
import sys

import numpy as np

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.communication import get_rank, init
from spore.train import CheckpointConfig, LossMonitor, Model, ModelCheckpoint

sys.path.insert(0, __file__.rsplit("/", 3)[0])
from tests.parallel.nets import make_net  # noqa: E402

mode, batch, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# alone: one explicit shard, so the order is the shared permutation the ranks shard (equivalence)
shard = {"num_shards": 1, "shard_id": 0} if len(sys.argv) > 4 and sys.argv[4] == "one-shard" else {}
init()
rank = get_rank()
ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
ms.set_seed(3)
rng = np.random.default_rng(11)
x = rng.standard_normal((64, 20)).astype(np.float32)
y = rng.integers(0, 10, 64).astype(np.int32)
idx = np.arange(64, dtype=np.int32)

seen = []
probe = ds.NumpySlicesDataset({"i": idx}, shuffle=True)
for _ in range(2):
    seen.append([int(r["i"]) for r in probe.create_dict_iterator(num_epochs=1, output_numpy=True)])

net, _, _ = make_net("mlp")
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
model = Model(net, loss, opt, metrics={"accuracy", "loss"})
train = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=True, **shard).batch(batch)
cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=10)
cbs = [ModelCheckpoint("net", os.path.join(out, "ckpt"), cfg), LossMonitor(),
       ModelCheckpoint("net", os.path.join(out, "ckpt_all"), CheckpointConfig(save_checkpoint_steps=4,
                                                                             save_on_all_ranks=True))]
model.train(2, train, callbacks=cbs)
valid = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)
metrics = model.eval(valid)
with open(os.path.join(out, f"result_rank{rank}.json"), "w") as f:
    json.dump({"seen": seen, "metrics": metrics}, f)
if rank == 0:
    np.savez(os.path.join(out, "params.npz"), **{p.name: p.asnumpy() for p in net.get_parameters()})
