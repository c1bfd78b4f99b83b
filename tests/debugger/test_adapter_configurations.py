"""`spore_debug/configurations.json` (the launch.json snippets the VS Code extension will read and
the README shows): every example uses only declared attributes and is accepted by the adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import spore_debug
from spore_debug import rewrite

CONFIG = json.loads((Path(spore_debug.__file__).parent / "configurations.json").read_text("utf-8"))
COMMON = {"type", "request", "name"}


def examples() -> list[dict]:
    return [*CONFIG["initialConfigurations"], *CONFIG["examples"]]


def substitute(value: Any, folder: Path) -> Any:
    """VS Code's variables as an editor would fill them in."""
    if isinstance(value, str):
        return value.replace("${workspaceFolder}", str(folder)).replace("${file}", str(folder / "train.py"))
    if isinstance(value, dict):
        return {k: substitute(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, folder) for v in value]
    return value


@pytest.mark.parametrize("config", examples(), ids=lambda c: c["name"])
def test_examples_use_declared_attributes_and_are_accepted(config: dict, tmp_path: Path) -> None:
    assert config["type"] == CONFIG["type"] == "spore"
    declared = set(CONFIG["configurationAttributes"][config["request"]]["properties"])
    assert set(config) - COMMON <= declared
    (tmp_path / "train.py").write_text("print('hi')\n")
    filled = substitute(config, tmp_path)
    if config["request"] == "launch":
        out, _ = rewrite.launch_arguments(filled)
        assert out["module"] == rewrite.RUNNER
        assert ("--break-on-nan" in out["args"]) == bool(config.get("breakOnNaN"))
    else:
        assert rewrite.attach_address(rewrite.attach_arguments(filled)) == ("127.0.0.1", 5678)


def test_snippets_are_spore_configurations() -> None:
    assert CONFIG["configurationSnippets"]
    for snippet in CONFIG["configurationSnippets"]:
        body = snippet["body"]
        assert body["type"] == "spore" and body["request"] in ("launch", "attach")
        assert set(body) - COMMON <= set(CONFIG["configurationAttributes"][body["request"]]["properties"])
    assert CONFIG["adapter"]["command"] == "spore-debug"
