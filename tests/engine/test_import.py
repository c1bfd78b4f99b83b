"""`import spore` loads its names on first use: the language server can import the support table
without the engine, and every public name still resolves (and is listed for static tools)."""

import subprocess
import sys

import spore


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    return set(out.split())


def test_the_support_table_imports_without_the_engine_or_numpy():
    mods = _modules_after("import spore.compiler.support")
    assert "numpy" not in mods and "spore.tensor" not in mods and "spore.ops" not in mods


def test_import_spore_loads_nothing_until_a_name_is_used():
    mods = _modules_after("import spore")
    assert not {"numpy", "spore.tensor", "spore.nn", "spore.train", "spore._kernels", "ml_dtypes"} & mods


def test_every_lazy_name_resolves_and_submodules_are_attributes_too():
    # the lazy table is read from the TYPE_CHECKING imports that static tools see, so both list the same names
    assert len(spore.__all__) > 50 and {"Tensor", "nn", "ops", "Model", "GRAPH_MODE", "float32"} <= set(spore.__all__)
    for name in spore.__all__:
        assert getattr(spore, name) is not None or name == "bfloat16", name
    assert spore.context.get_context("mode") == spore.PYNATIVE_MODE


def test_a_bfloat16_array_made_before_spore_loads_ml_dtypes_is_a_bfloat16_tensor():
    """The user imports ml_dtypes and makes the array; Spore has not touched bfloat16 yet (it loads
    ml_dtypes lazily), and must still recognise the dtype rather than refuse it."""
    code = ("import ml_dtypes, numpy as np, spore as ms\n"
            "a = np.array([[1.5, -2.0]], dtype=ml_dtypes.bfloat16)\n"
            "t, p = ms.Tensor(a), ms.Parameter(a, name='w')\n"
            "print(t.dtype == ms.bfloat16, p.dtype == ms.bfloat16, a.dtype in ms.common.dtype._BY_NP, "
            "t.asnumpy().astype('float32').tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True True True [[1.5, -2.0]]"


def test_each_lazy_module_loads_first_in_a_fresh_process():
    """A user's first `ms.<name>` may be any name: each module behind the lazy table must import first
    (an import cycle shows only when its module is the first to load, e.g. `ms.jit` before `ms.Tensor`)."""
    firsts: dict[str, str] = {}
    for name, (module, _) in spore._LAZY.items():
        firsts.setdefault(module, name)
    code = ("import subprocess, sys\n"
            f"names = {sorted(firsts.values())!r}\n"
            "procs = [(n, subprocess.Popen([sys.executable, '-c', f'import spore; spore.{n}'],\n"
            "          stderr=subprocess.PIPE, text=True)) for n in names]\n"
            "bad = [(n, p.communicate()[1].strip().splitlines()[-1:]) for n, p in procs]\n"
            "print([b for b in bad if b[1]])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300).stdout
    assert out.strip() == "[]", out
