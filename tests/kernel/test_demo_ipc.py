"""`make demo`'s notebook runner (examples/run_quickstart.py) starts the Spore kernel over ipc.

Over tcp the kernel warns "Kernel is running over TCP without encryption" on its stderr (and its
ports are open to every local user); over ipc its sockets are files in a private directory. The
runner's own command line is run on a one-cell notebook, and the same notebook on a tcp manager
shows that the check would see the warning if it were printed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbformat.v4 import new_code_cell, new_notebook

from .harness import KERNEL_PATH, ROOT, install_spec

WARNING = "Kernel is running over TCP without encryption"


def spec_dir(tmp: Path) -> Path:
    (tmp / "spec").mkdir()
    return tmp / "spec"


def tiny_notebook(tmp: Path) -> Path:
    nb = new_notebook(cells=[new_code_cell("import os\nprint('ran in', os.getcwd())", id="only")],
                      metadata={"kernelspec": {"name": "spore", "display_name": "Spore", "language": "python"}})
    path = tmp / "tiny.ipynb"
    nbformat.write(nb, path)
    return path


def test_the_demo_runner_uses_ipc_and_the_kernel_does_not_warn(tmp_path):
    data_dir = install_spec(spec_dir(tmp_path))
    notebook = tiny_notebook(tmp_path)
    env = dict(os.environ, JUPYTER_PATH=str(data_dir), PYTHONPATH=KERNEL_PATH, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "run_quickstart.py"), str(notebook),
                           "--out", str(tmp_path / "out")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "quickstart: 1 code cells run" in done.stdout
    assert WARNING not in done.stderr, done.stderr
    ran = nbformat.read(tmp_path / "out" / "tiny.ipynb", as_version=4)
    assert ran.cells[0].outputs[0].text == f"ran in {tmp_path}\n"


def test_over_tcp_the_same_run_shows_the_warning(tmp_path, capfd):
    path = ROOT / "examples" / "run_quickstart.py"
    spec = importlib.util.spec_from_file_location("spore_example_run_quickstart_tcp", path)
    assert spec is not None and spec.loader is not None
    runner = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = runner  # (its dataclasses look their module up)
    spec.loader.exec_module(runner)
    data_dir = install_spec(spec_dir(tmp_path))
    ksm = KernelSpecManager(kernel_dirs=[str(data_dir / "kernels")])
    km = AsyncKernelManager(kernel_name="spore", kernel_spec_manager=ksm, transport="tcp", ip="127.0.0.1")
    runner.run(tiny_notebook(tmp_path), tmp_path / "out", km=km)
    assert WARNING in capfd.readouterr().err  # the kernel's stderr is this process's (fd 2 inherited)
