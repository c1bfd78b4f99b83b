"""Types, initializers and the random seed shared by the whole framework."""

from . import dtype, initializer  # noqa: F401
