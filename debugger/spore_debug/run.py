"""`python -m spore_debug.run`: run a program under Spore's debugger hooks, as plain Python would.

    python -m spore_debug.run [--listen [HOST:]PORT] [--wait-for-client] [--break-on-nan]
                              (program.py | -m module) [args...]

The debug adapter launches this module through debugpy (``module: spore_debug.run``) so the
debuggee first installs Spore's hooks (`spore_debug.debuggee.install`) and only then runs the
user's program as ``__main__`` with ``sys.argv = [program, *args]``. Started by hand with
``--listen`` it waits for an `attach` instead. Exit codes and uncaught exceptions are Python's own:
the program's ``SystemExit`` code, 1 and the traceback (without this launcher's frames) on an
uncaught exception, 2 and Python's message for a missing file.
"""

from __future__ import annotations

import os
import runpy
import sys
import types

USAGE = ("usage: python -m spore_debug.run [--listen [HOST:]PORT] [--wait-for-client] [--break-on-nan] "
         "(program.py | -m module) [args...]")


class Options:
    """The launcher's command line: where to listen, and what to run with which arguments.
    (A plain class: importing `dataclasses` costs start-up time in every debugged program.)"""

    __slots__ = ("listen", "wait_for_client", "break_on_nan", "program", "module", "args")

    def __init__(self, listen: tuple[str, int] | None = None, wait_for_client: bool = False,
                 break_on_nan: bool | None = None, program: str | None = None, module: str | None = None,
                 args: list[str] | None = None) -> None:
        self.listen = listen
        self.wait_for_client = wait_for_client
        self.break_on_nan = break_on_nan  # None: the SPORE_DEBUG_BREAK_ON_NAN environment variable decides
        self.program = program
        self.module = module
        self.args = list(args or [])

    def _fields(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return "Options(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


class UsageError(Exception):
    """A command line this launcher cannot run (said on stderr with exit code 2, like argparse)."""


def parse_address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); the host defaults to 127.0.0.1 (never all interfaces
    unless asked for)."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise UsageError(f"--listen expects [HOST:]PORT, got {text!r}") from None
    if not 0 <= number < 65536:
        raise UsageError(f"--listen: port {number} out of range")
    return (host or "127.0.0.1", number)


def parse_args(argv: list[str]) -> Options:
    """Parse by hand rather than with argparse: everything after the program (or ``-m module``)
    belongs to the program, including options that look like ours."""
    opts = Options()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--listen" or arg.startswith("--listen="):
            if "=" in arg:
                value = arg.split("=", 1)[1]
            else:
                i += 1
                if i >= len(argv):
                    raise UsageError("--listen expects [HOST:]PORT")
                value = argv[i]
            opts.listen = parse_address(value)
        elif arg == "--wait-for-client":
            opts.wait_for_client = True
        elif arg == "--break-on-nan":
            opts.break_on_nan = True
        elif arg == "-m":
            if i + 1 >= len(argv):
                raise UsageError("-m expects a module name")
            opts.module, opts.args = argv[i + 1], argv[i + 2:]
            return opts
        elif arg == "--":  # what follows is the program, even if it looks like an option
            if i + 1 >= len(argv):
                break
            opts.program, opts.args = argv[i + 1], argv[i + 2:]
            return opts
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg!r}")
        else:
            opts.program, opts.args = arg, argv[i + 1:]
            return opts
        i += 1
    raise UsageError("no program or -m module given")


def _launcher_files() -> tuple[str, ...]:
    return (os.path.abspath(__file__), os.path.abspath(runpy.__file__))


def _trim_launcher(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback from the user's first frame on: this launcher's and runpy's frames (and
    debugpy's, when it runs us) lead it."""
    skip = _launcher_files()
    rest = tb
    while rest is not None and (os.path.abspath(rest.tb_frame.f_code.co_filename) in skip
                                or _is_debugger_file(rest.tb_frame.f_code.co_filename)):
        rest = rest.tb_next
    return rest or tb


def _is_debugger_file(filename: str) -> bool:
    return (filename.startswith("<frozen runpy") or f"{os.sep}debugpy{os.sep}" in filename
            or f"{os.sep}pydevd" in filename)


def _install_excepthook() -> None:
    """Print an uncaught exception as `python program.py` would: from the program's frames on.

    Exceptions are not caught here (pydevd decides whether one is uncaught by watching it leave the
    outermost frame, so a catch-all in this launcher would hide every uncaught-exception stop); the
    hook only trims what the interpreter prints. A Spore error is also trimmed of the engine's frames
    (the engine does that for plain Python, but only when it finds the default hook in place)."""
    previous = sys.excepthook

    def hook(etype: type[BaseException], value: BaseException, tb: types.TracebackType | None) -> None:
        tb = _trim_launcher(tb)
        ide = sys.modules.get("spore.ide")
        if ide is not None and isinstance(value, ide.SporeError):
            tb = ide.user_traceback(tb, also=(os.path.dirname(os.path.abspath(__file__)),)) or tb
        previous(etype, value.with_traceback(tb), tb)

    sys.excepthook = hook


def run(opts: Options) -> int:
    """Install the hooks, optionally listen for a debugger, run the program; the exit code for a
    program that returns (SystemExit and uncaught exceptions propagate, as under plain Python)."""
    from .debuggee import install

    if opts.wait_for_client and opts.listen is None:
        raise UsageError("--wait-for-client needs --listen")
    if opts.program is not None and not os.path.exists(opts.program):
        path = os.path.abspath(opts.program)
        print(f"{sys.executable}: can't open file {path!r}: [Errno 2] No such file or directory", file=sys.stderr)
        return 2
    if opts.module is not None:
        import importlib.util

        try:
            found = importlib.util.find_spec(opts.module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            print(f"{sys.executable}: No module named {opts.module}", file=sys.stderr)
            return 1
    install(break_on_nan=opts.break_on_nan)
    if opts.listen is not None:
        import debugpy  # pyright: ignore[reportMissingImports] (the debugger, installed beside Spore)

        debugpy.listen(opts.listen)
        if opts.wait_for_client:
            debugpy.wait_for_client()
    _install_excepthook()
    if opts.module is not None:
        # as `python -m`: the current directory stays first on sys.path, argv[0] becomes the file
        sys.argv = [opts.module, *opts.args]
        runpy.run_module(opts.module, run_name="__main__", alter_sys=True)
    else:
        assert opts.program is not None
        path = os.path.abspath(opts.program)
        sys.argv = [opts.program, *opts.args]
        sys.path[0] = os.path.dirname(path)  # as `python program.py`: the program's directory first
        runpy.run_path(path, run_name="__main__")
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
        return run(opts)
    except UsageError as err:
        print(USAGE, file=sys.stderr)
        print(f"spore_debug.run: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.exit(code)
