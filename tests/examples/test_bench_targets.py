"""The bench's targets block judges each goal from the run's own records (met / MISSED / n/a)."""

from bench.report import targets


def rec(kind, case, backend, mode, threads, **fields):
    return {"kind": kind, "case": case, "backend": backend, "mode": mode, "threads": threads, **fields}


def records(graph_mlp_steps_per_s, torch_compile_steps_per_s):
    rows = [rec("train", "mlp", "spore", "graph", 1, median_s=1 / graph_mlp_steps_per_s),
            rec("train", "mlp", "spore", "pynative", 1, median_s=1.6 / graph_mlp_steps_per_s)]
    if torch_compile_steps_per_s:
        rows.append(rec("compile", "mlp", "torch", "compile", 1, step_s=1 / torch_compile_steps_per_s))
    return rows


def line(text, start):
    return next(s for s in text.splitlines() if start in s)


def test_mlp_target_scaled_to_this_machine_uses_torch_compile_measured_here():
    text = targets(records(800, 600), [1])
    assert line(text, "Graph MLP step >").startswith("  [MISSED]")  # 800 < the absolute 1,700
    scaled = line(text, "scaled to this machine")
    assert scaled.startswith("  [met]") and "vs 729 st/s (1.33x torch.compile)" in scaled
    assert line(targets(records(700, 600), [1]), "scaled to this machine").startswith("  [MISSED]")
    assert line(targets(records(700, None), [1]), "scaled to this machine").startswith("  [n/a]")
    two = targets(records(800, 600) + [rec("train", "mlp", "spore", "graph", 2, median_s=1 / 900)], [1, 2])
    assert line(two, "scaled to this machine").startswith("  [met]"), "judged where torch.compile was measured"
    assert line(text, "Graph >= 1.5x PyNative, MLP").startswith("  [met]")  # 1.60x
