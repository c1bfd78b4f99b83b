"""`python -m spore_kernel.bridge`: the Spore kernel for the VS Code extension, over JSON lines.

Why a bridge: the extension's notebook controller does not speak ZeroMQ. jupyter_client already
does the parts that are easy to get subtly wrong (message signing, the kernel's process and its
ports or sockets, interrupt by signal, restart, shutdown), and keeping ZeroMQ on the Python side
keeps the .vsix free of native modules (zeromq@6 ships one binary per platform). The bridge is a
thin translator: newline-delimited JSON on its stdin/stdout <-> jupyter_client's AsyncKernelClient.

The kernel starts from its kernelspec (`spore`, found like Jupyter finds it; when it is not
installed, the spec `python -m spore_kernel install` would write is put in the bridge's private
directory instead). Transport: ipc (Unix sockets in a private 0700 temp dir) where the platform
has it, else tcp on 127.0.0.1; messages are signed with a fresh key either way, and the key never
leaves the bridge. The kernel's working directory is the notebook's folder.

Protocol (one JSON object per line; stdout carries nothing else — logs go to stderr)

Requests, extension -> bridge; each has an "id" (string or integer) and a "type":
    {"id": 1, "type": "start", "cwd": "/nb/folder", "kernel_name": "spore"}     (both optional)
    {"id": 2, "type": "execute", "code": "...", "cell": "<cell uri>", "metadata": {"cellId": "..."}}
    {"id": 3, "type": "evaluate", "expression": "ms.get_context('mode')"}
    {"id": 4, "type": "complete", "code": "...", "cursor_pos": 3}
    {"id": 5, "type": "inspect", "code": "...", "cursor_pos": 3, "detail_level": 0}
    {"id": 6, "type": "input_reply", "value": "typed text"}
    {"id": 7, "type": "interrupt"}  {"id": 8, "type": "restart"}  {"id": 9, "type": "shutdown"}

Replies, bridge -> extension; exactly one per request, when it is done:
    {"reply": 1, "ok": true, ...result}   or   {"reply": 1, "ok": false, "error": "what went wrong"}
    start:    kernel {name, spec, source: "installed"|"built-in", argv}, connection {transport, ip,
              ports} (no key), language_info, implementation
    execute:  execution_count, status ("ok" | "error" | "aborted"), ename/evalue on error — written
              after every output of the cell (the kernel's execute_reply and its idle status both
              arrived). A kernel that dies or restarts meanwhile: ok false, "dead"/"restarted" true.
    evaluate: data (the value's mime bundle, as a cell's result would be formatted), metadata;
              an expression that raises: ok false, error "NameError: ...". Runs as a silent
              execute with user_expressions: no execution count, no output, no history.
    complete / inspect: the kernel's reply content.

Events, bridge -> extension:
    {"event": "output", "id": 2, "cell": "...", "msg_type": "stream"|"display_data"|
     "update_display_data"|"execute_result"|"error"|"clear_output", "content": {...}}
        every iopub output of an execute request, in the kernel's order ("id" null for output
        whose request the bridge does not know, e.g. from a thread started by an older cell)
    {"event": "input_request", "id": 2, "cell": "...", "prompt": "Name: ", "password": false}
    {"event": "status", "id": 2, "state": "busy"|"idle"}
    {"event": "kernel_died", "exit_code": -9, "message": "..."}
    {"event": "error", "message": "..."}   a line that was not a usable request (bad JSON, no id)
A bad request with a usable id gets a failed reply instead. EOF on stdin shuts the kernel down.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import KERNEL_NAME
from .bridge_protocol import OUTPUT_TYPES, ProtocolError, Request, encode, event, failure, parse_request, reply

log = logging.getLogger("spore_kernel.bridge")

STARTUP_TIMEOUT = 120.0  # seconds for a fresh kernel to answer kernel_info (two busy cores can be slow)
IDLE_GRACE = 5.0         # after an execute_reply, how long its iopub idle status may lag behind
KNOWN_REQUESTS = 256     # finished requests remembered so late output still finds its cell


class Refused(ValueError):
    """A request its arguments or the kernel's state do not allow (no such spec, dead kernel, ...): an
    answer for the extension, not a bug, so it is not logged with a traceback."""


class KernelGone(RuntimeError):
    """The kernel died or was restarted while a request waited for it."""

    def __init__(self, message: str, why: str) -> None:
        super().__init__(message)
        self.why = why  # "dead" | "restarted" | "stopped"


@dataclass
class Pending:
    """One shell request in flight: its shell reply and (for executes) its iopub idle status."""

    request_id: int | str | None
    cell: str | None
    reply: asyncio.Future[dict[str, Any]]
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    forward: bool = False  # execute requests forward their iopub output and stdin prompts


def resolve_kernelspec(name: str, private_dir: Path, kernel_dirs: list[str] | None = None) -> tuple[Any, str]:
    """The KernelSpecManager to start `name` from, and where the spec came from.

    `kernel_dirs` None searches where Jupyter does (JUPYTER_PATH, user, sys.prefix, system). A
    missing `spore` spec is not an error: the spec `python -m spore_kernel install` writes is put
    into `private_dir` (source "built-in"), so the controller works before anyone installed it.
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    ksm = KernelSpecManager() if kernel_dirs is None else KernelSpecManager(kernel_dirs=kernel_dirs)
    try:
        ksm.get_kernel_spec(name)
        return ksm, "installed"
    except NoSuchKernel:
        if name != KERNEL_NAME:
            raise Refused(f"no kernelspec named {name!r} is installed (`jupyter kernelspec list` shows "
                             "the installed ones)") from None
    from .install import kernel_dict

    spec_dir = private_dir / "kernels" / name
    spec_dir.mkdir(parents=True, exist_ok=True)
    (spec_dir / "kernel.json").write_text(json.dumps(kernel_dict()), encoding="utf-8")
    log.info("no %r kernelspec installed; using the built-in one (%s)", name, sys.executable)
    return KernelSpecManager(kernel_dirs=[str(private_dir / "kernels")]), "built-in"


