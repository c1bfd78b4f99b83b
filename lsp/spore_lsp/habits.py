"""PyTorch habits in Spore code, each with the MindSpore spelling and (where it is mechanical) a fix.

Only files that are clearly Spore code (they import `spore` or `mindspore`) are checked, so a plain
PyTorch file gets no noise. Names are resolved through the file's own imports: `nn.Module` is a
habit when `nn` is Spore's `nn`, not when it is `torch.nn` in a file that only mentions Spore.
"""

from __future__ import annotations

import ast
from typing import Any

from .analysis import Analysis, Edit, Fix
from .training_fix import training_step_fix

# torch.<name> -> ops.<name> when the name differs (others map to the same name if Spore has it)
TORCH_TO_OPS = {"cat": "cat", "clamp": "clamp", "matmul": "matmul", "relu": "relu", "sigmoid": "sigmoid",
                "tanh": "tanh", "softmax": "softmax", "exp": "exp", "log": "log", "sum": "sum", "mean": "mean",
                "zeros": "zeros", "ones": "ones", "reshape": "reshape", "transpose": "transpose", "stack": "stack",
                "flatten": "flatten", "abs": "abs", "sqrt": "sqrt", "max": "max", "min": "min", "argmax": "argmax",
                "where": "where", "randn": "randn", "rand": "rand", "arange": "arange", "gelu": "gelu",
                "squeeze": "squeeze", "unsqueeze": "unsqueeze", "permute": "permute", "bmm": "bmm"}
CONV = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose")
TRAINING_PATTERN = ("in Spore, gradients come from a function: grad_fn = ms.value_and_grad(forward_fn, None, "
                    "optimizer.parameters); loss, grads = grad_fn(data, label); optimizer(grads)")


def _is_spore_nn(an: Analysis, node: ast.expr) -> bool:
    """Whether a name or attribute chain is Spore's `nn` module (``nn``, ``ms.nn``, ``mindspore.nn``).

    Asked of every attribute's value in the file, so it avoids `ast.unparse`: a chain of attributes on a
    name prints as the names joined by dots, and `an.resolve` gives nothing unless the first name is an
    import alias (most chains start with ``self``). Anything else is printed as before."""
    if node.__class__ is ast.Name:
        return node.id in an.aliases and an.resolve(node.id) == "spore.nn"
    if node.__class__ is not ast.Attribute:
        return False
    parts = []
    root: ast.expr = node
    while root.__class__ is ast.Attribute:
        parts.append(root.attr)  # type: ignore[attr-defined]
        root = root.value  # type: ignore[attr-defined]
    if root.__class__ is not ast.Name:
        return an.resolve(ast.unparse(node)) == "spore.nn"
    if root.id not in an.aliases:  # type: ignore[attr-defined]
        return False
    parts.append(root.id)  # type: ignore[attr-defined]
    return an.resolve(".".join(reversed(parts))) == "spore.nn"


def _may_resolve(an: Analysis, node: ast.expr) -> bool:
    """False when `an.resolve(ast.unparse(node))` is certainly None, decided without printing the node: the
    printed text starts with its leftmost name (through attributes, calls and subscripts, which print no
    bracket before it), and `resolve` reads the text up to the first dot as an import alias — a name that is
    not one, or a name followed by a bracket, resolves to nothing. Otherwise (the leftmost name is an
    alias, or the leftmost node is not a name) the caller prints the node and asks `resolve`, as before."""
    left = node
    while True:
        cls = left.__class__
        if cls is ast.Attribute or cls is ast.Subscript:
            left = left.value  # type: ignore[attr-defined]
        elif cls is ast.Call:
            left = left.func  # type: ignore[attr-defined]
        else:
            break
    return left.__class__ is not ast.Name or left.id in an.aliases  # type: ignore[attr-defined]


