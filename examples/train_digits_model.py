"""Train a 64-128-10 MLP on scikit-learn's 8x8 digits with MindSpore's high-level `Model` API on Spore.

MindSpore code with one changed import: ``Model(net, loss_fn, optimizer, metrics={"accuracy"})``,
``model.train`` with LossMonitor, TimeMonitor, ModelCheckpoint and SummaryCollector callbacks, then
``model.eval``. The 1,797 digits ship inside scikit-learn, so nothing is downloaded. It reaches
about 97.5% test accuracy in a few seconds (PyTorch reaches 97.2%, MindSpore 96.9% with this MLP).

    python examples/train_digits_model.py                 # PyNative, 20 epochs
    python examples/train_digits_model.py --mode graph    # each training step compiled (Graph mode)
    python examples/train_digits_model.py --amp-dtype bfloat16   # O2 in bfloat16 (no loss scale)
    tensorboard --logdir build/train_digits_model/summary # loss, learning rate, accuracy, histograms

Checkpoints (``digits-<epoch>_<step>.ckpt``, the newest three) and the TensorBoard summary go to
``build/train_digits_model/`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import spore as ms
import spore.dataset as ds
from spore import nn
from spore.amp import DynamicLossScaleManager
from spore.train.callback import CheckpointConfig, LossMonitor, ModelCheckpoint, SummaryCollector, TimeMonitor
from spore.train.model import Model

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "build" / "train_digits_model"


class MLP(nn.Cell):
    """64 pixels -> 128 ReLU units -> 10 class scores."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(64, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(128, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def load_split(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stratified 80/20 split; each pixel standardised with the training set's mean and deviation."""
    digits = load_digits()
    x = digits.data.astype(np.float32)                  # (1797, 64), values 0..16
    y = digits.target.astype(np.int32)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)
    # Some border pixels are always 0 in training: leave those unscaled instead of dividing by ~0,
    # which would blow rare test values past float16's range under mixed precision.
    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    std[std < 1e-3] = 1.0
    return (x_train - mean) / std, (x_test - mean) / std, y_train, y_test


def main(epochs: int = 20, batch_size: int = 32, learning_rate: float = 0.002, seed: int = 0,
         mode: str = "pynative", out_dir: str | Path | None = None, verbose: bool = True,
         amp_level: str = "O2", amp_dtype: str = "float16") -> float:
    """Train with `Model.train`, evaluate with `Model.eval`, and return the test accuracy.

    `amp_dtype` "bfloat16" runs the mixed-precision levels in bfloat16 (through Model's
    `cast_model_type`, a Spore addition): faster than float16 on a CPU with bf16 arithmetic, and it
    needs no loss scale."""
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(seed)
    out = Path(out_dir) if out_dir is not None else DEFAULT_OUT
    x_train, x_test, y_train, y_test = load_split(seed)
    train_ds = ds.NumpySlicesDataset({"image": x_train, "label": y_train}, shuffle=True).batch(batch_size)
    test_ds = ds.NumpySlicesDataset({"image": x_test, "label": y_test}, shuffle=False).batch(256)
    steps = train_ds.get_dataset_size()

    net = MLP()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=learning_rate)
    # O2: the network computes in float16 (BatchNorm/softmax/loss stay float32) over float32 master
    # weights, with a dynamic loss scale that skips updates whose gradients overflow.
    amp: dict = {}
    if amp_level != "O0" and amp_dtype == "bfloat16":
        amp["cast_model_type"] = ms.bfloat16  # bfloat16 has float32's range: no loss scale
    elif amp_level != "O0":
        amp["loss_scale_manager"] = DynamicLossScaleManager(init_loss_scale=2.0 ** 12, scale_factor=2,
                                                            scale_window=200)
    model = Model(net, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"}, amp_level=amp_level, **amp)

    config = CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=3)
    callbacks = [ModelCheckpoint(prefix="digits", directory=out / "ckpt", config=config),
                 SummaryCollector(out / "summary", collect_freq=steps)]
    if verbose:
        callbacks = [LossMonitor(per_print_times=steps), TimeMonitor()] + callbacks
        print(f"digits: {len(x_train)} train / {len(x_test)} test images; MLP 64-128-10; Adam lr={learning_rate}, "
              f"batch {batch_size}, {steps} steps per epoch; {mode} mode, amp {amp_level}"
              + (f" in {amp_dtype}" if amp_level != "O0" else ""))
    t0 = time.perf_counter()
    model.train(epochs, train_ds, callbacks=callbacks)
    accuracy = model.eval(test_ds)["accuracy"]
    if verbose:
        print(f"test accuracy: {accuracy:.2%} after {epochs} epochs in {time.perf_counter() - t0:.1f}s")
        print(f"checkpoints: {out / 'ckpt'}   summary: tensorboard --logdir {out / 'summary'}")
    return accuracy


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("pynative", "graph"), default="pynative")
    ap.add_argument("--out", type=Path, default=None, help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--amp", choices=("O0", "O1", "O2", "O3"), default="O2", help="mixed precision level")
    ap.add_argument("--amp-dtype", choices=("float16", "bfloat16"), default="float16",
                    help="the mixed-precision dtype (bfloat16: faster on CPUs with bf16 arithmetic)")
    args = ap.parse_args()
    main(epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.lr, seed=args.seed, mode=args.mode,
         out_dir=args.out, amp_level=args.amp, amp_dtype=args.amp_dtype)
