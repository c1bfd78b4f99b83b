"""Execute examples/quickstart.ipynb headless on the Spore kernel and export it (`make demo`).

    python -m spore_kernel install --sys-prefix     # once: the `spore` kernelspec (make demo does it)
    python examples/run_quickstart.py               # -> build/demo/quickstart.ipynb and quickstart.html

The notebook runs top to bottom through nbclient on the `spore` kernel, as Jupyter would run it.
A cell tagged `raises-exception` must raise (it demonstrates an error); any other cell that raises
fails the run. The executed notebook and its HTML export are written even when the run fails, so
the failing cell can be looked at. Exit status 0 only when every cell behaved; the summary line
gives the cells run, the time and the final test accuracy the notebook printed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "quickstart.ipynb"
OUT_DIR = ROOT / "build" / "demo"
KERNEL = "spore"
RAISES = "raises-exception"
ACCURACY = re.compile(r"final test accuracy: ([0-9]+(?:\.[0-9]+)?)%")
CELL_TIMEOUT = 120
STARTUP_TIMEOUT = 300  # seconds for the kernel to answer its first request


class DemoFailed(RuntimeError):
    """The notebook did not run as the demo promises (an unexpected error, or a tagged cell did not raise)."""


@dataclass
class DemoResult:
    """What one run produced."""

    notebook: Any                  # the executed nbformat NotebookNode
    seconds: float                 # kernel start to last cell
    ipynb: Path
    html: Path
    cells_run: int = 0
    expected_errors: list[str] = field(default_factory=list)  # ids of tagged cells that raised, as they should
    accuracy: float | None = None  # the final test accuracy the notebook printed, as a fraction

    def summary(self) -> str:
        acc = "not printed" if self.accuracy is None else f"{self.accuracy:.2%}"
        return (f"quickstart: {self.cells_run} code cells run ({len(self.expected_errors)} expected error) "
                f"in {self.seconds:.1f}s; final test accuracy {acc}\n"
                f"  wrote {self.ipynb} and {self.html}")


def cell_text(cell: Any) -> str:
    """Everything a cell printed (stdout/stderr streams and text/plain results)."""
    parts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", ""))
    return "".join(parts)


def final_accuracy(nb: Any) -> float | None:
    """The last 'final test accuracy: NN.NN%' the notebook printed, as a fraction."""
    found = [m for cell in nb.cells if cell.cell_type == "code" for m in ACCURACY.findall(cell_text(cell))]
    return float(found[-1]) / 100 if found else None


def tagged_cells_without_error(nb: Any) -> list[str]:
    """Ids of `raises-exception` cells that ran but raised nothing: the demo would not show its error."""
    return [cell.get("id", "?") for cell in nb.cells if cell.cell_type == "code"
            and RAISES in cell.metadata.get("tags", [])
            and not any(o.output_type == "error" for o in cell.outputs)]


# JupyterLab's look without the CDN scripts (require.js, MathJax, Mermaid) the stock template links:
# the page needs none of them and must open offline.
OFFLINE_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


def html_exporter() -> Any:
    """nbconvert's HTML exporter with the JupyterLab template, self-contained (nothing fetched)."""
    import jinja2
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="lab", template_file="offline.html.j2",
                        extra_loaders=[jinja2.DictLoader({"offline.html.j2": OFFLINE_TEMPLATE})])


def export_html(nb: Any, path: Path) -> None:
    body, _ = html_exporter().from_notebook_node(nb)
    path.write_text(body, encoding="utf-8")


def ipc_kernel_manager(kernel_name: str, socket_dir: Path) -> Any:
    """A manager that starts `kernel_name` over ipc: Unix sockets in `socket_dir` (private, 0700), so
    no port is open to other users and the kernel does not warn "running over TCP without
    encryption". None where ZeroMQ has no ipc (Windows): the default tcp on 127.0.0.1 then.
    """
    import zmq
    from jupyter_client.manager import AsyncKernelManager

    if os.name == "nt" or not zmq.has("ipc"):
        return None
    return AsyncKernelManager(kernel_name=kernel_name, transport="ipc", ip=str(socket_dir / "kernel"))


def run(notebook: Path = NOTEBOOK, out_dir: Path = OUT_DIR, *, kernel_name: str = KERNEL, km: Any = None,
        timeout: int = CELL_TIMEOUT) -> DemoResult:
    """Execute `notebook` on the kernel, write out_dir/<name>.ipynb and .html, and check the run.

    `km` (a jupyter_client KernelManager) overrides `kernel_name`, e.g. for a kernelspec installed
    in a temporary prefix; without it the kernel runs over ipc where the platform has it
    (`ipc_kernel_manager`). Raises DemoFailed (after writing both files) when a cell misbehaved.
    """
    nb = nbformat.read(notebook, as_version=4)
    out_dir.mkdir(parents=True, exist_ok=True)
    ipynb, html_path = out_dir / notebook.name, out_dir / f"{notebook.stem}.html"
    failure: str | None = None
    with tempfile.TemporaryDirectory(prefix="spore-demo-") as socket_dir:
        manager = km if km is not None else ipc_kernel_manager(kernel_name, Path(socket_dir))
        # startup_timeout: a kernel starting beside a busy test suite on two shared cores can need longer
        # than nbclient's default minute to answer its first request
        client = NotebookClient(nb, kernel_name=kernel_name, km=manager, timeout=timeout, allow_errors=False,
                                startup_timeout=STARTUP_TIMEOUT, resources={"metadata": {"path": str(notebook.parent)}})
        t0 = time.perf_counter()
        try:
            client.execute()
        except CellExecutionError as err:
            failure = f"a cell raised unexpectedly:\n{err}"
        except (CellTimeoutError, DeadKernelError) as err:
            failure = f"{type(err).__name__}: {err}"
        seconds = time.perf_counter() - t0
    nbformat.write(nb, ipynb)
    export_html(nb, html_path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    result = DemoResult(nb, seconds, ipynb, html_path,
                        cells_run=sum(1 for c in code if c.get("execution_count") is not None),
                        expected_errors=[c.get("id", "?") for c in code if RAISES in c.metadata.get("tags", [])
                                         and any(o.output_type == "error" for o in c.outputs)],
                        accuracy=final_accuracy(nb))
    if failure is None and (silent := tagged_cells_without_error(nb)):
        failure = f"cells tagged {RAISES!r} did not raise: {', '.join(silent)}"
    if failure is None and result.cells_run != len(code):
        failure = f"only {result.cells_run} of {len(code)} code cells ran"
    if failure is not None:
        raise DemoFailed(f"{notebook.name}: {failure}\n(executed notebook: {ipynb})")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebook", nargs="?", type=Path, default=NOTEBOOK, help="the notebook (default: the quickstart)")
    ap.add_argument("--out", type=Path, default=OUT_DIR, help=f"output directory (default {OUT_DIR})")
    ap.add_argument("--kernel", default=KERNEL, help=f"kernelspec name (default {KERNEL})")
    ap.add_argument("--timeout", type=int, default=CELL_TIMEOUT, help="seconds allowed per cell")
    args = ap.parse_args(argv)
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(args.kernel)
    except NoSuchKernel:
        print(f"no {args.kernel!r} kernelspec: install it with `{sys.executable} -m spore_kernel install "
              "--sys-prefix` (make demo does)", file=sys.stderr)
        return 2
    try:
        result = run(args.notebook.resolve(), args.out.resolve(), kernel_name=args.kernel, timeout=args.timeout)
    except DemoFailed as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    print(result.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
