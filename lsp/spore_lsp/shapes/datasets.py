"""Input shapes from datasets whose arrays have literal shapes: ``NumpySlicesDataset`` (a tuple or dict of
arrays, or one array) and ``GeneratorDataset`` (a generator function ``for _ in range(K): yield ...`` or a
class with ``__getitem__`` / ``__len__``), through ``.batch(n, drop_remainder=...)``, ``.shuffle`` and
``.repeat``, feeding a Cell from ``for x, y in ds`` / ``ds.create_tuple_iterator()`` /
``ds.create_dict_iterator()`` loops or ``Model(net, loss_fn, ...).train(epochs, ds)``.

A row is one slice along the arrays' first axis; a batch stacks rows, so the batch size is the leading
dim. When the rows do not divide into batches and ``drop_remainder`` is False, the Cell also sees the
short last batch: the input is then both shapes (``(32, 4) | (6, 4)``), each step tried for each; with
``drop_remainder=True`` only full batches (none at all when there are fewer rows than a batch). When the
row count is unknown and the remainder is kept, the batch size is unknown and the dataset is not used.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import Any

from .consts import NotConst, const_eval, dotted
from .inputs import MAX_FOLLOW, Site, callee, followed, np_array
from .program import Program
from .values import TVal

WIDENED: dict[str, str] = {}  # NumPy dtypes the dataset hands out as another Spore dtype (none of those read here)
PASS_THROUGH = ("shuffle", "repeat")


@dataclass
class Data:
    """What one step of iterating a dataset yields: its columns' values (tensors), and how many steps."""

    names: list[str]
    values: list[TVal]
    n: int | None
    as_dict: bool = False


def dataset(prog: Program, node: ast.AST, depth: int = 0) -> Data | None:
    """The dataset (or iterator) an expression stands for, when every column has a literal shape."""
    node = followed(prog, node, depth + 1)
    if depth > MAX_FOLLOW or not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
        return None
    kw = {k.arg: k.value for k in node.keywords}
    qual = prog.an.resolve(dotted(node.func) or "") if dotted(node.func) else None
    if qual and qual.startswith("spore.") and qual.endswith("dataset.NumpySlicesDataset"):
        return _slices(prog, node, kw)
    if qual and qual.startswith("spore.") and qual.endswith("dataset.GeneratorDataset"):
        return _generator(prog, node, kw)
    if not isinstance(node.func, ast.Attribute):
        return None
    base = dataset(prog, node.func.value, depth + 1)
    method = node.func.attr
    if base is None:
        return None
    try:
        if method in PASS_THROUGH and not kw:
            count = const_eval(node.args[0], prog.consts) if method == "repeat" and node.args else 1
            return replace(base, n=base.n * count if base.n is not None and type(count) is int and count > 0
                           else None)
        if method == "batch" and set(kw) <= {"batch_size", "drop_remainder"}:
            size = const_eval(kw.get("batch_size", node.args[0] if node.args else ast.Constant(None)), prog.consts)
            drop = const_eval(kw.get("drop_remainder", node.args[1] if len(node.args) > 1 else ast.Constant(False)),
                              prog.consts)
            return _batched(base, size, drop, node)
        if method in ("create_tuple_iterator", "create_dict_iterator") and not node.args:
            if const_eval(kw.get("output_numpy", ast.Constant(False)), prog.consts) is not False:
                return None
            columns = const_eval(kw["columns"], prog.consts) if "columns" in kw else base.names
            columns = [columns] if isinstance(columns, str) else columns
            if not isinstance(columns, (list, tuple)) or any(c not in base.names for c in columns):
                return None
            return Data(list(columns), [base.values[base.names.index(c)] for c in columns], base.n,
                        method == "create_dict_iterator")
    except NotConst:
        return None
    return None


