"""`python -m spore_lsp --tcp` listens on 127.0.0.1 only and speaks LSP there."""

import json
import re
import socket
import subprocess
import sys


def _message(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_message(sock: socket.socket) -> dict:
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, rest = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
    while len(rest) < length:
        rest += sock.recv(65536)
    return json.loads(rest[:length])


def test_tcp_mode_binds_loopback_only_and_answers_initialize():
    proc = subprocess.Popen([sys.executable, "-m", "spore_lsp", "--tcp", "--port", "0"], stderr=subprocess.PIPE,
                            text=True, env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    try:
        for line in proc.stderr:  # the server logs the address once it is bound
            m = re.search(r"Serving on \('([\d.]+)', (\d+)\)", line)
            if m:
                break
        else:
            raise AssertionError("the server never said where it listens")
        host, port = m.group(1), int(m.group(2))
        assert host == "127.0.0.1"
        listening = [ln.split()[1] for ln in open("/proc/net/tcp").read().splitlines()[1:]
                     if ln.split()[3] == "0A" and int(ln.split()[1].split(":")[1], 16) == port]
        assert listening == [f"0100007F:{port:04X}"], "bound to 127.0.0.1, not to every interface"
        with socket.create_connection((host, port), timeout=30) as sock:
            sock.sendall(_message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                   "params": {"processId": None, "rootUri": None,
                                              "capabilities": {"notebookDocument": {"synchronization": {}}}}}))
            reply = _read_message(sock)
        caps = reply["result"]["capabilities"]
        assert reply["result"]["serverInfo"]["name"] == "spore-lsp"
        assert caps["hoverProvider"] and caps["definitionProvider"] and caps["signatureHelpProvider"]
        (selector,) = caps["notebookDocumentSync"]["notebookSelector"]
        assert selector["cells"] == [{"language": "python"}], "notebook cells are synced to the server"
        assert set(caps["completionProvider"]["triggerCharacters"]) >= {".", "("}
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
