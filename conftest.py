"""How the tests run: every adjustment to pytest, nbval, xdist and hypothesis is here, with its reason
(docs/contributing.md points here). It applies to tests/ and notebooks/ alike.

1. tests/ on sys.path: the tests sit in folders by audience (tests/core, tests/ui, tests/lessons,
   tests/notebooks, tests/serving, tests/project, tests/browser) and share helpers at the top of tests/
   (_lesson_calls.py, _notebook_panels.py, notebook_runs.py ...).
2. nbval executes cells as Jupyter does (store_history=True: a trailing ";" hides a result).
3. nbval counts each notebook it executes (tests/notebook_runs.py; make test fails past two runs).
4. nbval also compares the stored pictures (tools/stored_figures.py): the Voila template shows them first.
5. hypothesis's "check" profile (make check): 12 examples per property instead of 40-50.
6. make test's parallel workers get the longest files first (_LONGEST_FIRST: measured CPU seconds), so the
   two processes of a 2-core machine end together.
7. Each test leaves the learner's language as it found it.
8. After each test file: its widgets closed and the memory its tensors and figures held handed back.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))          # 1. the shared helpers

try:
    from nbval.kernel import RunningKernel
except ImportError:  # nbval not installed: nothing to adjust
    RunningKernel = None

if RunningKernel is not None:
    # 2. nbval 0.11 executes cells with store_history=False, and IPython then cannot see a cell's
    # trailing ";", so `plt.plot(...);` shows a result under nbval that Jupyter hides, and every
    # such cell "differs". Execute the way Jupyter does.
    def _execute_like_jupyter(self, cell_input, allow_stdin=None):
        return self.kc.execute(cell_input, store_history=True, allow_stdin=allow_stdin, stop_on_error=False)

    RunningKernel.execute_cell_input = _execute_like_jupyter

try:
    from nbval.plugin import IPyNbCell, IPyNbFile
except ImportError:
    IPyNbCell = IPyNbFile = None

if IPyNbFile is not None:
    # 3. Count each notebook nbval executes (tests/notebook_runs.py; make test prints the table): its
    # kernel starts here, once per notebook file, and runs the cells.
    import notebook_runs

    _setup = IPyNbFile.setup

    def _counted_setup(self):
        notebook_runs.record(self.fspath, "nbval")
        return _setup(self)

    IPyNbFile.setup = _counted_setup

if IPyNbCell is not None:
    # 4. nbval skips image/png; the Voila template shows each notebook's stored pictures before its
    # kernel has run (progressive rendering, tools/stored_figures.py), so they must be the ones the
    # code draws: compare them too.
    sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
    import stored_figures

    _compare_outputs = IPyNbCell.compare_outputs

    def _compare_outputs_and_pictures(self, test, ref, skip_compare=None):
        same = _compare_outputs(self, test, ref, skip_compare)
        if not same:
            return False
        found = stored_figures.differences(ref, test)
        if found:
            self.comparison_traceback = list(getattr(self, "comparison_traceback", [])) + found
            return False
        return True

    IPyNbCell.compare_outputs = _compare_outputs_and_pictures

try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # hypothesis not installed: no profiles
    _hypothesis_settings = None

if _hypothesis_settings is not None:
    # 5. `make check` (the quick loop) runs the property tests with `--hypothesis-profile=check`: fewer
    # examples each. `make test` keeps the default profile, so each test's own max_examples (written
    # `min(50, settings.default.max_examples)`: the profile's number when smaller) applies in full there.
    _hypothesis_settings.register_profile("check", max_examples=12, deadline=None)



# 6. `make test` runs tests/ (not tests/browser) and notebooks/ in 2 processes (pytest-xdist,
# `-n 2 --dist loadfile`): one file's tests stay in one process, so module fixtures (a trained model,
# an executed notebook) are built once and nbval's cells of one notebook run in order in one kernel.
# Files are handed out in collection order (make test passes --no-loadscope-reorder: xdist would
# otherwise hand out the files with the most tests first), so the longest start first (measured
# under load on the 2-core machine: bench/bench_tests_before.md and bench/bench_tests.md); otherwise
# the two processes could end far apart, one still running a long file it took last.
_LONGEST_FIRST = [
    # make test's UNTRACED + nbval run (CPU s, one thread, 2026-11-28: bench/cpu_per_test.py)
    "tests/notebooks/test_panel_blit_notebooks.py", "tests/notebooks/test_panel_names.py", "tests/ui/test_panels.py",
    "tests/lessons/test_lesson_bad_inputs.py", "tests/ui/test_figure_text_contrast.py", "tests/ui/test_series_styles.py",
    "tests/lessons/test_checks_per_move.py", "notebooks/11_induction_heads.ipynb", "notebooks/zh/11_induction_heads.ipynb",
    "tests/lessons/test_nb07_figures.py", "notebooks/12_gpt.ipynb", "notebooks/zh/12_gpt.ipynb",
    # the covered run
    "tests/lessons/test_nb11_induction_heads.py", "tests/ui/test_i18n.py", "tests/lessons/test_nb08_live.py",
    "tests/serving/test_classroom_unit.py", "tests/lessons/test_nb12_gpt.py", "tests/lessons/test_nb12_gpt_live.py",
    "tests/lessons/test_nb02_scoring_functions.py", "tests/notebooks/test_static_view.py", "tests/notebooks/test_notebook_links.py",
    "tests/lessons/test_nb10_encoder_decoder.py", "tests/lessons/test_nb09_transformer_block.py", "tests/serving/test_cli.py",
    "tests/serving/test_site_builder.py", "tests/notebooks/test_zh_figures.py"]


def pytest_collection_modifyitems(config, items):
    if not hasattr(config, "workerinput"):                  # only in xdist's workers
        return
    rank = {path: i for i, path in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))   # stable


try:
    import pytest as _pytest

    from attnlab.i18n import get_language as _get_language, set_language as _set_language
except ImportError:  # run without the package (a tool's own tests): nothing to restore
    _pytest = None

if _pytest is not None:
    @_pytest.fixture(autouse=True)
    def _language_restored():
        """7. Each test leaves the language as it found it. A Chinese notebook's cells run in-process
        (tests/_notebook_panels.py) call ``attnlab.set_language("zh")``, which holds for the whole process:
        without this, the next test in the same pytest process printed Chinese (make test, 2026-11-28,
        when test_panel_names.py ran before test_panels.py)."""
        before = _get_language()
        yield
        if _get_language() != before:
            _set_language(before)


try:
    import ctypes as _ctypes
    import gc as _gc
    import sys

    _libc = _ctypes.CDLL("libc.so.6")
    _malloc_trim = _libc.malloc_trim
except (ImportError, OSError, AttributeError):  # not glibc (macOS, musl): nothing to hand back
    _malloc_trim = None

if _pytest is not None and _malloc_trim is not None:
    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        """8. After a test file's last test, close the widgets it made and give the memory its tensors and
        figures freed back to the system (glibc's malloc_trim). glibc keeps freed heap for reuse, so a pytest process that ran
        many files held the high-water mark of every one: an xdist worker of make test grew to about
        1 GB (2026-11-28: test_nb09 + test_nb11 + test_nb12 in one process, 851 MB at the end, 675 MB
        trimmed after each file; the whole-run peak is bench/bench_make_test.py's)."""
        yield
        this = item.nodeid.split("::", 1)[0]
        if nextitem is None or nextitem.nodeid.split("::", 1)[0] != this:
            widgets = sys.modules.get("ipywidgets")
            if widgets is not None:
                # ipywidgets keeps every widget it made until it is closed, and with a panel's controls
                # their callbacks, the panel and its figure (19 panels after three lesson files)
                widgets.Widget.close_all()
            _gc.collect()
            _malloc_trim(0)
