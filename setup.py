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
    # a header change rebuilds every source (setuptools otherwise compares only the .cpp times)
    depends=sorted(glob.glob(os.path.join("engine", "csrc", "*.h"))),
    include_dirs=[pybind11.get_include(), os.path.join("engine", "csrc")],
    libraries=["dnnl"],
    language="c++",
    # -fno-trapping-math: without it GCC will not turn a float compare-and-select into a vector blend
    # (the compare "might trap"), so ReLU masks, max pooling and clamps ran scalar with mispredicted
    # branches. Spore never reads floating-point exception flags; results are unchanged.
    extra_compile_args=["-O3", "-march=native", "-fno-trapping-math", "-fopenmp", "-std=c++17", "-fvisibility=hidden",
                        "-Wall", "-Wno-unused-function"],
    extra_link_args=["-fopenmp"],
)

setup(ext_modules=[ext] if sources else [])
