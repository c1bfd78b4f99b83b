"""Write examples/quickstart.ipynb: the notebook `make demo` executes on the Spore kernel.

The notebook is generated so that it stays reviewable (this file is plain Python, diffs are
readable) and reproducible (fixed cell ids, no outputs, no execution counts: running this script
twice writes the same bytes). Edit the cells here, then run

    .venv/bin/python examples/make_quickstart.py            # writes examples/quickstart.ipynb
    .venv/bin/python examples/make_quickstart.py --check    # exit 1 if the committed notebook is stale

What the notebook shows, in order: the seeds' SimpleCNN and its parameter table, a tensor's display,
the network's graph (`%spore_graph`), a Graph-mode compile error with its hint and both ways to
follow it, a CNN trained on scikit-learn's digits, its training curves, and `%%spore_profile` on
one training step. Cells that must raise carry the `raises-exception` tag (nbclient and JupyterLab
both honour it), so the notebook runs top to bottom headless.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().with_name("quickstart.ipynb")
RAISES = "raises-exception"

# (kind, id, source, tags). Ids are fixed so the file is byte-for-byte reproducible; tests and the
# README-picture script find cells by these ids.
CELLS: list[tuple[str, str, str, list[str]]] = [
    ("md", "intro", """\
# Spore quickstart

Spore runs MindSpore code after one changed import (`import spore as ms`). This notebook runs on the
**Spore (Python)** kernel, which adds views and tools for deep-learning work to IPython:

* tensors and networks display as summaries (shape, dtype, range, NaN flags, parameter tables);
* `%spore_graph NET INPUT` shows the compiled graph of a network;
* a Graph-mode compile error comes with a hint: the line, why, and what to do next;
* `%%spore_profile` times every op of a cell and names the line that ran it.

`make demo` executes this notebook headless and writes `build/demo/quickstart.html`.""", []),
    ("code", "imports", """\
import numpy as np

import spore as ms
from spore import nn

ms.set_seed(0)
np.random.seed(0)
%spore_mode""", []),
    ("md", "net-md", """\
## 1. A network

The seeds' `SimpleCNN` — MindSpore code from the PyTorch migration article, unchanged. A `Cell` shows
its parameter table: names, shapes, counts, and which ones train.""", []),
    ("code", "net", """\
class SimpleCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, pad_mode='pad', padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fc = nn.Dense(16 * 16 * 16, 10)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.pool(x)
        x = self.flatten(x)
        x = self.fc(x)
        return x


net = SimpleCNN()
net""", []),
    ("md", "tensor-md", """\
## 2. A tensor

Run the network on a batch of four random 3×32×32 images. A tensor displays as a one-line summary
(shape, dtype, size, range, mean, std, flags such as `NaN!`), a histogram and its values — the
edges of large ones, all of small ones.""", []),
    ("code", "tensor", """\
x = ms.Tensor(np.random.randn(4, 3, 32, 32).astype(np.float32))
logits = net(x)
logits""", []),
    ("md", "graph-md", """\
## 3. Its graph

`%spore_graph NET INPUT` compiles `construct` for that input, as Graph mode would, and shows the
graph without running it: Cell scopes as boxes, fused ops, shapes on the edges. Click a node for
its details and source line.""", []),
    ("code", "graph", """\
%spore_graph net x""", []),
    ("md", "error-md", """\
## 4. A Graph-mode error, and its hint

Graph mode (`ms.GRAPH_MODE`) compiles `construct` into a graph. A habit from eager code — keeping an
activation on `self` to look at later — cannot be compiled faithfully: the graph would keep only the
first call's value. By default (`jit_syntax_level=ms.LAX`) Spore runs that one statement in Python
between two compiled parts (a *graph break*, with a warning); under `ms.STRICT` it refuses instead of
running a silently different program, and the hint under the traceback says where, why, and what to
do next.""", []),
    ("code", "error", """\
%spore_mode graph
ms.set_context(jit_syntax_level=ms.STRICT)  # refuse what one graph cannot hold


class DebugCNN(SimpleCNN):
    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        self.features = x  # keep the feature maps to look at later
        return self.fc(self.flatten(x))


debug_net = DebugCNN()
debug_net(x)""", [RAISES]),
    ("md", "fix1-md", """\
