"""spore-lsp: the Spore language server. Static only: it parses the user's code and never imports,
executes or evaluates it. Start it with `spore-lsp` (stdio) or `python -m spore_lsp`."""

__version__ = "0.1.0"
