"""Spore as an ONNX backend (`onnx.backend.base.Backend`), and a runner for the node test suite
shipped inside the `onnx` package (`onnx.backend.test.loader.load_model_tests(kind="node")`, built
in memory: no network).

`run_node_suite` sorts every case into passed / failed / not implemented (an op Spore does not
import, or an op listed in `EXCLUDED` with the reason) and can run onnxruntime over the same cases
for comparison. The test (tests/onnx/test_node_suite.py) pins the pass count.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from onnx.backend.base import Backend, BackendRep

# Declared ops whose node cases Spore does not run: the one list of exclusions, with the reason.
EXCLUDED: dict[str, str] = {
}


class SporeRep(BackendRep):
    """A prepared model: the imported Cell, run in PyNative mode on NumPy inputs."""

    def __init__(self, cell: Any) -> None:
        self.cell = cell

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        from ..tensor import Tensor

        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in self.cell.input_names]
        elif isinstance(inputs, np.ndarray):
            inputs = [inputs]
        out = self.cell(*[Tensor(np.asarray(x)) for x in inputs])
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(np.asarray(o.asnumpy() if isinstance(o, Tensor) else o) for o in outs)


class SporeBackend(Backend):
    """`onnx.backend` entry points over `spore.onnx.load`."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> SporeRep:
        from .importer import load

        return SporeRep(load(model.SerializeToString()))

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[np.ndarray, ...]:
        return cls.prepare(model, device).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper() == "CPU"


@dataclass
class SuiteResult:
    """Counts of one run of the node suite, with the failing case names."""

    total: int = 0
    passed: int = 0
    failed: list[str] = field(default_factory=list)
    not_implemented: list[str] = field(default_factory=list)

    @property
    def declared(self) -> int:
        return self.passed + len(self.failed)


def model_ops(model: Any) -> set[str]:
    """Op types of a model, sub-graphs included ("domain:op" outside the default domain)."""
    from onnx import AttributeProto

    def walk(g: Any) -> set[str]:
        out = set()
        for n in g.node:
            out.add(n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}:{n.op_type}")
            for a in n.attribute:
                if a.type == AttributeProto.GRAPH:
                    out |= walk(a.g)
                elif a.type == AttributeProto.GRAPHS:
                    for sg in a.graphs:
                        out |= walk(sg)
        return out

    return walk(model.graph)


def _close(got: Any, want: Any, rtol: float, atol: float) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype.kind in "OUS":
        return bool(np.array_equal(got.astype(want.dtype), want))
    if got.dtype != want.dtype and not (got.dtype.kind == want.dtype.kind == "f"):
        return False
    if want.dtype.kind == "f" or want.dtype.kind == "c":
        return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(got, want))


def _dtypes_known(case: Any) -> bool:
    """Whether every input and output of the case has a dtype Spore has."""
    from ..common.dtype import from_numpy

    for inputs, outputs in case.data_sets:
        for x in list(inputs) + list(outputs):
            if not isinstance(x, np.ndarray):
                return False
            try:
                from_numpy(x.dtype)
            except (TypeError, KeyError, ValueError):
                return False
    return True


def run_case(run: Any, case: Any) -> bool:
    """One case through `run(model, inputs) -> outputs`: True when every data set matches."""
    for inputs, outputs in case.data_sets:
        got = run(case.model, inputs)
        if len(got) < len(outputs):
            return False
        if not all(_close(g, w, case.rtol, case.atol) for g, w in zip(got, outputs)):
            return False
    return True


def run_node_suite(cases: list[Any] | None = None, runtime: str = "spore") -> SuiteResult:
    """Run the node cases through Spore ("spore") or onnxruntime ("onnxruntime")."""
    from .importer import import_table

    if cases is None:
        cases = node_cases()
    table = set(import_table())
    res = SuiteResult(total=len(cases))
    if runtime == "spore":
        def run(model: Any, inputs: list) -> Any:
            return SporeBackend.run_model(model, inputs)
    else:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level = 4
        opts.intra_op_num_threads = 1

        def run(model: Any, inputs: list) -> Any:
            sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
            names = [i.name for i in sess.get_inputs()]
            return sess.run(None, dict(zip(names, inputs)))
    for case in cases:
        ops = model_ops(case.model)
        if runtime == "spore" and (not ops <= table or ops & set(EXCLUDED) or not _dtypes_known(case)):
            res.not_implemented.append(case.name)
            continue
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                ok = run_case(run, case)
        except Exception:  # noqa: BLE001 - any failure of one case is that case failing
            ok = False
        if ok:
            res.passed += 1
        else:
            res.failed.append(case.name)
    return res


def node_cases() -> list[Any]:
    """The node test cases of the installed `onnx` package, built in memory."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return load_model_tests(kind="node")


@dataclass
class ShippedCase:
    """A model file shipped in the onnx package, with its inputs and expected outputs."""

    name: str
    model: Any
    data_sets: list[tuple[list[np.ndarray], list[np.ndarray]]]
    rtol: float = 1e-3
    atol: float = 1e-7


def shipped_models() -> list[ShippedCase]:
    """The 'simple' models (model.onnx + test_data_set_*) and the 'light' versions of the real
    models (alexnet, resnet50, ...: inputs made as onnx's runner makes them, outputs stored beside)."""
    import glob
    import os

    import onnx
    from onnx import numpy_helper
    from onnx.backend.test.runner import Runner

    data = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    out: list[ShippedCase] = []
    for d in sorted(glob.glob(os.path.join(data, "simple", "*"))):
        path = os.path.join(d, "model.onnx")
        if not os.path.isfile(path):
            continue
        sets = []
        for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
            def read(kind: str, ds: str = ds) -> list[np.ndarray]:
                files = sorted(glob.glob(os.path.join(ds, f"{kind}_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
                return [numpy_helper.to_array(onnx.load_tensor(f)) for f in files]
            try:
                sets.append((read("input"), read("output")))
            except Exception:  # noqa: BLE001 - sequences/maps: not tensors, not run here
                sets = []
                break
        if sets:
            out.append(ShippedCase(os.path.basename(d), onnx.load(path), sets))
    for path in sorted(glob.glob(os.path.join(data, "light", "light_*.onnx"))):
        model = onnx.load(path)
        expected = path[:-5] + "_output_0.pb"
        if not os.path.isfile(expected):
            continue
        inits = {i.name for i in model.graph.initializer}
        name = os.path.basename(path)[6:-5]
        feeds = [Runner.generate_dummy_data(i, seed=0, name=name, random=False)
                 for i in model.graph.input if i.name not in inits]
        out.append(ShippedCase(name, model, [(feeds, [numpy_helper.to_array(onnx.load_tensor(expected))])]))
    return out
