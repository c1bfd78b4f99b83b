"""``spore.dataset.text``: MindSpore's text transforms (tokenizers, vocabularies). Not written yet:
every MindSpore name here raises NotSupportedError saying so (see spore._missing)."""

from __future__ import annotations

import typing as _typing

__all__: list[str] = []


if not _typing.TYPE_CHECKING:  # hidden from Pyright/Pylance, which would otherwise accept any attribute of the module
    def __getattr__(name: str):
        """A MindSpore name this module lacks raises NotSupportedError saying so (see spore._missing)."""
        from .._missing import missing_attribute

        raise missing_attribute("mindspore.dataset.text", name)
