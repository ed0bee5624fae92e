# Two commands: `make dashboard` (set up + serve) and `make test` (set up + every test).
# Both are idempotent: the venv and its installs are redone only when their inputs change.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8866
VOILA_TEMPLATE := $(VENV)/share/jupyter/voila/templates/attnlab

.PHONY: dashboard lesson classroom test setup test-setup chromium bench bench-browser lab clean test-ipywidgets7

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $@

$(VENV)/.testdeps: requirements-test.txt $(VENV)/.runtime
	$(PY) -m pip install -q -r requirements-test.txt
	touch $@

setup: $(VENV)/.runtime $(VOILA_TEMPLATE)

test-setup: $(VENV)/.testdeps chromium

# Debian's Chromium for the browser tests (playwright cannot download a browser here), and a
# CJK font so the Chinese terms in screenshots are not empty boxes.
chromium:
	@{ command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi "noto.*cjk"; } || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

# The symlink makes the template "attnlab" (named in voila.json, kept in share/jupyter) visible to
# any `voila` run from this venv.

$(VOILA_TEMPLATE): | $(VENV)/.runtime
	mkdir -p $(dir $@) && ln -sfn $(CURDIR)/share/jupyter/voila/templates/attnlab $@

dashboard: setup
	JUPYTER_PATH=$(CURDIR)/share/jupyter OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(VENV)/bin/voila notebooks/ --no-browser --Voila.ip=127.0.0.1 --port=$(PORT)

# A lesson: every notebook served, with LEARNERS kernels that have already run NOTEBOOK waiting for
# the class (started at once, not refilled for 4 hours; late arrivals get a fresh kernel in ~6 s).
# Start it a few minutes early. IP=0.0.0.0 lets learners on the local network in (see README).
LEARNERS ?= 20
NOTEBOOK ?= 01_kernel_regression.ipynb
IP ?= 127.0.0.1
lesson: setup
	JUPYTER_PATH=$(CURDIR)/share/jupyter OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(VENV)/bin/voila notebooks/ --no-browser --Voila.ip=$(IP) --port=$(PORT) \
	  --VoilaKernelManager.kernel_pools_config='{"$(NOTEBOOK)": {"pool_size": $(LEARNERS)}, "default": {"pool_size": 1}}' \
	  --VoilaKernelManager.fill_delay=14400

# A rehearsal of that lesson: LEARNERS browsers moving sliders for DURATION seconds (see README).
DURATION ?= 60
classroom: test-setup $(VOILA_TEMPLATE)
	$(PY) bench/bench_classroom.py --learners $(LEARNERS) --duration $(DURATION) --notebook $(NOTEBOOK)

lab: setup
	$(VENV)/bin/jupyter lab notebooks/00_index.ipynb

test: test-setup $(VOILA_TEMPLATE)
	$(PY) -m pytest --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg \
	  --cov=attnlab --cov-report=term --cov-fail-under=90 tests notebooks

# Panels under ipywidgets 7.7 (as Colab ships it), kernel side: a venv of its own with the pins of
# requirements.txt but ipywidgets 7.7 (no JupyterLab, no Voila), the package installed with its
# dependency ranges checked by pip, then the panel tests.
VENV7 ?= .venv-ipywidgets7
$(VENV7)/.ready: requirements.txt requirements-test.txt pyproject.toml
	$(PYTHON) -m venv $(VENV7)
	sed -e 's/^ipywidgets==.*/ipywidgets==7.7.*/' -e '/^jupyterlab==/d' -e '/^voila==/d' requirements.txt > $(VENV7)/pins.txt
	$(VENV7)/bin/python -m pip install -q -r $(VENV7)/pins.txt $$(grep -E '^(pytest|hypothesis)==' requirements-test.txt)
	$(VENV7)/bin/python -m pip install -q -e .
	touch $@

test-ipywidgets7: $(VENV7)/.ready
	$(VENV7)/bin/python -m pytest -q -p no:cacheprovider tests/test_ipywidgets7.py tests/test_panels.py

# Benchmarks (medians and ratios; not tests). The browser ones need `make test-setup` first.
bench: setup
	$(PY) bench/bench_kernels.py
	$(PY) bench/bench_panel.py
	$(PY) bench/bench_efficient.py

bench-browser: test-setup $(VOILA_TEMPLATE)
	$(PY) bench/bench_dashboards.py
	$(PY) bench/bench_memory.py

clean:
	rm -rf $(VENV) .coverage .pytest_cache .hypothesis
