"""The ONNX backend node test suite (shipped in the onnx package, built in memory) through Spore's
backend: the pass count must not fall below the level reached, and >= 90% of the cases whose ops
Spore imports pass. onnxruntime runs the same cases in the same process, for comparison."""

import time

from spore.onnx.backend import EXCLUDED, SporeBackend, node_cases, run_node_suite
from spore.onnx.importer import import_table

PASS_FLOOR = 962  # reached with onnx 1.23.2 (1,884 cases); raise it when more cases pass


def test_node_suite_pass_count_and_ratio():
    cases = node_cases()
    assert len(cases) >= 1800
    start = time.perf_counter()
    spore = run_node_suite(cases)
    spent = time.perf_counter() - start
    ort = run_node_suite(cases, runtime="onnxruntime")
    declared = set(spore.failed) | {c.name for c in cases if c.name not in spore.not_implemented and
                                    c.name not in spore.failed}
    ort_on_declared = sum(1 for c in cases if c.name in declared and c.name not in ort.failed)
    print(f"\nnode suite: {spore.total} cases; spore passed {spore.passed}, failed {len(spore.failed)}, "
          f"not implemented {len(spore.not_implemented)} ({spore.passed / spore.declared:.1%} of declared) "
          f"in {spent:.1f}s; onnxruntime passed {ort.passed} ({ort.passed / ort.total:.1%} of all), "
          f"{ort_on_declared} of the {spore.declared} Spore declares")
    assert spore.passed >= PASS_FLOOR
    assert spore.passed / spore.declared >= 0.90
    assert spore.total == spore.passed + len(spore.failed) + len(spore.not_implemented)
    assert spent < 60


def test_backend_protocol_and_exclusions_are_declared_ops():
    assert SporeBackend.supports_device("CPU") and not SporeBackend.supports_device("CUDA")
    table = import_table()
    assert set(EXCLUDED) <= set(table)  # an exclusion names an op Spore declares, with its reason
    assert all(isinstance(reason, str) and reason for reason in EXCLUDED.values())
    import numpy as np
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 17)])
    out = SporeBackend.run_model(model, [np.array([-1.0, 0.0, 2.0], np.float32)])
    np.testing.assert_array_equal(out[0], [0.0, 0.0, 2.0])
