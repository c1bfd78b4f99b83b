"""Unknown Spore API names (`ops.reduce_summ`, `nn.Dence`), with "did you mean" and a fix.

Names are resolved through the file's imports (`import spore as ms`, `from spore import ops, nn`,
`import mindspore as ms` for code being migrated) against the real public names of `spore`,
`spore.ops`, `spore.nn` and `Tensor` from `spore.ide`, so a name is flagged only when Spore really
has no such attribute (running the file would raise AttributeError or ImportError).
"""

from __future__ import annotations

import ast
from typing import Any

from .analysis import Analysis, Edit, Fix

HANDLED_BY_HABITS = {"nn.Module", "nn.Linear"}


def _report(an: Analysis, api: Any, namespace: str, name: str, span: tuple[int, int, int, int],
            shown: str) -> None:
    if f"{namespace}.{name}" in HANDLED_BY_HABITS or name.startswith("_"):
        return
    ns_label = {"spore": "spore", "ops": "spore.ops", "nn": "spore.nn", "Tensor": "spore.Tensor"}[namespace]
    suggestions = api.suggest(namespace, name)
    message = f"{ns_label} has no public name {name!r}"
    fixes = []
    if suggestions:
        message += f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
        fixes = [Fix(f"Replace with {shown}{s}", (Edit(*span, s),), preferred=i == 0)
                 for i, s in enumerate(suggestions)]
    an.issue("unknown-api", message, "error", span, fixes, namespace=namespace, name=name)


def check(an: Analysis, api: Any) -> None:
    if an.tree is None:
        return
    for node in an.nodes:
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if not isinstance(node.value, (ast.Name, ast.Attribute)):
                continue
            base = an.resolve(ast.unparse(node.value))
            namespace = {"spore": "spore", "spore.ops": "ops", "spore.nn": "nn", "spore.Tensor": "Tensor"}.get(
                base or "")
            if namespace is None:
                continue
            known = api.names(namespace)
            if node.attr not in known and node.attr not in api.extra_names(namespace):
                _report(an, api, namespace, node.attr, an.attr_span(node), ast.unparse(node.value) + ".")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            root, _, tail = node.module.partition(".")
            namespace = {"": "spore", "ops": "ops", "nn": "nn"}.get(tail) if root in ("spore", "mindspore") else None
            if namespace is None:
                continue
            line = node.lineno - 1
            text = an.program.line_text(line)
            for a in node.names:
                if a.name == "*" or a.name in api.names(namespace) or a.name in api.extra_names(namespace):
                    continue
                col = text.find(a.name, node.col_offset + len("from " + node.module))
                if col >= 0 and node.end_lineno == node.lineno:
                    _report(an, api, namespace, a.name, (line, col, line, col + len(a.name)), "")
