"""OnRequestExit and BackupAndRestore (issue 14) run by a real Model."""

from __future__ import annotations

import os
import signal

import numpy as np

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.train import BackupAndRestore, LambdaCallback, Model, OnRequestExit


def data(n: int = 32, batch: int = 8):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.integers(0, 3, n).astype(np.int32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def model_of(net):
    return Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                 nn.SGD(net.trainable_params(), 0.1))


def test_on_request_exit_saves_and_stops_after_the_signal(tmp_path):
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    steps: list[int] = []

    def step_end(rc):
        steps.append(rc.original_args().cur_step_num)
        if rc.original_args().cur_step_num == 2:
            os.kill(os.getpid(), signal.SIGUSR1)  # the handler only sets a flag

    before = signal.getsignal(signal.SIGUSR1)
    cb = OnRequestExit(save_mindir=False, file_name="stopped", directory=str(tmp_path), sig=signal.SIGUSR1)
    model_of(net).train(3, data(), callbacks=[LambdaCallback(on_train_step_end=step_end), cb])
    assert steps == [1, 2]  # stopped at the step the signal arrived in, not after 12 steps
    saved = ms.load_checkpoint(str(tmp_path / "stopped.ckpt"))
    weight = next(v for k, v in saved.items() if k.endswith("weight") and "moment" not in k and "accum" not in k)
    np.testing.assert_array_equal(weight.asnumpy(), net.weight.asnumpy())
    assert signal.getsignal(signal.SIGUSR1) == before  # the previous handler is back


def test_backup_and_restore_round_trip(tmp_path):
    ms.set_seed(1)
    net = nn.Dense(4, 3)
    backup = BackupAndRestore(str(tmp_path / "bk"), delete_checkpoint=False)
    model_of(net).train(2, data(), callbacks=[backup])
    path = tmp_path / "bk" / "backup.ckpt"
    assert path.exists()
    trained = net.weight.asnumpy().copy()
    ms.set_seed(2)
    fresh = nn.Dense(4, 3)
    assert not np.array_equal(fresh.weight.asnumpy(), trained)
    seen = []
    restore = BackupAndRestore(str(tmp_path / "bk"))
    model_of(fresh).train(1, data(), callbacks=[restore, LambdaCallback(on_train_begin=lambda rc: seen.append(
        rc.original_args().network.weight.asnumpy().copy()))])
    np.testing.assert_array_equal(seen[0], trained)  # restored before the first step
    assert restore.restored_epoch == 2
    assert not path.exists()  # delete_checkpoint after a completed run
