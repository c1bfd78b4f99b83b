"""The op catalogue: every public op's declaration as plain data, and which public names apply it.

The static mapping (read from Spore's own bytecode) is checked against a dynamic oracle: every op an
observer sees while a public `ops` function, class form or Tensor method runs on the differential
test's inputs must be listed for that name.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops
from spore.ops.primitive import INTERNAL, REGISTRY

from ..compiler.differential.cases_ops import ops_class_cases, ops_function_cases


def test_catalogue_lists_every_public_op_as_plain_data():
    cat = ide.op_catalogue()
    assert [e["name"] for e in cat] == sorted(REGISTRY)
    assert not {e["name"] for e in cat} & set(INTERNAL)
    json.dumps(cat)  # plain data all the way down
    mm = ide.op("MatMul")
    assert mm["inputs"] == ["a", "b"] and mm["attrs"] == {"transpose_a": "False", "transpose_b": "False"}
    assert mm["differentiable"] and not mm["random"] and mm["doc"] == REGISTRY["MatMul"].doc
    assert {"ops.matmul", "ops.MatMul", "Tensor.matmul", "nn.Dense"} <= set(mm["api"])
    assert ide.op("Add")["elementwise"] and not ide.op("MatMul")["elementwise"]
    assert {e["name"] for e in cat if e["random"]} == {n for n, p in REGISTRY.items() if p.random} != set()
    assert ide.op("NoSuchOp") is None


def test_describe_and_lookup_answer_for_functions_classes_methods_and_primitives():
    info = ide.describe(ops.matmul)
    assert info["signature"].startswith("matmul(") and [o["name"] for o in info["ops"]][0] == "MatMul"
    assert [o["name"] for o in ide.describe(ms.Tensor.reshape)["ops"]] == ["Reshape"]
    assert "ReLU" in [o["name"] for o in ide.describe(nn.ReLU)["ops"]]
    assert ide.describe(REGISTRY["Conv2D"])["signature"].startswith("Conv2D(x, w")
    assert ide.describe(print) is None and ide.describe(np.add) is None
    assert ide.lookup("ops.matmul") is ops.matmul and ide.lookup("nn.Dense") is nn.Dense
    assert ide.lookup("matmul") is ops.matmul and ide.lookup("bias_add") is ops.bias_add
    assert ide.lookup("no_such_thing") is None and ide.lookup("1 + 2") is None


class Seen:
    def __init__(self) -> None:
        self.ops: set[str] = set()

    def before(self, event) -> None:
        pass

    def after(self, event) -> None:
        self.ops.add(event.op)


def _qualname(case_name: str) -> str:
    return case_name.split("[", 1)[0]


def _observed(case) -> set[str] | None:
    """The ops one PyNative run of the case applies (None when the call itself raises)."""
    args, kwargs = case.make(np.random.default_rng(0))
    seen = Seen()
    call_args = tuple(ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    call_kwargs = {k: ms.Tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    if case.seeded:
        ms.set_seed(7)
    try:
        with ide.observe_ops(seen):
            case.fn(*call_args, **call_kwargs)
    except Exception:  # noqa: BLE001 - a case that raises (on purpose) applies what it applied so far
        return None
    return seen.ops


# Names whose case necessarily runs a user-defined function or subclass, whose ops are the user's, not
# the name's: the Operation base class, the transforms and decorators that call the function given, the
# gradient hooks and functional loops that run the user's callable, and the custom-primitive helpers.
USER_CODE = frozenset({"ops.Operation", "ops.grad", "ops.value_and_grad", "ops.vjp", "ops.GradOperation",
                       "ops.constexpr", "ops.add_flags", "ops.get_grad",
                       "ops.HookBackward", "ops.InsertGradientOf", "ops.DumpGradient", "ops.Morph",
                       "ops.Scan", "ops.WhileLoop", "ops.ForiLoop", "ops.HyperMap", "ops.Map", "ops.Partial",
                       "ops.MultitypeFuncGraph", "ops.PyFunc", "ops.PrimitiveWithInfer", "ops.PrimitiveWithCheck",
                       "ops.prim_attr_register", "ops.prim_arg_register", "ops.custom_info_register",
                       "ops.get_vm_impl_fn"})


def _cases():
    out = {}
    for case in ops_function_cases() + ops_class_cases():
        if _qualname(case.name) not in USER_CODE:
            out.setdefault(_qualname(case.name), case)  # one case per public name keeps this quick
    return sorted(out.items())


CASES = _cases()


def test_the_oracle_covers_most_of_the_public_ops_surface():
    assert len(CASES) > 300


def test_the_ops_listed_for_a_public_name_are_the_ones_it_runs():
    """Each public name that runs ops has one of them listed, and a name whose run applies one op
    (no helper casts or reshapes around it) has that op listed, by the catalogue and by describe().
    The catalogue lists the ops a name calls by name, not those behind operators on its values."""
    index: dict[str, list[str]] = {}
    for entry in ide.op_catalogue():
        for qual in entry["api"]:
            index.setdefault(qual, []).append(entry["name"])
    wrong = []
    checked = single = 0
    for qual, case in CASES:
        seen = _observed(case)
        if not seen:
            continue
        seen = {s for s in seen if s not in INTERNAL and not s.startswith(("GraphCall[", "GraphBackward["))}
        listed = set(index.get(qual, ()))
        checked += 1
        if not seen & listed:
            wrong.append(f"{qual}: runs {sorted(seen)}, the catalogue lists {sorted(listed)}")
        elif len(seen) == 1:
            single += 1
            if not seen <= {o["name"] for o in ide.describe(_public(qual))["ops"]}:
                wrong.append(f"{qual}: runs only {sorted(seen)}, which describe() does not list")
    assert checked > 250 and single > 150
    assert not wrong, f"{len(wrong)} of {checked} public names:\n" + "\n".join(wrong)


def _public(qual: str):
    space, attr = qual.split(".", 1)
    return getattr({"ops": ops, "Tensor": ms.Tensor, "nn": nn}[space], attr)


@pytest.mark.parametrize("name", ["ops.matmul", "ops.Sqrt", "Tensor.sum", "nn.Conv2d"])
def test_listed_names_resolve_to_public_objects(name):
    space, attr = name.split(".")
    owner = {"ops": ops, "Tensor": ms.Tensor, "nn": nn}[space]
    assert getattr(owner, attr) is not None
    assert any(name in e["api"] for e in ide.op_catalogue())
