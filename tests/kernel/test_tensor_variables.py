"""What VS Code's Jupyter Variables panel and Data Viewer do with a Spore Tensor, run in a real kernel.

Microsoft's Jupyter extension (vscode-jupyter, pythonFiles/vscode_datascience_helpers) asks the
kernel, for each variable:
- Variables panel (getVariableInfo): `type(v).__name__`; `v.shape` if it is a tuple, kept when its
  `str` looks like "(2, 3)" (starts with "(", ends with ")", has a comma: a 0-d shape "()" is not
  shown); `len(v)` as the count, a TypeError meaning "no count"; the value column is `str(v)` cut
  to a length, so `str` of a huge tensor must be cheap.
- Data Viewer (vscodeDataFrame): a type *named* "Tensor" or "EagerTensor" is converted with
  `v.numpy()`; an ndarray whose rows have a length becomes an object table of its first two axes
  (deeper sub-arrays as text), a 1-D one (len of a row: TypeError) is used as it is; then
  `pandas.DataFrame`; any other type (a Spore `Parameter`) goes to
  `pandas.DataFrame(v)` directly (Spore's `__array__`). The row count is `shape[0]`; rows go out
  with inf/-inf/nan replaced by markers and `to_json(orient="table")`.
These tests make exactly those accesses (written here, not the extension's code) on Spore objects.
"""

from __future__ import annotations

import json

import pytest

from .harness import Kernel

SETUP = """import json, tracemalloc
import numpy as np, pandas as pd
import spore as ms

def variables_panel(v):
    out = {"type": type(v).__name__, "shape": "", "count": 0}
    if hasattr(v, "shape") and isinstance(v.shape, tuple):
        s = str(v.shape)
        out["shape_is_int_tuple"] = all(type(d) is int for d in v.shape)
        if len(s) >= 3 and s[0] == "(" and s[-1] == ")" and "," in s:
            out["shape"] = s
    try:
        out["count"] = len(v)
    except TypeError:
        out["count_error"] = "TypeError"
    out["value"] = str(v)[:1000]
    return out

def data_viewer(v):
    if type(v).__name__ in ("Tensor", "EagerTensor"):
        arr = v.numpy()
        out = {"path": "numpy()", "is_ndarray": isinstance(arr, np.ndarray),
               "equals_asnumpy": bool(np.array_equal(arr, v.asnumpy(), equal_nan=True)),
               "shares_memory": bool(np.shares_memory(arr, v.asnumpy()))}
        table = arr
        try:  # rows with a length: one column per entry, a sub-array shown as its text
            width = max(len(arr[i]) for i in range(arr.shape[0]))
            table = np.full((arr.shape[0], width), "", dtype=object)
            for i in range(arr.shape[0]):
                for j in range(len(arr[i])):
                    e = arr[i][j]
                    table[i][j] = np.array2string(e, separator=", ", formatter={"all": str}) \
                        if isinstance(e, np.ndarray) else e
        except TypeError:
            out["one_d"] = True
        df = pd.DataFrame(table)
    else:
        out = {"path": "DataFrame(v)"}
        df = pd.DataFrame(v)
    out["rows"] = df.shape[0] if isinstance(df.shape, tuple) else None
    page = df.iloc[0:50].replace({np.inf: "_inf", -np.inf: "_ninf", np.nan: "_nan"})
    out["table"] = json.loads(pd.io.json.to_json(None, page, orient="table", date_format="iso"))["data"]
    return out
"""


@pytest.fixture(scope="module")
def k(kernel: Kernel) -> Kernel:
    kernel.ok(SETUP)
    return kernel


def ask(k: Kernel, expr: str) -> dict:
    return json.loads(k.ok(f"print(json.dumps({expr}))").stdout)


def test_variables_panel_shows_a_tensors_shape_and_count(k: Kernel) -> None:
    k.ok("t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))")
    info = ask(k, "variables_panel(t)")
    assert info["type"] == "Tensor" and info["shape"] == "(2, 3)" and info["shape_is_int_tuple"] is True
    assert info["count"] == 2 and info["value"] == "[[0. 1. 2.]\n [3. 4. 5.]]"
    vec = ask(k, "variables_panel(ms.Tensor([1.0, 2.0, 3.0]))")
    assert vec["shape"] == "(3,)" and vec["count"] == 3


