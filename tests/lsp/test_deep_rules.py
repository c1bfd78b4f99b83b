"""The deeper Graph-mode rules (spore_lsp/deep_rules.py), in process: code the compiler accepts stays silent
(each accepted sample is compiled here with the real engine under STRICT, so "accepted" is the engine's word,
not the test's); an argument is a tensor only with evidence in the document; the lists of ops, Tensor
methods and layers the rules trust to return one tensor are checked against the engine; findings are cached
per function and move with it."""

import importlib.util
import sys
import textwrap
import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore_lsp import tensor_facts
from spore_lsp.analysis import analyse
from spore_lsp.documents import from_text

HEAD = textwrap.dedent("""\
    import math
    import numpy as np
    import spore as ms
    from spore import nn, ops


    class Plain:
        @staticmethod
        def twice(x):
            return x * 2


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)
            self.w = ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="w")
            self.lstm = nn.LSTM(2, 2, batch_first=True)
            self.scale = 2.0
    """)


def deep_issues(text: str) -> list[tuple[str, int]]:
    an = analyse(from_text("file:///deep.py", text, 1), None)
    assert not an.errors
    return [(i.code, i.line) for i in an.issues if i.code.startswith("graph-")]


def compiles(tmp_path, text: str, *args) -> None:
    """Import the text with the real engine and call Net()(*args) under GRAPH_MODE + STRICT: raises if refused."""
    path = tmp_path / f"accepted_{abs(hash(text))}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.Net()(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
        sys.modules.pop(spec.name, None)


ACCEPTED = {
    "conversions in conditions": "if float(y.sum()) > 0:\n    x = y\nwhile bool(y.sum() > 100):\n    y = y - 1\n"
                                 "assert float(y.sum()) > -1, 'never negative'\nassert y.sum().item() > -1, 'ok'\n"
                                 "z = y if int(y.argmax()) == 0 else x\n",
    "shapes are Python values": "n = y.shape[0]\nv = [1, 2, 3][n]\nr = range(y.ndim)\nk = max(y.shape[0], 1)\n"
                                "f = float(y.shape[-1])\ns = str(y)\nm = len(y)\nok = isinstance(y, ms.Tensor)\n",
    "static values": "v = float(self.scale)\nu = int(3.5)\nb = None or y\nt = 1 and y\ne = y is None\n"
                     "p = float(self.w)\nq = float(self.w.T)\nc = float(ms.Tensor(3.0))\n",
    "a tuple output is not a tensor": "o = self.lstm(x.reshape(1, 1, 2))\nn = len(o)\n",
    "a staticmethod of a plain class is a function": "y = Plain.twice(y)\n",
    "both branches bind the name": "if y.sum() > 0:\n    tmp = y * 2\nelse:\n    tmp = y\nx = tmp\n",
    "bound before the if": "tmp = y\nif y.sum() > 0:\n    tmp = y * 2\nx = tmp\n",
    "a return in a tensor if outside loops": "if y.sum() > 0:\n    return y\n",
    "a while on a tensor without exits": "while y.sum() > 100:\n    y = y - 1\n",
    "a break in a static if": "for i in range(3):\n    if i == 1:\n        break\n",
    "f-string of a shape": "s = f'{y.shape}'\n",
    "conversion of a loop index": "for i in range(2):\n    v = float(i)\n",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_code_the_compiler_accepts_gets_no_deeper_finding(tmp_path, name):
    body = textwrap.indent("y = ops.relu(self.fc(x))\n" + ACCEPTED[name], " " * 8)
    text = HEAD + "\n    def construct(self, x):\n" + body + "        return x\n"
    compiles(tmp_path, text, ms.Tensor(np.ones((1, 2), np.float32)))  # the engine's word: it compiles
    assert deep_issues(text) == []


ARG_BODY = "        v = float(x)\n        return v\n"


@pytest.mark.parametrize("evidence, signature, after", [
    ("annotation", "def construct(self, x: ms.Tensor):", ""),
    ("input_shape comment", "def construct(self, x):  # spore: input_shape=(1,)", ""),
    ("call site", "def construct(self, x):", "net = Net()\nout = net(ms.Tensor(np.ones(1, np.float32)))\n"),
    ("call site through a module name", "def construct(self, x):", "X = ops.ones((1,))\nNet()(X)\n"),
])
def test_an_argument_is_a_tensor_with_evidence_in_the_document(evidence, signature, after):
    text = HEAD + f"\n    {signature}\n" + ARG_BODY + "\n\n" + after
    line = HEAD.count("\n") + 2
    assert deep_issues(text) == [("graph-python_value_of_tensor", line)], evidence


def test_an_argument_without_evidence_stays_unknown_and_a_number_argument_compiles(tmp_path):
    text = HEAD + "\n    def construct(self, x):\n" + ARG_BODY
    assert deep_issues(text) == []
    compiles(tmp_path, text, 3)  # a Python number stays a Python value in Graph mode: float(x) is fine


def test_a_builtin_the_file_rebinds_is_not_the_builtin():
    text = HEAD + "\n    def construct(self, x):\n        return chr(x)\n\n\ndef chr(x):\n    return x\n"
    assert deep_issues(text) == []
    line = text.split("\n").index("        return chr(x)")
    assert deep_issues(text.replace("def chr(x)", "def other(x)")) == [("graph-unsupported_call", line)]


def test_findings_move_with_their_function_and_jit_functions_are_checked():
    text = HEAD + "\n\n@ms.jit\ndef step(x):\n    y = ops.relu(x)\n    return float(y.sum())\n"
    line = text.split("\n").index("    return float(y.sum())")
    assert deep_issues(text) == [("graph-python_value_of_tensor", line)]
    assert deep_issues("\n\n" + text) == [("graph-python_value_of_tensor", line + 2)]


SAMPLE = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10)
OP_ARGS = {  # ops that need more than a tensor
    "reshape": (SAMPLE, (3, 2)), "transpose": (SAMPLE, (1, 0)), "permute": (SAMPLE, (1, 0)),
    "expand_dims": (SAMPLE, 0), "unsqueeze": (SAMPLE, 0), "concat": ((SAMPLE, SAMPLE),), "cat": ((SAMPLE, SAMPLE),),
    "stack": ((SAMPLE, SAMPLE),), "tile": (SAMPLE, (2, 1)), "broadcast_to": (SAMPLE, (2, 2, 3)),
    "cast": (SAMPLE, ms.int32), "zeros": ((2, 3),), "ones": ((2, 3),), "full": ((2, 3), 1.0),
    "fill": (ms.float32, (2, 3), 1.0), "where": (SAMPLE > 0.2, SAMPLE, SAMPLE), "clamp": (SAMPLE, 0.1, 0.4),
    "clip": (SAMPLE, 0.1, 0.4), "masked_fill": (SAMPLE, SAMPLE > 0.2, 0.0), "one_hot": (ms.Tensor([0, 1]), 3),
    "cross_entropy": (SAMPLE, ms.Tensor(np.array([0, 1], np.int32))), "cumsum": (SAMPLE, 0), "logsumexp": (SAMPLE, 0),
    "matmul": (SAMPLE, SAMPLE.T), "bmm": (SAMPLE.reshape(1, 2, 3), SAMPLE.reshape(1, 3, 2)),
}
BINARY = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "equal", "not_equal", "greater", "greater_equal",
          "less", "less_equal", "gt", "ge", "lt", "le", "ne", "logical_and", "logical_or", "mse_loss", "l1_loss"}


