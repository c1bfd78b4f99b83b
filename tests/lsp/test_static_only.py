"""The server is static: opening, editing, hovering and completing a file whose top level and construct
would write a canary file never writes it. And the server agrees with the compiler: each support-table
rejection sample, compiled with the real engine under STRICT here, is flagged on the same line with the
same rule id."""

import importlib.util
import sys
import textwrap

import numpy as np
import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

import spore as ms
from spore.errors import GraphCompileError
from tests.compiler.test_support_table import CASES, DEEP_CASES, source_for

from .helpers import by_code, change_text, open_and_diagnose, pos, uri_for, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

STRICT = "ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)\n"


def canary_source(path: str) -> str:
    return textwrap.dedent(f"""\
        import os
        import spore as ms
        from spore import nn, ops
        open({path!r} + ".top", "w").write("top-level code ran")
        os.system("touch " + {path!r} + ".system")
        __import__("pathlib").Path({path!r} + ".import").write_text("ran")


        class Net(nn.Cell):
            def construct(self, x):
                open({path!r} + ".construct", "w").write("construct ran")
                return ops.relu(x)


        net = Net()
        net(ms.Tensor([1.0]))
        exec("open({path!r} + '.exec', 'w')")
        """)


async def test_the_canary_file_is_never_written(client: LanguageClient, tmp_path):
    canary = str(tmp_path / "canary")
    text = canary_source(canary)
    uri, diags = await open_and_diagnose(client, "canary.py", text, lambda ds: bool(by_code(ds, "graph-impure_call")))
    assert [d.range.start.line for d in by_code(diags, "graph-impure_call")] == [10], "construct's open() is seen"
    edited = text + "y = ops.relu(net(ms.Tensor([2.0])))\n"
    change_text(client, uri, edited, 2)
    await wait_diagnostics(client, uri, lambda ds: bool(by_code(ds, "graph-impure_call")))
    doc = types.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos(edited, "relu")))
    assert hover is not None and "relu" in hover.contents.value
    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc, position=pos(edited, "ops.relu(net", len("ops."))))
    assert "relu" in {i.label for i in completion.items}
    await client.text_document_signature_help_async(types.SignatureHelpParams(
        text_document=doc, position=pos(edited, "ops.relu(net", len("ops.relu("))))
    await client.text_document_definition_async(types.DefinitionParams(text_document=doc,
                                                                       position=pos(edited, "Net()")))
    await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc, range=types.Range(start=pos(edited, "open("), end=pos(edited, "open(")),
        context=types.CodeActionContext(diagnostics=[])))
    # the same code as notebook cells
    nb = uri_for("canary.ipynb")
    cells = [text.split("\n\nclass Net")[0] + "\n", "class Net" + text.split("\n\nclass Net")[1]]
    uris = [f"{nb}#c{i}" for i in range(2)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=u) for u in uris]),
        cell_text_documents=[types.TextDocumentItem(uri=u, language_id="python", version=1, text=c)
                             for u, c in zip(uris, cells)]))
    await wait_diagnostics(client, uris[1], lambda ds: bool(by_code(ds, "graph-impure_call")))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uris[1]), position=pos(cells[1], "relu")))
    assert hover is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "the server ran the user's code"


