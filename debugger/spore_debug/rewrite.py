"""What the adapter changes in the messages it forwards: only what is Spore's own.

Pure functions over DAP argument/body dicts, so each rewrite is tested on its own and the proxy
stays a dumb pipe. Everything else (stepping, variables, breakpoints of every kind, threads,
subprocesses) is debugpy's, forwarded untouched. The adapter never imports the engine: Spore's
installed directories are located with `importlib.util.find_spec`, which reads no module.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
from typing import Any

COMPILE_FILTER = "spore-compile"
COMPILE_ERROR = "spore.errors.GraphCompileError"
NONFINITE_ERROR = "spore.errors.NonFiniteError"
RUNNER = "spore_debug.run"  # the debuggee-side launcher: installs Spore's hooks, then runs the program
FILTER = {
    "filter": COMPILE_FILTER,
    "label": "Spore: graph compile errors",
    "default": True,
    "description": "Stop on your own line when a Cell or @ms.jit function cannot compile in Graph mode "
                   "(GraphCompileError), with the reason and the fix in the exception details.",
}
# debugpy's filters in exceptionOptions terms: pydevd ignores `filters` once `exceptionOptions` is
# given, so when Spore adds an option the client's filters must travel as options too.
FILTER_MODES = {"raised": "always", "uncaught": "unhandled", "userUnhandled": "userUnhandled"}
ENGINE_PACKAGES = ("spore", "spore_kernel", "spore_lsp", "spore_viz")  # hidden from justMyCode
SPORE_ONLY_KEYS = ("breakOnNaN",)


class LaunchError(Exception):
    """A launch/attach the adapter refuses before debugpy sees it; the text is shown to the user."""


def package_dirs(name: str) -> list[str]:
    """The directories an installed package `name` lives in (none when it is not installed)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [os.path.realpath(p) for p in spec.submodule_search_locations]
    return [os.path.realpath(spec.origin)] if spec.origin else []


def spore_rules(just_my_code: bool) -> list[dict[str, Any]]:
    """pydevd `rules` that exclude Spore's own code from stepping and from the stack.

    They are editable installs outside site-packages, so pydevd would take them for user code. The
    debugger's own launcher and hooks are always hidden (as debugpy hides itself); the engine and the
    other faces only under justMyCode, where the user asked to see their code alone. Rules apply
    whatever justMyCode says, hence the split. (`package_dirs("debugpy")` only finds the directory:
    nothing of debugpy is imported into the adapter.)"""
    own = package_dirs("spore_debug")
    dirs = [*own, *package_dirs("debugpy")]  # debugpy's launcher frames below ours, hidden as under debugpy
    for base in own:  # the presentation plugins live beside spore_debug (pydevd_plugins/extensions)
        plugins = os.path.join(os.path.dirname(base), "pydevd_plugins")
        if os.path.isdir(plugins):
            dirs.append(plugins)
    if just_my_code:
        for name in ENGINE_PACKAGES:
            dirs.extend(package_dirs(name))
    seen: list[str] = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return [{"path": d, "include": False} for d in seen]


def startup_patterns(args: dict[str, Any]) -> list[str] | None:
    """Path prefixes pydevd should not trace until the entry stop, for `stopOnEntry` without
    justMyCode; None when not needed.

    With exception breakpoints naming Spore's classes, pydevd imports `spore.errors` to resolve
    them, and the debuggee's hooks then register with the engine from the main thread before the
    program starts: with every file "my code", stop-on-entry would stop inside the engine's import
    instead of on the program's first line. (Under justMyCode the rules already hide it.)"""
    if not args.get("stopOnEntry") or bool(args.get("justMyCode", True)):
        return None
    dirs = [d for name in ENGINE_PACKAGES for d in package_dirs(name)]
    return [d if d.endswith(os.sep) else d + os.sep for d in dirs] or None


def initialize_response(body: dict[str, Any] | None) -> dict[str, Any]:
    """debugpy's capabilities plus the `spore-compile` exception filter."""
    body = dict(body or {})
    filters = [f for f in body.get("exceptionBreakpointFilters") or [] if f.get("filter") != COMPILE_FILTER]
    body["exceptionBreakpointFilters"] = [*filters, dict(FILTER)]
    return body


def check_program(program: str, cwd: str | None) -> str:
    """The program's absolute path, or LaunchError naming a missing file or a syntax error (caught
    here, before a process starts, so the editor shows it instead of a bare exit code)."""
    path = program if os.path.isabs(program) else os.path.join(cwd or os.getcwd(), program)
    path = os.path.normpath(path)
    if not os.path.exists(path):
        raise LaunchError(f"Program not found: {path}")
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "__main__.py")):
            raise LaunchError(f"Program is a directory without __main__.py: {path}")
        return path
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        raise LaunchError(f"Cannot read the program {path}: {exc.strerror or exc}") from None
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"{exc.filename or path}, line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        text = (exc.text or "").rstrip("\n")
        shown = f"\n    {text.strip()}" if text.strip() else ""
        raise LaunchError(f"{type(exc).__name__} in {where}: {exc.msg}{shown}") from None
    except ValueError as exc:  # source with null bytes
        raise LaunchError(f"Cannot compile the program {path}: {exc}") from None
    return path


