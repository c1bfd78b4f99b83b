"""`spore-lsp` / `python -m spore_lsp`: the Spore language server, over stdio (or TCP on 127.0.0.1)."""

from __future__ import annotations

import argparse
import logging
import sys


def main(argv: list[str] | None = None) -> None:
    """Start the server: stdio by default (what editors launch), `--tcp --port N` for debugging."""
    parser = argparse.ArgumentParser(prog="spore-lsp", description="The Spore language server (static analysis only)")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (with --tcp; 0 picks a free one)")
    parser.add_argument("--log-file", help="write the server's own log here")
    parser.add_argument("--no-fast-start", action="store_true",
                        help="let pygls answer from the first message (stdio starts slower: see boot.py)")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    elif args.tcp:  # stderr is free in TCP mode: say where the server listens ("Serving on ('127.0.0.1', N)")
        logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    if args.tcp or args.no_fast_start:
        from .features import server

        if args.tcp:
            server.start_tcp("127.0.0.1", args.port)
        else:
            server.start_io()
        return
    from .boot import serve_stdio  # answers initialize and the first didOpen while pygls loads

    serve_stdio()


if __name__ == "__main__":
    main()
