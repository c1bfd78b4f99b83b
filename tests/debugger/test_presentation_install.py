"""Why `debugger/pydevd_plugins` has no `__init__.py`: pydevd's extension discovery and editable installs.

pydevd builds `pydevd_plugins.extensions.__path__` with `pkgutil.extend_path` from what the finders
of `sys.path` entries report. An editable install of a multi-folder project (as `pip install -e .`
makes of spore-ide) maps packages through setuptools' finder and puts no source folder on
`sys.path`. These tests make such an install, in a scratch virtual environment layered over the
project's, of a project holding a copy of the real `pydevd_plugins` tree, and debug a program with
a Spore tensor through `python -m debugpy.adapter`:

- as it is (PEP 420 namespace portions), pydevd loads the plugin and the tensor shows its summary;
- with pydevd's recommended `__init__` preamble added (a regular package), it does not.

Offline: pip runs with --no-index --no-build-isolation --no-deps, setuptools and debugpy coming
from the project's environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from tests.debugger.dap_client import DAPClient

ROOT = Path(__file__).resolve().parents[2]
PREAMBLE = "import pkgutil\n\n__path__ = pkgutil.extend_path(__path__, __name__)\n"
PROGRAM = textwrap.dedent("""\
    import numpy as np
    import spore as ms
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 1)
    print("stop")
    """)


def editable_env(tmp: Path, regular_package: bool) -> Path:
    """A venv seeing this environment's packages, with a two-folder project installed editable whose
    `pydevd_plugins` is a copy of ours; returns the venv's python."""
    project = tmp / "proj"
    shutil.copytree(ROOT / "debugger" / "pydevd_plugins", project / "plugins" / "pydevd_plugins")
    (project / "pkg" / "scratchpkg").mkdir(parents=True)
    (project / "pkg" / "scratchpkg" / "__init__.py").write_text("")
    if regular_package:
        for folder in ("pydevd_plugins", "pydevd_plugins/extensions"):
            (project / "plugins" / folder / "__init__.py").write_text(PREAMBLE)
    (project / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=70"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "scratch-plugins"
        version = "0.1"
        [tool.setuptools.packages.find]
        where = ["pkg", "plugins"]
        include = ["scratchpkg*", "pydevd_plugins*"]
        """))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    # the project's packages, but not the project's own pydevd_plugins: its editable finder would serve
    # that portion too, and pydevd would find the plugin whatever the scratch project holds
    Path(site, "zz_project_env.pth").write_text(
        f"import site, sys; site.addsitedir({ours!r}); "
        "[(getattr(m, 'MAPPING', {}).pop(k, None), getattr(m, 'NAMESPACES', {}).pop(k, None)) "
        "for n, m in list(sys.modules.items()) if n.startswith('__editable___spore_ide') "
        "for k in ('pydevd_plugins', 'pydevd_plugins.extensions')]\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-index",
                    "--no-build-isolation", "--no-deps", "-e", str(project)], check=True, capture_output=True,
                   text=True)
    return python


@pytest.mark.parametrize("regular_package, shown", [
    (False, "Tensor[2, 3] f32 [[1, 2, 3], [4, 5, 6]]"),
    (True, None),  # the repr: pydevd never saw the plugin
])
def test_an_editable_install_serves_the_plugin_to_pydevd_only_as_a_namespace_portion(tmp_path, regular_package,
                                                                                       shown):
    python = editable_env(tmp_path, regular_package)
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OMP_NUM_THREADS"] = "1"
    with DAPClient.spawn([str(python), "-m", "debugpy.adapter"], env=env) as dap:
        dap.start("launch", breakpoints={str(program): [{"line": 4}]}, program=str(program), python=[str(python)],
                  console="internalConsole", env=env)
        thread = dap.wait_event("stopped")["body"]["threadId"]
        frame = dap.top_frame(thread)
        value = dap.locals(frame["id"])["x"]["value"]
        loaded = dap.request("evaluate", expression="'pydevd_plugins.extensions.pydevd_plugin_spore' in "
                             "__import__('sys').modules", frameId=frame["id"], context="repl")["body"]["result"]
        dap.request("continue", threadId=thread)
    if shown is None:
        assert value.startswith("Tensor(shape=[2, 3]") and loaded == "False"
    else:
        assert value == shown and loaded == "True"
