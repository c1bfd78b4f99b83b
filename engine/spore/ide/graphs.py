"""Compiled graphs as plain data: what `%spore_graph`, the graph view and the debugger show.

A compile here goes through the same path Graph mode uses (`compile_cell`, `JitFunction.compile`), with the whole
function as one graph (`fullgraph=True`: a construct that would break is refused on the user's
line, as a picture of "the graph" must be one graph). The graph is only built, never run:
looking at a training step's graph must not take a training step.
"""

from __future__ import annotations

from typing import Any


def compile_graph(target: Any, args: tuple = (), kwargs: dict | None = None, *, raw: bool = False) -> dict[str, Any]:
    """Compile a Cell, a jitted function or a plain function for these inputs.

    Returns ``{"graph": <spore.graph/1 dict>, "ir": <IR text>}`` for the optimized graph (with
    ``raw``, the graph as traced, before the passes). A construct Graph mode cannot compile raises
    its `GraphCompileError` at the user's line.
    """
    from ..common.tree import flatten
    from ..compiler.jit import JitFunction, compile_cell
    from ..compiler.printer import format_graph, graph_to_json
    from ..errors import GraphCompileError, raise_at_user_line
    from ..nn import Cell

    kwargs = kwargs or {}
    if isinstance(target, Cell):
        jf = compile_cell(target, fullgraph=True)
    elif isinstance(target, JitFunction):
        jf = target
    elif callable(target):
        jf = JitFunction(target, fullgraph=True)
    else:
        raise TypeError(f"expected a Cell or a function to compile, got {type(target).__name__}")
    leaves, _ = flatten((args, kwargs))
    try:
        entry = jf.compile(args, kwargs, leaves)
    except GraphCompileError as err:
        raise_at_user_line(err)
        raise
    graph = entry.raw if raw else entry.graph
    return {"graph": graph_to_json(graph), "ir": format_graph(graph)}


def graph_json(graph: Any) -> dict[str, Any]:
    """The spore.graph/1 dict of an IR graph object a user holds (e.g. a jitted function's graph)."""
    from ..compiler.printer import graph_to_json

    return graph_to_json(graph)


def is_graph(obj: Any) -> bool:
    """True for Spore's IR graph objects (so a viewer can accept them beside JSON)."""
    from ..compiler.ir import Graph

    return isinstance(obj, Graph)
