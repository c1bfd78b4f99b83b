"""User Cells built with non-literal arguments, checked against the real engine: layers appended in a loop over
a constant range, list comprehensions, module constants, `self.<attr>` read back in `__init__`, and `__init__`
parameters whose values come from the Cell's own literal construction. What `__init__` does not let the check
follow (an `if` on a value it cannot compute) makes the layers unknown: a note, never a guessed error."""

from __future__ import annotations

import numpy as np

from .test_shapes_flow import analysed, hints, issues, line_of, load, load_refused

HEAD = "import os\n\nimport numpy as np\nimport spore as ms\nfrom spore import nn, ops\n\nWIDTH = 8\n\n\n"

BUILT = HEAD + '''class Block(nn.Cell):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)
        self.bn = nn.BatchNorm2d(c_out)

    def construct(self, x):
        return ops.relu(self.bn(self.conv(x)))


class Net(nn.Cell):
    def __init__(self, base=4, depth=3):
        super().__init__()
        self.base = base
        layers = []
        c = 3
        for i in range(depth):
            layers.append(Block(c, base * 2 ** i))
            c = base * 2 ** i
        self.body = nn.SequentialCell(layers)
        self.heads = nn.CellList([nn.Dense(c, WIDTH + k) for k in range(2)])
        self.stem = Block(self.base, self.base)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()

    def construct(self, x):
        h = self.body(x)
        h = self.flatten(self.pool(h))
        outs = []
        for head in self.heads:
            outs.append(head(h))
        y = ops.concat(outs, 1)
        return y


net = Net(base=2)
out = net(ms.Tensor(np.ones((2, 3, 8, 8), np.float32)))
'''


def test_layers_built_from_loop_variables_parameters_and_constants_follow_the_engine(tmp_path):
    module = load(tmp_path, BUILT)
    net = module.net
    x = module.ms.Tensor(np.ones((2, 3, 8, 8), np.float32))
    h = net.body(x)
    pooled = net.flatten(net.pool(h))
    assert tuple(module.out.shape) == (2, 17)
    an = analysed(BUILT)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(BUILT, "h = self.body(x)")] == f"({', '.join(map(str, h.shape))}) f32"
    assert lines[line_of(BUILT, "h = self.flatten")] == f"({', '.join(map(str, pooled.shape))}) f32"
    assert lines[line_of(BUILT, "y = ops.concat")] == "(2, 17) f32", "two heads: WIDTH + 0 and WIDTH + 1"


def test_a_wrong_channel_count_in_a_loop_built_block_is_the_engines_error_without_a_rewrite(tmp_path):
    wrong = BUILT.replace("            c = base * 2 ** i\n", "")
    _, err = load_refused(tmp_path, wrong)  # the second Block gets 3 channels where the first gives 2
    an = analysed(wrong)
    (d,) = issues(an, "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "return ops.relu(self.bn(self.conv(x)))")
    assert d.message.startswith("conv expects 3 input channels (nn.Conv2d(c_in, c_out, 3), line "), d.message
    assert "receives 2" in d.message
    assert d.fixes == [], "c_in stands for other values in the other Blocks: no rewrite of it"


UNSURE = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        c = 16
        if os.environ.get("SPORE_TEST_WIDE"):
            c = 32
        self.fc = nn.Dense(c, 4)

    def construct(self, x):
        return self.fc(x)


out = Net()(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_a_value_init_sets_under_an_if_it_cannot_compute_is_unknown_never_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("SPORE_TEST_WIDE", raising=False)
    load(tmp_path, UNSURE)  # the engine runs it: c is 16 here
    an = analysed(UNSURE)
    assert not issues(an, "shape-mismatch")
    (note,) = issues(an, "shape-stopped")
    assert note.line + 1 == line_of(UNSURE, "return self.fc(x)") and "self.fc" in note.message
    decided = UNSURE.replace('os.environ.get("SPORE_TEST_WIDE")', "False")
    load(tmp_path, decided)
    assert not issues(analysed(decided), "shape-stopped"), "an if on a constant is followed"
    wide = UNSURE.replace('os.environ.get("SPORE_TEST_WIDE")', "True")
    _, err = load_refused(tmp_path, wide)
    (d,) = issues(analysed(wide), "shape-mismatch")
    assert d.line + 1 == err.loc.line and d.message.startswith("fc expects 32 input features")