@pytest.mark.parametrize("name", sorted(tensor_facts.SINGLE_OUTPUT_OPS))
def test_each_op_the_rules_trust_returns_one_tensor(name):
    args = OP_ARGS.get(name) or ((SAMPLE, SAMPLE) if name in BINARY else (SAMPLE,))
    if name in ("logical_and", "logical_or", "logical_not"):
        args = tuple(a > 0.2 for a in args)
    assert isinstance(getattr(ops, name)(*args), ms.Tensor)


METHOD_ARGS = {"reshape": ((3, 2),), "view": ((3, 2),), "transpose": ((1, 0),), "permute": ((1, 0),),
               "expand_dims": (0,), "unsqueeze": (0,), "astype": (ms.int32,), "tile": ((2, 1),),
               "broadcast_to": ((2, 2, 3),), "masked_fill": (SAMPLE > 0.2, 0.0), "cumsum": (0,), "add": (SAMPLE,),
               "sub": (SAMPLE,), "mul": (SAMPLE,), "div": (SAMPLE,), "matmul": (SAMPLE.T,), "pow": (2,),
               "clamp": (0.1, 0.4), "clip": (0.1, 0.4), "eq": (SAMPLE,), "ne": (SAMPLE,), "gt": (SAMPLE,),
               "ge": (SAMPLE,), "lt": (SAMPLE,), "le": (SAMPLE,)}


@pytest.mark.parametrize("name", sorted(tensor_facts.TENSOR_METHODS))
def test_each_tensor_method_the_rules_trust_returns_one_tensor(name):
    assert isinstance(getattr(SAMPLE, name)(*METHOD_ARGS.get(name, ())), ms.Tensor)


