"""docs/mindspore-api-coverage.md is the documented table of MindSpore names Spore has and lacks
(issue 14: "every name that remains missing is listed in one table in the docs with its reason").
It is generated from the running modules, and this test fails when it is stale.

    .venv/bin/python -m spore._missing --doc > docs/mindspore-api-coverage.md
"""

from pathlib import Path

from spore._missing import coverage_doc

DOC = Path(__file__).resolve().parents[2] / "docs" / "mindspore-api-coverage.md"


def test_the_coverage_document_is_current():
    assert DOC.read_text(encoding="utf-8") == coverage_doc(), (
        "docs/mindspore-api-coverage.md is stale: regenerate it with "
        "`.venv/bin/python -m spore._missing --doc > docs/mindspore-api-coverage.md`")
