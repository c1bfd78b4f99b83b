"""A data-parallel job in which rank 1 fails on purpose; rank 0 keeps training and checkpointing.

argv: kind (raise|kill|hang|mismatch) out_dir. Each rank writes its pid to <out_dir>/pid_<rank>
(the test checks none is left running); rank 0 checkpoints every step into <out_dir>/ckpt.
"""

import os
import signal
import sys
import time

import numpy as np

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.communication import get_rank, init
from spore.train import CheckpointConfig, Model, ModelCheckpoint

kind, out = sys.argv[1], sys.argv[2]
init()
rank = get_rank()
with open(os.path.join(out, f"pid_{rank}"), "w") as f:
    f.write(str(os.getpid()))
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
ms.set_seed(0)
hidden = 65 if kind == "mismatch" and rank == 1 else 64
net = nn.SequentialCell(nn.Dense(20, hidden), nn.ReLU(), nn.Dense(hidden, 10))
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
rng = np.random.default_rng(0)
data = ds.NumpySlicesDataset({"x": rng.standard_normal((400, 20)).astype(np.float32),
                              "y": rng.integers(0, 10, 400).astype(np.int32)}).batch(4)


class FailAt(ms.train.Callback):
    """Rank 1 fails in its own way at step 3."""

    def on_train_step_end(self, run_context):
        if rank != 1 or run_context.original_args().cur_step_num != 3:
            return
        if kind == "raise":
            raise RuntimeError("boom: rank 1 failed on purpose")
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if kind == "hang":
            time.sleep(3600)


cfg = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=100)
model.train(20, data, callbacks=[FailAt(), ModelCheckpoint("net", os.path.join(out, "ckpt"), cfg)])
print(f"rank {rank}: finished (the failure did not stop the job)", flush=True)
