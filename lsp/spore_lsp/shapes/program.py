"""What static shape inference reads from a whole program: its Cell classes, module constants, helper
functions, call expressions and assignments — collected in one pass over the analysis's node list (a
huge file: every extra pass costs milliseconds)."""

from __future__ import annotations

import ast
from typing import Any

from ..analysis import Analysis
from .consts import NotConst, const_eval, dotted
from .values import NP_DTYPES, SHORT_DTYPES, UNKNOWN

TRAINING_NAMES = {"set_train", "Model", "TrainOneStepCell"}  # where a Cell's `training` may become True
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


class Program:
    """The Cell classes, module constants and call sites of one analysis."""

    def __init__(self, an: Analysis, ide: Any, segments: list[Any] | None = None) -> None:
        """`segments` (the analysis's `incremental.Segment`s, when it was made incrementally): the pass over
        the nodes is made per segment and kept in the segment while it and the file's aliases are unchanged,
        then put together depth by depth — the order of the whole node list (`incremental.merge`)."""
        self.an, self.ide = an, ide
        tree = an.tree
        assert tree is not None
        self.consts: dict[str, Any] = {}
        # a module constant is a name bound once, at the top level, to a constant: one bound again (or made
        # `global` somewhere) may hold another value when a Cell is built, so it is not a constant
        self.bound: dict[str, int] = {}
        self.outside: set[str] = set()  # attribute names assigned on something other than self
        self.self_stores: dict[int, list[ast.Attribute]] = {}  # per class: its `self.<x> = ...` targets
        self.calls: list[ast.Call] = []
        self.assigns: list[ast.Assign] = []
        self.stores: dict[str, list[ast.AST]] = {}  # a name's store nodes, anywhere
        self.mentions_training = False  # set_train / Model / TrainOneStepCell somewhere: `self.training` unknown
        training_names = frozenset(TRAINING_NAMES | {name for name, target in an.aliases.items()
                                                     if target.rsplit(".", 1)[-1] in TRAINING_NAMES})
        if segments is None:
            parts = [_scan([an.nodes], an.parents, training_names)]
        else:
            parts = []
            for seg in segments:
                hit = seg.results.get(_PART)
                if hit is None or hit[0] != training_names:
                    hit = seg.results[_PART] = (training_names, _scan(seg.levels, an.parents, training_names))
                parts.append(hit[1])
        classdefs = self._merge(parts)
        bound = self.bound
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and bound.get(stmt.targets[0].id) == 1:
                try:
                    self.consts[stmt.targets[0].id] = const_eval(stmt.value, self.consts)
                except NotConst:
                    pass
        self.classes: dict[str, ast.ClassDef] = {}
        for node in classdefs:
            if self._is_cell(node):
                self.classes.setdefault(node.name, node)
        defs = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
        names = [d.name for d in defs]
        self.functions = {d.name: d for d in defs if names.count(d.name) == 1}  # one definition: no doubt which
        self.record_for: Any = lambda fn: None  # set by `check`: the record a construct's first interpretation fills

    def _merge(self, parts: list[_Part]) -> list[ast.ClassDef]:
        """Put the parts' findings together in the order one pass over the whole node list gives (depth by
        depth, part by part); the class definitions, in that order."""
        bound, stores, classdefs = self.bound, self.stores, []
        by_depth: list[list[tuple[list, list, list, list]]] = []
        for part in parts:
            for depth, found in part.levels:
                while len(by_depth) <= depth:
                    by_depth.append([])
                by_depth[depth].append(found)
        calls, assigns = self.calls, self.assigns
        for level in by_depth:
            for c, a, k, st in level:
                calls.extend(c)
                assigns.extend(a)
                classdefs.extend(k)
                for name, node in st:
                    got = stores.get(name)
                    if got is None:
                        stores[name] = [node]
                    else:
                        got.append(node)
        for part in parts:
            for name, n in part.bound.items():
                bound[name] = bound.get(name, 0) + n
            if part.outside:
                self.outside |= part.outside
            if part.self_stores:
                self.self_stores.update(part.self_stores)
            self.mentions_training = self.mentions_training or part.mentions_training
        return classdefs

    def _is_cell(self, cls: ast.ClassDef) -> bool:
        for base in cls.bases:
            name = dotted(base)
            if name is None:
                continue
            qual = self.an.resolve(name)
            if qual is not None and qual.startswith("nn."):
                return True  # nn.Cell, or a Spore layer subclassed
            if name in self.classes:
                return True
        return False

    def method(self, cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                return item
        for base in cls.bases:  # a user base class's method
            if isinstance(base, ast.Name) and base.id in self.classes and self.classes[base.id] is not cls:
                found = self.method(self.classes[base.id], name)
                if found is not None:
                    return found
        return None

    # ---- constants and dtypes ------------------------------------------------------------------------
    def const(self, node: ast.AST, env: dict[str, Any]) -> Any:
        """A constant (or a dtype name) the node stands for, else UNKNOWN."""
        try:
            return const_eval(node, env)
        except NotConst:
            return self.dtype(node) or UNKNOWN

    def dtype(self, node: ast.AST) -> str | None:
        """``ms.float32`` as "dtype:float32", ``np.int32`` as "np:int32", None for anything else."""
        name = dotted(node)
        if name is None:
            return None
        qual = self.an.resolve(name)
        if qual and qual.startswith("spore.") and qual[len("spore."):] in SHORT_DTYPES:
            return "dtype:" + qual[len("spore."):]
        head, _, tail = name.partition(".")
        if self.an.aliases.get(head) == "numpy" and tail in NP_DTYPES:
            return "np:" + tail
        return None

    @staticmethod
    def engine_const(v: Any) -> Any:
        if isinstance(v, str) and v.startswith("np:"):
            return "dtype:" + v[3:].rstrip("_")
        return v

    # ---- where a name's value comes from ------------------------------------------------------------
    def scope_of(self, node: ast.AST) -> ast.AST | None:
        """The function, lambda, class or module a node's names live in (comprehensions are looked through)."""
        owner = self.an.parents.get(id(node))
        while owner is not None and not isinstance(owner, SCOPES):
            owner = self.an.parents.get(id(owner))
        return owner

    def binding(self, use: ast.Name) -> ast.AST | None:
        """The one statement that binds the name read at `use` (an assignment or a ``for`` target) when the
        name is bound exactly once in the use's scope (and never declared global/nonlocal), before the use,
        and is not a parameter there; None when there is any doubt."""
        scope = self.scope_of(use)
        mine = [s for s in self.stores.get(use.id, ()) if not isinstance(s, ast.Name) or self.scope_of(s) is scope]
        if len(mine) != 1 or not isinstance(mine[0], ast.Name):
            return None
        store = mine[0]
        if (store.lineno, store.col_offset) >= (use.lineno, use.col_offset):
            return None
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = scope.args
            if use.id in [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p]:
                return None
        parent = self.an.parents.get(id(store))
        while isinstance(parent, (ast.Tuple, ast.List)):
            parent = self.an.parents.get(id(parent))
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            return parent
        if isinstance(parent, ast.For):
            return parent
        return None

    def bound_value(self, use: ast.Name) -> ast.AST | None:
        """The expression `binding` says the name holds (``a, b = Net(), Net()`` unpacked item by item)."""
        stmt = self.binding(use)
        if not isinstance(stmt, ast.Assign):
            return None
        target, value = stmt.targets[0], stmt.value
        while isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(target.elts) or \
                    any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)):
                return None
            store = next(n for n in self.stores[use.id] if self.scope_of(n) is self.scope_of(use))
            i = next((i for i, t in enumerate(target.elts) if any(n is store for n in ast.walk(t))), None)
            if i is None:
                return None
            target, value = target.elts[i], value.elts[i]
        return value


