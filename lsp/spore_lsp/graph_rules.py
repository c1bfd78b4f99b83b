"""Graph-mode compatibility: the support table's findings, with the severity the compiler would give.

The findings come from `spore.ide.check` — the same table and AST walk the compiler raises from —
so the editor and a compile say the same thing. What the compiler *does* with each finding depends
on where the code runs, and the severity says exactly that:

- error: the code is compiled and refused — `@ms.jit(fullgraph=True)`, or a Cell's `construct` in
  GRAPH_MODE under ``jit_syntax_level=STRICT`` (compiling raises `GraphCompileError` on this line);
- warning: the code is compiled but cannot be one graph — under LAX (the default) the statement
  becomes a graph break (it runs in Python between compiled segments); a plain `@ms.jit` function
  under STRICT runs entirely in PyNative instead (a `GraphFallbackWarning`);
- information: a `construct` in a file that runs PyNative, where it is plain Python and fine, but
  would break or be refused if the file switched to GRAPH_MODE.

Beside the support table's syntax check, `deep_rules` reports what the compiler refuses only while it
traces (a tensor converted to a Python value, a `break` on a tensor, a call Graph mode cannot trace)
where the source proves it, under the compiler's own rule ids and with the same severities; where the
table's fix is mechanical, `graph_fixes` attaches it as a quick fix.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from collections import OrderedDict
from typing import Any

from spore import ide

from . import deep_rules, graph_fixes, tensor_facts
from .analysis import Analysis, FunctionFacts
from .documents import byte_to_char

PYNATIVE = "ms.set_context(mode=ms.PYNATIVE_MODE)"
BREAK_COST = ("each break costs a hand-off from compiled code to Python and back on every call, and the "
              "compiler cannot fuse or optimise across it")


def code_for(rule: str) -> str:
    """The diagnostic code of a support-table rule (stable: it is the rule id)."""
    return f"graph-{rule}"


def _verdict(an: Analysis, fn: FunctionFacts) -> tuple[str, str]:
    """(severity, what the compiler does) for a finding inside `fn`."""
    mode, level = an.context_before(fn.node.lineno - 1)
    if fn.jit and fn.fullgraph:
        return "error", ("@ms.jit(fullgraph=True) compiles the whole function or refuses it: calling it raises "
                         "GraphCompileError on this line")
    if level == "?" and (fn.jit or mode == "GRAPH_MODE"):
        return "warning", ("jit_syntax_level is set from a value only known when it runs: under LAX this statement "
                           "is a graph break (it runs in Python between compiled segments), under STRICT it is "
                           "refused (GraphCompileError), or a plain @ms.jit function runs in PyNative")
    if fn.jit:
        if level == "STRICT":
            return "warning", ("under jit_syntax_level=STRICT, this @ms.jit function cannot be compiled and runs "
                               "entirely in PyNative (GraphFallbackWarning): none of it is compiled; "
                               "@ms.jit(fullgraph=True) would make it an error")
        return "warning", ("graph break: under jit_syntax_level=LAX (the default) this statement runs in Python "
                           "between compiled segments, exactly as in PyNative; " + BREAK_COST)
    if mode == "?":
        return "information", ("this file sets the mode from a value only known when it runs: in PYNATIVE_MODE "
                               "construct is plain Python and this is fine; in GRAPH_MODE it is a graph break "
                               "(LAX) or a compile error (STRICT)")
    if mode != "GRAPH_MODE":
        return "information", ("this file runs in PYNATIVE_MODE, where construct is plain Python and this is fine; "
                               "in GRAPH_MODE it would be a graph break (LAX) or a compile error (STRICT)")
    if level == "STRICT":
        return "error", ("GRAPH_MODE with jit_syntax_level=STRICT refuses it: calling the Cell raises "
                         "GraphCompileError on this line")
    return "warning", ("graph break: under jit_syntax_level=LAX (the default) this statement runs in Python "
                       "between compiled segments, exactly as in PyNative; " + BREAK_COST)


def _units(an: Analysis) -> list[tuple[ast.FunctionDef, str | None]]:
    """The compiled functions the support check must walk (a compiled function nested in another is
    walked with it), each with the name of the class it is a method of."""
    compiled = {id(fn.node) for fn in an.functions}
    out = []
    for fn in an.functions:
        if _inside(an, fn.node, compiled):
            continue
        owner = an.parents.get(id(fn.node))
        out.append((fn.node, owner.name if isinstance(owner, ast.ClassDef) else None))
    return out


def _module(imports: list[ast.stmt], units: list[tuple[ast.FunctionDef, str | None]]) -> ast.Module:
    """A module holding only what the support check reads: the imports (for module aliases such as
    ``import time as t``) and the compiled functions, each in a stand-in of its class (the check names a
    finding's scope "Class.method")."""
    body = list(imports)
    classes: dict[str, ast.ClassDef] = {}
    for node, owner in units:
        if owner is None:
            body.append(node)
            continue
        if owner not in classes:
            classes[owner] = ast.ClassDef(name=owner, bases=[], keywords=[], body=[], decorator_list=[])
            body.append(classes[owner])
        classes[owner].body.append(node)
    return ast.Module(body=body, type_ignores=[])


def _compiled_only(an: Analysis) -> ast.Module:
    """The whole file's compiled functions in one module (the same findings as checking the whole file)."""
    return _module(_imports(an), _units(an))


def _imports(an: Analysis) -> list[ast.stmt]:
    """The file's imports in walk order, from `an.marked` (the imports, classes, functions and set_context
    calls among `an.nodes`, in the same order): a few hundred nodes to filter instead of every node of the
    file (tens of thousands; about 4 ms an edit on a 3,000-line file). An analysis built without `marked`
    but with nodes falls back to the full list."""
    pool = an.marked if an.marked or not an.nodes else an.nodes
    return [n for n in pool if isinstance(n, (ast.Import, ast.ImportFrom))]


def _imports_key(imports: list[ast.stmt]) -> str:
    """The imports as text: part of every cache key below (an import changes what a name resolves to)."""
    return "\n".join(ast.unparse(n) for n in imports)


# findings per compiled function, keyed by its text, its class and the file's imports, with lines relative
# to the function: an edit re-checks only the functions it touched, even when it moves the others
_CACHE: OrderedDict[tuple[str, str | None, str], list[dict[str, Any]]] = OrderedDict()
_CACHE_SIZE = 4096


def findings(an: Analysis, units: list[tuple[ast.FunctionDef, str | None]] | None = None) -> list[dict[str, Any]]:
    """`spore.ide.check`'s findings for the file, re-using those of functions whose text has not changed
    (`units`: `_units(an)` when the caller has it; each walks every function's parents)."""
    imports = _imports(an)
    imports_key = _imports_key(imports)
    out: list[dict[str, Any]] = []
    for node, owner in units if units is not None else _units(an):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        last = node.end_lineno or node.lineno
        key = ("\n".join(an.program.lines[first - 1:last]), owner, imports_key)
        rel = _CACHE.get(key)
        if rel is None:
            shift = first - 1
            rel = [dict(f, line=f["line"] - shift, end_line=f["end_line"] - shift)
                   for f in ide.check(_module(imports, [(node, owner)]))]
            _CACHE[key] = rel
            if len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
        else:
            _CACHE.move_to_end(key)
        shift = first - 1
        out.extend(dict(f, line=f["line"] + shift, end_line=f["end_line"] + shift) for f in rel)
    out.sort(key=lambda f: (f["line"], f["col"]))
    return out


def _inside(an: Analysis, node: ast.AST, compiled: set[int]) -> bool:
    parent = an.parents.get(id(node))
    while parent is not None:
        if id(parent) in compiled:
            return True
        parent = an.parents.get(id(parent))
    return False


_DEEP_CACHE: OrderedDict[tuple[Any, ...], list[deep_rules.DeepFinding]] = OrderedDict()


def _helpers(an: Analysis, doc: tensor_facts.DocumentFacts) -> tuple[dict[str, ast.FunctionDef],
                                                                    dict[str, dict[str, ast.FunctionDef]]]:
    """The functions compiled code may call that the compiler inlines: module-level functions and each
    class's methods, undecorated, not compiled themselves, their name defined once in the file."""
    compiled = {id(f.node) for f in an.functions}

    def plain(fn: ast.stmt) -> bool:
        return isinstance(fn, ast.FunctionDef) and not fn.decorator_list and id(fn) not in compiled \
            and doc.binding_counts.get(fn.name, 0) == 1

    tree = an.tree
    top = tree.body if tree is not None else []
    functions = {fn.name: fn for fn in top if plain(fn)}
    methods = {cls.name: {m.name: m for m in cls.body if plain(m) and m.name not in ("construct", "__init__")}
               for cls in top if isinstance(cls, ast.ClassDef)}
    return functions, methods


def _text(an: Analysis, node: ast.AST) -> str:
    return "\n".join(an.program.lines[node.lineno - 1:node.end_lineno or node.lineno])


def _called_helpers(an: Analysis, unit_text: str, functions: dict[str, ast.FunctionDef],
                    methods: dict[str, ast.FunctionDef], owner: str | None) -> tuple[tuple[str, str], ...]:
    """(where, text) of the helpers a unit may reach (their names appear in it, or in a helper it reaches):
    part of its cache key, so editing a helper re-checks the constructs calling it."""
    texts = [unit_text]
    found: dict[str, str] = {}
    for _ in range(deep_rules._MAX_INLINE):
        joined = "\n".join(texts)
        new = [(name, fn) for name, fn in functions.items() if name not in found and f"{name}(" in joined]
        new += [(f"{owner}.{name}", fn) for name, fn in methods.items()
                if f"{owner}.{name}" not in found and f".{name}(" in joined]
        if not new:
            break
        texts = []
        for where, fn in new:
            found[where] = _text(an, fn)
            texts.append(found[where])
    return tuple(sorted(found.items()))


def deep_findings(an: Analysis, doc: tensor_facts.DocumentFacts | None = None,
                  units: list[tuple[ast.FunctionDef, str | None]] | None = None) -> list[dict[str, Any]]:
    """What the compiler refuses while tracing (`deep_rules`), for each compiled function and the helpers it
    calls (the compiler inlines them: a finding there is on the helper's line), in the same form as
    `findings`; cached per function on its text, its helpers' texts and the document facts it reads.
    The support table's syntax check runs on each reached helper too (the compiler checks every function it
    inlines)."""
    doc = doc if doc is not None else tensor_facts.document_facts(an)
    modules = {k: v.split(".")[0] for k, v in an.aliases.items() if "." not in v}
    out: list[dict[str, Any]] = []
    aliases = tuple(sorted(an.aliases.items()))
    functions, methods = _helpers(an, doc)
    imports = _imports(an)
    imports_key = _imports_key(imports)
    for node, owner in units if units is not None else _units(an):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        last = node.end_lineno or node.lineno
        ctx = tensor_facts.function_context(an, doc, node, owner)
        text = "\n".join(an.program.lines[first - 1:last])
        own_methods = methods.get(owner, {}) if owner else {}
        reachable = _called_helpers(an, text, functions, own_methods, owner)
        key = (text, owner, ctx, aliases, reachable)
        cached = _DEEP_CACHE.get(key)
        where_fn = {name: fn for name, fn in functions.items()}
        where_fn.update({f"{owner}.{name}": fn for name, fn in own_methods.items()})
        if cached is None:
            helpers = deep_rules.Helpers(functions, own_methods, owner, {})
            found = deep_rules.check_function(node, ctx, owner is not None, modules, an.resolve, helpers)
            base = {f: (where_fn[f].lineno - 1) for f in helpers.reached or {}}
            rel = [dataclasses.replace(f, line=f.line - base.get(f.where, first - 1),
                                       end_line=f.end_line - base.get(f.where, first - 1)) for f in found]
            cached = (rel, tuple(sorted(helpers.reached or {})))
            _DEEP_CACHE[key] = cached
            if len(_DEEP_CACHE) > _CACHE_SIZE:
                _DEEP_CACHE.popitem(last=False)
        else:
            _DEEP_CACHE.move_to_end(key)
        rel, reached = cached
        scope = f"{owner}.{node.name}" if owner else node.name
        for f in rel:
            shift = where_fn[f.where].lineno - 1 if f.where else first - 1
            rule = deep_rules.rule_text(f.rule)
            out.append({"rule": f.rule, "line": f.line + shift, "col": f.col, "end_line": f.end_line + shift,
                        "end_col": f.end_col, "scope": f.where or scope, "hint": rule["fix"],
                        "caller": node.lineno if f.where else f.line + shift,
                        "root": where_fn[f.where] if f.where else None,
                        "message": f"Graph mode does not support {rule['construct']} ({f.detail}"
                                   + (f", in {f.where}(), which {scope} calls" if f.where else "") + f"): "
                                   f"{rule['reason']}"})
        for where in reached:  # the syntax check on each helper the compiler would inline
            fn = where_fn[where]
            out.extend(dict(f, caller=node.lineno, root=fn)
                       for f in _helper_findings(an, fn, where, imports, imports_key))
    return out


_HELPER_CACHE: OrderedDict[tuple[str, str, str], list[dict[str, Any]]] = OrderedDict()


def _helper_findings(an: Analysis, fn: ast.FunctionDef, where: str, imports: list[ast.stmt],
                     imports_key: str) -> list[dict[str, Any]]:
    """`spore.ide.check`'s findings in a helper, checked as compiled code (a stand-in decorated with jit);
    `imports_key` is `_imports_key(imports)`, made once per analysis rather than once per helper reached."""
    owner = where.split(".")[0] if "." in where else None
    key = (_text(an, fn), where, imports_key)
    rel = _HELPER_CACHE.get(key)
    shift = fn.lineno - 1
    if rel is None:
        stand_in = copy.copy(fn)
        stand_in.decorator_list = [ast.Name(id="jit", ctx=ast.Load())]
        rel = [dict(f, line=f["line"] - shift, end_line=f["end_line"] - shift)
               for f in ide.check(_module(imports, [(stand_in, owner)]))]
        _HELPER_CACHE[key] = rel
        if len(_HELPER_CACHE) > _CACHE_SIZE:
            _HELPER_CACHE.popitem(last=False)
    else:
        _HELPER_CACHE.move_to_end(key)
    return [dict(f, line=f["line"] + shift, end_line=f["end_line"] + shift) for f in rel]


def check(an: Analysis) -> None:
    """Add one issue per support-table finding in a compiled function, and per deeper finding (what the
    compiler refuses while tracing) that the source proves."""
    if an.tree is None or not an.functions:
        return
    units = _units(an)
    shallow = findings(an, units)
    seen = {(f["rule"], f["line"]) for f in shallow}
    try:
        doc = tensor_facts.document_facts(an)
        deep = [f for f in deep_findings(an, doc, units) if (f["rule"], f["line"]) not in seen]
    except (Exception, RecursionError) as err:  # noqa: BLE001 - the support table's findings stand alone
        an.errors.append(f"deeper Graph-mode check failed: {type(err).__name__}: {err}")
        doc, deep = tensor_facts.DocumentFacts({}, {}, {}, set(), {}, {}, frozenset()), []
    done: set[tuple[str, int, int]] = set()
    for f in sorted(shallow + deep, key=lambda f: (f["line"], f["col"])):
        if (f["rule"], f["line"], f["col"]) in done:
            continue  # a helper two compiled functions call: reported once
        done.add((f["rule"], f["line"], f["col"]))
        line = f["line"] - 1
        fn = an.function_at(f.get("caller", f["line"]) - 1)  # a helper's finding: what compiles it decides
        if fn is None:
            continue
        owner = an.parents.get(id(fn.node))
        params = {k for k, v in doc.class_attrs.get(owner.name, {}).items() if v.startswith("param")} \
            if isinstance(owner, ast.ClassDef) else set()
        try:
            fixes = graph_fixes.fixes(an, f.get("root") or fn.node, f, params)
        except (ValueError, RecursionError):  # a node ast.unparse cannot print: no fix, still the finding
            fixes = []
        severity, what = _verdict(an, fn)
        rule = deep_rules.rule_text(f["rule"])
        message = f"{f['message']}. In {f['scope']}: {what}. Fix: {f['hint']}"
        if severity != "information":
            message += f"; or put @ms.jit on a smaller part; or run the file with {PYNATIVE}"
        text = an.program.line_text(line)
        end_line = f["end_line"] - 1
        span = (line, byte_to_char(text, f["col"]), end_line,
                byte_to_char(an.program.line_text(end_line), f["end_col"]))
        if end_line > line:  # a compound statement (try, with): underline its first line only
            span = (line, span[1], line, len(text.rstrip()))
        an.issue(code_for(f["rule"]), message, severity, span, fixes, rule=f["rule"], scope=f["scope"],
                 construct=rule.get("construct"))
