"""A plain Python program debugs under `spore-debug` exactly as under `python -m debugpy.adapter`:
the same scripted session (breakpoints, steps, variables, evaluate, an exception stop) against
both gives the same stops (reason, file, line, frame names) and the same variables (names, values,
types), and the same program output and exit code.

The only difference in what is sent: Spore's client also enables the `spore-compile` filter (on by
default), so the comparison covers the translation of debugpy's filters into exceptionOptions."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from tests.debugger.dap_client import DAPClient, adapter_argv

PROGRAM = textwrap.dedent("""\
    import json


    class Point:
        def __init__(self, x, y):
            self.x = x
            self.y = y

        def norm2(self):
            return self.x * self.x + self.y * self.y


    def parse(text):
        return int(text)


    def main():
        points = [Point(i, i + 1) for i in range(3)]
        sizes = {"n": len(points), "tags": ["a", "b"]}
        total = 0.0
        for p in points:
            total += p.norm2()
        try:
            parse("x")
        except ValueError as err:
            message = str(err)
        print(json.dumps({"total": total, "message": message, "n": sizes["n"]}))
        return total


    main()
    """)
BREAKPOINTS = [{"line": 22, "condition": "p.x == 1"}, {"line": 26}]
ACTIONS = ["stepIn", "next", "stepOut", "next", "continue", "next", "continue"]
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def clean(text: str) -> str:
    return ADDRESS.sub("0x…", text)


def variables(dap: DAPClient, ref: int, depth: int) -> list[tuple]:
    out = []
    for v in dap.request("variables", variablesReference=ref)["body"]["variables"]:
        children = variables(dap, v["variablesReference"], depth - 1) \
            if depth > 0 and v["variablesReference"] and v["name"] not in ("special variables", "function variables") \
            else []
        out.append((v["name"], clean(v["value"]), v.get("type"), children))
    return out


def session(which: str, program: Path) -> dict:
    """Run the script against one adapter and record everything a user would see."""
    filters = ["raised", "uncaught"] + (["spore-compile"] if which == "spore" else [])
    record: dict = {"stops": []}
    with DAPClient.spawn(adapter_argv(which)) as dap:
        dap.start("launch", program=str(program), console="internalConsole", justMyCode=True,
                  breakpoints={str(program): BREAKPOINTS}, exception_filters=filters)
        actions = list(ACTIONS)
        while len(record["stops"]) < 20:
            if dap.events("terminated") and len(dap.events("stopped")) == len(record["stops"]):
                break
            stop = dap.wait_event("stopped")
            thread = stop["body"]["threadId"]
            frames = dap.frames(thread)
            top = frames[0]
            scopes = dap.request("scopes", frameId=top["id"])["body"]["scopes"]
            entry = {
                "reason": stop["body"]["reason"],
                "frames": [(f["name"], f["line"], f.get("source", {}).get("path")) for f in frames],
                "scopes": [s["name"] for s in scopes],
                "locals": variables(dap, scopes[0]["variablesReference"], depth=2),
                "evaluate": [clean(dap.request("evaluate", expression=e, frameId=top["id"], context="watch",
                                               check=False).get("body", {}).get("result", "<error>"))
                             for e in ("locals().get('total')", "len(dir())", "undefined_name")],
            }
            if stop["body"]["reason"] == "exception":
                info = dap.request("exceptionInfo", threadId=thread)["body"]
                entry["exception"] = (info["exceptionId"], info["description"], info["breakMode"])
            record["stops"].append(entry)
            action = actions.pop(0) if actions else "continue"
            dap.request(action, threadId=thread)
            # a step that runs off the end of the program ends the session instead of stopping
            dap.wait_until(lambda: len(dap.events("stopped")) > len(record["stops"]) or bool(dap.events("terminated")),
                           what="the next stop or the end")
        dap.wait_event("terminated")
        record["exit"] = dap.wait_event("exited", fresh=False)["body"]["exitCode"]
        record["stdout"] = dap.output("stdout")
        dap.request("disconnect")
    return record


def test_plain_python_session_matches_debugpy(tmp_path: Path) -> None:
    program = tmp_path / "plain.py"
    program.write_text(PROGRAM)
    ours = session("spore", program)
    theirs = session("debugpy", program)
    assert len(theirs["stops"]) >= 6  # breakpoints, steps and the exception all happened
    reasons = [s["reason"] for s in theirs["stops"]]
    assert {"breakpoint", "step", "exception"} <= set(reasons)
    for i, (a, b) in enumerate(zip(ours["stops"], theirs["stops"])):
        assert a == b, f"stop {i} differs:\nspore-debug: {a}\ndebugpy:     {b}"
    assert len(ours["stops"]) == len(theirs["stops"])
    assert (ours["exit"], ours["stdout"]) == (theirs["exit"], theirs["stdout"])
    assert '"total": 19.0' in ours["stdout"]  # 1 + 5 + 13
