"""Input shapes from more call sites, checked against the real engine: keyword arguments, variables bound to
literal tensors or arrays, and datasets whose arrays have literal shapes feeding `Model(net).train` or a
`for` loop (the batch size is the leading dim of the first batch; `drop_remainder` decides whether a short
dataset yields a batch at all). Where the binding is in doubt the Cell gets no input and no diagnostic."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import by_code, open_and_diagnose, uri_for, wait_diagnostics
from .test_shapes_flow import analysed, hints, issues, line_of, load, load_refused

HEAD = "import numpy as np\nimport spore as ms\nimport spore.dataset as ds\nfrom spore import nn, ops\n\n\n"

TWO = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(12, 10)

    def construct(self, a, b):
        h = ops.concat((a, b), 1)
        return self.fc(h)


rng = np.random.default_rng(0)
arr = rng.standard_normal((5, 4)).astype(np.float32)
a = ms.Tensor(arr)
net = Net()
out = net(a, b=ops.ones((5, 8)))
'''


def test_keyword_arguments_and_variables_at_the_call_site_give_the_inputs(tmp_path):
    assert tuple(load(tmp_path, TWO).out.shape) == (5, 10)  # the engine runs it
    an = analysed(TWO)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert hints(an) == [(line_of(TWO, "def construct"), "(5, 4) f32"), (line_of(TWO, "def construct"), "(5, 8) f32"),
                         (line_of(TWO, "h = ops.concat"), "(5, 12) f32")]
    wrong = TWO.replace("ops.ones((5, 8))", "ops.ones((5, 9))")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "return self.fc(h)")
    assert "receives 13" in d.message


@pytest.mark.parametrize("case, change", [
    ("a variable bound twice", ("a = ms.Tensor(arr)\n", "a = ms.Tensor(arr)\na = ops.ones((5, 1))\n")),
    ("a variable bound in another scope", ("a = ms.Tensor(arr)\n", "def make():\n    a = ms.Tensor(arr)\n\n\n")),
    ("an array bound twice", ("a = ms.Tensor(arr)\n", "arr = np.ones((5, 3), np.float32)\na = ms.Tensor(arr)\n")),
])
def test_a_variable_whose_value_is_in_doubt_gives_no_input(case, change):
    text = TWO.replace("ops.ones((5, 8))", "ops.ones((5, 99))").replace(*change)
    an = analysed(text)
    assert hints(an) == [] and not issues(an, "shape-mismatch"), case


TRAIN = HEAD + '''from spore.train import Model


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(3 * 8 * 8, 10)

    def construct(self, image):
        h = self.flatten(image)
        if self.training:
            h = h * 0.5
        return self.fc(h)


images = np.random.randn(100, 3, 8, 8).astype(np.float32)
labels = np.zeros((100,), np.int32)
data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(32, drop_remainder=True)
net = Net()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
model.train(1, data)
'''


def test_a_dataset_feeding_model_train_gives_the_first_column_batched(tmp_path):
    load(tmp_path, TRAIN)  # the engine trains it
    an = analysed(TRAIN)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    lines = dict(hints(an))
    assert lines[line_of(TRAIN, "def construct")] == "(32, 3, 8, 8) f32"
    assert lines[line_of(TRAIN, "h = h * 0.5")] == "(32, 192) f32", "Model.train calls the Cell in training mode"
    wrapped = TRAIN.replace("model = Model(net, loss, nn.Momentum(", "model = Model(nn.WithLossCell(net, loss), None, "
                            "nn.Momentum(")
    load(tmp_path, wrapped)
    assert dict(hints(analysed(wrapped)))[line_of(wrapped, "def construct")] == "(32, 3, 8, 8) f32", "WithLossCell"
    wrong = TRAIN.replace("randn(100, 3, 8, 8)", "randn(100, 3, 16, 16)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "return self.fc(h)")
    assert d.message == (f"fc expects 192 input features (nn.Dense(3 * 8 * 8, 10), line {line_of(wrong, 'self.fc =')})"
                         f" but receives 768 from h * 0.5 (line {line_of(wrong, 'h = h * 0.5')})")


LOOP = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        h = x.reshape(32, -1)
        return self.fc(h)


data = ds.NumpySlicesDataset((np.ones((ROWS, 4), np.float32), np.zeros((ROWS,), np.int32)),
                             column_names=["x", "y"])
net = Net()
for x, y in data.batch(32, drop_remainder=DROP):
    out = net(x)
'''


@pytest.mark.parametrize("rows, drop, refused", [(64, "False", False), (20, "False", True), (20, "True", False),
                                                 (70, "True", False), (70, "False", True)])
def test_the_first_batch_decides_the_leading_dim_and_drop_remainder_whether_there_is_one(tmp_path, rows, drop,
                                                                                         refused):
    text = LOOP.replace("ROWS", str(rows)).replace("DROP", drop)
    an = analysed(text)
    if refused:  # remainder kept: a batch of 20 (or the last 6 of 70) rows, which reshape(32, -1) refuses
        _, err = load_refused(tmp_path, text)
        (d,) = issues(an, "shape-mismatch")
        assert d.line + 1 == err.loc.line == line_of(text, "h = x.reshape(32, -1)")
        return
    load(tmp_path, text)  # the engine runs every batch (or none: 20 rows, drop_remainder=True)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    expected = [] if rows < 32 else [(line_of(text, "def construct"), "(32, 4) f32"),
                                     (line_of(text, "h = x.reshape"), "(32, 4) f32")]
    assert hints(an) == expected


ENUMERATED = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        x = x * 2
        return self.fc(x)


data = ds.NumpySlicesDataset((np.ones((8, 4), np.float32), np.zeros((8,), np.int32)), column_names=["x", "y"])
net = Net()
for i, (x, y) in enumerate(data.batch(4)):
    net(x)
'''


def test_a_loop_variable_named_like_a_construct_variable_still_gives_the_input(tmp_path):
    """`x` is bound in construct too: only the bindings in the call's own scope count."""
    load(tmp_path, ENUMERATED)
    an = analysed(ENUMERATED)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert hints(an) == [(line_of(ENUMERATED, "def construct"), "(4, 4) f32"), (line_of(ENUMERATED, "x = x * 2"),
                                                                                "(4, 4) f32")]
    wrong = ENUMERATED.replace("nn.Dense(4, 2)", "nn.Dense(5, 2)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line


ITERATORS = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(x)


def rows():
    for _ in range(10):
        yield np.ones((4,), np.float32), np.array(1, np.int32)


gen = ds.GeneratorDataset(rows, column_names=["x", "y"]).batch(4)
table = ds.NumpySlicesDataset(data={"x": np.ones((8, 4), np.float32)}, shuffle=False).batch(8)
a, b = Net(), Net()
for row in gen.create_tuple_iterator():
    a(row[0])
for item in table.create_dict_iterator():
    b(item["x"])
'''


def test_tuple_and_dict_iterators_and_generator_datasets_give_inputs(tmp_path):
    load(tmp_path, ITERATORS)
    an = analysed(ITERATORS)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert hints(an) == [(line_of(ITERATORS, "def construct"), "(4, 4) f32 | (2, 4) f32")], \
        "the first call site, a(row[0]): 10 rows in batches of 4 and the last one of 2"
    only_dict = ITERATORS.replace("    a(row[0])\n", "    pass\n")
    assert hints(analysed(only_dict)) == [(line_of(ITERATORS, "def construct"), "(8, 4) f32")], "b(item['x'])"
    wrong = ITERATORS.replace("np.ones((4,), np.float32)", "np.ones((5,), np.float32)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line and "receives 5" in d.message


@pytest.mark.asyncio(loop_scope="module")
async def test_over_stdio_a_dataset_call_site_gives_inlay_hints(client: LanguageClient):
    uri, diags = await open_and_diagnose(client, "train.py", TRAIN)
    assert not by_code(diags, "shape-mismatch") and not by_code(diags, "shape-stopped"), diags
    got = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=TRAIN.count("\n"), character=0))))
    assert [h.label for h in got][:2] == ["‹(32, 3, 8, 8) f32›", "‹(32, 192) f32›"]


@pytest.mark.asyncio(loop_scope="module")
async def test_over_stdio_a_notebook_feeds_a_cell_from_a_dataset_in_a_later_cell(client: LanguageClient):
    head, rest = TRAIN.split("images = ", 1)
    cells = [head, "images = " + rest.split("net = Net()", 1)[0], "net = Net()" + rest.split("net = Net()", 1)[1]]
    cells[1] = cells[1].replace("randn(100, 3, 8, 8)", "randn(100, 3, 16, 16)")
    nb = uri_for("train.ipynb")
    uris = [f"{nb}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(uris, cells)]))
    diags = await wait_diagnostics(client, uris[0], lambda ds: bool(by_code(ds, "shape-mismatch")))
    (d,) = by_code(diags, "shape-mismatch")
    assert d.range.start.line == cells[0].count("\n", 0, cells[0].index("return self.fc(h)")), "on its own cell"
    fc, half = line_of(cells[0], "self.fc ="), line_of(cells[0], "h = h * 0.5")
    assert d.message == (f"fc expects 192 input features (nn.Dense(3 * 8 * 8, 10), line {fc}) but receives 768 from "
                         f"h * 0.5 (line {half})"), "dataset in cell 2, Model in cell 3: lines of the Cell's cell"


SOURCE_CLASS = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 2)

    def construct(self, x, y):
        return self.fc(ops.concat((x, y), 1))


class Pairs:
    def __getitem__(self, i):
        return np.zeros((2,), np.float32), np.ones((4,), np.float32)

    def __len__(self):
        return 12


data = ds.GeneratorDataset(Pairs(), column_names=["a", "b"], shuffle=False).repeat(2).batch(8)
net = Net()
for a, b in data:
    net(a, b)
'''


def test_a_random_access_generator_source_repeated_gives_both_batch_shapes(tmp_path):
    load(tmp_path, SOURCE_CLASS)  # 24 rows: batches of 8, 8, 8
    an = analysed(SOURCE_CLASS)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert hints(an) == [(line_of(SOURCE_CLASS, "def construct"), "(8, 2) f32"),
                         (line_of(SOURCE_CLASS, "def construct"), "(8, 4) f32")]
    once = SOURCE_CLASS.replace(".repeat(2)", "")  # 12 rows: a batch of 8, then one of 4
    an = analysed(once)
    assert hints(an)[0] == (line_of(once, "def construct"), "(8, 2) f32 | (4, 2) f32")
    wrong = once.replace("nn.Dense(6, 2)", "nn.Dense(5, 2)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line and "receives 6" in d.message


WRAPPED = HEAD + '''class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 4)

    def construct(self, x):
        h = self.fc(x)
        return h


net = Net()
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
x = ms.Tensor(np.ones((3, 16), np.float32))
y = ms.Tensor(np.zeros((3, 4), np.float32))
loss = step(x, y)
'''


def test_a_training_step_wrapper_passes_the_data_to_the_network(tmp_path):
    """TrainOneStepCell(WithLossCell(net, loss), opt)(x, y) calls net(x): x is the Cell's input."""
    load(tmp_path, WRAPPED)
    an = analysed(WRAPPED)
    assert not issues(an, "shape-mismatch") and not issues(an, "shape-stopped"), an.issues
    assert hints(an) == [(line_of(WRAPPED, "def construct"), "(3, 16) f32"), (line_of(WRAPPED, "h = self.fc"),
                                                                              "(3, 4) f32")]
    wrong = WRAPPED.replace("np.ones((3, 16)", "np.ones((3, 12)")
    _, err = load_refused(tmp_path, wrong)
    (d,) = issues(analysed(wrong), "shape-mismatch")
    assert d.line + 1 == err.loc.line == line_of(wrong, "h = self.fc(x)")
    assert d.message.startswith("fc expects 16 input features (nn.Dense(16, 4), line 10) but receives 12 from the "
                                f"input x (line {line_of(wrong, 'loss = step(x, y)')})")
