"""Hover, completion, signature help and go-to-definition on Spore API names, over real stdio."""

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .helpers import change_text, open_and_diagnose, pos, wait_diagnostics

pytestmark = pytest.mark.asyncio(loop_scope="module")

TEXT = """import spore as ms
from spore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)

    def construct(self, x):
        return ops.matmul(x, x)
"""


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def test_hover_shows_signature_defaults_docs_and_shape_rule(client: LanguageClient):
    uri, _ = await open_and_diagnose(client, "hover.py", TEXT)
    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri),
                                                                 position=pos(TEXT, "matmul", 2)))
    assert h is not None and h.contents.kind == types.MarkupKind.Markdown
    value = h.contents.value
    assert "ops.matmul(input: 'Tensor', other: 'Tensor')" in value
    assert "Matrix product" in value and "**Shape rule:** `" in value and "MatMul.infer" in value
    start = pos(TEXT, "matmul")
    assert (h.range.start, h.range.end.character) == (start, start.character + len("matmul"))

    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=pos(TEXT, "Conv2d")))
    assert "(class) nn.Conv2d(in_channels: 'int'" in h.contents.value
    assert "`pad_mode='same'`" in h.contents.value, "defaults are listed"

    text = "import spore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n"
    uri2, _ = await open_and_diagnose(client, "hover_ctx.py", text)
    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri2),
                                                                 position=pos(text, "set_context")))
    assert "`mode` (default `PYNATIVE_MODE`; GRAPH_MODE / PYNATIVE_MODE)" in h.contents.value
    assert "`jit_syntax_level` (default `LAX`; STRICT / LAX / COMPATIBLE)" in h.contents.value

    none = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri),
                                                                    position=pos(TEXT, "self.fc")))
    assert none is None, "a name that is not Spore's API has no hover"


async def test_completion_after_each_alias_lists_spore_names_with_signature_and_docs(client: LanguageClient):
    text = TEXT + "y = ops.\nz = nn.Con\nw = ms.\n"
    uri, _ = await open_and_diagnose(client, "complete.py", text)
    lines = text.split("\n")

    async def complete(line_prefix: str) -> dict[str, types.CompletionItem]:
        line = next(i for i, s in enumerate(lines) if s.startswith(line_prefix))
        result = await client.text_document_completion_async(types.CompletionParams(
            text_document=doc(uri), position=types.Position(line=line, character=len(lines[line]))))
        assert result is not None
        return {i.label: i for i in result.items}

    ops_items = await complete("y = ops.")
    assert {"matmul", "reduce_sum", "relu", "reshape"} <= set(ops_items)
    assert ops_items["matmul"].kind == types.CompletionItemKind.Function
    assert ops_items["matmul"].detail == "matmul(input: 'Tensor', other: 'Tensor')"
    resolved = await client.completion_item_resolve_async(ops_items["matmul"])
    assert "Matrix product" in resolved.documentation.value, "the docs come with completionItem/resolve"
    nn_items = await complete("z = nn.Con")
    assert {"Conv2d", "Dense", "Cell"} <= set(nn_items) and nn_items["Conv2d"].kind == types.CompletionItemKind.Class
    ms_items = await complete("w = ms.")
    assert {"set_context", "Tensor", "GRAPH_MODE", "jit", "ops", "nn"} <= set(ms_items)
    assert ms_items["GRAPH_MODE"].kind == types.CompletionItemKind.Constant


async def test_set_context_completes_keys_then_values(client: LanguageClient):
    text = ("import spore as ms\nms.set_context(\nms.set_context(mode=\n"
            "ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=\n")
    uri, _ = await open_and_diagnose(client, "context.py", text)

    async def labels(line: int) -> list[str]:
        n = len(text.split("\n")[line])
        result = await client.text_document_completion_async(types.CompletionParams(
            text_document=doc(uri), position=types.Position(line=line, character=n)))
        return [i.label for i in result.items]

    keys = await labels(1)
    assert {"mode=", "jit_syntax_level=", "device_target=", "save_graphs="} <= set(keys)
    assert await labels(2) == ["ms.GRAPH_MODE", "ms.PYNATIVE_MODE"]
    assert await labels(3) == ["ms.STRICT", "ms.LAX", "ms.COMPATIBLE"]


async def test_keyword_arguments_of_a_spore_call_are_completed(client: LanguageClient):
    text = "from spore import nn\nconv = nn.Conv2d(3, 8, 3, pad\n"
    uri, _ = await open_and_diagnose(client, "kw.py", text)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(uri), position=types.Position(line=1, character=len("conv = nn.Conv2d(3, 8, 3, pad"))))
    labels = {i.label: i for i in result.items}
    assert {"pad_mode=", "padding=", "stride=", "has_bias="} <= set(labels)
    assert labels["pad_mode="].detail == "pad_mode: str = 'same'"


async def test_signature_help_tracks_the_active_parameter(client: LanguageClient):
    text = "from spore import nn, ops\nconv = nn.Conv2d(3, 8, \nm = ops.matmul(a, \nd = nn.Dense(4, 2, has_bias=\n"
    uri, _ = await open_and_diagnose(client, "sig.py", text)
    lines = text.split("\n")

    async def help_at(line: int):
        return await client.text_document_signature_help_async(types.SignatureHelpParams(
            text_document=doc(uri), position=types.Position(line=line, character=len(lines[line]))))

    h = await help_at(1)
    sig = h.signatures[0]
    assert sig.label.startswith("nn.Conv2d(in_channels: 'int', out_channels: 'int', kernel_size")
    start, end = sig.parameters[h.active_parameter].label
    assert sig.label[start:end] == "kernel_size: 'Any'"
    h = await help_at(2)
    assert h.signatures[0].label == "ops.matmul(input: 'Tensor', other: 'Tensor')" and h.active_parameter == 1
    h = await help_at(3)
    start, end = h.signatures[0].parameters[h.active_parameter].label
    assert h.signatures[0].label[start:end] == "has_bias: 'bool' = True"


async def test_definition_goes_into_spores_installed_sources(client: LanguageClient):
    uri, _ = await open_and_diagnose(client, "defn.py", TEXT)
    locs = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri),
                                                                              position=pos(TEXT, "Dense")))
    (loc,) = locs
    path = Path(loc.target_uri if hasattr(loc, "target_uri") else loc.uri.removeprefix("file://"))
    lines = path.read_text().split("\n")
    assert path.name == "basic.py" and lines[loc.range.start.line].startswith("class Dense(")
    locs = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri),
                                                                              position=pos(TEXT, "matmul")))
    line = Path(locs[0].uri.removeprefix("file://")).read_text().split("\n")[locs[0].range.start.line]
    assert line.startswith("def matmul(")


async def test_features_answer_on_a_half_typed_file_from_the_last_good_analysis(client: LanguageClient):
    uri, _ = await open_and_diagnose(client, "typing.py", TEXT)
    broken = TEXT + "y = ops.\nclass (:\n"
    change_text(client, uri, broken, 2)
    diags = await wait_diagnostics(client, uri, lambda ds: any(d.code == "spore-stale" for d in ds))
    (stale,) = [d for d in diags if d.code == "spore-stale"]
    assert stale.severity == types.DiagnosticSeverity.Information and stale.range.start.line == TEXT.count("\n")
    h = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=pos(TEXT, "Dense")))
    assert "nn.Dense" in h.contents.value
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=doc(uri), position=types.Position(line=TEXT.count("\n"), character=len("y = ops."))))
    assert "matmul" in {i.label for i in result.items}
