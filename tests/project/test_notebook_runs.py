"""The notebook-execution counter (tests/notebook_runs.py) counts what runs, and can fail."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

import notebook_runs

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "notebooks" / "02_scoring_functions.ipynb"


@pytest.fixture
def runs(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_NOTEBOOK_RUNS", str(tmp_path / "runs"))
    return tmp_path / "runs"


def test_a_fake_extra_run_is_counted_and_fails_the_limit(runs, capsys):
    notebook_runs.record(LESSON, "nbval")
    notebook_runs.record(LESSON, "voila")
    found = notebook_runs.counts()
    assert found == {"notebooks/02_scoring_functions.ipynb": {"nbval": 1, "voila": 1}}
    assert notebook_runs.over(found, 2) == [] and notebook_runs.main(["report", "--max", "2"]) == 0
    notebook_runs.record(LESSON, "in-process")                        # the fake extra run
    found = notebook_runs.counts()
    assert found["notebooks/02_scoring_functions.ipynb"] == {"nbval": 1, "voila": 1, "in-process": 1}
    assert notebook_runs.over(found, 2) == ["notebooks/02_scoring_functions.ipynb"]
    capsys.readouterr()
    assert notebook_runs.main(["report", "--max", "2"]) == 1
    out = capsys.readouterr().out
    assert "notebooks/02_scoring_functions.ipynb" in out and "> 2" in out and "notebook executions: 3 of 1" in out


def test_counts_from_several_processes_add_up_and_a_copy_is_named_by_its_bytes(runs, tmp_path):
    copy = tmp_path / "served" / "02_scoring_functions.ipynb"
    copy.parent.mkdir()
    copy.write_bytes(LESSON.read_bytes())
    code = "import notebook_runs, sys; notebook_runs.record(sys.argv[1], 'voila')"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", code, str(copy)], check=True, cwd=ROOT / "tests")
    notebook_runs.record(tmp_path / "tiny.ipynb", "voila")
    assert len(list(runs.glob("*.jsonl"))) == 3
    assert notebook_runs.counts() == {"notebooks/02_scoring_functions.ipynb": {"voila": 2},
                                      "other: tiny.ipynb": {"voila": 1}}


def test_an_unknown_kind_is_refused(runs):
    with pytest.raises(ValueError, match=r"record: kind must be one of \('nbval'.*got 'nbconvert'"):
        notebook_runs.record(LESSON, "nbconvert")


def test_nbval_runs_are_counted_where_nbval_starts_the_kernel(runs, tmp_path):
    """A real nbval run of a one-cell notebook outside the repository (the root conftest.py, loaded as a
    plugin since the notebook is not under it, counts it)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
                           "--nbval-current-env", "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
                           "-p", "conftest", str(tmp_path / "tiny.ipynb")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert notebook_runs.counts() == {"other: tiny.ipynb": {"nbval": 1}}


def test_voila_renders_are_counted_by_the_servers_config(runs, tmp_path):
    """The config file every test server loads patches Voila's renderer: one record per execution."""
    config = ROOT / "tests" / "browser" / "notebook_runs_config" / "voila.py"
    probe = textwrap.dedent(f"""
        import asyncio, types
        exec(compile(open({str(config)!r}).read(), {str(config)!r}, "exec"), {{"__file__": {str(config)!r}}})
        from voila.notebook_renderer import NotebookRenderer
        r = NotebookRenderer.__new__(NotebookRenderer)
        r.notebook_path, r.cwd = {LESSON.name!r}, {str(LESSON.parent)!r}
        r.contents_manager = types.SimpleNamespace(root_dir={str(LESSON.parent)!r})
        r.executor = types.SimpleNamespace(kc=types.SimpleNamespace(stop_channels=lambda: None))
        nb = {{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}
        import nbformat
        async def run():
            return [c async for c in r._jinja_cell_generator(nbformat.from_dict(nb), "k")]
        asyncio.run(run())
    """)
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=ROOT)
    assert notebook_runs.counts() == {"notebooks/02_scoring_functions.ipynb": {"voila": 1}}
    (line,) = [json.loads(x) for f in runs.glob("server-*.jsonl") for x in f.read_text().splitlines()]
    assert line == {"notebook": "notebooks/02_scoring_functions.ipynb", "kind": "voila"}


def test_make_test_fails_when_a_notebook_ran_more_than_twice_and_prints_the_table_either_way():
    """The Makefile's test recipe: the report (the table) after both lines of tests, whatever their status,
    with --max 2 (nbval once, its dashboard page once); the recipe's status is 1 when the report's is."""
    make = (ROOT / "Makefile").read_text()
    assert "\nNOTEBOOK_RUNS_MAX := 2\n" in make
    recipe = make[make.index("\ntest: test-prereqs\n"):]
    recipe = recipe[:recipe.index("\n\n")]
    assert ("test-units test-browser-pages test-browser-servers; status=$$?; \\\n"
            "\t  $(PY) -m tests.notebook_runs report --max $(NOTEBOOK_RUNS_MAX) || status=1; exit $$status") in recipe
