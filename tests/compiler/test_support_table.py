"""The support table finds every rejected construct statically, with its line, column and fix,
without importing or running the user's code."""

import pytest

from spore.compiler.support import RULES, check

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


def source_for(body: str) -> str:
    return HEADER + "class Net(nn.Cell):\n    def construct(self, x):\n" + body + "        return x\n"


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
