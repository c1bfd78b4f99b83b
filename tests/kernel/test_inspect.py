"""inspect_request (Shift+Tab, hover, `x?`) and completion on Spore objects, through the kernel."""

from __future__ import annotations

import pytest

from spore.ops.primitive import REGISTRY

from .harness import Kernel, strip_ansi

SETUP = """import numpy as np
import spore as ms
from spore import nn

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.fc2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.fc1(x))

net = Net()
t = ms.Tensor(np.array([[1, -2, 3], [4, 5, 6]], np.float32))
"""


T_SOURCE = "t = ms.Tensor(np.array([[1, -2, 3], [4, 5, 6]], np.float32))"
T_LINE = SETUP.splitlines().index(T_SOURCE) + 1


@pytest.fixture(scope="module")
def k(kernel: Kernel) -> Kernel:
    kernel.setup_cell = kernel.ok(SETUP).reply["content"]["execution_count"]  # type: ignore[attr-defined]
    return kernel


def text_of(reply: dict) -> str:
    assert reply["status"] == "ok" and reply["found"], reply
    return strip_ansi(reply["data"]["text/plain"])


def test_tensor_inspection_shows_shape_dtype_stats_and_origin(k: Kernel) -> None:
    reply = k.inspect("t")
    text = text_of(reply)
    assert "Shape:   (2, 3)" in text and "Dtype:   float32" in text
    assert "Stats:   min=-2 max=6 mean=2.83333 std=2.67187" in text
    assert f"Origin:  Cell In[{k.setup_cell}], line {T_LINE}: {T_SOURCE}" in text
    assert reply["data"]["application/vnd.spore.tensor+json"]["stats"]["shape"] == [2, 3]


def test_origin_follows_the_latest_assignment(k: Kernel) -> None:
    n = k.ok("u = t * 2\nu = u + 1").reply["content"]["execution_count"]
    assert f"Origin:  Cell In[{n}], line 2: u = u + 1" in text_of(k.inspect("u"))


def test_parameter_inspection_names_the_parameter_and_its_grad_state(k: Kernel) -> None:
    text = text_of(k.inspect("net.fc1.weight"))
    assert "Summary: Parameter[3, 4] 'fc1.weight' float32" in text
    assert "Grad:    requires_grad" in text
    assert "Parameter 'fc1.weight'" in text and "net = Net()" in text


def test_cell_inspection_lists_layers_and_parameters(k: Kernel) -> None:
    text = text_of(k.inspect("net"))
    assert "Construct:  construct(self, x)" in text
    assert "fc1: Dense<input_channels=4, output_channels=3, has_bias=True>" in text
    assert "Summary:    Net: 2 sub-cells, 4 parameter tensors, 23 parameters (23 trainable), 92 B" in text
    assert any(line.split() == ["fc2.weight", "(2,", "3)", "float32", "6", "yes"] for line in text.splitlines())


def test_op_inspection_shows_signature_docs_and_the_registry_declaration(k: Kernel) -> None:
    text = text_of(k.inspect("ms.ops.matmul"))
    assert "Signature:  matmul(input: 'Tensor', other: 'Tensor') -> 'Tensor'" in text
    assert "Matrix product of two tensors" in text
    assert f"MatMul: {REGISTRY['MatMul'].doc}" in text
    assert "shape rule: infer(a, b, transpose_a=False, transpose_b=False)" in text
    assert "differentiable (vjp declared)" in text


def test_class_form_of_an_op_shows_its_primitive(k: Kernel) -> None:
    text = text_of(k.inspect("ms.ops.MatMul"))
    assert f"MatMul: {REGISTRY['MatMul'].doc}" in text


def test_inspection_inside_a_call_documents_the_callee(k: Kernel) -> None:
    text = text_of(k.inspect("y = ms.ops.softmax(t, "))
    assert "Signature:  softmax(" in text and "Softmax:" in text


def test_api_names_not_yet_imported_are_still_documented(k: Kernel) -> None:
    text = text_of(k.inspect("F.relu"))  # F is not bound in the notebook
    assert "Signature:  relu(" in text and f"ReLU: {REGISTRY['ReLU'].doc}" in text
    assert k.inspect("no_such_thing_xyz")["found"] is False


def test_other_objects_keep_ipythons_answer(k: Kernel) -> None:
    text = text_of(k.inspect("len"))
    assert "Return the number of items in a container." in text


def test_question_mark_pages_the_same_sections(k: Kernel) -> None:
    res = k.ok("t?")
    payload = res.reply["content"]["payload"]
    assert len(payload) == 1 and payload[0]["source"] == "page"
    assert "Shape:   (2, 3)" in strip_ansi(payload[0]["data"]["text/plain"])


@pytest.mark.parametrize(("code", "expected"), [
    ("net.fc", {"fc1", "fc2"}),
    ("net.fc1.wei", {"weight"}),
    ("ms.ops.matm", {"matmul"}),
    ("ms.set_con", {"set_context"}),
    ("t.asn", {"asnumpy"}),
])
def test_completion_of_spore_api_and_cell_attributes(k: Kernel, code: str, expected: set[str]) -> None:
    reply = k.complete(code)
    assert reply["status"] == "ok"
    assert expected <= set(reply["matches"])


def test_a_primitive_object_shows_its_declaration(k: Kernel) -> None:
    k.ok("from spore.ops.primitive import REGISTRY\nprim = REGISTRY['Softmax']")
    text = text_of(k.inspect("prim"))
    assert text.startswith("Signature:  Softmax(") and f"Softmax: {REGISTRY['Softmax'].doc}" in text
