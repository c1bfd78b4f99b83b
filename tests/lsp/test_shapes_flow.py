"""Static shapes through control flow, checked against the real engine.

An `if` on a static value takes the branch Graph mode takes; an `if` on a tensor runs both branches and
joins them (equal shapes stay, different ones are tried path by path); `while` and `for` loops that
cannot be unrolled are followed when their body keeps every shape. Every case where the engine accepts
the code (run eagerly here on inputs that drive each path) must leave the server silent or say
`shape-stopped`; where the engine refuses on some path, the server reports it on the same line."""

from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from spore_lsp import shapes
from spore_lsp.analysis import Analysis, analyse
from spore_lsp.documents import from_text

from .helpers import by_code, open_and_diagnose, pos

HEAD = "import numpy as np\nimport spore as ms\nfrom spore import nn, ops\n\n\n"
_mods = itertools.count()


def analysed(text: str) -> Analysis:
    """The server's own analysis of `text`, in this process (the check raises here if it breaks)."""
    an = analyse(from_text("file:///flow.py", text, 1), None)
    shapes.check(an)
    return an


def issues(an: Analysis, code: str) -> list:
    return [i for i in an.issues if i.code == code]


def hints(an: Analysis) -> list[tuple[int, str]]:
    """(1-based line, label) as the inlay hints show them: one per statement, distinct shapes joined."""
    at: dict[tuple, list[str]] = {}
    for fn in an.functions:
        rec = fn.facts.get("shapes")
        for step in rec.steps if rec else []:
            text = shapes.label(step.value)
            if step.hint and text is not None:
                texts = at.setdefault((step.end_line, step.end_col, step.name), [])
                if text not in texts:
                    texts.append(text)
    return [(line + 1, " | ".join(t)) for (line, _, _), t in at.items()]


def line_of(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def load(tmp_path, text: str):
    """The oracle: the same source imported from a file and run by the real engine in this process."""
    path = tmp_path / f"flow_oracle_{next(_mods)}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_refused(tmp_path, text: str):
    """The oracle for a refused program: the module (its classes defined) and the engine's ShapeError."""
    import spore as ms

    path = tmp_path / f"flow_oracle_{next(_mods)}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    with pytest.raises(ms.ide.ShapeError) as err:
        spec.loader.exec_module(module)
    return module, err.value


def tensor(*shape: int, sign: float = 1.0):
    import spore as ms

    return ms.Tensor(sign * np.ones(shape, np.float32))


STATIC = HEAD + '''class Net(nn.Cell):
    def __init__(self, use_bn=True, proj=False):
        super().__init__()
        self.fc = nn.Dense(16, 8)
        self.bn = nn.BatchNorm1d(8)
        self.proj = nn.Dense(8, 4) if proj else None
        self.use_bn = use_bn

    def construct(self, x):
        h = self.fc(x)
        if self.use_bn:
            h = self.bn(h)
        if self.proj is not None:
            h = self.proj(h)
        if h.shape[1] != 8:
            h = self.missing(h)
        if self.training:
            h = h.reshape(-1)
        while h.shape[1] < 64:
            h = ops.concat((h, h), 1)
        return h


net = Net()
out = net(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_a_static_if_takes_only_the_branch_graph_mode_takes(tmp_path):
    from spore import ide

    module = load(tmp_path, STATIC)
    assert tuple(module.out.shape) == (2, 64)
    ide.compile_graph(module.Net(), (tensor(2, 16),))  # Graph mode accepts it (static branches folded)
    an = analysed(STATIC)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(STATIC, "h = self.bn(h)")] == "(2, 8) f32"
    assert line_of(STATIC, "h = self.proj(h)") not in lines, "proj is None: that branch is not compiled"
    assert line_of(STATIC, "self.missing(h)") not in lines, "h.shape[1] is 8: not compiled, not a stop"
    assert line_of(STATIC, "h.reshape(-1)") not in lines, "the Cell is called in inference mode"
    assert lines[line_of(STATIC, "ops.concat")] == "(2, 16) f32 | (2, 32) f32 | (2, 64) f32", "unrolled while"


def test_a_static_branch_that_refuses_is_an_error_the_engine_agrees_with(tmp_path):
    wrong = STATIC.replace("nn.BatchNorm1d(8)", "nn.BatchNorm1d(4)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "h = self.bn(h)")
    assert d.message.startswith("bn expects 4 channels (nn.BatchNorm1d(4), line 10) but receives 8 from self.fc")
    off = wrong.replace("def __init__(self, use_bn=True", "def __init__(self, use_bn=False")
    assert not issues(analysed(off), "shape-mismatch"), "use_bn=False: the refusing branch is never compiled"
    load(tmp_path, off)  # and the engine runs it


@pytest.mark.parametrize("training", ["net.set_train()\n", "trainer = Trainer(net)\n"])
def test_self_training_is_unknown_where_the_program_trains_the_cell(training):
    trained = STATIC.replace("net = Net()\n", "from spore.train import Model as Trainer\nnet = Net()\n" + training)
    an = analysed(trained)
    assert not issues(an, "shape-mismatch")
    assert line_of(trained, "h.reshape(-1)") in dict(hints(an)), "both modes possible: both branches followed"


def test_a_dtype_an_input_shape_comment_only_assumes_is_not_branched_on():
    text = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    # spore: input_shape=(B, 3)
    def construct(self, x):
        if x.dtype == ms.float32:
            x = x * 2
        else:
            x = self.emb(x)
        return x
'''
    an = analysed(text)
    assert not issues(an, "shape-mismatch"), "the int path would be refused for float32 input: never an error"
    (note,) = issues(an, "shape-stopped")
    assert note.line + 1 == line_of(text, "x = self.emb(x)") and "needs another dtype" in note.message
    assert dict(hints(an))[line_of(text, "x = x * 2")] == "(B, 3) f32", "both branches followed"


RUNTIME = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 8)
        self.out = nn.Dense(8, 4)

    def construct(self, x):
        h = self.fc(x)
        if x.sum() > 0:
            h = ops.relu(h)
        else:
            h = -h
        if h.mean() > 100:
            z = h
        else:
            z = h[:, :4]
        s = z.sum(axis=1)
        return self.out(h), s


