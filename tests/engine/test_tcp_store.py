"""ops.TCPStore: a master and clients (in this process and in a child process) share keys over
loopback TCP."""

from __future__ import annotations

import datetime
import subprocess
import sys
import textwrap

import pytest

from spore import ops

CHILD = textwrap.dedent("""
    import sys
    from spore import ops
    store = ops.TCPStore("127.0.0.1", int(sys.argv[1]), world_size=2)
    store.set("child", b"from child")
    print(store.get("parent").decode(), store.add("counter", 10), flush=True)
    store.close()
""")


def test_master_and_child_process_exchange_keys():
    master = ops.TCPStore("127.0.0.1", 0, world_size=2, is_master=True, wait_for_workers=False,
                          timeout=datetime.timedelta(seconds=60))
    try:
        assert master.port > 0
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(master.port)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        master.set("parent", "hello")
        assert master.get("child") == b"from child"  # waits for the child to set it
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        word, count = out.split()
        assert word == "hello" and int(count) == 10
        assert master.add("counter", 1) == 11
        assert master.check(["parent", "child"]) and not master.check(["nope"])
        assert master.num_keys() == 3
        assert master.delete_key("parent") and not master.delete_key("parent")
    finally:
        master.close()


def test_clients_in_one_process_and_timeouts():
    master = ops.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=1))
    try:
        client = ops.TCPStore("127.0.0.1", master.port, timeout=datetime.timedelta(seconds=1))
        client.set("k", b"\x00\x01binary")
        assert master.get("k") == b"\x00\x01binary"
        with pytest.raises(TimeoutError, match="missing"):
            client.get("missing")
        with pytest.raises(TimeoutError, match="wait"):
            client.wait(["k", "other"], timeout=datetime.timedelta(seconds=0.2))
        client.wait(["k"])
        with pytest.raises(TypeError, match="value"):
            client.set("x", 3)
        client.close()
    finally:
        master.close()
    with pytest.raises(ValueError, match="master's port"):
        ops.TCPStore("127.0.0.1", 0)


def test_a_malformed_or_huge_request_does_not_stop_the_store():
    """Garbage on the socket gets an error reply or a closed connection; the store keeps serving."""
    import socket
    import struct

    master = ops.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=1))
    with socket.create_connection(("127.0.0.1", master.port)) as s:   # a request missing its value
        body = b'{"op": "set", "key": "k"}'
        s.sendall(struct.pack("<I", len(body)) + body)
        n = struct.unpack("<I", s.recv(4))[0]
        assert b"malformed request" in s.recv(n)
    with socket.create_connection(("127.0.0.1", master.port)) as s:   # an absurd length prefix
        s.sendall(struct.pack("<I", 0xFFFFFFFF))
        assert s.recv(4) == b""
    master.set("k", "v")
    assert master.get("k") == b"v"
