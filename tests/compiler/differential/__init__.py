"""Differential test of Graph mode against PyNative over the whole public API (see harness.py)."""