net = Net()
out = net(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_a_tensor_if_joins_its_branches_and_the_engine_runs_both_paths(tmp_path):
    module = load(tmp_path, RUNTIME)
    for sign in (1.0, -1.0):  # drive both branches of the first if
        y, s = module.Net()(tensor(2, 16, sign=sign))
        assert tuple(y.shape) == (2, 4) and tuple(s.shape) == (2,)
    an = analysed(RUNTIME)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(RUNTIME, "h = ops.relu(h)")] == lines[line_of(RUNTIME, "h = -h")] == "(2, 8) f32"
    assert lines[line_of(RUNTIME, "z = h[:, :4]")] == "(2, 4) f32"
    assert lines[line_of(RUNTIME, "s = z.sum(axis=1)")] == "(2,) f32", "each path tried: both give (2,)"
    # hover: after the if the joined value, in the else branch the value from before it
    after = line_of(RUNTIME, "s = z.sum") - 1
    assert shapes.label(shapes.value_of(an, "z", after, 12)) == "(2, 8) f32 | (2, 4) f32"
    else_line = line_of(RUNTIME, "h = -h") - 1
    assert shapes.value_of(an, "h", else_line, len("            h = -")).origin == "self.fc"


def test_a_path_that_refuses_after_a_tensor_if_is_the_error_the_engine_raises_on_that_path(tmp_path):
    import spore as ms
    from spore import ide

    wrong = RUNTIME.replace("return self.out(h), s", "return self.out(z), s")
    module, err = load_refused(tmp_path, wrong)  # the path h.mean() <= 100 (taken here) is the one that refuses
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "self.out(z)")
    assert d.message == ("out expects 8 input features (nn.Dense(8, 4), line 10) but receives 4 from h[:, :4] "
                         f"(line {line_of(wrong, 'z = h[:, :4]')})"), "named by the path that refuses"
    with pytest.raises(ms.errors.GraphCompileError, match="same shape") as refused:  # Graph mode refuses the if
        ide.compile_graph(module.Net(), (tensor(2, 16),))
    # what the compiler refuses is on record for the Graph-mode rules: the same if, variable and shapes
    an = analysed(wrong)
    (rec,) = [f.facts["shapes"] for f in an.functions if "shapes" in f.facts]
    (branch,) = rec.branches
    assert branch.line + 1 == refused.value.loc.line == line_of(wrong, "if h.mean() > 100")
    assert (branch.name, branch.then, branch.orelse) == ("z", "(2, 8) f32", "(2, 4) f32")
    assert "'z' is (2, 8) Float32 in the if branch but (2, 4) Float32" in str(refused.value)


