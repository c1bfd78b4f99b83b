"""The quickstart notebook (`make demo`): executed headless on the real `spore` kernel, it shows what it claims.

The kernelspec is installed with `python -m spore_kernel install --prefix TMP` (as tests/kernel/harness.py
does), so the kernel runs the work tree's packages with a private IPython directory; the notebook
runs through examples/run_quickstart.py, the runner `make demo` uses. One run is checked cell by
cell (the tests share it, so they live in one function: pytest-xdist would otherwise run the
notebook once per worker).
"""

from __future__ import annotations

import base64
import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbformat.v4 import new_code_cell, new_notebook
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
KERNEL_PATH = os.pathsep.join([str(ROOT / "kernel"), str(ROOT / "visualizer"), str(ROOT / "engine")])
MIME_TENSOR = "application/vnd.spore.tensor+json"
MIME_CELL = "application/vnd.spore.cell+json"
MIME_GRAPH = "application/vnd.spore.graph+json"
MIME_HINT = "application/vnd.spore.hint+json"
MIME_PROFILE = "application/vnd.spore.profile+json"


def load_example(name: str) -> ModuleType:
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"spore_example_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def kernel_manager(tmp: Path) -> AsyncKernelManager:
    """A manager for a `spore` kernelspec installed into `tmp` by the package's own CLI."""
    ipython_dir = tmp / "ipython"
    ipython_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "spore_kernel", "install", "--prefix", str(tmp),
                    "--env", f"PYTHONPATH={KERNEL_PATH}", "--env", f"IPYTHONDIR={ipython_dir}",
                    "--env", "OMP_NUM_THREADS=1", "--env", "OPENBLAS_NUM_THREADS=1"],
                   check=True, env=dict(os.environ, PYTHONPATH=KERNEL_PATH), capture_output=True, text=True)
    ksm = KernelSpecManager(kernel_dirs=[str(tmp / "share" / "jupyter" / "kernels")])
    # IPC sockets in tmp: two test workers starting kernels at once cannot race for the same TCP port
    # (a kernel that loses that race dies binding it, and the client waits out its timeout)
    return AsyncKernelManager(kernel_name="spore", kernel_spec_manager=ksm, transport="ipc",
                              ip=str(tmp / "kernel-ipc"))


def cell(nb: Any, cell_id: str) -> Any:
    found = [c for c in nb.cells if c.get("id") == cell_id]
    assert len(found) == 1, f"no single cell {cell_id!r} in the notebook"
    return found[0]


def bundles(c: Any) -> list[dict[str, Any]]:
    return [o.data for o in c.outputs if o.output_type in ("execute_result", "display_data")]


def with_mime(c: Any, mime: str) -> dict[str, Any]:
    found = [b for b in bundles(c) if mime in b]
    assert len(found) == 1, f"cell {c.id!r}: expected one {mime} output, got {[list(b) for b in bundles(c)]}"
    return found[0]


def stdout(c: Any) -> str:
    return "".join(o.text for o in c.outputs if o.output_type == "stream" and o.name == "stdout")


def png(bundle: dict[str, Any]) -> Image.Image:
    data = base64.b64decode(bundle["image/png"])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data))