def _batched(base: Data, size: Any, drop: Any, node: ast.Call) -> Data | None:
    if type(size) is not int or size <= 0 or not isinstance(drop, bool) or base.as_dict:
        return None
    if base.n is None and not drop:
        return None  # the first batch may be short: its size is not known
    sizes = [size] if base.n is None or drop else sorted({min(size, base.n), base.n % size or size}, reverse=True)
    if base.n is not None and drop and base.n < size:
        return None  # drop_remainder=True and fewer rows than a batch: the Cell is never called
    n = None if base.n is None else base.n // size if drop else -(-base.n // size)
    values, tag = [], node  # the columns of one batch go together (full with full, last with last): the
    # `.batch(...)` call itself is their tag, the same however many variables read it
    for v in base.values:
        batches = [TVal((b, *v.shape), v.dtype, f"a batch of {v.origin}", v.line) for b in sizes]
        # a short last batch reaches the Cell too: both shapes travel, as a join (tried path by path)
        values.append(batches[0] if len(batches) == 1 else
                      TVal((None, *v.shape), v.dtype, f"a batch of {v.origin}", v.line, tuple(batches), tag=tag))
    return Data(base.names, values, n)


def _columns(prog: Program, node: ast.AST, names: list[str], line: int) -> Data | None:
    """Columns of equal length from array literals: rows are their slices along the first axis."""
    values, n = [], None
    for name, arr in zip(names, (np_array(prog, e) for e in _elts(node)), strict=True):
        if arr is None or not arr[0]:
            return None
        if n is not None and arr[0][0] != n:
            return None
        n = arr[0][0]
        values.append(TVal(arr[0][1:], WIDENED.get(arr[1], arr[1]), f"column {name!r}", line))
    return Data(names, values, n)


def _elts(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return list(node.values)
    return [node]


def _names(prog: Program, data: ast.AST, kw: dict, count: int) -> list[str] | None:
    if isinstance(data, ast.Dict):
        try:
            keys = [const_eval(k, {}) for k in data.keys] if all(k is not None for k in data.keys) else None
        except NotConst:
            return None
        return keys if keys and all(isinstance(k, str) for k in keys) else None
    if "column_names" in kw:
        try:
            given = const_eval(kw["column_names"], prog.consts)
        except NotConst:
            return None
        given = [given] if isinstance(given, str) else given
        return list(given) if isinstance(given, (list, tuple)) and len(given) == count else None
    return [f"column_{i}" for i in range(count)]


HARMLESS = {"column_names", "shuffle", "num_parallel_workers", "python_multiprocessing"}  # rows unchanged


def _source(node: ast.Call, kw: dict, name: str) -> ast.AST | None:
    """The data argument, when every other argument leaves the rows as they are (no sampler, shard, limit)."""
    if set(kw) - HARMLESS - {name} or len(node.args) + (name in kw) != 1 or len(node.args) > 1:
        return None
    return node.args[0] if node.args else kw[name]


def _slices(prog: Program, node: ast.Call, kw: dict) -> Data | None:
    source = _source(node, kw, "data")
    data = followed(prog, source, 1) if source is not None else None
    if data is None:
        return None
    names = _names(prog, data, kw, len(_elts(data)))
    return _columns(prog, data, names, node.lineno - 1) if names is not None else None


def _generator(prog: Program, node: ast.Call, kw: dict) -> Data | None:
    source = _source(node, kw, "source")
    if source is None:
        return None
    if isinstance(source, ast.Call) and not source.args and not source.keywords:
        source = source.func  # gen() (a generator object) or MyData() (a random-access source)
    if not isinstance(source, ast.Name):
        return None
    fn = prog.functions.get(source.id)
    if fn is not None:
        yields = [n for n in ast.walk(fn) if isinstance(n, (ast.Yield, ast.YieldFrom))]
        if len(yields) != 1 or not isinstance(yields[0], ast.Yield) or yields[0].value is None:
            return None
        item, n = yields[0].value, _loop_count(prog, fn, yields[0])
    else:
        cls = next((c for c in prog.an.tree.body if isinstance(c, ast.ClassDef) and c.name == source.id), None)
        get = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__getitem__"), None) \
            if cls is not None else None
        size = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__len__"), None) \
            if cls is not None else None
        if get is None or size is None or len(get.body) != 1 or not isinstance(get.body[0], ast.Return) or \
                len(size.body) != 1 or not isinstance(size.body[0], ast.Return) or get.body[0].value is None:
            return None
        item = get.body[0].value
        try:
            n = const_eval(size.body[0].value, prog.consts) if size.body[0].value is not None else None
        except NotConst:
            n = None
        n = n if type(n) is int and n >= 0 else None
    names = _names(prog, item, kw, len(_elts(item)))
    if names is None or "column_names" not in kw:
        return None  # GeneratorDataset needs column_names (Spore refuses it without)
    values = []
    for name, arr in zip(names, (np_array(prog, e) for e in _elts(item)), strict=True):
        if arr is None:
            return None
        values.append(TVal(arr[0], WIDENED.get(arr[1], arr[1]), f"column {name!r}", node.lineno - 1))
    return Data(names, values, n)


def _loop_count(prog: Program, fn: ast.FunctionDef, y: ast.Yield) -> int | None:
    """K for a generator whose body is ``for _ in range(K): ... yield item`` (the yield on the loop's level)."""
    if len(fn.body) != 1 or not isinstance(fn.body[0], ast.For) or fn.body[0].orelse:
        return None
    loop = fn.body[0]
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and
            len(it.args) == 1 and not any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.If))
                                          for s in loop.body for n in ast.walk(s))):
        return None
    if not any(isinstance(s, ast.Expr) and s.value is y for s in loop.body):
        return None
    try:
        k = const_eval(it.args[0], prog.consts)
    except NotConst:
        return None
    return k if type(k) is int and k >= 0 else None