SPECULATIVE = HEAD + '''import os


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mode = os.environ.get("NET_MODE", "wide")
        self.fc = nn.Dense(16, 8)
        self.narrow = nn.Dense(4, 8)

    def construct(self, x):
        if self.mode == "narrow":
            x = self.narrow(x)
        return self.fc(x)


out = Net()(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_a_branch_on_a_value_the_check_cannot_compute_is_never_an_error(tmp_path):
    module = load(tmp_path, SPECULATIVE)  # the engine runs it: mode is "wide" here
    assert tuple(module.out.shape) == (2, 8)
    an = analysed(SPECULATIVE)
    assert not issues(an, "shape-mismatch")
    (note,) = issues(an, "shape-stopped")
    assert "not known statically" in note.message and "narrow" in note.message


LOOPS = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 8)
        self.step = nn.Dense(8, 8)

    def construct(self, x):
        h = self.fc(x)
        n = 0
        while h.sum() > 1:
            h = self.step(h) * 0.0
            n = n + 1
        acc = ops.zeros((16,))
        for row in x:
            acc = acc + row
        for i in range(x.shape[0] * 0 + n):
            h = h + 1
        return h, acc


out = Net()(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_loops_whose_body_keeps_the_shapes_are_checked(tmp_path):
    module = load(tmp_path, LOOPS)
    h, acc = module.out
    assert tuple(h.shape) == (2, 8) and tuple(acc.shape) == (16,)
    an = analysed(LOOPS)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(LOOPS, "h = self.step(h)")] == "(2, 8) f32"
    assert lines[line_of(LOOPS, "acc = acc + row")] == "(16,) f32", "a row of x is (16,)"
    assert lines[line_of(LOOPS, "h = h + 1")] == "(2, 8) f32", "a range only known when it runs"
    wrong = LOOPS.replace("nn.Dense(8, 8)", "nn.Dense(4, 8)").replace("h.sum() > 1:", "h.sum() > -1e9:")
    _, err = load_refused(tmp_path, wrong)  # the loop body runs (its condition holds), and refuses
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "h = self.step(h)")


def test_a_loop_that_changes_a_shape_stops_with_a_note_and_never_errs(tmp_path):
    growing = LOOPS.replace("while h.sum() > 1:", "while h.sum() > 1e9:").replace("h = self.step(h) * 0.0",
                                                                                  "h = ops.concat((h, h), 1)")
    module = load(tmp_path, growing)  # the engine runs it (the body never runs on these inputs)
    assert module.out[0].shape[0] == 2
    an = analysed(growing)
    assert not issues(an, "shape-mismatch")
    (note,) = issues(an, "shape-stopped")
    assert note.line + 1 == line_of(growing, "while h.sum() > 1e9")
    assert "changes `h` from (2, 8) f32 to (2, 16) f32" in note.message


@pytest.mark.asyncio(loop_scope="module")
async def test_over_stdio_hover_after_a_tensor_if_shows_both_paths(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "flow.py", RUNTIME)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos(RUNTIME, "z.sum(axis=1)")))
    assert hover is not None and "(2, 8) f32 | (2, 4) f32" in hover.contents.value
    assert "One shape per path" in hover.contents.value


NESTED_LOOPS = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 8)

    # spore: input_shape=(2, 8)
    def construct(self, x):
        for i in range(64):
            for j in range(64):
                for k in range(64):
                    x = x + 1
        outs = []
        if x.sum() > 0:
            outs.append(x)
        else:
            outs.append(x * 2)
        return self.fc(ops.stack(outs))
'''


