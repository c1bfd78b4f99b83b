"""What the compiler keeps between compiles (the support check of a function's AST, a function's
signature) follows what it was made from: a redefined construct, a rebound module alias or new
defaults give the new program's result, never the one compiled before; and the equations the passes
keep unchanged, and an executable's live-buffer report worked out on request, are what they were."""

import linecache
import time
import types

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.compiler import frontend
from spore.compiler.executor import Executable
from spore.compiler.jit import jit
from spore.errors import GraphCompileError
from spore.ops import functional as F


def _x(*shape):
    return ms.Tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7.0)


def _graph_out(cell, x):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return cell(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _make_net(version):
    if version == 1:
        class Net(nn.Cell):
            def construct(self, x):
                return x * 2.0
    else:
        class Net(nn.Cell):  # the same qualified name, another body: what a notebook cell run again does
            def construct(self, x):
                return x * 3.0 + 1.0
    return Net


def test_a_redefined_construct_compiles_its_new_body():
    x = _x(2, 3)
    net1 = _make_net(1)()
    np.testing.assert_array_equal(_graph_out(net1, x), x.asnumpy() * 2.0)
    net2 = _make_net(2)()
    assert type(net2).__qualname__ == type(net1).__qualname__
    np.testing.assert_array_equal(_graph_out(net2, x), x.asnumpy() * 3.0 + 1.0)
    np.testing.assert_array_equal(_graph_out(_make_net(1)(), x), x.asnumpy() * 2.0)  # and back


def _make_checked(refused):
    if refused:
        class Net(nn.Cell):
            def construct(self, x):
                if x.ndim > 5:  # never taken: only the static check sees the print, and refuses it
                    print("hi")
                return x + 1.0
    else:
        class Net(nn.Cell):
            def construct(self, x):
                return x + 1.0
    return Net


def test_a_support_check_finding_is_not_reused_for_another_function():
    x = _x(3)
    ms.set_context(jit_syntax_level=ms.STRICT)
    np.testing.assert_array_equal(_graph_out(_make_checked(False)(), x), x.asnumpy() + 1.0)
    for _ in range(2):  # the second time the check comes from what was kept: it still refuses
        with pytest.raises(GraphCompileError, match="print"):
            _graph_out(_make_checked(True)(), x)
    np.testing.assert_array_equal(_graph_out(_make_checked(False)(), x), x.asnumpy() + 1.0)


clock = time  # a module global the checked function calls through (`clock.monotonic()`)


def _two() -> float:
    return 2.0


_FAKE = types.ModuleType("fake_clock")
_FAKE.monotonic = _two


def _scaled(x):
    return x * clock.monotonic()


def test_the_kept_support_check_follows_a_rebound_module_alias(monkeypatch):
    x = _x(4)
    with pytest.raises(GraphCompileError, match="impure|time"):
        jit(_scaled, fullgraph=True)(x)
    monkeypatch.setitem(globals(), "clock", _FAKE)  # `clock` now names a module with no side effects
    np.testing.assert_array_equal(jit(_scaled, fullgraph=True)(x).asnumpy(), x.asnumpy() * 2.0)
    monkeypatch.setitem(globals(), "clock", time)
    with pytest.raises(GraphCompileError, match="impure|time"):
        jit(_scaled, fullgraph=True)(x)


def _with_default(x, k=2.0):
    return x * k


def _calls_it(x):
    return _with_default(x)


def test_the_kept_signature_follows_new_defaults(monkeypatch):
    x = _x(3)
    assert jit(_with_default, fullgraph=True)(x).asnumpy().tolist() == (x.asnumpy() * 2.0).tolist()
    assert jit(_calls_it, fullgraph=True)(x).asnumpy().tolist() == (x.asnumpy() * 2.0).tolist()
    monkeypatch.setattr(_with_default, "__defaults__", (5.0,))
    for fn in (_with_default, _calls_it):  # the root function, and the same function inlined
        got = jit(fn, fullgraph=True)(x).asnumpy()
        np.testing.assert_array_equal(got, fn(x).asnumpy())  # PyNative, with the new default
        np.testing.assert_array_equal(got, x.asnumpy() * 5.0)


def _kw_default(x, *, k=2.0):
    return x * k


def test_keyword_only_defaults_changed_in_place_are_read_again():
    x = _x(3)
    np.testing.assert_array_equal(jit(_kw_default, fullgraph=True)(x).asnumpy(), x.asnumpy() * 2.0)
    _kw_default.__kwdefaults__["k"] = 4.0  # the same dict, changed in place
    try:
        np.testing.assert_array_equal(jit(_kw_default, fullgraph=True)(x).asnumpy(), x.asnumpy() * 4.0)
    finally:
        _kw_default.__kwdefaults__["k"] = 2.0


def test_the_support_check_is_kept_per_function_and_reused():
    frontend._CHECKED.clear()
    x = _x(2, 2)

    class Block(nn.Cell):
        def construct(self, x):
            return F.relu(x) + 1.0

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([Block() for _ in range(4)])

        def construct(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    net = Net()
    want = net(x).asnumpy()  # PyNative
    np.testing.assert_array_equal(_graph_out(net, x), want)
    kept = [k for k in frontend._CHECKED if k[0] is Block.construct.__code__]
    assert len(kept) == 1, "four calls of one block: one check"
    np.testing.assert_array_equal(_graph_out(Net(), x), want)  # a second instance compiles from the kept check


def test_peak_live_is_the_largest_set_of_live_intermediates():
    w = ms.Parameter(ms.Tensor(np.eye(8, dtype=np.float32)), name="w")

    def f(x):
        return F.matmul(F.matmul(F.matmul(x, w), w), w)

    jf = jit(f, fullgraph=True)
    x = _x(8, 8)
    np.testing.assert_allclose(jf(x).asnumpy(), x.asnumpy(), rtol=1e-6)
    exe = next(iter(jf.cache.values())).executable
    # m1 = x@w; m2 = m1@w (m1 and m2 live together: 2 x 256 bytes); m3 = m2@w is the output
    assert exe.peak_live == 2 * 8 * 8 * 4
    with pytest.raises(AttributeError):
        Executable(exe.graph, free_dead=False).peak_live  # noqa: B018  (nothing is freed early: no report)


def _scale(x, k=2.0):
    return x * k


def _scale_inlined(x):
    return _scale(x) + 1.0


def _kw_scale(x, *, k=2.0):
    return x * k


def _triple(x, k=2.0):
    return x * 3.0


def test_a_compiled_function_whose_defaults_change_is_compiled_again(monkeypatch):
    """The graph binds a left-out argument's default: a new default (a new tuple, an edited keyword-only
    default, a new __code__) is a changed Python value, so the same jit object recompiles, as PyNative."""
    x = _x(3)
    root, inlined, kw = jit(_scale, fullgraph=True), jit(_scale_inlined, fullgraph=True), jit(_kw_scale, fullgraph=True)
    np.testing.assert_array_equal(root(x).asnumpy(), x.asnumpy() * 2.0)
    np.testing.assert_array_equal(inlined(x).asnumpy(), x.asnumpy() * 2.0 + 1.0)
    np.testing.assert_array_equal(kw(x).asnumpy(), x.asnumpy() * 2.0)
    monkeypatch.setattr(_scale, "__defaults__", (5.0,))
    monkeypatch.setitem(_kw_scale.__kwdefaults__, "k", 4.0)
    for jf, fn in ((root, _scale), (inlined, _scale_inlined), (kw, _kw_scale)):
        np.testing.assert_array_equal(jf(x).asnumpy(), fn(x).asnumpy())  # PyNative's answer, not the old graph's
    np.testing.assert_array_equal(root(x).asnumpy(), x.asnumpy() * 5.0)
    np.testing.assert_array_equal(kw(x).asnumpy(), x.asnumpy() * 4.0)
    monkeypatch.setattr(_scale, "__code__", _triple.__code__)
    np.testing.assert_array_equal(root(x).asnumpy(), x.asnumpy() * 3.0)
    assert root.recompiles == 2 and kw.recompiles == 1
    for _ in range(3):  # unchanged from here on: no further compile
        root(x)
    assert root.recompiles == 2 and len(root.cache) == 1


class _Texty(nn.Cell):
    def construct(self, x):
        s = """a
    b"""  # a continuation line less indented than the body, as Python keeps it: "a\n    b"
        t = """c

d"""
        return x * float(len(s) + 10 * len(t))


class _Indented(nn.Cell):
    def construct(self, x):
        s = """a
    b"""  # a dedent of the block made this "a\nb" (3 characters, not 7): a silently different constant
        return x * float(len(s))


class _DeadTail(nn.Cell):
    def construct(self, x):
        return x + 1.0
        s = """
tail"""  # never runs, and leaves no code: the block's end is found by the tokenizer
        return s


def test_a_construct_is_read_with_its_exact_source_text():
    """construct is parsed where it stands in its file: string literals keep their exact text (a
    dedent of the block used to strip a continuation line's indent), positions are the file's own, and
    a block whose end its code does not show is still found (by the tokenizer)."""
    x = _x(2)
    want = _Texty()(x).asnumpy()  # PyNative: len("a\n    b") + 10 * len("c\n\nd") = 7 + 40
    np.testing.assert_array_equal(want, x.asnumpy() * 47.0)
    np.testing.assert_array_equal(_graph_out(_Texty(), x), want)
    np.testing.assert_array_equal(_graph_out(_Indented(), x), x.asnumpy() * 7.0)
    info = frontend.parse_function(_Texty.construct)
    assert info.node.lineno == _Texty.construct.__code__.co_firstlineno
    assert info.node.body[0].col_offset == 8  # the statement's own column in this file
    code = _DeadTail.construct.__code__
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    end = frontend._block_end(lines, first, code)
    assert frontend._parse_block(lines[first - 1:end], first, code.co_name) is None  # cut inside the string
    np.testing.assert_array_equal(_graph_out(_DeadTail(), x), _DeadTail()(x).asnumpy())
    assert frontend.parse_function(_DeadTail.construct).node.end_lineno == first + 4
