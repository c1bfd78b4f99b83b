"""Reverse-mode autodiff for PyNative: the tape and MindSpore's `grad`/`value_and_grad`."""
