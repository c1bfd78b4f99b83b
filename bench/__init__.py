"""Side-by-side benchmarks of Spore against a pure-numpy reference and PyTorch (`python bench/run.py`).

Modules here import only numpy at top level: the PyTorch measurements run in whatever interpreter
has torch (possibly one without Spore), so nothing shared may import spore or torch eagerly.
"""