def _torch_root(an: Analysis, node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and an.aliases.get(node.id) == "torch"


def _statement_removal(an: Analysis, stmt: ast.stmt) -> Edit:
    """An edit deleting a statement's whole lines (callers use `pass` instead when it is alone in its block)."""
    line, _, end_line, _ = an.span(stmt)
    return Edit(line, 0, end_line + 1, 0, "")


def check(an: Analysis, api: Any) -> None:
    tree = an.tree
    if tree is None:
        return
    ops_alias = an.alias_for("spore.ops")
    spore_alias = an.alias_for("spore")
    ops_prefix = ops_alias or (f"{spore_alias}.ops" if spore_alias else "ops")
    ops_names = set(api.names("ops")) if api is not None else None
    parents, only_child = an.parents, an.only_child
    # dispatch on the node's class (parsed nodes are never subclasses): the loop sees every node of the file
    import_t, from_t, attr_t, class_t, call_t = ast.Import, ast.ImportFrom, ast.Attribute, ast.ClassDef, ast.Call
    for node in an.nodes:
        cls = node.__class__
        if cls is import_t or cls is from_t:
            names = [a.name for a in node.names] if cls is import_t else [node.module or ""]
            if any(n == "torch" or n.startswith("torch.") for n in names) and node.col_offset == 0:
                fix = Fix("Remove the PyTorch import", (_statement_removal(an, node),))
                an.issue("torch-import", "`import torch` in Spore code: Spore does not need PyTorch, and mixing the "
                         "two moves tensors between frameworks; use spore (ms), spore.ops and spore.nn",
                         "warning", node, [fix])
        elif cls is attr_t and _is_spore_nn(an, node.value):
            fixes = {"Module": ("Cell", "nn.Module is PyTorch's; Spore's layers derive from nn.Cell"),
                     "Linear": ("Dense", "nn.Linear is PyTorch's; Spore's fully connected layer is "
                                "nn.Dense(in_channels, out_channels)")}
            if node.attr in fixes:
                new, why = fixes[node.attr]
                span = an.attr_span(node)
                an.issue(f"torch-{node.attr.lower()}", why, "error", span,
                         [Fix(f"Replace with nn.{new}", (Edit(*span, new),))], replacement=new)
        elif cls is class_t:
            methods = {i.name: i for i in node.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))}
            cellish = any(isinstance(b, ast.Attribute) and b.attr in ("Cell", "Module") or
                          isinstance(b, ast.Name) and b.id in ("Cell", "Module") for b in node.bases)
            if "forward" in methods and "construct" not in methods and cellish:
                fn = methods["forward"]
                line = fn.lineno - 1
                text = an.program.line_text(line)
                col = text.find("forward", fn.col_offset)
                span = (line, col, line, col + len("forward"))
                an.issue("torch-forward", "a Cell runs `construct`, not `forward`: this method is never called "
                         "when the Cell is called", "warning", span,
                         [Fix("Rename forward to construct", (Edit(*span, "construct"),))])
        elif cls is call_t:
            _check_call(an, node, parents, only_child, ops_prefix, ops_names)


