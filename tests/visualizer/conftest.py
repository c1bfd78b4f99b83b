"""Fixtures: the real compiled graph (written by save_graphs) and synthetic graphs, built once per session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .graphs import compiled_graphs, synthetic


@pytest.fixture(scope="session")
def resmlp_paths(tmp_path_factory) -> tuple[Path, Path]:
    """(before, after) JSON files of ResMLP compiled in Graph mode."""
    import spore as ms

    try:
        return compiled_graphs(tmp_path_factory.mktemp("graphs"))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)


@pytest.fixture(scope="session")
def resmlp_after(resmlp_paths) -> dict:
    return json.loads(resmlp_paths[1].read_text())


@pytest.fixture(scope="session")
def big_graph() -> dict:
    """5,000 nodes in 50 blocks of 100, scopes two deep."""
    return synthetic(50, 100, scoped=True)


@pytest.fixture(scope="session")
def big_html(big_graph) -> str:
    from spore_viz import render_html

    return render_html(big_graph)
