"""ExceptionHandler and Implementation (issue 14, rest slice)."""

import pytest

import spore.dataset as ds


def _caught(exc):
    try:
        raise exc
    except Exception:
        return ds.ExceptionHandler(where="in map(): worker 0")


def test_reraise_keeps_the_type_and_the_original_traceback():
    h = _caught(ValueError("bad pixel"))
    with pytest.raises(ValueError) as info:
        h.reraise()
    text = str(info.value)
    assert text.startswith("Caught ValueError in map(): worker 0.")
    assert "bad pixel" in text and "Traceback" in text and "_caught" in text


def test_exception_types_with_other_constructors_become_runtime_errors():
    class Odd(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    h = _caught(Odd(1, 2))
    with pytest.raises(RuntimeError, match="Caught Odd"):
        h.reraise()


def test_bad_arguments_and_implementation_enum():
    with pytest.raises(TypeError, match="ExceptionHandler: except_info"):
        ds.ExceptionHandler()  # nothing is being handled here
    assert ds.Implementation("Py") is ds.Implementation.PY and ds.Implementation.C.value == "C"