def _check_call(an: Analysis, node: ast.Call, parents: dict[int, ast.AST], only_child: set[int],
                ops_prefix: str, ops_names: set[str] | None) -> None:
    func = node.func
    if not isinstance(func, ast.Attribute):
        return
    # nn.Conv2d(..., padding=N) without pad_mode="pad"
    if func.attr in CONV and _is_spore_nn(an, func.value):
        kws = {k.arg: k for k in node.keywords if k.arg}
        pad = kws.get("padding")
        nonzero = pad is not None and _literal_nonzero(pad.value)  # a variable may be 0: no false alarm
        if nonzero and "pad_mode" not in kws:
            line, col, _, _ = an.span(pad)
            an.issue("torch-conv-padding", f"nn.{func.attr}'s pad_mode defaults to \"same\" (as in MindSpore), "
                     "and an explicit padding with pad_mode=\"same\" raises ValueError when the layer is built: "
                     "PyTorch's padding=N is pad_mode=\"pad\", padding=N", "error", pad,
                     [Fix('Insert pad_mode="pad"', (Edit(line, col, line, col, 'pad_mode="pad", '),))])
        return
    # torch.relu(...) -> ops.relu(...)
    if _torch_root(an, func.value):
        target = TORCH_TO_OPS.get(func.attr, func.attr)
        if (ops_names is not None and target in ops_names) or (ops_names is None and func.attr in TORCH_TO_OPS):
            span = an.span(func)
            an.issue("torch-function", f"torch.{func.attr} is PyTorch's; Spore's is {ops_prefix}.{target}", "warning",
                     span, [Fix(f"Replace with {ops_prefix}.{target}", (Edit(*span, f"{ops_prefix}.{target}"),))])
        return
    if func.attr not in _METHOD_HABITS:
        return  # none of the habits below (most calls in a file): nothing to print or measure
    if _may_resolve(an, func.value) and an.resolve(ast.unparse(func.value)) is not None:
        return  # a Spore API call itself (ops.reshape, ms.Tensor...): not a method on a value
    _, _, end_line, end_col = an.span(node)
    value_line, value_col, value_end_line, value_end_col = an.span(func.value)
    parent = parents.get(id(node))
    if func.attr == "view" and node.args:
        span = an.attr_span(func)
        an.issue("torch-view", "x.view(...) is PyTorch's spelling; in Spore use x.reshape(...) (or ops.reshape(x, "
                 "shape)), which never needs a contiguous tensor", "information", span,
                 [Fix("Replace view with reshape", (Edit(*span, "reshape"),))])
    elif func.attr == "size" and len(node.args) <= 1 and not node.keywords:
        # x.size() -> x.shape ; x.size(1) -> x.shape[1]
        attr_line, attr_col, _, _ = an.attr_span(func)
        new = "shape" if not node.args else f"shape[{ast.unparse(node.args[0])}]"
        an.issue("torch-size", "Tensor.size is the number of elements (a property, as in MindSpore), not a method: "
                 "x.size() fails; use x.shape (x.size(i) is x.shape[i])", "warning",
                 (attr_line, attr_col, end_line, end_col),
                 [Fix(f"Replace with .{new}", (Edit(attr_line, attr_col, end_line, end_col, new),))])
    elif (func.attr == "cuda" and not node.args) or (func.attr == "to" and len(node.args) == 1
                                                     and _looks_like_device(node.args[0])):
        what = ast.unparse(node)[len(ast.unparse(func.value)):]
        if isinstance(parent, ast.Expr):
            edit = _statement_removal(an, parent) if id(parent) not in only_child else Edit(
                *an.span(parent), "pass")
            title = f"Remove the {what} statement"
        else:
            edit = Edit(value_end_line, value_end_col, end_line, end_col, "")
            title = f"Remove {what}"
        an.issue("torch-device", f"{what} is PyTorch's device placement; Spore places tensors by "
                 "ms.set_context(device_target=...), so there is nothing to move", "warning",
                 (value_end_line, value_end_col, end_line, end_col), [Fix(title, (edit,))])
    elif func.attr in ("zero_grad", "backward", "step") and isinstance(parent, ast.Expr) and (
            func.attr != "backward" or not node.args):
        fixes = []
        if func.attr == "zero_grad":
            edit = _statement_removal(an, parent) if id(parent) not in only_child else Edit(*an.span(parent), "pass")
            fixes.append(Fix("Remove zero_grad() (Spore's gradients are not accumulated)", (edit,)))
        rewrite = training_step_fix(an, parent)
        if rewrite is not None:
            fixes.append(rewrite)
        an.issue("torch-training-loop", f".{func.attr}() is PyTorch's training loop; {TRAINING_PATTERN}",
                 "information", an.span(node), fixes)


# the method names `_check_call` reports on (x.view, x.size, x.cuda, x.to, optimizer.zero_grad, ...)
_METHOD_HABITS = frozenset({"view", "size", "cuda", "to", "zero_grad", "backward", "step"})


def _literal_nonzero(node: ast.expr) -> bool:
    """A literal padding that is not 0: ``1``, ``(1, 1)``, ``(0, 1, 0, 1)``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value != 0
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_literal_nonzero(e) for e in node.elts)
    return False


def _looks_like_device(arg: ast.expr) -> bool:
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value.split(":")[0] in ("cuda", "cpu", "mps")
    if isinstance(arg, ast.Name):
        return "device" in arg.id.lower() or arg.id in ("dev", "gpu")
    if isinstance(arg, ast.Attribute):
        return arg.attr == "device"
    if isinstance(arg, ast.Call):
        return isinstance(arg.func, ast.Attribute) and arg.func.attr == "device"
    return False