def test_variables_panel_on_a_scalar_and_a_parameter(k: Kernel) -> None:
    scalar = ask(k, "variables_panel(ms.Tensor(2.5))")
    assert scalar["shape"] == "" and scalar["count_error"] == "TypeError" and scalar["value"] == "2.5"
    param = ask(k, "variables_panel(ms.Parameter(ms.Tensor(np.ones((4, 5), np.float32)), name='w'))")
    assert param["type"] == "Parameter" and param["shape"] == "(4, 5)" and param["count"] == 4
    assert param["value"] == "Parameter (name=w, shape=(4, 5), dtype=Float32, requires_grad=True)"


def test_the_value_column_of_a_huge_tensor_is_cheap(k: Kernel) -> None:
    # str() is what the panel shows; of a 2.5e8-element bfloat16 tensor it used to copy 953 MiB.
    out = k.ok("big = ms.Tensor(np.broadcast_to(np.array(1.5, ms.bfloat16.np), (5000, 50_000)))\n"
               "tracemalloc.start(); info = variables_panel(big); peak = tracemalloc.get_traced_memory()[1]\n"
               "tracemalloc.stop(); print(json.dumps([info, peak]))").stdout
    info, peak = json.loads(out)
    assert info["shape"] == "(5000, 50000)" and info["count"] == 5000 and peak < 1 << 20
    assert info["value"].startswith("[[1.5 1.5 1.5 ... 1.5 1.5 1.5]")


def test_data_viewer_opens_a_tensor_through_numpy(k: Kernel) -> None:
    k.ok("m = ms.Tensor(np.array([[1.0, np.inf], [np.nan, -np.inf]], np.float32))")
    view = ask(k, "data_viewer(m)")
    assert view["path"] == "numpy()" and view["is_ndarray"] and view["equals_asnumpy"] and view["shares_memory"]
    assert view["rows"] == 2
    assert view["table"] == [{"index": 0, "0": 1.0, "1": "_inf"}, {"index": 1, "0": "_nan", "1": "_ninf"}]
    one = ask(k, "data_viewer(ms.Tensor(np.array([3, 1, 2], np.int32)))")
    assert one["one_d"] is True and one["table"] == [{"index": 0, "0": 3}, {"index": 1, "0": 1}, {"index": 2, "0": 2}]


def test_data_viewer_opens_a_parameter_through_array(k: Kernel) -> None:
    view = ask(k, "data_viewer(ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2)), name='p'))")
    assert view["path"] == "DataFrame(v)" and view["rows"] == 2
    assert view["table"] == [{"index": 0, "0": 0.0, "1": 1.0}, {"index": 1, "0": 2.0, "1": 3.0}]


def test_data_viewer_on_bfloat16_and_3d_tensors(k: Kernel) -> None:
    # A 2-D float16/bfloat16 table is refused by pandas' JSON writer (its scalars are "not JSON
    # serializable") -- for NumPy float16 arrays and torch half tensors alike. numpy() stays the
    # tensor's own buffer (as asnumpy); the viewer opens `t.float()`, and Inspect Tensor shows any dtype.
    k.ok("h = ms.Tensor(np.array([[1.5, -2.0], [0.25, 8.0]], np.float32), ms.bfloat16)")
    assert k.execute("data_viewer(h)").reply["content"]["evalue"].endswith("is not JSON serializable at the moment")
    bf = ask(k, "data_viewer(h.float())")
    assert bf["equals_asnumpy"]
    assert bf["table"] == [{"index": 0, "0": 1.5, "1": -2.0}, {"index": 1, "0": 0.25, "1": 8.0}]
    assert ask(k, "bool(np.array_equal(h.numpy(), h.asnumpy()) and h.numpy().dtype == h.asnumpy().dtype)") is True
    cube = ask(k, "data_viewer(ms.Tensor(np.arange(8, dtype=np.int32).reshape(2, 2, 2)))")
    # 3-D and up: a table over the first two axes whose cells are the remaining sub-arrays as text
    assert cube["rows"] == 2
    assert cube["table"] == [{"index": 0, "0": "[0, 1]", "1": "[2, 3]"}, {"index": 1, "0": "[4, 5]", "1": "[6, 7]"}]