def row_value(prog: Program, loop: ast.For, name: ast.Name, depth: int) -> Any:
    """What a ``for`` variable holds in one step over a dataset: the row (a tuple, or a dict for a dict
    iterator), or the column a target tuple gives the name."""
    it, counted = loop.iter, False
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and \
            len(it.args) == 1 and not it.keywords and prog.bound.get("enumerate") is None:
        it, counted = it.args[0], True  # for i, (x, y) in enumerate(ds)
    data = dataset(prog, it, depth)
    if data is None or data.n == 0:
        return None
    row: Any = dict(zip(data.names, data.values)) if data.as_dict else tuple(data.values)
    row = (None, row) if counted else row
    return _unpack(loop.target, row, name.id)


def _unpack(target: ast.AST, value: Any, name: str) -> Any:
    """What `name` gets when `target` (a name or nested tuple of names) is bound to `value`; None if unsure."""
    if isinstance(target, ast.Name):
        return value if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, tuple) and len(value) == len(target.elts):
        for t, v in zip(target.elts, value):
            found = _unpack(t, v, name)
            if found is not None:
                return found
    return None


def model_sites(prog: Program) -> list[tuple[tuple[int, int], str, Site]]:
    """``Model(net, loss_fn, ...)`` then ``model.train(epochs, ds)`` / ``fit`` / ``eval``: the network is called
    with the first column when there is a loss function (``WithLossCell``), with every column otherwise (and
    a network given as ``nn.WithLossCell(net, loss)`` gets the first column too)."""
    out: list[tuple[tuple[int, int], str, Site]] = []
    if not prog.mentions_training:
        return out  # no `Model` named anywhere (the program pass noted it)
    for call in prog.calls:
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in ("train", "fit", "eval") and
                isinstance(func.value, ast.Name)):
            continue
        model = prog.bound_value(func.value)
        name = dotted(model.func) if isinstance(model, ast.Call) else None
        qual = prog.an.resolve(name) if name else None
        if not (qual and qual.startswith("spore.") and qual.endswith(".Model")) or \
                any(k.arg is None for k in model.keywords):
            continue
        kw = {k.arg: k.value for k in model.keywords}
        net = model.args[0] if model.args else kw.get("network")
        loss = model.args[1] if len(model.args) > 1 else kw.get("loss_fn")
        cell = callee(prog, net) if net is not None else None  # also Model(nn.WithLossCell(net, loss), ...)
        training = func.attr != "eval"
        ds_kw = {k.arg: k.value for k in call.keywords if k.arg}
        ds_node = (call.args[1] if len(call.args) > 1 else ds_kw.get("train_dataset")) if training else \
            (call.args[0] if call.args else ds_kw.get("valid_dataset"))
        data = dataset(prog, ds_node) if ds_node is not None and cell is not None else None
        if data is None or data.as_dict or not data.values:
            continue
        no_loss = loss is None or isinstance(loss, ast.Constant) and loss.value is None
        inputs = list(data.values) if no_loss else [data.values[0]]
        inputs = inputs[:cell[2]] if cell[2] is not None else inputs
        out.append(((call.lineno, call.col_offset), cell[0], Site(cell[1], inputs, {}, call.lineno - 1, training)))
    return out