The hint's first step: switch back to PyNative, where every Python construct runs as written.""", []),
    ("code", "fix1", """\
%spore_mode pynative
debug_net(x)
debug_net.features.shape""", []),
    ("md", "fix2-md", """\
Or its rewrite, which keeps Graph mode: return the value from `construct` instead of storing it.""", []),
    ("code", "fix2", """\
%spore_mode graph


class FeatureCNN(SimpleCNN):
    def construct(self, x):
        features = self.pool(self.relu(self.conv1(x)))
        return self.fc(self.flatten(features)), features


feature_net = FeatureCNN()
out, features = feature_net(x)
print("compiled and ran in Graph mode:", out.shape, features.shape)
ms.set_context(jit_syntax_level=ms.LAX)
%spore_mode pynative""", []),
    ("md", "data-md", """\
## 5. Train on digits

scikit-learn ships 1,797 handwritten digits of 8×8 pixels, so nothing is downloaded. An 80/20
stratified split, standardised with the training set's statistics.""", []),
    ("code", "data", """\
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
images = digits.images.astype(np.float32)[:, None]  # (1797, 1, 8, 8), values 0..16
labels = digits.target.astype(np.int32)
x_train, x_test, y_train, y_test = train_test_split(images, labels, test_size=0.2, random_state=0,
                                                    stratify=labels)
mean, std = x_train.mean(), x_train.std()
x_train, x_test = (x_train - mean) / std, (x_test - mean) / std
print(f"train {x_train.shape}, test {x_test.shape}")""", []),
    ("md", "model-md", """\
A small CNN (two conv/pool stages, 8 → 4 → 2 pixels) and MindSpore's custom training loop:
`value_and_grad` over a forward function, then the optimizer.""", []),
    ("code", "model", """\
class DigitsCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, pad_mode='pad', padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, pad_mode='pad', padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 2 * 2, 64)
        self.fc2 = nn.Dense(64, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


model = DigitsCNN()
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
optimizer = nn.Adam(model.trainable_params(), learning_rate=0.003)


def forward_fn(data, label):
    logits = model(data)
    return loss_fn(logits, label), logits


grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


def train_step(data, label):
    (loss, _), grads = grad_fn(data, label)
    optimizer(grads)
    return loss


def evaluate(x, y):
    logits = model(ms.Tensor(x))
    loss = float(loss_fn(logits, ms.Tensor(y)))
    return loss, float((logits.asnumpy().argmax(axis=1) == y).mean())


model""", []),
    ("code", "train", """\
epochs, batch_size = 12, 32
rng = np.random.default_rng(0)
history = {"epoch": [], "loss": [], "val_loss": [], "accuracy": [], "val_accuracy": []}
for epoch in range(1, epochs + 1):
    model.set_train(True)
    order = rng.permutation(len(x_train))
    for i in range(0, len(order), batch_size):
        idx = order[i:i + batch_size]
        train_step(ms.Tensor(x_train[idx]), ms.Tensor(y_train[idx]))
    model.set_train(False)
    loss, acc = evaluate(x_train, y_train)
    val_loss, val_acc = evaluate(x_test, y_test)
    for key, value in zip(history, (epoch, loss, val_loss, acc, val_acc)):
        history[key].append(value)
    print(f"epoch {epoch:2d}  loss {loss:.4f}  val_loss {val_loss:.4f}  accuracy {acc:.1%}  "
          f"val_accuracy {val_acc:.1%}")
print(f"final test accuracy: {history['val_accuracy'][-1]:.2%}")""", []),
    ("md", "curves-md", """\
## 6. Training curves

`spore_viz.plots.training_curves` takes the history dict: losses on the left, metrics on the right,
validation series dashed in their training twin's colour. It returns a matplotlib `Figure`;
`%matplotlib inline` makes the notebook show figures as pictures.""", []),
    ("code", "curves", """\
%matplotlib inline
from spore_viz.plots import training_curves

training_curves(history, x="epoch", title="DigitsCNN on scikit-learn digits")""", []),
    ("md", "plot-md", """\
`%spore_plot` draws a tensor. What the trained first convolution sees: its 8 feature maps (columns)
for 4 test digits (rows), on one colour scale.""", []),
    ("code", "plot", """\
%spore_plot model.relu(model.conv1(ms.Tensor(x_test[:4])))""", []),
    ("md", "profile-md", """\
## 7. Profile one training step

`%%spore_profile` runs the cell under `ms.Profiler` and lists the ops by time, each with the Cell
that ran it and the notebook line.""", []),
    ("code", "profile", """\
%%spore_profile --top 12
loss = train_step(ms.Tensor(x_train[:batch_size]), ms.Tensor(y_train[:batch_size]))""", []),
    ("md", "end", """\
## Next

* `%spore_mode graph` before training compiles each step; `%spore_hints off` silences the hints.
* `examples/train_digits_model.py` trains through MindSpore's `Model` API with callbacks,
  checkpoints and mixed precision.
* `spore-viz GRAPH.json` opens a graph saved with `ms.set_context(save_graphs=True)` in a browser.""", []),
]


def build() -> nbformat.NotebookNode:
    cells = []
    for kind, cell_id, source, tags in CELLS:
        make = new_markdown_cell if kind == "md" else new_code_cell
        cell = make(source=source, id=cell_id)
        if tags:
            cell.metadata["tags"] = list(tags)
        cells.append(cell)
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "spore", "display_name": "Spore (Python)", "language": "python"},
        "language_info": {"name": "python", "file_extension": ".py", "mimetype": "text/x-python"},
    })
    nbformat.validate(nb)
    return nb


def render() -> str:
    return nbformat.writes(build()) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT, help=f"where to write the notebook (default {OUT})")
    ap.add_argument("--check", action="store_true", help="only check that --out is up to date")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run python examples/make_quickstart.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(CELLS)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
