"""Builds the C++ kernels (`spore._kernels`) with pybind11 against Debian's oneDNN (libdnnl-dev).

Everything else about the distribution lives in pyproject.toml.
"""

import glob
import os

import pybind11
from setuptools import Extension, setup

sources = sorted(glob.glob(os.path.join("engine", "csrc", "*.cpp")))
ext = Extension(
    "spore._kernels",
    sources=sources,
    include_dirs=[pybind11.get_include(), os.path.join("engine", "csrc")],
    libraries=["dnnl"],
    language="c++",
    extra_compile_args=["-O3", "-march=native", "-fopenmp", "-std=c++17", "-fvisibility=hidden",
                        "-Wall", "-Wno-unused-function"],
    extra_link_args=["-fopenmp"],
)

setup(ext_modules=[ext] if sources else [])
