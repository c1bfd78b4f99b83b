"""The support table finds every rejected construct statically, with its line, column and fix,
without importing or running the user's code."""

import pytest

from spore.compiler.support import COMPILE_TIME_BUILTINS, RULES, check

HEADER = "import time\nimport numpy as np\nimport spore as ms\nfrom spore import nn\nCOUNTER = 0\n"

CASES = {
    "try": "        try:\n            x = x + 1\n        except ValueError:\n            pass\n",
    "with": "        with open('f') as fh:\n            pass\n",
    "generator": "        yield x\n",
    "global": "        global COUNTER\n",
    "import": "        import math\n",
    "class_def": "        class Local:\n            pass\n",
    "self_assign": "        self.last = x * 2\n",
    "container_mutation": "        self.cache.append(x)\n",
    "impure_call": "        t = time.time()\n",
    "print": "        print(x)\n",
    "python_value_of_tensor": "        v = x.item()\n",
    "dynamic_raise": "        raise ValueError(f'bad {x}')\n",
}


# What the compiler refuses only while it traces (the values are tracers: tensors known only when the graph
# runs), one sample per way the language server sees it statically (spore_lsp/deep_rules.py). Each is
# case -> (rule, construct body, module code before the Cell, module code after it);
# tests/lsp/test_static_only.py compiles each with the real engine and checks the server's line and rule.
DEEP_CASES = {
    "float_of_tensor": ("python_value_of_tensor", "        v = float(ms.ops.relu(x).sum())\n", "", ""),
    "int_of_tensor": ("python_value_of_tensor", "        v = int(ms.ops.abs(x).argmax())\n", "", ""),
    "bool_of_tensor": ("python_value_of_tensor", "        v = bool(ms.ops.relu(x).sum() > 0)\n", "", ""),
    "numpy_of_tensor": ("python_value_of_tensor", "        v = np.asarray(ms.ops.relu(x))\n", "", ""),
    "and_on_tensor": ("python_value_of_tensor", "        v = ms.ops.relu(x).sum() > 0 and COUNTER == 0\n", "", ""),
    "not_tensor": ("python_value_of_tensor", "        v = not ms.ops.relu(x).sum()\n", "", ""),
    "tensor_as_index": ("python_value_of_tensor", "        v = [1, 2][ms.ops.relu(x).argmax()]\n", "", ""),
    "item_with_index": ("python_value_of_tensor", "        v = ms.ops.relu(x).item(0)\n", "", ""),
    "max_of_tensors": ("python_value_of_tensor", "        v = max(ms.ops.relu(x).sum(), 0.0)\n", "", ""),
    "tensor_argument": ("python_value_of_tensor", "        v = float(x)\n", "",
                        "if __name__ == '__main__':\n    Net()(ms.Tensor(np.ones(1, np.float32)))\n"),
    "tensor_in_fstring": ("dynamic_raise", "        s = f'{ms.ops.relu(x)}'\n", "", ""),
    "break_on_tensor": ("tensor_break", "        for i in range(2):\n            if ms.ops.relu(x).sum() > 0:\n"
                        "                break\n", "", ""),
    "while_tensor_break": ("tensor_break", "        y = ms.ops.relu(x)\n        while y.sum() > 100:\n"
                           "            y = y - 1\n            break\n", "", ""),
    "return_in_loop": ("tensor_if", "        for i in range(2):\n            if ms.ops.relu(x).sum() > 0:\n"
                       "                return x\n", "", ""),
    "one_branch_name": ("tensor_if", "        if ms.ops.relu(x).sum() > 0:\n            extra = x * 2\n"
                        "            x = extra\n", "", ""),
    "builtin_call": ("unsupported_call", "        c = chr(65)\n", "", ""),
    "plain_class": ("unsupported_call", "        s = Settings()\n", "class Settings:\n    scale = 2\n", ""),
    "plain_instance": ("unsupported_call", "        x = TOKENS(x)\n",
                       "class Tokens:\n    def __call__(self, x):\n        return x\nTOKENS = Tokens()\n", ""),
    "raise_in_tensor_if": ("unsupported_call", "        if ms.ops.relu(x).sum() < 0:\n"
                           "            raise ValueError('negative input')\n", "", ""),
    "raise_user_error": ("raise", "        if ms.ops.relu(x).sum() < 0:\n            raise BadInput\n",
                         "class BadInput(ValueError):\n    pass\n", ""),
    "helper_conversion": ("python_value_of_tensor", "        v = to_number(ms.ops.relu(x))\n",
                          "def to_number(t):\n    return float(t.sum())\n", ""),
    "helper_print": ("print", "        x = loud(x)\n", "def loud(t):\n    print(t)\n    return t\n", ""),
    "for_else": ("unsupported_syntax", "        for i in range(2):\n            x = x + 1\n        else:\n"
                 "            x = x - 1\n", "", ""),
}


