"""`python -m spore_kernel install [--user | --sys-prefix | --prefix P]` writes the kernelspec;
`python -m spore_kernel -f CONNECTION_FILE` (what the kernelspec runs) starts the kernel."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["install"]:
        from .install import main as install_main

        return install_main(argv[1:])
    from ipykernel.kernelapp import IPKernelApp

    from .kernel import SporeKernel

    IPKernelApp.launch_instance(argv=argv, kernel_class=SporeKernel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
