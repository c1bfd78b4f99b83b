"""The seeds' PyTorch -> MindSpore migration example, run on Spore by changing one import.

The network and the training loop are the article's MindSpore code (section 6.1, "方式二: 自定义训练循环")
with ``import mindspore as ms`` replaced by ``import spore as ms``. The article reads images with
``mindspore.dataset``; so that this example runs anywhere with nothing to download, the data here
is a synthetic 10-class set of 3x32x32 images: each class is a fixed coarse colour pattern, every
sample is that pattern with a random gain and a random shift of up to 4 pixels, buried in noise
three times stronger than the signal. Memorising pixels does not work; the conv + pooling must
learn the patterns, so test accuracy climbs from chance (10%) over the epochs.

    python examples/simple_cnn_migration.py            # 5 epochs, ~1024 training images
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np

import spore as ms
from spore import nn

NUM_CLASSES = 10
TEMPLATE_SEED = 1000  # the class patterns are the same in every split


# ---- the article's network, unchanged ---------------------------------------------------------------
class SimpleCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, pad_mode='pad', padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fc = nn.Dense(16 * 16 * 16, 10)  # MindSpore中全连接层是Dense
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.pool(x)
        x = self.flatten(x)  # 使用Flatten层替代view
        x = self.fc(x)
        return x


# ---- synthetic data (stands in for the article's ImageFolderDataset) --------------------------------
def make_images(n: int, seed: int, noise: float = 3.0, max_shift: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """`n` images (float32, NCHW, unit variance) and int32 labels; `seed` picks the samples, not the classes."""
    base = np.random.default_rng(TEMPLATE_SEED).standard_normal((NUM_CLASSES, 3, 8, 8)).astype(np.float32)
    templates = np.kron(base, np.ones((1, 1, 4, 4), np.float32))  # coarse 4x4-pixel blocks
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, NUM_CLASSES, n).astype(np.int32)
    images = np.empty((n, 3, 32, 32), np.float32)
    for i, c in enumerate(labels):
        shift = rng.integers(-max_shift, max_shift + 1, size=2)
        images[i] = np.roll(templates[c] * rng.uniform(0.5, 1.5), tuple(shift), axis=(1, 2))
    images += noise * rng.standard_normal(images.shape).astype(np.float32)
    images /= np.sqrt(1.0 + noise ** 2)
    return images, labels


class SyntheticImages:
    """Batches of (data, label) Tensors, reshuffled on every pass: iterated like the article's batched dataset."""

    def __init__(self, images: np.ndarray, labels: np.ndarray, batch_size: int, seed: int = 0) -> None:
        self.images, self.labels, self.batch_size = images, labels, batch_size
        self.rng = np.random.default_rng(seed)

    def __iter__(self) -> Iterator[tuple[ms.Tensor, ms.Tensor]]:
        order = self.rng.permutation(len(self.images))
        for i in range(0, len(order) - self.batch_size + 1, self.batch_size):  # drop_remainder=True
            idx = order[i:i + self.batch_size]
            yield ms.Tensor(self.images[idx]), ms.Tensor(self.labels[idx])


# ---- the article's custom training loop (方式二), epochs and logging added ----------------------------
def train_loop(model, dataset, loss_fn, optimizer, epochs=10, on_epoch=None):
    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    for epoch in range(epochs):
        losses = []
        for data, label in dataset:
            (loss, _), grads = grad_fn(data, label)
            optimizer(grads)
            losses.append(float(loss))
        if on_epoch is not None:
            on_epoch(epoch, sum(losses) / max(len(losses), 1))


def accuracy(model: nn.Cell, images: np.ndarray, labels: np.ndarray, batch_size: int = 256) -> float:
    """Fraction of correctly classified images (argmax of the logits)."""
    correct = 0
    for i in range(0, len(images), batch_size):
        logits = model(ms.Tensor(images[i:i + batch_size]))
        correct += int((logits.asnumpy().argmax(axis=1) == labels[i:i + batch_size]).sum())
    return correct / len(images)


def main(epochs: int = 5, n_train: int = 1024, n_test: int = 256, batch_size: int = 32, seed: int = 0,
         verbose: bool = True) -> dict[str, list[float] | float]:
    """Train SimpleCNN on the synthetic images; returns per-epoch losses and test accuracies (and before/after)."""
    ms.set_seed(seed)
    np.random.seed(seed)
    train_x, train_y = make_images(n_train, seed=seed + 1)
    test_x, test_y = make_images(n_test, seed=seed + 2)
    dataset = SyntheticImages(train_x, train_y, batch_size, seed=seed)

    net = SimpleCNN()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=0.001)

    history: dict[str, list[float] | float] = {"loss": [], "accuracy": [],
                                               "initial_accuracy": accuracy(net, test_x, test_y)}
    if verbose:
        print(f"SimpleCNN on {n_train} synthetic 3x32x32 images, 10 classes; before training: "
              f"test accuracy {history['initial_accuracy']:.1%}", flush=True)
    t0 = time.perf_counter()

    def on_epoch(epoch: int, mean_loss: float) -> None:
        acc = accuracy(net, test_x, test_y)
        history["loss"].append(mean_loss)
        history["accuracy"].append(acc)
        if verbose:
            print(f"epoch {epoch + 1}/{epochs}  loss {mean_loss:.4f}  test accuracy {acc:.1%}  "
                  f"({time.perf_counter() - t0:.1f}s)", flush=True)

    train_loop(net, dataset, loss_fn, optimizer, epochs=epochs, on_epoch=on_epoch)
    history["final_accuracy"] = history["accuracy"][-1] if history["accuracy"] else 0.0
    if verbose:
        print(f"final test accuracy {history['final_accuracy']:.1%} (chance is 10%), "
              f"{time.perf_counter() - t0:.1f}s")
    return history


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--n-train", type=int, default=1024)
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    main(epochs=args.epochs, n_train=args.n_train, batch_size=args.batch_size)
