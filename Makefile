# Two commands: `make dashboard` (set up + serve) and `make test` (set up + every test).
# Both are idempotent: the venv and its installs are redone only when their inputs change.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8866
# The Voila template ships with the package (pyproject's shared-data), so installing the package
# puts it on the venv's Jupyter data path: no symlink, no JUPYTER_PATH. Reinstall when it changes.
TEMPLATE_FILES := $(wildcard share/jupyter/voila/templates/attnlab/*)

.PHONY: dashboard lesson classroom test setup test-setup chromium bench bench-browser lab clean site test-ipywidgets7 fuzz hub hub-setup

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.txt pyproject.toml $(TEMPLATE_FILES) | $(PY)
	$(PY) -m pip install -q -r requirements.txt
	@# an older Makefile linked the template into the venv: remove the link before pip copies over it
	@if [ -L $(VENV)/share/jupyter/voila/templates/attnlab ]; then rm $(VENV)/share/jupyter/voila/templates/attnlab; fi
	$(PY) -m pip install -q --no-deps -e .
	touch $@

$(VENV)/.testdeps: requirements-test.txt $(VENV)/.runtime
	$(PY) -m pip install -q -r requirements-test.txt
	touch $@

setup: $(VENV)/.runtime

test-setup: $(VENV)/.testdeps chromium hub-setup

# Debian's Chromium for the browser tests (playwright cannot download a browser here), and a
# CJK font so the Chinese terms in screenshots are not empty boxes.
chromium:
	@{ command -v chromium >/dev/null 2>&1 && fc-list 2>/dev/null | grep -qi "noto.*cjk"; } || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; }

dashboard: setup
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(VENV)/bin/voila notebooks/ --no-browser --Voila.ip=127.0.0.1 --port=$(PORT)

# A lesson: every notebook served, with LEARNERS kernels that have already run NOTEBOOK waiting for
# the class (started at once, not refilled for 4 hours; late arrivals get a fresh kernel in ~6 s).
# Start it a few minutes early. IP=0.0.0.0 lets learners on the local network in (see README).
# MAX_KERNELS caps the kernels (pool included; 0: from the memory available, attnlab/classroom.py);
# MAX_PER_CLIENT caps one learner's open pages. Past either, a page says "This lesson is full" (503).
# With IP other than 127.0.0.1 a class token is required: it is printed at start inside the address
# to give learners (CLASS_TOKEN=... chooses it).
LEARNERS ?= 20
NOTEBOOK ?= 01_kernel_regression.ipynb
IP ?= 127.0.0.1
MAX_KERNELS ?= 0
MAX_PER_CLIENT ?= 6
lesson: setup
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} ATTNLAB_CLASS_TOKEN=$(CLASS_TOKEN) \
	  $(VENV)/bin/voila notebooks/ --no-browser --Voila.ip=$(IP) --port=$(PORT) \
	  --ClassroomKernelManager.max_kernels=$(MAX_KERNELS) --ClassroomKernelManager.max_per_client=$(MAX_PER_CLIENT) \
	  --VoilaKernelManager.kernel_pools_config='{"$(NOTEBOOK)": {"pool_size": $(LEARNERS)}, "default": {"pool_size": 1}}' \
	  --VoilaKernelManager.fill_delay=14400

# A rehearsal of that lesson: LEARNERS browsers moving sliders for DURATION seconds (see README).
DURATION ?= 60
classroom: test-setup
	$(PY) bench/bench_classroom.py --learners $(LEARNERS) --duration $(DURATION) --notebook $(NOTEBOOK)

# JupyterHub on this machine for classes one Voila server cannot hold (deploy/jupyterhub/): every
# learner logs in with the class password (printed at start, or HUB_PASSWORD=...) and gets a
# server of their own; idle servers are culled after 20 minutes. HUB_IP=0.0.0.0 for the class network.
HUB_IP ?= 127.0.0.1
HUB_PORT ?= 8000
CHP := build/hub/node_modules/.bin/configurable-http-proxy
$(VENV)/.hubdeps: requirements-hub.txt $(VENV)/.runtime
	$(PY) -m pip install -q -r requirements-hub.txt
	touch $@
$(CHP):
	@command -v npm >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq npm >/dev/null; }
	mkdir -p build/hub && cd build/hub && npm install --no-audit --no-fund --silent configurable-http-proxy@4.6.3
hub-setup: $(VENV)/.hubdeps $(CHP)
hub: hub-setup
	ATTNLAB_HUB_IP=$(HUB_IP) ATTNLAB_HUB_PORT=$(HUB_PORT) ATTNLAB_HUB_PASSWORD=$(HUB_PASSWORD) \
	  $(VENV)/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

lab: setup
	$(VENV)/bin/jupyter lab notebooks/00_index.ipynb

# The static site: build/site/index.html and a page per notebook, from the STORED notebooks
# (nothing executed). Math is typeset by KaTeX from its npm package, copied into the site.
KATEX_VERSION := 0.16.22
KATEX := build/katex/package/dist
$(KATEX):
	@command -v npm >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq npm >/dev/null; }
	mkdir -p build/katex && cd build/katex && npm pack --silent katex@$(KATEX_VERSION) >/dev/null && tar xzf katex-$(KATEX_VERSION).tgz

site: $(VENV)/.runtime $(KATEX)
	$(PY) tools/build_site.py --out build/site --katex $(KATEX)

test: test-setup site test-ipywidgets7
	$(PY) tools/translations.py --check
	$(PY) tools/catalog.py check
	$(PY) -m pytest --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg -m "not fuzz" \
	  --cov=attnlab --cov-report=term --cov-fail-under=90 tests notebooks

# The browser fuzz: every control of every dashboard moved 100 times at random (minutes per notebook).
fuzz: test-setup
	$(PY) -m pytest -m fuzz tests/browser/test_fuzz.py

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
	$(VENV7)/bin/python -m pytest -q -p no:cacheprovider tests/test_ipywidgets7.py tests/test_panels.py tests/test_widget_bundles.py

# Benchmarks (medians and ratios; not tests). The browser ones need `make test-setup` first.
bench: setup
	$(PY) bench/bench_kernels.py
	$(PY) bench/bench_panel.py
	$(PY) bench/bench_efficient.py

bench-browser: test-setup
	$(PY) bench/bench_dashboards.py
	$(PY) bench/bench_memory.py

clean:
	rm -rf $(VENV) .coverage .pytest_cache .hypothesis
