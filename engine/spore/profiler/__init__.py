"""`spore.Profiler`: per-op timings with the user's source line, in both modes."""

from .profiler import Profiler, ProfilerEvent

__all__ = ["Profiler", "ProfilerEvent"]