def source_for(body: str, before: str = "", after: str = "") -> str:
    return HEADER + before + "class Net(nn.Cell):\n    def construct(self, x):\n" + body + "        return x\n" + after


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_each_rejected_construct_is_found_on_its_line(rule_id):
    findings = check(source_for(CASES[rule_id]))
    ids = [f.rule.id for f in findings]
    assert rule_id in ids, f"{rule_id} not found; got {ids}"
    f = next(f for f in findings if f.rule.id == rule_id)
    assert f.line == HEADER.count("\n") + 3, "the finding is on the construct's first body line"
    assert f.scope == "Net.construct"
    assert f.hint and f.message.startswith("Graph mode does not support")


def test_every_rule_has_reason_and_fix():
    for rule in RULES.values():
        assert rule.reason and rule.fix, rule.id


def test_supported_code_gives_no_findings():
    body = (
        "        y = self.conv(x)\n"
        "        if x.shape[1] > 3:\n"
        "            y = y[:, :3]\n"
        "        for cell in self.layers:\n"
        "            y = cell(y)\n"
        "        outs = []\n"
        "        outs.append(y)\n"
        "        while y.sum() > 0:\n"
        "            y = y - 1\n"
        "        assert x.ndim == 4, 'expects NCHW'\n"
        "        assert x.sum().item() > -1, 'a condition, checked when the graph runs'\n"
        "        y += 1\n"
    )
    assert check(source_for(body)) == []


def test_jit_functions_are_checked_and_plain_functions_are_not():
    src = HEADER + (
        "@ms.jit\n"
        "def step(x):\n"
        "    print(x)\n"
        "    return x\n"
        "def helper(x):\n"
        "    print(x)\n"
    )
    findings = check(src)
    assert [(f.rule.id, f.scope) for f in findings] == [("print", "step")]


def test_module_alias_of_an_impure_module_is_seen():
    src = "import time as t\nfrom spore import nn\nclass N(nn.Cell):\n    def construct(self, x):\n" \
          "        s = t.perf_counter()\n        return x\n"
    assert [f.rule.id for f in check(src)] == ["impure_call"]


def test_unparsable_source_gives_no_findings():
    assert check("class N(:\n") == []


@pytest.mark.parametrize("case", sorted(DEEP_CASES))
def test_each_deeper_rejection_is_left_to_tracing_by_the_syntax_check(case):
    """tensor_if and raise are not rules of the table: the compiler raises them with a hint specific to
    the case (which name, which return), and the kernel shows that hint; the language server words them."""
    rule_id, body, before, after = DEEP_CASES[case]
    assert rule_id in RULES or rule_id in ("tensor_if", "raise")
    assert rule_id not in [f.rule.id for f in check(source_for(body, before, after))], \
        "found by the syntax check of the compiled functions: move the sample to CASES"


def test_the_compile_time_builtins_are_the_ones_the_frontend_evaluates():
    from spore.compiler import frontend

    assert COMPILE_TIME_BUILTINS == frontend._SAFE_BUILTINS


def test_the_seam_gives_the_builtin_sets_the_compiler_judges_calls_by():
    from spore import ide
    from spore.compiler.support import IMPURE_BUILTINS

    assert ide.compile_time_builtins() == COMPILE_TIME_BUILTINS and ide.impure_builtins() == IMPURE_BUILTINS