_PART = "shapes program"  # the key of a segment's `_Part` in `Segment.results`


class _Part:
    """What one pass over some nodes finds for `Program`, the ordered lists kept per walk depth."""

    def __init__(self) -> None:
        self.bound: dict[str, int] = {}
        self.outside: set[str] = set()
        self.self_stores: dict[int, list[ast.Attribute]] = {}
        self.mentions_training = False
        # (depth, (calls, assignments, class definitions, (name, store node)s)) for each depth finding any
        self.levels: list[tuple[int, tuple[list, list, list, list]]] = []


def _scan(levels: list[list[ast.AST]], parents: dict[int, ast.AST], training_names: frozenset[str]) -> _Part:
    """One pass over nodes given level by level (a segment's breadth-first levels, or the whole node list
    as one level): everything `Program` collects. A part reads nothing outside its nodes but their parents
    up to their class (a `self.x` store's class is in the same top-level statement) and the aliases
    (`training_names`), so a segment's part stays valid while the segment and the aliases are unchanged."""
    part = _Part()
    bound, outside, self_stores = part.bound, part.outside, part.self_stores
    load, name_t, attr_t, call_t, assign_t, class_t = ast.Load, ast.Name, ast.Attribute, ast.Call, ast.Assign, \
        ast.ClassDef
    for depth, level in enumerate(levels):
        calls: list[ast.Call] = []
        assigns: list[ast.Assign] = []
        classdefs: list[ast.ClassDef] = []
        stores: list[tuple[str, ast.AST]] = []
        for node in level:
            t = type(node)
            if t is name_t:
                if type(node.ctx) is not load:
                    bound[node.id] = bound.get(node.id, 0) + 1
                    stores.append((node.id, node))
                elif node.id in training_names:
                    part.mentions_training = True
            elif t is attr_t:
                if type(node.ctx) is not load:
                    if type(node.value) is name_t and node.value.id == "self":
                        owner = parents.get(id(node))
                        while owner is not None and type(owner) is not class_t:
                            owner = parents.get(id(owner))
                        if owner is not None:
                            self_stores.setdefault(id(owner), []).append(node)
                    else:
                        outside.add(node.attr)
                elif node.attr in TRAINING_NAMES:
                    part.mentions_training = True
            elif t is call_t:
                calls.append(node)
                if type(node.func) is name_t and node.func.id in ("setattr", "delattr"):
                    outside.add("*")
            elif t is assign_t:
                assigns.append(node)
            elif t is class_t:
                classdefs.append(node)
            elif t is ast.Global or t is ast.Nonlocal:
                for name in node.names:
                    bound[name] = bound.get(name, 0) + 2
                    stores.extend([(name, node), (name, node)])  # never "bound once"
        if calls or assigns or classdefs or stores:
            part.levels.append((depth, (calls, assigns, classdefs, stores)))
    return part