def test_loops_nested_past_the_step_budget_stop_with_a_note():
    an = analysed(NESTED_LOOPS)  # 262,144 unrolled steps: followed up to the budget, then one note
    assert not issues(an, "shape-mismatch")
    (note,) = issues(an, "shape-stopped")
    assert "more steps to follow than the check allows" in note.message
    assert note.line + 1 == line_of(NESTED_LOOPS, "x = x + 1")
    small = NESTED_LOOPS.replace("range(64)", "range(2)")
    an = analysed(small)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert dict(hints(an))[line_of(small, "x = x + 1")] == "(2, 8) f32", "lists joined item by item after the if"


CORRELATED = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.wide = nn.Dense(16, 16)
        self.thin = nn.Dense(16, 8)
        self.from_wide = nn.Dense(16, 4)
        self.from_thin = nn.Dense(8, 4)

    def construct(self, x):
        if x.sum() > 0:
            h = self.wide(x)
        else:
            h = self.thin(x)
        if x.sum() > 0:
            y = self.from_wide(h)
        else:
            y = self.from_thin(h)
        return y


out = Net()(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_two_ifs_on_one_condition_are_never_a_guessed_error(tmp_path):
    """The paths (wide, from_thin) and (thin, from_wide) never run — the server cannot know the conditions are
    the same, so a refusal on such a combination is a note, not an error."""
    module = load(tmp_path, CORRELATED)
    for sign in (1.0, -1.0):
        assert tuple(module.Net()(tensor(2, 16, sign=sign)).shape) == (2, 4)  # the engine runs both paths
    an = analysed(CORRELATED)
    assert not issues(an, "shape-mismatch")
    (note,) = issues(an, "shape-stopped")
    assert note.line + 1 == line_of(CORRELATED, "y = self.from_wide(h)")
    assert "receives 8 from self.thin (line 18), on one path of the `if` at line 15" in note.message
    assert "not flagged as an error" in note.message


TOGETHER = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.q8 = nn.Dense(16, 8)
        self.k8 = nn.Dense(16, 8)
        self.q4 = nn.Dense(16, 4)
        self.k4 = nn.Dense(16, 4)

    def construct(self, x):
        if x.sum() > 0:
            q = self.q8(x)
            k = self.k8(x)
        else:
            q = self.q4(x)
            k = self.k4(x)
        scores = ops.matmul(q, k.T)
        mixed = q + k
        return scores, mixed


out = Net()(ms.Tensor(np.ones((2, 16), np.float32)))
'''


def test_variables_one_if_sets_take_its_branches_together(tmp_path):
    """q and k come from the same branch: the server pairs their shapes path by path (8 with 8, 4 with 4),
    never 8 with 4, which no run can produce."""
    module = load(tmp_path, TOGETHER)
    for sign in (1.0, -1.0):
        scores, mixed = module.Net()(tensor(2, 16, sign=sign))
        assert tuple(scores.shape) == (2, 2)
    an = analysed(TOGETHER)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(TOGETHER, "scores = ")] == "(2, 2) f32"
    assert lines[line_of(TOGETHER, "mixed = ")] == "(2, 8) f32 | (2, 4) f32"
    wrong = TOGETHER.replace("self.k4 = nn.Dense(16, 4)", "self.k4 = nn.Dense(16, 3)")
    module, err = load_refused(tmp_path, wrong.replace("np.ones((2, 16)", "-np.ones((2, 16)"))
    first, second = issues(analysed(wrong), "shape-mismatch")  # the engine stops at the first
    assert first.line + 1 == err.loc.line == line_of(wrong, "scores = ops.matmul(q, k.T)"), "the else path refuses"
    assert second.line + 1 == line_of(wrong, "mixed = q + k"), "and would refuse again on the next line"
    fixed_first = wrong.replace("scores = ops.matmul(q, k.T)", "scores = q")
    _, err = load_refused(tmp_path, fixed_first.replace("np.ones((2, 16)", "-np.ones((2, 16)"))
    assert err.loc.line == second.line + 1