def launch_arguments(args: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Spore's `launch` as debugpy's: run `spore_debug.run` as the module, with the user's program
    (or `-m module`) and arguments after Spore's options, so the debuggee installs Spore's hooks
    first and the program still sees its own `sys.argv` and `__main__`.

    Returns the new arguments and the name to show for the process (the user's program, not the
    launcher). Raises LaunchError for what Spore can say better than an exit code."""
    program, module = args.get("program"), args.get("module")
    if "code" in args:
        raise LaunchError('"code" is not supported by the spore debugger; use "program" or "module"')
    if (program is None) == (module is None):
        raise LaunchError('a spore launch needs exactly one of "program" or "module"')
    if not isinstance(program if program is not None else module, str) or not (program or module):
        raise LaunchError('"program" and "module" must be non-empty strings')
    cwd = args.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise LaunchError('"cwd" must be a string')
    if cwd and not os.path.isdir(cwd):
        raise LaunchError(f"The working directory does not exist: {cwd}")
    break_on_nan = bool(args.get("breakOnNaN", False))
    just_my_code = bool(args.get("justMyCode", True))
    out = {k: v for k, v in args.items() if k not in (*SPORE_ONLY_KEYS, "program", "module")}
    shown: str
    if program is not None:
        path = check_program(program, cwd)
        target, shown = [program], program
        if not cwd:  # what debugpy does for a program launch; the path then no longer relative to it
            out["cwd"] = os.path.dirname(path)
            target = [path]
    else:
        target, shown = ["-m", str(module)], str(module)
    options = ["--break-on-nan"] if break_on_nan else []
    user_args = args.get("args", [])
    if isinstance(user_args, str):  # one string: the terminal's shell expands it, as under debugpy
        out["args"] = " ".join([shlex.join(options + target), user_args]).strip()
    else:
        if not isinstance(user_args, list) or not all(isinstance(a, str) for a in user_args):
            raise LaunchError('"args" must be a list of strings (or one string for the shell)')
        out["args"] = [*options, *target, *user_args]
    out["module"] = RUNNER
    if break_on_nan:
        env = dict(args.get("env") or {})
        env["SPORE_DEBUG_BREAK_ON_NAN"] = "1"
        out["env"] = env
    out["justMyCode"] = just_my_code
    out["rules"] = [*(args.get("rules") or []), *spore_rules(just_my_code)]
    return out, shown


def attach_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """Spore's `attach` as debugpy's: `connect: {host, port}` (or `host`/`port`, or a `processId`)
    to a process started with `python -m spore_debug.run --listen ...` or any listening debugpy.
    Only the justMyCode rules and Spore-only keys change."""
    if not any(k in args for k in ("connect", "port", "listen", "processId")):
        raise LaunchError('attach needs "connect": {"host": ..., "port": ...} (or "port", or "processId")')
    connect = args.get("connect")
    port = connect.get("port") if isinstance(connect, dict) else args.get("port")
    if (connect is not None or "port" in args) and (isinstance(port, bool) or not isinstance(port, int)
                                                   or not 0 < port < 65536):
        raise LaunchError(f"attach: the port must be a number between 1 and 65535, got {port!r}")
    just_my_code = bool(args.get("justMyCode", True))
    out = {k: v for k, v in args.items() if k not in SPORE_ONLY_KEYS}
    out["justMyCode"] = just_my_code
    out["rules"] = [*(args.get("rules") or []), *spore_rules(just_my_code)]
    return out


def attach_address(args: dict[str, Any]) -> tuple[str, int] | None:
    """(host, port) for an attach by address (`connect`, or `host`/`port`): a process that runs
    debugpy's adapter itself (`debugpy.listen`). None for attach by `processId` or `listen`."""
    connect = args.get("connect")
    if isinstance(connect, dict):
        return str(connect.get("host") or "127.0.0.1"), int(connect["port"])
    if "port" in args and "processId" not in args:
        return str(args.get("host") or "127.0.0.1"), int(args["port"])
    return None


def exception_breakpoints(args: dict[str, Any], break_on_nan: bool) -> dict[str, Any]:
    """`setExceptionBreakpoints` in debugpy's terms: `spore-compile` becomes an exceptionOptions
    entry that always breaks on `GraphCompileError` (raised from the user's line, so justMyCode
    keeps it), plus `NonFiniteError` under breakOnNaN (the user asked for that stop outright).
    Untouched when there is nothing of Spore's to add."""
    filters = [f for f in args.get("filters") or [] if isinstance(f, str)]
    names = ([COMPILE_ERROR] if COMPILE_FILTER in filters else []) + ([NONFINITE_ERROR] if break_on_nan else [])
    rest = [f for f in filters if f != COMPILE_FILTER]
    out = {**args, "filters": rest}
    if not names:
        return out
    options = list(args.get("exceptionOptions") or [])
    if not options:  # the client's filters, which pydevd would now ignore, as options
        options = [{"path": [{"names": ["Python Exceptions"]}], "breakMode": FILTER_MODES[f]}
                   for f in rest if f in FILTER_MODES]
    options.append({"path": [{"names": ["Python Exceptions"]}, {"names": names}], "breakMode": "always"})
    out["exceptionOptions"] = options
    return out


_SPORE_TYPE = re.compile(r"^(spore\.errors\.[A-Za-z_]\w*): ", re.M)


def exception_info(body: dict[str, Any] | None) -> dict[str, Any]:
    """For a Spore exception: debugpy's fields kept, the full type name added, and `description`
    the Spore message (reason, code frame and hint: the error's `str`, which pydevd also gives as
    `details.message`)."""
    body = dict(body or {})
    details = dict(body.get("details") or {})
    found = _SPORE_TYPE.findall(details.get("stackTrace") or "")
    if not found:
        return body
    full = found[-1]
    details.setdefault("fullTypeName", full)
    message = details.get("message")
    if isinstance(message, str) and message and message != "exception: no description":
        body["description"] = message
    body["details"] = details
    return body