def test_generated_notebook_is_up_to_date():
    """examples/quickstart.ipynb is exactly what examples/make_quickstart.py writes (edit the generator)."""
    gen = load_example("make_quickstart")
    assert (EXAMPLES / "quickstart.ipynb").read_text(encoding="utf-8") == gen.render()
    nb = nbformat.reads(gen.render(), as_version=4)
    assert nb.metadata.kernelspec.name == "spore"
    tagged = [c.id for c in nb.cells if "raises-exception" in c.metadata.get("tags", [])]
    assert tagged == ["error"]
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_quickstart_runs_and_shows_tensor_graph_hint_training_and_profile(tmp_path):
    runner = load_example("run_quickstart")
    out = tmp_path / "demo"
    result = runner.run(EXAMPLES / "quickstart.ipynb", out, km=kernel_manager(tmp_path / "spec"))
    nb = result.notebook
    code = [c for c in nb.cells if c.cell_type == "code"]

    # the run: every code cell executed, in order; only the tagged cell raised; nothing on stderr
    assert result.cells_run == len(code) >= 12
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert result.expected_errors == ["error"]
    errored = [c.id for c in code if any(o.output_type == "error" for o in c.outputs)]
    assert errored == ["error"]
    stderr = [(c.id, o.text) for c in code for o in c.outputs if o.output_type == "stream" and o.name == "stderr"]
    assert not stderr, stderr
    assert result.seconds < 60, f"the demo took {result.seconds:.1f}s"

    # the seeds' SimpleCNN and its parameter table
    table = with_mime(cell(nb, "net"), MIME_CELL)[MIME_CELL]
    assert table["type"] == "SimpleCNN"
    assert {p["name"]: p["shape"] for p in table["params"]} == {
        "conv1.weight": [16, 3, 3, 3], "fc.weight": [10, 4096], "fc.bias": [10]}
    assert table["totals"]["total"] == 432 + 40960 + 10

    # a tensor's display: summary line, HTML card, JSON bundle with every value of the (4, 10) logits
    tensor = with_mime(cell(nb, "tensor"), MIME_TENSOR)
    data = tensor[MIME_TENSOR]
    assert data["schema"] == "spore.tensor/1" and data["stats"]["shape"] == [4, 10]
    assert data["values"]["kind"] == "full" and len(data["values"]["data"]) == 4
    assert tensor["text/plain"].startswith("Tensor[4, 10] float32 n=40")
    assert "spore-tensor" in tensor["text/html"] and "spore-hist" in tensor["text/html"]

    # the graph view: the compiled SimpleCNN.construct, with spore_viz's page in an iframe
    graph = with_mime(cell(nb, "graph"), MIME_GRAPH)
    g = graph[MIME_GRAPH]
    assert g["schema"] == "spore.graph/1" and g["name"] == "SimpleCNN.construct"
    ops = [n["op"] for n in g["nodes"]]
    assert {"Conv2D", "FusedMaxPoolReLU"} <= set(ops), ops  # the ReLU runs inside the pooling call
    assert next(n for n in g["nodes"] if n["op"] == "FusedMaxPoolReLU")["fused"] == ["MaxPool", "ReLU"]
    assert "FusedDense" in ops or "MatMul" in ops, ops
    assert graph["text/html"].startswith("<iframe") and "srcdoc=" in graph["text/html"]

    # the compile error: GraphCompileError, the hint in the traceback and as a bundle, naming the line
    err_cell = cell(nb, "error")
    errors = [o for o in err_cell.outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "GraphCompileError"
    assert "Spore hint" in "\n".join(errors[0].traceback)
    hint = with_mime(err_cell, MIME_HINT)[MIME_HINT]
    assert hint["kind"] == "compile" and hint["rule"]["id"] == "self_assign"
    assert hint["scope"] == "DebugCNN.construct" and hint["mode"] == "graph"
    src_line = err_cell.source.splitlines()[hint["line"] - 1]
    assert "self.features = x" in src_line and hint["where"].startswith(f"Cell In[{err_cell.execution_count}]")
    assert hint["next_steps"][0] == {"kind": "magic", "code": "%spore_mode pynative",
                                     "text": hint["next_steps"][0]["text"]}
    assert hint["next_steps"][1]["code"] == "ms.set_context(jit_syntax_level=ms.LAX)"  # a graph break instead
    assert "return the value from construct" in hint["next_steps"][2]["text"]

    # both ways of following the hint work
    fix1 = cell(nb, "fix1")
    assert "Spore mode: pynative" in stdout(fix1)
    assert bundles(fix1)[-1]["text/plain"] == "(4, 16, 16, 16)"
    assert "compiled and ran in Graph mode: (4, 10) (4, 16, 16, 16)" in stdout(cell(nb, "fix2"))

    # training on digits: 12 epochs printed, the final accuracy parsed by the runner
    train_out = stdout(cell(nb, "train"))
    assert train_out.count("epoch ") == 12
    assert result.accuracy is not None and result.accuracy >= 0.95, train_out

    # the training curves and the feature-map picture are PNGs
    curves = png(with_mime(cell(nb, "curves"), "image/png"))
    assert curves.width > 2 * curves.height > 400, curves.size  # two panels side by side
    plot = png(with_mime(cell(nb, "plot"), "image/png"))
    assert plot.width > 300 and plot.height > 200, plot.size

    # %%spore_profile: per-op rows of one training step, with the notebook line that ran them
    prof = with_mime(cell(nb, "profile"), MIME_PROFILE)[MIME_PROFILE]
    assert prof["events"] > 10
    rows = {r["op"]: r for r in prof["rows"]}
    assert "Conv2D" in rows and rows["Conv2D"]["cell"] and rows["Conv2D"]["code"], prof["rows"]

    # the files `make demo` leaves: the executed notebook and a self-contained HTML page
    saved = nbformat.read(out / "quickstart.ipynb", as_version=4)
    assert [c.id for c in saved.cells] == [c.id for c in nb.cells]
    page = (out / "quickstart.html").read_text(encoding="utf-8")
    assert "Spore hint" in page and "data:image/png;base64," in page
    assert "<iframe sandbox=\"allow-scripts\" srcdoc=" in page
    assert "cdnjs" not in page and "<script src=" not in page


def test_runner_fails_on_an_unexpected_error_and_on_a_tagged_cell_that_does_not_raise(tmp_path):
    runner = load_example("run_quickstart")
    quiet = new_code_cell("1 + 1", id="quiet")
    quiet.metadata["tags"] = ["raises-exception"]
    bad = new_notebook(cells=[new_code_cell("x = 1", id="ok"), new_code_cell("1 / 0", id="boom"), quiet],
                       metadata={"kernelspec": {"name": "spore", "display_name": "Spore", "language": "python"}})
    path = tmp_path / "bad.ipynb"
    nbformat.write(bad, path)
    with pytest.raises(runner.DemoFailed, match="ZeroDivisionError"):
        runner.run(path, tmp_path / "out", km=kernel_manager(tmp_path / "spec"))
    assert (tmp_path / "out" / "bad.ipynb").exists() and (tmp_path / "out" / "bad.html").exists()

    del bad.cells[1]
    nbformat.write(bad, path)
    with pytest.raises(runner.DemoFailed, match="did not raise: quiet"):
        runner.run(path, tmp_path / "out2", km=kernel_manager(tmp_path / "spec"))


def test_readme_pictures_are_committed_and_small():
    images = load_example("make_readme_images")
    for pic in images.PICTURES:
        path = ROOT / "docs" / "images" / pic.name
        assert path.exists(), f"{path} is missing: run examples/make_readme_images.py"
        assert path.stat().st_size < 300_000
        with Image.open(path) as im:
            assert im.format == "PNG" and im.width >= 600 and im.height >= 300, (pic.name, im.size)
