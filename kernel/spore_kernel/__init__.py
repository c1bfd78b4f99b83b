"""spore_kernel: the Jupyter kernel of Spore (`python -m spore_kernel install`).

The kernel is IPython's, plus what a notebook needs to work with Spore: tensor and Cell displays,
inspection of tensors, Cells and ops, magics (`%spore_mode`, `%spore_graph`, `%%spore_profile`,
`%spore_hints`, `%spore_plot`) and mode-switch hints. `%load_ext spore_kernel` brings the same
into any IPython.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
KERNEL_NAME = "spore"
DISPLAY_NAME = "Spore (Python)"


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext spore_kernel`."""
    from .extension import setup

    setup(ipython)
