"""The adapter's pure parts: DAP framing (forgiving where debugpy is not) and the rewrites of
Spore's own messages (launch -> spore_debug.run, justMyCode rules, the spore-compile filter as
exceptionOptions, exceptionInfo of Spore errors)."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from spore_debug import rewrite
from spore_debug.framing import FrameError, MessageReader, encode


def read_all(data: bytes) -> list:
    reader = MessageReader(io.BytesIO(data))
    out = []
    while (item := reader.read()) is not None:
        out.append(item)
    return out


def test_frames_round_trip_including_non_ascii() -> None:
    messages = [{"seq": 1, "type": "request", "command": "evaluate", "arguments": {"expression": "μ + '日本'"}},
                {"seq": 2, "type": "event", "event": "output"}]
    assert read_all(b"".join(encode(m) for m in messages)) == messages
    assert encode(messages[0]).startswith(b"Content-Length: %d\r\n\r\n" % len(json.dumps(
        messages[0], separators=(",", ":"), ensure_ascii=False).encode()))


def test_reader_tolerates_extra_headers_and_split_reads() -> None:
    body = b'{"seq":1,"type":"request","command":"threads"}'
    data = b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body

    class Trickle(io.RawIOBase):  # one byte per read, like a slow pipe
        def __init__(self) -> None:
            self.data = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def read1(self, n: int = -1) -> bytes:
            return self.data.read(1)

    assert MessageReader(Trickle()).read() == json.loads(body)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad, reason", [
    (b"Content-Length: banana\r\n\r\n{}", "bad Content-Length"),
    (b"Content-Length: -5\r\n\r\n{}", "bad Content-Length"),
    (b"Content-Length: 999999999999\r\n\r\n{}", "bad Content-Length"),
    (b"X-Nothing: 1\r\n\r\n", "no Content-Length"),
    (b"Content-Length: 5\r\n\r\nhello", "not JSON"),
    (b"Content-Length: 4\r\n\r\n\xff\xfe{}", "not JSON"),
    (b"Content-Length: 2\r\n\r\n[]", "not a JSON object"),
])
def test_bad_frames_are_reported_and_the_next_frame_still_read(bad: bytes, reason: str) -> None:
    good = {"seq": 7, "type": "request", "command": "threads"}
    items = read_all(bad + encode(good))
    errors = [i for i in items if isinstance(i, FrameError)]
    assert errors and reason in errors[0].reason
    assert items[-1] == good


def test_stream_ending_mid_message_is_an_error_not_a_hang() -> None:
    items = read_all(b"Content-Length: 50\r\n\r\n{\"seq\":")
    assert len(items) == 1 and isinstance(items[0], FrameError) and "short" in items[0].reason


def test_initialize_response_adds_the_filter_once() -> None:
    body = {"exceptionBreakpointFilters": [{"filter": "raised", "label": "Raised Exceptions", "default": False}]}
    once = rewrite.initialize_response(body)
    twice = rewrite.initialize_response(once)
    assert [f["filter"] for f in twice["exceptionBreakpointFilters"]] == ["raised", "spore-compile"]
    assert twice["exceptionBreakpointFilters"][-1]["default"] is True
    assert body["exceptionBreakpointFilters"] == [{"filter": "raised", "label": "Raised Exceptions",
                                                   "default": False}]  # the input is not mutated


def test_launch_program_becomes_the_runner_with_options_first(tmp_path: Path) -> None:
    prog = tmp_path / "train.py"
    prog.write_text("print(1)\n")
    out, shown = rewrite.launch_arguments({"type": "spore", "request": "launch", "program": str(prog),
                                           "args": ["--epochs", "2"], "breakOnNaN": True, "env": {"A": "1"},
                                           "stopOnEntry": True, "console": "integratedTerminal"})
    assert out["module"] == "spore_debug.run" and "program" not in out and "breakOnNaN" not in out
    assert out["args"] == ["--break-on-nan", str(prog), "--epochs", "2"]
    assert out["env"] == {"A": "1", "SPORE_DEBUG_BREAK_ON_NAN": "1"}
    assert out["cwd"] == str(tmp_path) and out["justMyCode"] is True
    assert (out["stopOnEntry"], out["console"], out["type"]) == (True, "integratedTerminal", "spore")
    assert shown == str(prog)


def test_launch_module_and_shell_string_args(tmp_path: Path) -> None:
    out, shown = rewrite.launch_arguments({"module": "pkg.train", "args": "--lr $LR", "cwd": str(tmp_path)})
    assert out["args"] == shlex.join(["-m", "pkg.train"]) + " --lr $LR"
    assert shown == "pkg.train" and out["cwd"] == str(tmp_path) and "env" not in out


def test_just_my_code_rules_hide_spores_installed_directories() -> None:
    engine = rewrite.package_dirs("spore")
    own = rewrite.package_dirs("spore_debug")
    assert engine and own and os.path.isdir(engine[0])
    mine = [r["path"] for r in rewrite.spore_rules(True)]
    everything = [r["path"] for r in rewrite.spore_rules(False)]
    assert set(engine) <= set(mine) and set(own) <= set(mine)
    assert set(own) <= set(everything) and not set(engine) & set(everything)  # the launchers only
    assert set(rewrite.package_dirs("debugpy")) <= set(everything)
    assert all(r["include"] is False for r in rewrite.spore_rules(True))
    out, _ = rewrite.launch_arguments({"module": "m", "rules": [{"module": "mine", "include": True}]})
    assert out["rules"][0] == {"module": "mine", "include": True}  # the user's rules come first


@pytest.mark.parametrize("args, message", [
    ({}, 'exactly one of "program" or "module"'),
    ({"program": "a.py", "module": "a"}, 'exactly one of "program" or "module"'),
    ({"code": "print(1)"}, '"code" is not supported'),
    ({"program": ""}, "non-empty strings"),
    ({"module": "m", "cwd": "/no/such/dir"}, "working directory does not exist"),
    ({"module": "m", "args": [1, 2]}, '"args" must be a list of strings'),
])
def test_launch_errors(args: dict, message: str) -> None:
    with pytest.raises(rewrite.LaunchError, match=message):
        rewrite.launch_arguments(args)


def test_syntax_error_is_caught_before_launch(tmp_path: Path) -> None:
    prog = tmp_path / "bad.py"
    prog.write_text("ok = 1\n\nif ok\n    pass\n")
    with pytest.raises(rewrite.LaunchError) as err:
        rewrite.launch_arguments({"program": str(prog)})
    assert str(err.value).startswith(f"SyntaxError in {prog}, line 3") and "if ok" in str(err.value)


def test_attach_keeps_the_address_and_adds_rules() -> None:
    out = rewrite.attach_arguments({"connect": {"host": "127.0.0.1", "port": 5678}, "breakOnNaN": True})
    assert out["connect"] == {"host": "127.0.0.1", "port": 5678} and "breakOnNaN" not in out and out["rules"]
    assert rewrite.attach_address(out) == ("127.0.0.1", 5678)
    assert rewrite.attach_address({"port": 9000}) == ("127.0.0.1", 9000)
    assert rewrite.attach_address({"processId": 42}) is None
    with pytest.raises(rewrite.LaunchError, match="attach needs"):
        rewrite.attach_arguments({"justMyCode": False})
    with pytest.raises(rewrite.LaunchError, match="port must be a number"):
        rewrite.attach_arguments({"host": "127.0.0.1", "port": 0})


def test_spore_compile_filter_becomes_exception_options() -> None:
    out = rewrite.exception_breakpoints({"filters": ["uncaught", "raised", "spore-compile"]}, break_on_nan=False)
    assert out["filters"] == ["uncaught", "raised"]
    assert out["exceptionOptions"] == [
        {"path": [{"names": ["Python Exceptions"]}], "breakMode": "unhandled"},
        {"path": [{"names": ["Python Exceptions"]}], "breakMode": "always"},
        {"path": [{"names": ["Python Exceptions"]}, {"names": ["spore.errors.GraphCompileError"]}],
         "breakMode": "always"}]


def test_break_on_nan_adds_non_finite_error_even_without_the_filter() -> None:
    out = rewrite.exception_breakpoints({"filters": []}, break_on_nan=True)
    assert out["exceptionOptions"][-1]["path"][1]["names"] == ["spore.errors.NonFiniteError"]
    both = rewrite.exception_breakpoints({"filters": ["spore-compile"]}, break_on_nan=True)
    assert both["exceptionOptions"][-1]["path"][1]["names"] == ["spore.errors.GraphCompileError",
                                                                 "spore.errors.NonFiniteError"]


def test_filters_pass_through_untouched_without_spore_options() -> None:
    args = {"filters": ["uncaught"], "filterOptions": []}
    assert rewrite.exception_breakpoints(args, break_on_nan=False) == args
    client = [{"path": [{"names": ["Python Exceptions"]}, {"names": ["KeyError"]}], "breakMode": "always"}]
    out = rewrite.exception_breakpoints({"filters": ["raised", "spore-compile"], "exceptionOptions": client}, False)
    assert out["exceptionOptions"][:1] == client and len(out["exceptionOptions"]) == 2  # the client's own kept


def test_exception_info_of_a_spore_error() -> None:
    message = ("Graph mode cannot compile Net.construct: `try` is not supported\n  at net.py:12\n"
               "  12 |         try:\n  hint: move the try out of construct")
    body = {"exceptionId": "GraphCompileError", "description": message, "breakMode": "always",
            "details": {"message": message, "typeName": "GraphCompileError",
                        "stackTrace": "  File \"net.py\", line 12, in construct\n"
                                      f"spore.errors.GraphCompileError: {message}\n"}}
    out = rewrite.exception_info(body)
    assert out["description"] == message and out["details"]["fullTypeName"] == "spore.errors.GraphCompileError"
    assert out["exceptionId"] == "GraphCompileError" and out["breakMode"] == "always"
    plain = {"exceptionId": "ValueError", "description": "bad", "details": {"stackTrace": "ValueError: bad\n"}}
    assert rewrite.exception_info(plain) == plain


def test_the_adapter_process_never_imports_the_engine(tmp_path: Path) -> None:
    """Only the debuggee runs Spore: the adapter's modules, and finding Spore's directories for the
    justMyCode rules, load no engine module (nor NumPy)."""
    prog = tmp_path / "p.py"
    prog.write_text("pass\n")
    code = ("import sys; import spore_debug.__main__, spore_debug.proxy, spore_debug.upstream\n"
            "from spore_debug import rewrite\n"
            f"rewrite.launch_arguments({{'program': {str(prog)!r}, 'breakOnNaN': True}})\n"
            "rewrite.exception_breakpoints({'filters': ['spore-compile']}, True)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spore', 'numpy', 'debugpy', 'pydevd')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]", done.stdout