@pytest.mark.parametrize("name", sorted(tensor_facts.FULL_REDUCTIONS & tensor_facts.TENSOR_METHODS))
def test_each_full_reduction_gives_one_element(name):
    assert getattr(SAMPLE, name)().size == 1


LAYERS = {"Dense": ((3, 2), SAMPLE), "Conv1d": ((2, 2, 1), SAMPLE.reshape(1, 2, 3)),
          "Conv2d": ((1, 1, 1), SAMPLE.reshape(1, 1, 2, 3)), "MaxPool1d": ((1,), SAMPLE.reshape(1, 2, 3)),
          "MaxPool2d": ((1,), SAMPLE.reshape(1, 1, 2, 3)), "AvgPool1d": ((1,), SAMPLE.reshape(1, 2, 3)),
          "AvgPool2d": ((1,), SAMPLE.reshape(1, 1, 2, 3)), "AdaptiveAvgPool1d": ((1,), SAMPLE.reshape(1, 2, 3)),
          "AdaptiveAvgPool2d": ((1,), SAMPLE.reshape(1, 1, 2, 3)), "BatchNorm1d": ((3,), SAMPLE),
          "BatchNorm2d": ((1,), SAMPLE.reshape(1, 1, 2, 3)), "LayerNorm": (((3,),), SAMPLE),
          "GroupNorm": ((1, 2), SAMPLE.reshape(1, 2, 3)), "Embedding": ((4, 2), ms.Tensor(np.array([0, 1], np.int32))),
          "MSELoss": ((), SAMPLE, SAMPLE), "L1Loss": ((), SAMPLE, SAMPLE), "SmoothL1Loss": ((), SAMPLE, SAMPLE),
          "BCELoss": ((), SAMPLE, SAMPLE), "BCEWithLogitsLoss": ((), SAMPLE, SAMPLE),
          "CrossEntropyLoss": ((), SAMPLE, ms.Tensor(np.array([0, 1], np.int32))),
          "NLLLoss": ((), SAMPLE, ms.Tensor(np.array([0, 1], np.int32))), "PReLU": ((), SAMPLE)}


@pytest.mark.parametrize("name", sorted(tensor_facts.SINGLE_OUTPUT_LAYERS))
def test_each_layer_the_rules_trust_returns_one_tensor(name):
    ctor, *inputs = LAYERS.get(name, ((), SAMPLE))
    layer = getattr(nn, name)(*ctor)
    layer.set_train(False)
    assert isinstance(layer(*inputs), ms.Tensor)


@pytest.mark.parametrize("name", sorted(tensor_facts.FULL_REDUCTIONS & tensor_facts.SINGLE_OUTPUT_OPS))
def test_each_full_reduction_op_on_one_tensor_gives_one_element(name):
    assert getattr(ops, name)(SAMPLE).size == 1


def test_the_cached_document_facts_follow_an_edit_of_another_statement():
    """The facts are cached per top-level statement: deleting the call site that made x a tensor (another
    statement than the Cell) removes the finding, putting it back brings it back."""
    cell = HEAD + "\n    def construct(self, x):\n" + ARG_BODY
    site = "\n\nnet = Net()\nout = net(ms.Tensor(np.ones(1, np.float32)))\n"
    line = HEAD.count("\n") + 2
    assert deep_issues(cell + site) == [("graph-python_value_of_tensor", line)]
    assert deep_issues(cell + site.replace("ms.Tensor(np.ones(1, np.float32))", "3.0")) == []
    assert deep_issues(cell + site) == [("graph-python_value_of_tensor", line)]


def test_in_a_notebook_a_later_cell_s_call_site_is_evidence():
    from spore_lsp.documents import from_cells

    cells = [HEAD + "\n    def construct(self, x):\n" + ARG_BODY, "net = Net()\nnet(ops.ones((1,)))\n"]
    an = analyse(from_cells("file:///nb.ipynb", 1, [(f"c{i}", c, 1) for i, c in enumerate(cells)]), None)
    found = [i for i in an.issues if i.code == "graph-python_value_of_tensor"]
    assert [an.program.to_local(i.line) for i in found] == [("c0", HEAD.count("\n") + 2)]


