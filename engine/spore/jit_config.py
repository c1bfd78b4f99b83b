"""`ms.JitConfig`: per-Cell compile options (MindSpore's class, given to `Cell.set_jit_config`).

Spore honours `jit_syntax_level`: "STRICT" makes that Cell's Graph-mode compile refuse what is not one
graph, as `ms.set_context(jit_syntax_level=ms.STRICT)` does for everything, and "LAX"/"COMPATIBLE"
allow graph breaks. `jit_level`, `exc_mode`, `debug_level` and `infer_boost` choose among MindSpore's
Ascend/GPU backends and device sinking. Spore has one CPU backend, so they are validated with
MindSpore's rules and kept in `jit_config_dict`, and they change nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["JitConfig"]


class JitConfig:
    """``JitConfig(jit_level='', exc_mode='auto', jit_syntax_level='', debug_level='RELEASE',
    infer_boost='off', **kwargs)``."""

    def __init__(self, jit_level: str = "", exc_mode: str = "auto", jit_syntax_level: str = "",
                 debug_level: str = "RELEASE", infer_boost: str = "off", **kwargs: Any) -> None:
        kwargs.pop("suppress_infer_boost_warning", None)
        checks = (("jit_level", jit_level, ("", "O0", "O1", "O2")),
                  ("exc_mode", exc_mode, ("auto", "sink", "no_sink")),
                  ("jit_syntax_level", jit_syntax_level, ("", "STRICT", "COMPATIBLE", "LAX")),
                  ("debug_level", debug_level, ("RELEASE", "DEBUG")),
                  ("infer_boost", infer_boost, ("", "on", "off")))
        for name, value, allowed in checks:
            if value not in allowed:
                raise ValueError(f"JitConfig: '{name}' must be one of {[a for a in allowed if a]}, got {value!r}")
        self.jit_config_dict: dict[str, Any] = dict(kwargs)
        self.jit_config_dict.update(jit_level=jit_level, exc_mode=exc_mode, jit_syntax_level=jit_syntax_level,
                                    debug_level=debug_level, infer_boost=infer_boost)
        if "backend" not in self.jit_config_dict and jit_level:
            self.jit_config_dict["backend"] = "GE" if jit_level == "O2" else "ms_backend"

    @property
    def strict(self) -> bool:
        """Whether the Cell must compile as one graph (jit_syntax_level="STRICT")."""
        return self.jit_config_dict.get("jit_syntax_level") == "STRICT"

    def __repr__(self) -> str:
        return f"JitConfig({', '.join(f'{k}={v!r}' for k, v in self.jit_config_dict.items())})"
