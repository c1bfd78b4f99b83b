"""pydevd extension: Spore tensors, Parameters and Cells shown as such in any debugpy session.

pydevd imports every `pydevd_plugin*` module under `pydevd_plugins.extensions` found on `sys.path`
(a regular install of spore-ide puts this one in site-packages) and instantiates the classes it
exports that subclass its extension ABCs. The work is in `spore_debug.presentation_pydevd`; this
module only declares the two providers. Importing it loads neither NumPy nor the engine.
"""

from spore_debug.presentation_pydevd import SporeResolver, SporeStrProvider, register_abcs

register_abcs()

__all__ = ["SporeResolver", "SporeStrProvider"]