PIECES = [
    "z = y * 2", "n = x.shape[0]", "v = float(y.sum())", "v = float(n)",
    "if y.sum() > 0:\n    z = y\nelse:\n    z = x", "if n > 1:\n    z = y", "for i in range(2):\n    y = y + i",
    "for i in range(2):\n    if y.sum() > 0:\n        break", "for i in range(2):\n    if i > 0:\n        break",
    "while y.sum() > 100:\n    y = y - 1", "b = y.sum() > 0 and True",
    "w = max(n, 1)", "w = max(y.sum(), 1.0)", "s = chr(65)", "k = int(y.argmax())", "t = [1, 2][n % 2]",
    "t = [1, 2][y.argmax()]", "if float(y.sum()) > 0:\n    y = y + 1", "q = not y.sum()", "q = not n",
    "m = y if n > 0 else x", "m = y if y.sum() > 0 else x", "h = f'{n}'", "h = f'{y}'",
    "if y.sum() > 0:\n    tmp = y\n    y = tmp", "y = self.fc(y)", "u = np.asarray(y)", "u = math.sqrt(n)",
    "u = math.sqrt(y.sum())", "p = Plain.twice(y)", "c = len(y) + y.ndim", "y = y.reshape(1, 2).sum(0)",
    "o = self.lstm(y.reshape(1, 1, 2))\nc = len(o)", "for r in y:\n    z = r", "e = [float(i) for i in range(2)]",
    "e = [float(r) for r in y]", "if y.sum() > 0:\n    y = y * 2\nwhile n > 5:\n    n = n - 1",
]


def test_random_constructs_the_compiler_accepts_get_no_deeper_finding(tmp_path):
    """No false alarm, checked the other way round: seeded random constructs made of pieces the rules look at;
    every one the real engine compiles under STRICT gets no Graph-mode finding at all (so every one the
    server flags, the engine refuses)."""
    import random

    rng = random.Random(11)
    accepted = refused = 0
    for _ in range(150):
        chosen = rng.sample(PIECES, 2)
        body = textwrap.indent("y = ops.relu(self.fc(x))\nn = x.shape[0]\n" + "\n".join(chosen) + "\n", " " * 8)
        text = HEAD + "\n    def construct(self, x):\n" + body + "        return x\n"
        flagged = deep_issues(text)
        try:
            compiles(tmp_path, text, ms.Tensor(np.ones((1, 2), np.float32)))
        except ms.ide.GraphCompileError:
            refused += 1
            continue
        accepted += 1
        assert flagged == [], f"the engine compiles this, the server flags {flagged}:\n{text}"
    assert accepted > 30 and refused > 30, (accepted, refused)


def test_a_failing_deeper_check_keeps_the_support_tables_findings(monkeypatch):
    from spore_lsp import deep_rules, graph_rules

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(deep_rules, "check_function", broken)
    graph_rules._DEEP_CACHE.clear()
    text = HEAD + "\n    def construct(self, x):\n        print(x)\n        return float(ops.relu(x).sum())\n"
    an = analyse(from_text("file:///broken.py", text, 1), None)
    assert [i.code for i in an.issues if i.code.startswith("graph-")] == ["graph-print"]
    assert any("deeper Graph-mode check failed: RuntimeError: boom" in e for e in an.errors)
    graph_rules._DEEP_CACHE.clear()


HELPERS = """import numpy as np
import spore as ms
from spore import nn, ops


def scaled(t):
    return t * float(t.sum())


def shout(t):
    print(t)
    return t


class Net(nn.Cell):
    def part(self, t):
        return t * int(t.argmax())

    def construct(self, x):
        y = ops.relu(x)
        return {call}
"""


@pytest.mark.parametrize("call", ["scaled(y)", "shout(y)", "self.part(y)", "scaled(3.0)", "self.part(x) + y"])
def test_a_helper_construct_calls_is_checked_where_the_compiler_inlines_it(tmp_path, call):
    """The compiler inlines the functions and methods construct calls and refuses on the helper's line;
    the server reports the same rule on that line (and nothing where it passes a Python number)."""
    text = HELPERS.format(call=call)
    try:
        compiles(tmp_path, text, ms.Tensor(np.ones(2, np.float32)))
        engine = []
    except ms.ide.GraphCompileError as err:
        engine = [(f"graph-{err.rule}", err.loc.line - 1)]
    flagged = [(code, line) for code, line in deep_issues(text)]
    if call == "scaled(3.0)":  # 3.0.sum() fails in the engine (an attribute error), never a Graph-mode finding
        assert flagged == []
        return
    if call == "self.part(x) + y":  # x: no evidence it is a tensor (Net() is never called here)
        assert flagged == [] and engine
        return
    assert engine and engine[0] in flagged and len(flagged) == 1, (engine, flagged)