def compile_error(tmp_path, name: str, source: str, call) -> GraphCompileError:
    """Import the sample with the real engine in this process and compile it; the compiler's error."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"_lsp_agreement_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)  # sets GRAPH_MODE + STRICT, as the file says
        with pytest.raises(GraphCompileError) as info:
            call(module)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
        sys.modules.pop(spec.name, None)
    return info.value


def _call_cell(module):
    net = module.Net()
    net.cache = []
    net(ms.Tensor(np.ones(2, np.float32)))


def _call_jit(module):
    module.step(ms.Tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("rule", sorted(CASES))
async def test_server_and_compiler_agree_on_each_rejection_sample_in_a_cell(client: LanguageClient, tmp_path, rule):
    source = source_for(CASES[rule]) + STRICT
    err = compile_error(tmp_path, rule, source, _call_cell)
    _, diags = await open_and_diagnose(client, f"{rule}.py", source, lambda ds: any(d.code.startswith("graph-")
                                                                                    for d in ds))
    flagged = {(d.code, d.range.start.line): d for d in diags if d.code.startswith("graph-")}
    d = flagged.get((f"graph-{err.rule}", err.loc.line - 1))
    assert d is not None, f"compiler: {err.rule} at line {err.loc.line}; server: {sorted(flagged)}"
    assert d.severity == types.DiagnosticSeverity.Error and d.data["rule"] == err.rule == rule


JIT_RULES = sorted(set(CASES) - {"self_assign", "container_mutation"})  # those need a Cell's self


@pytest.mark.parametrize("rule", JIT_RULES)
async def test_server_and_compiler_agree_on_each_rejection_sample_under_fullgraph(client: LanguageClient, tmp_path,
                                                                                 rule):
    body = textwrap.indent(textwrap.dedent(CASES[rule]), "    ")
    source = ("import time\nimport numpy as np\nimport spore as ms\nCOUNTER = 0\n\n\n@ms.jit(fullgraph=True)\n"
              f"def step(x):\n{body}    return x\n")
    err = compile_error(tmp_path, "jit_" + rule, source, _call_jit)
    _, diags = await open_and_diagnose(client, f"jit_{rule}.py", source, lambda ds: any(d.code.startswith("graph-")
                                                                                        for d in ds))
    flagged = {(d.code, d.range.start.line): d for d in diags if d.code.startswith("graph-")}
    d = flagged.get((f"graph-{err.rule}", err.loc.line - 1))
    assert d is not None, f"compiler: {err.rule} at line {err.loc.line}; server: {sorted(flagged)}"
    assert d.severity == types.DiagnosticSeverity.Error


@pytest.mark.parametrize("case", sorted(DEEP_CASES))
async def test_server_and_compiler_agree_on_what_only_tracing_refuses(client: LanguageClient, tmp_path, case):
    """The deeper rules (spore_lsp/deep_rules.py): the compiler refuses these only while it traces; the server
    sees them in the source, on the compiler's line with the compiler's rule id."""
    rule, body, before, after = DEEP_CASES[case]
    source = source_for(body, before, STRICT + after)
    err = compile_error(tmp_path, "deep_" + case, source, _call_cell)
    assert err.rule == rule, f"the compiler refuses {case} with {err.rule}: the sample's rule is stale"
    _, diags = await open_and_diagnose(client, f"deep_{case}.py", source,
                                       lambda ds: any(d.code.startswith("graph-") for d in ds))
    flagged = {(d.code, d.range.start.line): d for d in diags if d.code.startswith("graph-")}
    d = flagged.get((f"graph-{err.rule}", err.loc.line - 1))
    assert d is not None, f"compiler: {err.rule} at line {err.loc.line}; server: {sorted(flagged)}"
    assert d.severity == types.DiagnosticSeverity.Error and d.data["rule"] == rule


LAX = "ms.set_context(mode=ms.GRAPH_MODE)\n"


@pytest.mark.parametrize("case", sorted(DEEP_CASES))
async def test_under_lax_what_only_tracing_refuses_is_a_graph_break_for_both(client: LanguageClient, tmp_path, case):
    """Under LAX (the default) the compiler does not refuse these: it breaks the graph there (a
    GraphBreakWarning) and the server's finding is a warning that says so."""
    import warnings

    rule, body, before, after = DEEP_CASES[case]
    source = source_for(body, before, LAX + after)
    path = tmp_path / f"lax_{case}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"_lsp_lax_{case}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _call_cell(module)
            except ValueError:
                pass  # float() of a two-element tensor, once the statement runs in Python: the sample's own error
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
        sys.modules.pop(spec.name, None)
    assert any(issubclass(w.category, ms.ide.GraphBreakWarning) for w in caught), [str(w.message) for w in caught]
    _, diags = await open_and_diagnose(client, f"lax_{case}.py", source,
                                       lambda ds: bool(by_code(ds, f"graph-{rule}")))
    for d in by_code(diags, f"graph-{rule}"):
        assert d.severity == types.DiagnosticSeverity.Warning and "graph break" in d.message
