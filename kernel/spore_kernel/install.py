"""Writing the `spore` kernelspec, so Jupyter, JupyterLab and VS Code list "Spore (Python)".

The spec runs `python -m spore_kernel` with the interpreter that installed it (so the kernel sees
the same environment), without frozen modules (as ipykernel does, for the debugger), and says
`metadata.debugger: true` so front ends offer ipykernel's debugger.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import DISPLAY_NAME, KERNEL_NAME

_LOGO = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
<circle cx="32" cy="32" r="30" fill="#2f7d4f"/><circle cx="22" cy="24" r="6" fill="#d9f2e1"/>
<circle cx="40" cy="20" r="4" fill="#d9f2e1"/><circle cx="42" cy="38" r="7" fill="#d9f2e1"/>
<circle cx="24" cy="43" r="5" fill="#d9f2e1"/></svg>
"""


def kernel_dict(display_name: str = DISPLAY_NAME, env: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "argv": [sys.executable, "-Xfrozen_modules=off", "-m", "spore_kernel", "-f", "{connection_file}"],
        "display_name": display_name,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": True},
        "kernel_protocol_version": "5.5",
    }
    if env:
        spec["env"] = dict(env)
    return spec


def install(user: bool = False, prefix: str | None = None, name: str = KERNEL_NAME,
            display_name: str = DISPLAY_NAME, env: dict[str, str] | None = None) -> str:
    """Install the kernelspec and return the directory it went to."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / name
        src.mkdir()
        (src / "kernel.json").write_text(json.dumps(kernel_dict(display_name, env), indent=1), encoding="utf-8")
        (src / "logo-svg.svg").write_text(_LOGO, encoding="utf-8")
        return KernelSpecManager().install_kernel_spec(str(src), kernel_name=name, user=user, prefix=prefix)


def _env_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--env expects KEY=VALUE, got {text!r}")
    return key, value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m spore_kernel install",
                                     description="Install the Spore Jupyter kernelspec.")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--sys-prefix", action="store_true", help=f"install into {sys.prefix}")
    where.add_argument("--prefix", help="install into PREFIX/share/jupyter/kernels")
    parser.add_argument("--name", default=KERNEL_NAME, help=f"kernelspec name (default {KERNEL_NAME})")
    parser.add_argument("--display-name", default=DISPLAY_NAME, help=f"name shown in front ends ({DISPLAY_NAME})")
    parser.add_argument("--env", action="append", type=_env_pair, default=[], metavar="KEY=VALUE",
                        help="environment variable for the kernel (repeatable)")
    args = parser.parse_args(argv)
    prefix = sys.prefix if args.sys_prefix else args.prefix
    dest = install(user=args.user, prefix=prefix, name=args.name, display_name=args.display_name,
                   env=dict(args.env))
    print(f"Installed kernelspec {args.name} in {dest}")
    return 0
