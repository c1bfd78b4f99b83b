"""LineReader: 1-based random access to a file's lines (issue 14, rest slice)."""

import pytest

import spore.dataset as ds


def test_random_access_matches_the_file(tmp_path):
    lines = ["first\n", "zweite Zeile äöü\n", "\n", "last without newline"]
    p = tmp_path / "t.txt"
    p.write_text("".join(lines), encoding="utf-8")
    r = ds.LineReader(str(p))
    assert len(r) == r.len() == 4
    for i in (3, 1, 4, 2):
        assert r.readline(i) == lines[i - 1]
    with pytest.raises(ValueError, match=r"LineReader.readline: line must be an int in \[1, 4\]"):
        r.readline(0)
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.readline(1)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="LineReader"):
        ds.LineReader("/nonexistent/file.txt")
