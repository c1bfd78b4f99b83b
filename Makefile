# The two commands: `make demo` and `make test` (plus `make bench`). Each bootstraps .venv and
# installs everything, C++ kernels included; a re-run reuses what is already built.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.stamp-install
CSRC := $(wildcard engine/csrc/*.cpp engine/csrc/*.h)
SO := engine/spore/_kernels$(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
# Tests pin BLAS/OpenMP to one thread: two shared cores make multi-threaded timings swing wildly.
THREADS1 := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# build-essential .. libkrb5-dev: code-server's native modules (the VS Code e2e suite); chromium drives it;
# openmpi-bin libopenmpi-dev: data-parallel training (mpi4py builds against it)
APT_PKGS := libdnnl-dev ccache chromium nodejs neovim build-essential pkg-config libx11-dev libxkbfile-dev libsecret-1-dev libkrb5-dev openmpi-bin libopenmpi-dev

.PHONY: demo test bench lint sysdeps install clean kernels vsix

demo: $(SO) vsix
	$(PY) -m spore_kernel install --sys-prefix
	$(THREADS1) $(PY) examples/train_digits.py
	$(THREADS1) $(PY) examples/run_quickstart.py

test: $(SO) vsix
	$(PY) -m ruff check .
	$(THREADS1) $(PY) -m pytest -n 2 tests
	@# the end-to-end suite in a real VS Code (code-server + headless Chromium; installed once from npm)
	$(MAKE) -C vscode-extension e2e

bench: $(SO)
	$(PIP) install -q 'torch==2.13.0' || echo "torch not installable here: the bench runs without PyTorch"
	$(PY) bench/run.py

# The VS Code extension: npm ci (once), esbuild bundle, its unit tests (node --test), build/spore-<v>.vsix
vsix:
	$(MAKE) -C vscode-extension all

lint: $(SO)
	$(PY) -m ruff check .

sysdeps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip 'setuptools>=70' wheel 'pybind11>=2.12'

$(STAMP): $(PY) pyproject.toml setup.py | sysdeps
	$(PIP) install -q --no-build-isolation -e '.[dev]'
	$(PY) -c "import spore, spore._kernels"
	@# pyright's Node package (run by the system's Node.js) is fetched (when the wheel lacks it) and cached here, never in a test
	PYRIGHT_PYTHON_IGNORE_WARNINGS=1 $(PY) -m pyright --version
	touch $(STAMP)

install: $(SO)

# Rebuild only the C++ extension in place (developers: after editing engine/csrc). ccache keeps
# unchanged files from recompiling; flock keeps concurrent builds from clobbering each other.
kernels: $(SO)

$(SO): $(STAMP) $(CSRC)
	flock /tmp/spore-kernels.lock env CC="ccache gcc" CXX="ccache g++" $(PY) setup.py -q build_ext --inplace
	touch $(SO)

clean:
	rm -rf $(VENV) build engine/*.egg-info engine/spore/_kernels*.so
