"""Spore's debug adapter: a Debug Adapter Protocol server that fronts debugpy.

It forwards the protocol to debugpy's own adapter and adds what only Spore knows: a graph-compile
error stops on the user's line, breakpoints inside a Graph-mode `construct` hit, tensors show as
tensors, and an optional NaN/Inf guard. The debuggee side (what runs inside the user's process)
lives in `spore_debug.debuggee`; the adapter process never imports the engine.
"""
