"""Base of MindSpore's class-form ops (`ops.MatMul(transpose_b=True)(a, b)`).

A class-form op is configured once with its attributes and then called with tensors. Subclasses
only translate MindSpore's constructor and call signatures onto the functional wrappers (and so
onto the registered primitives); they hold no kernels or rules of their own.
"""

from __future__ import annotations
import __future__

import ast
import sys
from collections.abc import Callable
from typing import Any, NamedTuple


class Operation:
    """Configured op: ``op = ops.ReduceSum(keep_dims=True); y = op(x, axis)``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.construct(*args, **kwargs)

    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{type(self).__name__} must define construct()")

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}<{attrs}>"

    # MindSpore Primitives accept these configuration calls; on CPU they change nothing
    def set_device(self, device: str) -> Operation:
        return self

    def shard(self, *args: Any, **kwargs: Any) -> Operation:
        return self

    def add_prim_attr(self, name: str, value: Any) -> Operation:
        setattr(self, name, value)
        return self


class Op(NamedTuple):
    """One row of a class-form table: ``Name()(x)`` forwards its tensors to a functional wrapper.

    `call` is `construct`'s parameter list with MindSpore's names and annotations (a ``-> type``
    tail overrides the return annotation ``Tensor``); `init` the constructor's, whose values are kept
    as attributes of the same names and passed to `fn` after the call's arguments, in order.
    """

    fn: Callable[..., Any]
    call: str
    doc: str
    init: str = ""


def op_classes(table: dict[str, Op], module: str) -> dict[str, type[Operation]]:
    """The class forms of `table`'s rows, made in `module` (whose globals resolve the annotations).

    Each is a real subclass of Operation with a real ``__init__`` and ``construct`` (compiled from
    their signatures, so `inspect.signature`, the stub generator and argument errors see MindSpore's
    names). Their code is attributed to `module`'s file, at the line that calls this: Spore's own
    code, which Graph mode runs over tracers and tracebacks leave out.
    """
    mod = sys.modules[module]
    line = sys._getframe(1).f_lineno
    classes: dict[str, type[Operation]] = {}
    for name, op in table.items():
        call, _, ret = op.call.partition("->")
        init_names = _param_names(op.init)
        args = ", ".join(_param_names(call) + [f"self.{n}" for n in init_names])
        src = (f"def _make(_fn):\n"
               f"    def construct(self, {call.strip()}) -> {ret.strip() or 'Tensor'}:\n"
               f"        return _fn({args})\n")
        if init_names:
            src += f"    def __init__(self, {op.init}) -> None:\n"
            src += "".join(f"        self.{n} = {n}\n" for n in init_names)
        src += "    return dict(locals())\n"
        scope: dict[str, Any] = {}
        code = compile("\n" * (line - 1) + src, mod.__file__, "exec", flags=__future__.annotations.compiler_flag,
                       dont_inherit=True)
        exec(code, vars(mod), scope)  # noqa: S102
        members = {k: v for k, v in scope["_make"](op.fn).items() if k != "_fn"}
        for fn in members.values():
            fn.__qualname__ = f"{name}.{fn.__name__}"
        sig = f"``{name}({_shown(op.init)})({_shown(call)})``"
        classes[name] = type(name, (Operation,), {**members, "__module__": module, "__qualname__": name,
                                                  "__doc__": f"{sig}: {op.doc}"})
    return classes


def _params(spec: str) -> ast.arguments:
    return ast.parse(f"def f({spec}): pass").body[0].args  # type: ignore[attr-defined]


def _param_names(spec: str) -> list[str]:
    return [a.arg for a in _params(spec).args]


def _shown(spec: str) -> str:
    """A parameter list as the docs show it: names and defaults, no annotations."""
    a = _params(spec)
    defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults)
    return ", ".join(p.arg if d is None else f"{p.arg}={ast.unparse(d)}" for p, d in zip(a.args, defaults))
