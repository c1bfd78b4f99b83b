"""DAP's wire format: `Content-Length: N\\r\\n\\r\\n` followed by N bytes of UTF-8 JSON.

The reader is forgiving where debugpy is not: debugpy's adapter drops the whole session on one bad
frame, so the proxy parses every frame itself and hands debugpy only well-formed messages. A frame
with a bad header or a body that is not a JSON object becomes a `FrameError` the proxy reports to
the client; the reader then resynchronises at the next `Content-Length` header instead of hanging
on a length it cannot trust.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, BinaryIO

MAX_BODY = 64 * 1024 * 1024  # a larger declared length is taken for garbage, not waited for
HEADER = b"content-length"


@dataclass
class FrameError:
    """One frame that could not be read as a DAP message, with why (said to the client as is)."""

    reason: str
    body: bytes = b""


def encode(message: dict[str, Any]) -> bytes:
    """Frame one message."""
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class MessageReader:
    """Reads frames from a byte stream: `read()` returns a message dict, a FrameError, or None at
    end of stream. Unbuffered reads (`read1`) keep it responsive on pipes and sockets alike."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._buf = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        read1 = getattr(self._stream, "read1", None)
        chunk = read1(65536) if read1 is not None else self._stream.read(1)
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def _resync(self, start: int) -> None:
        """Drop bytes up to the next Content-Length header at or after `start` (or all of them):
        always at least one byte, so a bad header is never read twice."""
        at = bytes(self._buf).lower().find(HEADER, start)
        del self._buf[:at if at >= 0 else len(self._buf)]

    def read(self) -> dict[str, Any] | FrameError | None:
        while True:
            end = self._buf.find(b"\r\n\r\n")
            if end < 0:
                if not self._fill():
                    if self._buf.strip():
                        junk, self._buf = bytes(self._buf), bytearray()
                        return FrameError("the stream ended inside a message header", junk[:200])
                    return None
                continue
            header = bytes(self._buf[:end])
            if not header.strip():  # blank lines between frames
                del self._buf[:end + 4]
                continue
            length = None
            for line in header.split(b"\r\n"):
                name, sep, value = line.partition(b":")
                if sep and name.strip().lower() == HEADER:
                    try:
                        length = int(value.strip())
                    except ValueError:
                        length = -1
            if length is None or length < 0 or length > MAX_BODY:
                self._resync(1)
                what = "no Content-Length header" if length is None else f"bad Content-Length in {header[:80]!r}"
                return FrameError(f"malformed DAP frame ({what}); skipped to the next header", header[:200])
            start = end + 4
            while len(self._buf) < start + length:
                if not self._fill():
                    self._buf.clear()
                    return FrameError(f"the stream ended {start + length - len(self._buf)} bytes short of a "
                                      f"{length}-byte message")
            body = bytes(self._buf[start:start + length])
            del self._buf[:start + length]
            try:
                message = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                return FrameError(f"DAP message body is not JSON ({exc})", body[:200])
            if not isinstance(message, dict):
                return FrameError("DAP message body is not a JSON object", body[:200])
            return message
