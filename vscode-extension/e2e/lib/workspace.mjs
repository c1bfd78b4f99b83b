// The files the suite opens. Each step has its own file so one step's edits cannot change another's
// input. Lines the steps need are found by a marker comment, not hard-coded numbers.

/** 1-based line of the first line containing `marker` in `text`. */
export function lineOf(text, marker) {
  const i = text.split("\n").findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`fixture has no line with ${JSON.stringify(marker)}`);
  return i + 1;
}

/** A `try` in a GRAPH_MODE construct: spore-lsp flags it (squiggle + hover). */
export const LSP_PY = `import spore as ms
from spore import nn

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        try:  # TRY
            y = self.fc(x)
        except ValueError:
            y = x
        return y
`;

/** A GRAPH_MODE file whose mode the status bar item switches. */
export const MODE_PY = `import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)  # MODE


class Net(nn.Cell):
    def construct(self, x):
        return ops.relu(x)  # BODY
`;

/** A program that calls its net at module level, so Show Graph can capture the real inputs. */
export const GRAPH_PY = `import numpy as np
import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def construct(self, x):
        h = ops.relu(x * 2.0)  # CURSOR
        return ops.tanh(h) + 1.0  # SECOND


net = Net()
print(net(ms.Tensor(np.ones((3, 4), np.float32))).shape)
`;

/** A STRICT construct with a \`try\`: the compile error stops the debugger on that line. */
export const STRICT_PY = `import numpy as np
import spore as ms
from spore import nn

ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        try:  # TRY
            y = self.fc(x)
        except ValueError:
            y = x
        return y


net = Net()
print(net(ms.Tensor(np.ones((1, 4), np.float32))))
`;

/** A GRAPH_MODE construct with a line to put a breakpoint on. */
export const BREAK_PY = `import numpy as np
import spore as ms
from spore import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        y = self.fc(x)  # BREAK
        return ops.relu(y)


net = Net()
print(net(ms.Tensor(np.ones((1, 4), np.float32))))
`;

/** The notebook's cells: imports, a tensor as the last expression, a small Cell, its graph. */
export const NOTEBOOK_CELLS = [
  "import numpy as np\nimport spore as ms\nfrom spore import nn, ops",
  "ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))",
  "class Small(nn.Cell):\n    def construct(self, x):\n        y = ops.relu(x)\n        return y * 2.0\n\n\nnet = Small()\nx = ms.Tensor(np.ones((2, 4), np.float32))",
  "%spore_graph net x",
];

/** The cell (0-based) and its lines (1-based) that hold the graph's ops, for the reveal check. */
export const NOTEBOOK_NET_CELL = 2;

export function notebookJson(cells) {
  return JSON.stringify({
    cells: cells.map((source) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [],
      source: source.split(/(?<=\n)/) })),
    metadata: {
      kernelspec: { name: "spore", display_name: "Spore", language: "python" },
      language_info: { name: "python" },
    },
    nbformat: 4,
    nbformat_minor: 5,
  }, null, 1);
}

/** Every file of the workspace, relative path -> text. */
export function workspaceFiles() {
  return {
    "model.py": LSP_PY,
    "mode_switch.py": MODE_PY,
    "graph_net.py": GRAPH_PY,
    "strict.py": STRICT_PY,
    "breakpoint_net.py": BREAK_PY,
    "tensors.ipynb": notebookJson(NOTEBOOK_CELLS),
  };
}
