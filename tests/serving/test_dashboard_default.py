"""`make dashboard` is sized for one learner's laptop (issue 41): voila.json preheats the index only and
keeps one spare kernel; NOTEBOOK= preheats another notebook instead; ATTNLAB_LANG=zh serves the
Chinese edition. The Makefile is run for real (GNU make), with a stand-in `voila` that prints the
arguments it was given, so no server starts here (tests/browser/test_laptop.py starts the real one)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_voila_json_preheats_the_index_only_and_keeps_a_spare():
    config = json.loads((ROOT / "voila.json").read_text())
    pools = config["VoilaKernelManager"]["kernel_pools_config"]
    assert pools == {"00_index.ipynb": {"pool_size": 1}, "default": {"pool_size": 0}}
    assert config["VoilaConfiguration"]["preheat_kernel"] is True
    assert config["VoilaConfiguration"]["default_pool_size"] == 0
    assert config["ClassroomKernelManager"]["spare_kernels"] == 1
    assert config["ClassroomKernelManager"]["refill_pool"] is False
    assert (ROOT / "notebooks" / "00_index.ipynb").exists()


@pytest.fixture
def fake_venv(tmp_path):
    """A VENV whose bin/voila prints its arguments as JSON (and starts nothing)."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    voila = bin_dir / "voila"
    voila.write_text("#!/usr/bin/env python3\nimport json, sys\nprint('VOILA ' + json.dumps(sys.argv[1:]))\n")
    voila.chmod(0o755)
    return tmp_path / "venv"


def make_dashboard(venv, *assignments, env=None):
    # -o setup: the venv's set-up is not redone (it would build the real one); only the target's own recipe runs
    return subprocess.run(["make", "-s", "--no-print-directory", "-o", "setup", "dashboard", f"VENV={venv}", "PORT=8123",
                           *assignments], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def voila_args(run):
    line = next(line for line in run.stdout.splitlines() if line.startswith("VOILA "))
    return json.loads(line[len("VOILA "):])


def pools(args):
    [arg] = [a for a in args if a.startswith("--VoilaKernelManager.kernel_pools_config=")]
    return json.loads(arg.split("=", 1)[1])


@pytest.mark.parametrize("assignments, page", [
    ((), "00_index.ipynb"),
    (("ATTNLAB_LANG=en",), "00_index.ipynb"),
    (("ATTNLAB_LANG=zh",), "zh/00_index.ipynb"),
    (("NOTEBOOK=05_cat_milk_it.ipynb",), "05_cat_milk_it.ipynb"),
    (("NOTEBOOK=05_cat_milk_it.ipynb", "ATTNLAB_LANG=zh"), "zh/05_cat_milk_it.ipynb"),
    (("NOTEBOOK=zh/05_cat_milk_it.ipynb", "ATTNLAB_LANG=zh"), "zh/05_cat_milk_it.ipynb"),
])
def test_make_dashboard_preheats_one_page_and_says_where_to_open_it(fake_venv, assignments, page):
    run = make_dashboard(fake_venv, *assignments)
    assert run.returncode == 0, run.stderr
    args = voila_args(run)
    assert args[0] == "notebooks/" and "--Voila.ip=127.0.0.1" in args and "--port=8123" in args
    assert pools(args) == {page: {"pool_size": 1}, "default": {"pool_size": 0}}
    assert f"open http://127.0.0.1:8123/voila/render/{page}" in run.stdout


def test_the_language_may_come_from_the_environment(fake_venv):
    run = make_dashboard(fake_venv, env={"ATTNLAB_LANG": "zh"})
    assert run.returncode == 0, run.stderr
    assert pools(voila_args(run)) == {"zh/00_index.ipynb": {"pool_size": 1}, "default": {"pool_size": 0}}


def test_a_shell_language_is_not_the_course_language(fake_venv):
    """LANG (set by every shell, e.g. zh_CN.UTF-8) does not choose the edition: ATTNLAB_LANG does."""
    run = make_dashboard(fake_venv, env={"LANG": "zh_CN.UTF-8"})
    assert run.returncode == 0, run.stderr
    assert pools(voila_args(run)) == {"00_index.ipynb": {"pool_size": 1}, "default": {"pool_size": 0}}


def test_an_unknown_language_is_refused_naming_it(fake_venv):
    run = make_dashboard(fake_venv, "ATTNLAB_LANG=fr")
    assert run.returncode != 0 and "VOILA" not in run.stdout
    assert "make dashboard: ATTNLAB_LANG must be en or zh, got 'fr'" in run.stderr


def test_a_missing_notebook_is_refused_naming_it(fake_venv):
    run = make_dashboard(fake_venv, "NOTEBOOK=99_nothing.ipynb")
    assert run.returncode != 0 and "VOILA" not in run.stdout
    assert "make dashboard: NOTEBOOK: no notebooks/99_nothing.ipynb (expected a notebook of notebooks/" in run.stderr


def test_another_folder_is_served_with_its_own_index(fake_venv, tmp_path):
    """DASHBOARD_DIR: a folder laid out as notebooks/ (the browser test of make dashboard serves tiny ones)."""
    (tmp_path / "tiny" / "zh").mkdir(parents=True)
    (tmp_path / "tiny" / "zh" / "00_index.ipynb").write_text("{}")
    run = make_dashboard(fake_venv, f"DASHBOARD_DIR={tmp_path / 'tiny'}", "ATTNLAB_LANG=zh")
    assert run.returncode == 0, run.stderr
    args = voila_args(run)
    assert args[0] == f"{tmp_path / 'tiny'}/"
    assert pools(args) == {"zh/00_index.ipynb": {"pool_size": 1}, "default": {"pool_size": 0}}
    run = make_dashboard(fake_venv, f"DASHBOARD_DIR={tmp_path / 'tiny'}")
    assert run.returncode != 0 and "VOILA" not in run.stdout
    assert f"make dashboard: NOTEBOOK: no {tmp_path / 'tiny'}/00_index.ipynb (expected a notebook of {tmp_path / 'tiny'}/" \
        in run.stderr


def test_make_lesson_keeps_its_own_default_notebook(fake_venv):
    """NOTEBOOK is empty by default now (make dashboard's index); make lesson still preheats 01 for the class,
    and only the lesson: other notebooks start on demand (OTHER_POOL=0) unless the teacher asks for spares."""
    run = subprocess.run(["make", "-s", "--no-print-directory", "-o", "setup", "lesson", f"VENV={fake_venv}", "LEARNERS=3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert pools(voila_args(run)) == {"01_kernel_regression.ipynb": {"pool_size": 3}, "default": {"pool_size": 0}}
    run = subprocess.run(["make", "-s", "--no-print-directory", "-o", "setup", "lesson", f"VENV={fake_venv}", "LEARNERS=3",
                          "OTHER_POOL=1"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert pools(voila_args(run)) == {"01_kernel_regression.ipynb": {"pool_size": 3}, "default": {"pool_size": 1}}
