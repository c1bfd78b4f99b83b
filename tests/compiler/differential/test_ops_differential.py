"""Graph mode against PyNative over every public function and class-form op in `spore.ops`.

The cases live in cases_ops.py; `run_case` (harness.py) runs each in PyNative and twice in a
compiled construct, and the outcome must be "identical", "refused" (a compile-time error on the
user's line) or "both_raise".
"""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

import spore as ms
from spore import ops

from .cases_ops import EXEMPT_CLASSES, EXEMPT_FUNCTIONS, covered_name, ops_class_cases, ops_function_cases
from .harness import check_cases, run_case

FUNCTION_CASES = ops_function_cases()
CLASS_CASES = ops_class_cases()
ALL_CASES = FUNCTION_CASES + CLASS_CASES


def _public(pred) -> list[str]:
    return [n for n in dir(ops) if not n.startswith("_") and callable(getattr(ops, n)) and pred(getattr(ops, n))]


# --- coverage --------------------------------------------------------------------------------------
def test_every_public_ops_function_is_covered():
    names = _public(inspect.isfunction)
    assert len(names) > 200
    counts = Counter(covered_name(c) for c in FUNCTION_CASES)
    missing = [n for n in names if counts[f"ops.{n}"] == 0 and n not in EXEMPT_FUNCTIONS]
    assert not missing, f"ops functions without a differential case: {missing}"
    both = [n for n in EXEMPT_FUNCTIONS if counts[f"ops.{n}"]]
    assert not both, f"exempt functions that have cases: {both}"
    stale = [n for n in EXEMPT_FUNCTIONS if n not in names]
    assert not stale, f"exempt names that are no longer public ops functions: {stale}"
    unknown = sorted({covered_name(c) for c in FUNCTION_CASES} - {f"ops.{n}" for n in names})
    assert not unknown, f"function cases naming no public ops function: {unknown}"


def test_every_public_ops_class_is_covered():
    names = _public(inspect.isclass)
    assert len(names) > 120
    counts = Counter(covered_name(c) for c in CLASS_CASES)
    missing = [n for n in names if counts[f"ops.{n}"] == 0 and n not in EXEMPT_CLASSES]
    assert not missing, f"ops classes without a differential case: {missing}"
    both = [n for n in EXEMPT_CLASSES if counts[f"ops.{n}"]]
    assert not both, f"exempt classes that have cases: {both}"
    stale = [n for n in EXEMPT_CLASSES if n not in names]
    assert not stale, f"exempt names that are no longer public ops classes: {stale}"
    unknown = sorted({covered_name(c) for c in CLASS_CASES} - {f"ops.{n}" for n in names})
    assert not unknown, f"class cases naming no public ops class: {unknown}"


def test_exemptions_are_not_user_ops():
    for name, reason in {**EXEMPT_FUNCTIONS, **EXEMPT_CLASSES}.items():
        assert reason.strip(), f"exemption {name} needs a reason"


def test_case_names_are_unique_and_inputs_keep_their_shapes():
    check_cases(ALL_CASES, max_size=4 * 5 * 6)


# --- the differential cases -------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["LAX", "STRICT"])
@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_graph_matches_pynative(case, level):
    """LAX (the default) runs what a graph cannot hold in Python (graph breaks); STRICT refuses it."""
    ms.set_context(jit_syntax_level=getattr(ms, level))
    outcome = run_case(case)
    tail = "\n".join(outcome.tb.strip().splitlines()[-12:]) if outcome.tb else ""
    assert outcome.kind in ("identical", "refused", "both_raise"), \
        f"{case.name}: {outcome.kind}: {outcome.detail}" + (f"\n{tail}" if tail else "")