def choose_transport(private_dir: Path) -> tuple[str, str]:
    """(transport, ip): ipc sockets in the private directory where ZeroMQ has ipc, else loopback tcp."""
    import zmq

    if os.name != "nt" and zmq.has("ipc"):
        return "ipc", str(private_dir / "kernel")
    return "tcp", "127.0.0.1"


class Bridge:
    """One kernel and the requests about it. All ZeroMQ work happens on one asyncio loop."""

    def __init__(self, write: Callable[[dict[str, Any]], None], kernel_dirs: list[str] | None = None) -> None:
        self.write = write
        self.kernel_dirs = kernel_dirs
        self.private_dir = Path(tempfile.mkdtemp(prefix="spore-kernel-"))  # mkdtemp: mode 0700
        os.chmod(self.private_dir, 0o700)
        self.km: Any = None
        self.kc: Any = None
        self.state = "new"  # new | starting | running | restarting | dead | stopped
        self.pending: dict[str, Pending] = {}
        self.known: OrderedDict[str, tuple[int | str | None, str | None]] = OrderedDict()
        self.tasks: list[asyncio.Task[Any]] = []
        self.generation = 0  # bumped per kernel process, so a stale death watcher stays quiet
        self.done = asyncio.Event()

    # ---------------------------------------------------------------- requests

    async def handle_line(self, line: bytes) -> None:
        """Parse and answer one input line; nothing a line contains may stop the bridge."""
        if not line.strip():
            return
        try:
            req = parse_request(line)
        except ProtocolError as err:
            self.write(failure(err.request_id, str(err)))
            return
        try:
            handler = getattr(self, f"do_{req.type}")
            self.write(await handler(req))
        except KernelGone as err:
            self.write(failure(req.id, str(err), **{err.why: True}))
        except Refused as err:
            self.write(failure(req.id, str(err)))
        except Exception as err:  # noqa: BLE001 - one failed request must not end the bridge
            log.error("request %s failed:\n%s", req.type, traceback.format_exc())
            self.write(failure(req.id, f"{type(err).__name__}: {err}"))

    def _need_kernel(self) -> None:
        if self.state == "dead":
            raise Refused("the kernel died; restart it")
        if self.state in ("new", "starting"):
            raise Refused("the kernel is not started yet (send start first)")
        if self.state == "stopped":
            raise Refused("the kernel was shut down")

    async def do_start(self, req: Request) -> dict[str, Any]:
        from jupyter_client.manager import AsyncKernelManager

        if self.state != "new":
            raise Refused(f"the kernel is already {self.state}")
        cwd = req.get("cwd") or os.getcwd()
        if not Path(cwd).is_dir():
            raise Refused(f"cwd {cwd!r} is not a directory")
        name = req.get("kernel_name") or KERNEL_NAME
        self.state = "starting"
        try:
            ksm, source = resolve_kernelspec(name, self.private_dir, self.kernel_dirs)
            km = AsyncKernelManager(kernel_name=name, kernel_spec_manager=ksm)
            km.transport, km.ip = choose_transport(self.private_dir)
            km.connection_file = str(self.private_dir / "connection.json")
            self.km = km
            # stdin: the kernel must never read the protocol stream; its stdout is our fd 1, which
            # main() pointed at stderr
            await km.start_kernel(cwd=cwd, stdin=subprocess.DEVNULL)
            self.kc = km.client()
            self.kc.start_channels(hb=False, control=False)  # liveness: the process itself (watch)
            self.tasks += [asyncio.create_task(self._pump(ch, fn)) for ch, fn in
                           (("iopub", self._on_iopub), ("shell", self._on_shell), ("stdin", self._on_stdin))]
            self._watch()
            info = await self._ready()
        except BaseException:
            self.state = "dead" if self.km is not None else "new"
            raise
        self.state = "running"
        spec = km.kernel_spec
        conn = km.get_connection_info()
        ports = {k: conn[k] for k in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}
        return reply(req.id, kernel={"name": name, "source": source, "spec": spec.resource_dir,
                                     "argv": spec.argv, "display_name": spec.display_name, "cwd": cwd,
                                     "pid": self._pid()},
                     connection={"transport": conn["transport"], "ip": conn["ip"], **ports},
                     language_info=info.get("language_info", {}), implementation=info.get("implementation"))

    async def do_execute(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        content = {"code": req.get("code"), "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": True, "stop_on_error": False}  # the controller stops its own queue
        msg = self.kc.session.msg("execute_request", content, metadata=req.get("metadata") or {})
        p = self._send(msg, req.id, req.get("cell"), forward=True)
        reply_msg = await p.reply
        try:
            await asyncio.wait_for(p.idle.wait(), IDLE_GRACE)
        except TimeoutError:
            log.warning("no idle status for execute %s within %ss after its reply", req.id, IDLE_GRACE)
        self.pending.pop(msg["header"]["msg_id"], None)
        c = reply_msg["content"]
        extra = {k: c[k] for k in ("ename", "evalue") if k in c}
        return reply(req.id, execution_count=c.get("execution_count"), status=c.get("status"), **extra)

    async def do_evaluate(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        content = {"code": "", "silent": True, "store_history": False,
                   "user_expressions": {"value": req.get("expression")}, "allow_stdin": False, "stop_on_error": False}
        c = (await self._shell(self.kc.session.msg("execute_request", content)))["content"]
        if c.get("status") != "ok":
            raise RuntimeError(f"the kernel did not evaluate it (status {c.get('status')})")
        value = c.get("user_expressions", {}).get("value", {})
        if value.get("status") != "ok":
            return failure(req.id, f"{value.get('ename', 'Error')}: {value.get('evalue', '')}")
        return reply(req.id, data=value.get("data", {}), metadata=value.get("metadata", {}))

    async def do_complete(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        code = req.get("code")
        msg = self.kc.session.msg("complete_request", {"code": code, "cursor_pos": req.get("cursor_pos", len(code))})
        return reply(req.id, **(await self._shell(msg))["content"])

    async def do_inspect(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        code = req.get("code")
        msg = self.kc.session.msg("inspect_request", {"code": code, "cursor_pos": req.get("cursor_pos", len(code)),
                                                      "detail_level": req.get("detail_level", 0)})
        return reply(req.id, **(await self._shell(msg))["content"])

    async def do_input_reply(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        self.kc.input(req.get("value"))
        return reply(req.id)

    async def do_interrupt(self, req: Request) -> dict[str, Any]:
        self._need_kernel()
        await self.km.interrupt_kernel()
        return reply(req.id)

    async def do_restart(self, req: Request) -> dict[str, Any]:
        if self.state in ("new", "starting", "stopped", "restarting"):
            raise Refused(f"cannot restart: the kernel is {self.state}")
        alive = self.state == "running" and await self.km.is_alive()
        self.state = "restarting"
        self._fail_pending(KernelGone("the kernel was restarted", "restarted"))
        try:
            await self.km.restart_kernel(now=not alive)
            self._watch()
            await self._ready()
        except BaseException:
            self.state = "dead"
            raise
        self.state = "running"
        return reply(req.id, pid=self._pid())

    async def do_shutdown(self, req: Request) -> dict[str, Any]:
        await self.close()
        return reply(req.id)

    # ---------------------------------------------------------------- kernel side

    def _pid(self) -> int | None:
        return getattr(self.km.provisioner, "pid", None)

    def _send(self, msg: dict[str, Any], request_id: int | str | None = None, cell: str | None = None,
              forward: bool = False) -> Pending:
        """Send on the shell channel and register the request before any reply can be read."""
        msg_id = msg["header"]["msg_id"]
        p = Pending(request_id, cell, asyncio.get_running_loop().create_future(), forward=forward)
        self.pending[msg_id] = p
        if forward:
            self.known[msg_id] = (request_id, cell)
            while len(self.known) > KNOWN_REQUESTS:
                self.known.popitem(last=False)
        self.kc.shell_channel.send(msg)
        return p

    async def _shell(self, msg: dict[str, Any]) -> dict[str, Any]:
        p = self._send(msg)
        try:
            return await p.reply
        finally:
            self.pending.pop(msg["header"]["msg_id"], None)

    async def _ready(self) -> dict[str, Any]:
        """kernel_info until the kernel answers on shell *and* its idle status arrives on iopub (a
        SUB socket drops what was published before it connected, so the first answer may not be enough)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STARTUP_TIMEOUT
        while True:
            if not await self.km.is_alive():
                raise RuntimeError("the kernel exited while starting (its error is in the log above)")
            if loop.time() > deadline:
                raise RuntimeError(f"the kernel did not answer within {STARTUP_TIMEOUT:.0f}s")
            msg = self.kc.session.msg("kernel_info_request")
            p = self._send(msg)
            try:
                info = await asyncio.wait_for(asyncio.shield(p.reply), 1.0)
                await asyncio.wait_for(p.idle.wait(), 0.5)
                return info["content"]
            except TimeoutError:
                continue
            finally:
                self.pending.pop(msg["header"]["msg_id"], None)

    async def _pump(self, channel: str, handle: Callable[[dict[str, Any]], None]) -> None:
        get = getattr(self.kc, f"get_{channel}_msg")
        while True:
            try:
                msg = await get(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a message that does not decode (bad signature) is logged and skipped
                log.error("bad message on %s:\n%s", channel, traceback.format_exc())
                continue
            try:
                handle(msg)
            except Exception:  # noqa: BLE001
                log.error("handling a %s message failed:\n%s", channel, traceback.format_exc())

    def _on_shell(self, msg: dict[str, Any]) -> None:
        p = self.pending.get(msg.get("parent_header", {}).get("msg_id", ""))
        if p is not None and not p.reply.done():
            p.reply.set_result(msg)

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        parent = msg.get("parent_header", {}).get("msg_id", "")
        kind, content = msg["msg_type"], msg["content"]
        p = self.pending.get(parent)
        if kind == "status":
            state = content.get("execution_state")
            if p is not None and state == "idle":
                p.idle.set()
            if p is not None and p.forward and state in ("busy", "idle"):
                self.write(event("status", id=p.request_id, state=state))
        elif kind in OUTPUT_TYPES:
            request_id, cell = (p.request_id, p.cell) if p is not None else self.known.get(parent, (None, None))
            if p is not None and not p.forward:
                return  # evaluate/complete/kernel_info print nothing the user asked to see
            self.write(event("output", id=request_id, cell=cell, msg_type=kind, content=content))

    def _on_stdin(self, msg: dict[str, Any]) -> None:
        if msg["msg_type"] != "input_request":
            return
        p = self.pending.get(msg.get("parent_header", {}).get("msg_id", ""))
        c = msg["content"]
        self.write(event("input_request", id=p.request_id if p else None, cell=p.cell if p else None,
                         prompt=c.get("prompt", ""), password=bool(c.get("password", False))))

    def _watch(self) -> None:
        """Wait for this kernel process to exit (in a thread: Popen.wait) and report it if unexpected."""
        self.generation += 1
        generation = self.generation
        process = getattr(self.km.provisioner, "process", None)

        async def watch() -> None:
            if process is not None:
                code = await asyncio.get_running_loop().run_in_executor(None, process.wait)
            else:  # a provisioner without a local process: ask it now and then
                while await self.km.is_alive():
                    await asyncio.sleep(0.5)
                code = None
            if generation == self.generation and self.state == "running":
                self.state = "dead"
                message = f"the kernel died (exit code {code}); restart it to go on"
                log.error(message)
                self._fail_pending(KernelGone(message, "dead"))
                self.write(event("kernel_died", exit_code=code, message=message))

        self.tasks.append(asyncio.create_task(watch()))

    def _fail_pending(self, err: KernelGone) -> None:
        for p in list(self.pending.values()):
            if not p.reply.done():
                p.reply.set_exception(err)
            p.idle.set()
        self.pending.clear()

    async def close(self) -> None:
        """Shut the kernel down (politely, then by force), stop the channels, remove the private dir."""
        if self.state == "stopped":
            return
        was = self.state
        self.state = "stopped"
        self._fail_pending(KernelGone("the kernel was shut down", "stopped"))
        try:
            if self.km is not None and was != "new":
                await self.km.shutdown_kernel(now=was != "running")
        except Exception:  # noqa: BLE001 - shutting down must always finish
            log.error("shutting the kernel down:\n%s", traceback.format_exc())
        if self.kc is not None:
            self.kc.stop_channels()
        for task in self.tasks:
            task.cancel()
        shutil.rmtree(self.private_dir, ignore_errors=True)
        self.done.set()


def _protocol_streams() -> tuple[TextIO, Any]:
    """Keep the real stdout for protocol lines only, and point fd 1 at stderr, so a stray print (ours,
    a library's, or the kernel's — it inherits fd 1) can never corrupt the protocol."""
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto, sys.stdin.buffer


async def serve(proto_out: TextIO, proto_in: Any, kernel_dirs: list[str] | None = None) -> None:
    lock = threading.Lock()

    def write(obj: dict[str, Any]) -> None:
        with lock:
            proto_out.write(encode(obj))
            proto_out.flush()

    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()

    def read() -> None:  # a thread: reading a pipe portably (Windows has no pipe support in the loop)
        try:
            for line in proto_in:
                loop.call_soon_threadsafe(lines.put_nowait, line)
        finally:
            loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read, name="bridge-stdin", daemon=True).start()
    bridge = Bridge(write, kernel_dirs)
    running: set[asyncio.Task[None]] = set()
    while not bridge.done.is_set():
        get = asyncio.ensure_future(lines.get())
        stopped = asyncio.ensure_future(bridge.done.wait())
        finished, _ = await asyncio.wait({get, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if get not in finished:
            get.cancel()
            break
        line = get.result()
        if line is None:  # the extension went away: no orphan kernel
            await bridge.close()
            break
        # each request in its own task: an interrupt or an input_reply must get through while a cell runs
        task = asyncio.create_task(bridge.handle_line(line))
        running.add(task)
        task.add_done_callback(running.discard)
    if running:
        await asyncio.wait(running, timeout=10)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args:
        print(__doc__, file=sys.stderr)
        return 0 if args[0] in ("-h", "--help") else 2
    proto_out, proto_in = _protocol_streams()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="[spore-bridge] %(levelname)s %(message)s")
    asyncio.run(serve(proto_out, proto_in))
    return 0


if __name__ == "__main__":
    sys.exit(main())
