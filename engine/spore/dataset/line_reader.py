"""`LineReader`: random access to the lines of a text file by line number (MindSpore's
``mindspore.dataset.LineReader``, used in GeneratorDataset sources over large text files).

The constructor scans the file once and keeps each line's byte offset, so `readline(n)` seeks
straight to line n (1-based, as MindSpore) without holding the text in memory."""

from __future__ import annotations

import os


class LineReader:
    """Line-number access to a text file: ``len(r)``, ``r.readline(3)``, ``r.close()``."""

    def __init__(self, filename: str) -> None:
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(f"LineReader: filename must be a str, got {type(filename).__name__}")
        if not os.path.isfile(filename):
            raise FileNotFoundError(f"LineReader: no file {os.fspath(filename)!r}")
        self.filename = os.fspath(filename)
        self._file = open(self.filename, "rb")  # noqa: SIM115 - kept open for seeks until close()
        self._offsets: list[int] = []
        pos = 0
        for line in self._file:
            self._offsets.append(pos)
            pos += len(line)

    def len(self) -> int:
        """The number of lines."""
        return len(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)

    def readline(self, line: int) -> str:
        """Line number `line` (1-based), decoded as UTF-8, with its line break kept."""
        if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= len(self._offsets):
            raise ValueError(f"LineReader.readline: line must be an int in [1, {len(self._offsets)}], got {line!r}")
        if self._file.closed:
            raise ValueError("LineReader.readline: the reader is closed")
        self._file.seek(self._offsets[line - 1])
        return self._file.readline().decode("utf-8")

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def __del__(self) -> None:
        f = getattr(self, "_file", None)
        if f is not None:
            f.close()


__all__ = ["LineReader"]
