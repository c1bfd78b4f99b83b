"""Everything Spore adds to an IPython shell, in one place.

The Spore kernel calls `setup` at start-up; `%load_ext spore_kernel` calls it in any IPython (a
stock Jupyter kernel, the terminal), so the views, magics and hints work there too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from . import display, hints, inspection, magics, speed
from .lazy import when_imported


@dataclass
class SporeSession:
    """The per-shell state the pieces share."""

    shell: Any
    settings: hints.HintSettings
    advisor: speed.SpeedAdvisor


def setup(shell: Any) -> SporeSession:
    """Install formatters, inspector, magics, the compile-error hint and the speed hint on `shell`."""
    existing = getattr(shell, "_spore_session", None)
    if existing is not None:
        return existing
    import spore  # noqa: F401 - the kernel's promise: spore is imported when the first cell runs

    _route_logs()
    settings = hints.HintSettings()
    display.register(shell)
    inspection.install(shell)
    install_plt_property()
    shell.register_magics(magics.SporeMagics(shell, settings))
    hints.install(shell, settings)
    advisor = speed.SpeedAdvisor(shell, settings)
    shell.events.register("pre_run_cell", advisor.pre_run_cell)
    shell.events.register("post_run_cell", advisor.post_run_cell)
    session = SporeSession(shell, settings, advisor)
    shell._spore_session = session
    return session


def install_plt_property() -> None:
    """Give Tensor a `plt` property (as lovely-tensors does for torch), unless Spore has one, once
    the user's code first loads Spore's Tensor (the kernel starts without the engine)."""

    def install(module: Any) -> None:
        from .plots import TensorPlot

        tensor = module.Tensor
        if "plt" not in tensor.__dict__:
            tensor.plt = property(lambda self: TensorPlot(self),
                                  doc="A PNG picture of the tensor: histogram, heatmap or channel grid.")

    when_imported("spore.tensor", install)


def _route_logs() -> None:
    """Send spore_kernel's own warnings to the process's stderr (the kernel log), not into the cell.

    Inside a kernel, sys.stderr is the notebook's stderr stream and fd 2 is piped into it too: a
    failing view must not print a traceback into the user's output. `display.kernel_log_stream` is
    the kernel's own stderr (ipykernel's saved copy of fd 2).
    """
    log = logging.getLogger("spore_kernel")
    stream = None if log.handlers else display.kernel_log_stream()
    if stream is not None:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("[spore_kernel] %(levelname)s | %(message)s"))
        log.addHandler(handler)
        log.propagate = False
