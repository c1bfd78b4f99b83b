"""Class forms made from the `_TABLE`s of `spore.ops.classes_*`: real classes with MindSpore's
signatures that forward to their functional wrapper, and each module's `__all__` is exactly its
class forms (what `spore.ops` re-exports)."""

import inspect

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import is_engine_code
from spore.ops import CLASS_MODULES
from spore.ops.operation import Operation

ROWS = [(m, name, op) for m in CLASS_MODULES for name, op in getattr(m, "_TABLE", {}).items()]


def test_every_class_module_lists_exactly_its_class_forms_in_all():
    for m in CLASS_MODULES:
        forms = {n for n, v in vars(m).items()
                 if isinstance(v, type) and issubclass(v, Operation) and v is not Operation and not n.startswith("_")}
        assert sorted(m.__all__) == sorted(forms), m.__name__
        assert all(getattr(ops, n) is getattr(m, n) for n in m.__all__)


def test_tables_hold_most_class_forms():
    assert len(ROWS) >= 90


@pytest.mark.parametrize("module,name,op", ROWS, ids=[n for _, n, _ in ROWS])
def test_a_table_row_is_a_real_class_forwarding_to_its_wrapper(module, name, op):
    cls = getattr(module, name)
    assert issubclass(cls, Operation) and cls.__name__ == cls.__qualname__ == name
    assert cls.__module__ == module.__name__ and cls.__doc__.startswith(f"``{name}(") and op.doc in cls.__doc__
    construct = cls.__dict__["construct"]
    assert construct.__qualname__ == f"{name}.construct" and is_engine_code(construct)
    params = list(inspect.signature(construct).parameters)
    assert params[0] == "self" and ", ".join(params[1:]) == ", ".join(
        p.split(":")[0].strip() for p in op.call.partition("->")[0].split(",") if ":" in p)
    assert [c.cell_contents for c in construct.__closure__] == [op.fn]  # what it forwards to
    if op.init:
        init = inspect.signature(cls.__dict__["__init__"])
        assert list(init.parameters)[1:] == [p.split(":")[0].strip() for p in op.init.split(",") if ":" in p]
    else:
        assert "__init__" not in cls.__dict__


def test_generated_classes_take_mindspores_keywords_and_reject_extra_arguments():
    x = ms.Tensor(np.arange(6.0).reshape(2, 3))
    assert ops.Reshape()(input_x=x, input_shape=(3, 2)).shape == (3, 2)
    op = ops.ReduceMean(keep_dims=True)
    assert op.keep_dims is True and repr(op) == "ReduceMean<keep_dims=True>"
    np.testing.assert_allclose(op(x, 1).asnumpy(), [[1.0], [4.0]])
    with pytest.raises(TypeError, match="construct"):
        ops.Exp()(x, x)
    with pytest.raises(TypeError):
        ops.Concat(0, 1)
