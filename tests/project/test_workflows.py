"""The GitHub workflows (.github/workflows/*.yml) and Dependabot's settings pass the current linters,
actionlint 1.17 and zizmor's offline audits, with no finding; both linters do fail on a broken
workflow; and the workflows keep the shape issue 37 asked for (pinned actions, least permissions, a
timeout per job, one run per change, a Python matrix, the lowest and newest dependencies, a release).
They are validated here, not run: GitHub runs them. Both linters are PyPI wheels pinned in
requirements-test.txt (`make actionlint` runs them the same way; see the Makefile)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
PINNED = re.compile(r"^\s*(?:-\s*)?uses:\s*([\w.-]+/[\w./-]+)@([0-9a-f]{40}) # v\d+(\.\d+)*\s*$")


def tool(name):
    """The linter beside this Python (the venv's bin/), else on PATH; skipped (failed under CI) when absent."""
    for candidate in (Path(sys.executable).parent / name, shutil.which(name)):
        if candidate and Path(candidate).exists():
            return str(candidate)
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed: pip install -r requirements-test.txt (make test-setup)")
    pytest.skip(f"{name} is not installed: pip install -r requirements-test.txt")


def actionlint(*files):
    done = subprocess.run([tool("actionlint"), "-format", "{{json .}}", *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    version = subprocess.run([tool("actionlint"), "--version"], capture_output=True, text=True).stdout
    assert version.split()[1].startswith("1.17"), version
    return done.returncode, json.loads(done.stdout or "[]")


def zizmor(folder):
    done = subprocess.run([tool("zizmor"), "--offline", "--no-progress", "--format", "json", str(folder)],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, json.loads(done.stdout or "[]")


def load(name):
    data = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    data["on"] = data.pop(True, data.get("on"))      # YAML 1.1 reads the key `on` as true
    return data


BROKEN = ("on:\n  push:\n  schedule:\n    - cron: '61 * * * *'\n"
          "jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
          "      - run: echo ${{ matrix.python }}\n"
          "      - uses: actions/checkout@v4\n        with_typo: {}\n"
          "      - run: echo \"${{ github.event.head_commit.message }}\"\n")


def test_every_workflow_passes_actionlint():
    assert {w.name for w in WORKFLOWS} >= {"ci.yml", "pages.yml", "latest.yml", "release.yml"}
    rc, problems = actionlint(*WORKFLOWS)
    assert problems == [] and rc == 0, "\n".join(f"{p['filepath']}:{p['line']}: {p['message']}" for p in problems)


def test_actionlint_fails_on_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN)
    rc, problems = actionlint(broken)
    assert rc == 1
    kinds = {p["kind"] for p in problems}
    text = " ".join(p["message"] for p in problems)
    assert "\"python\"" in text and "CRON" in text and "with_typo" in text, problems
    assert "node20" in text, "actionlint 1.17 names actions/checkout@v4's deprecated runtime"
    assert kinds >= {"expression", "syntax-check", "action"}, kinds


def test_zizmor_finds_nothing_in_the_workflows_and_dependabot():
    rc, findings = zizmor(ROOT / ".github")
    names = [(f["ident"], f["determinations"]["severity"], f["locations"][0]["symbolic"]["key"])
             for f in findings]
    assert findings == [] and rc == 0, names


def test_zizmor_fails_on_a_broken_workflow(tmp_path):
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "broken.yml").write_text(BROKEN)
    rc, findings = zizmor(tmp_path)
    assert rc != 0
    assert {"unpinned-uses", "artipacked", "excessive-permissions"} <= {f["ident"] for f in findings}, findings


def jobs():
    for path in WORKFLOWS:
        for name, job in load(path.name)["jobs"].items():
            yield path.name, name, job


def test_every_action_is_pinned_by_commit_with_its_version_in_a_comment():
    uses = [line for w in WORKFLOWS for line in w.read_text().splitlines() if re.match(r"^\s*(-\s*)?uses:", line)]
    assert len(uses) >= 10
    assert not [u for u in uses if not PINNED.match(u)], "pin as `uses: owner/repo@<40 hex> # vX.Y.Z`"


def test_least_permissions_a_timeout_and_no_kept_credentials_in_every_job():
    for path in WORKFLOWS:
        assert load(path.name)["permissions"] == {}, f"{path.name}: nothing for the whole workflow"
    for wf, name, job in jobs():
        assert isinstance(job.get("timeout-minutes"), int), f"{wf} {name}: no timeout"
        assert "permissions" in job, f"{wf} {name}: no permissions of its own"
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False, f"{wf} {name}: checkout keeps credentials"
    writers = {(wf, name): job["permissions"] for wf, name, job in jobs()
               if any(v == "write" for v in job["permissions"].values())}
    assert writers == {("pages.yml", "deploy"): {"pages": "write", "id-token": "write"},
                       ("release.yml", "publish"): {"id-token": "write"}}, writers


def test_ci_runs_once_per_change_make_test_a_python_matrix_and_the_lowest_versions():
    ci = load("ci.yml")
    assert ci["on"]["push"] == {"branches": ["main"]} and "pull_request" in ci["on"]
    steps = ci["jobs"]["test"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["python-version"] == "3.11" and setup["with"]["cache"] == "pip"
    assert any(s.get("run", "").strip() == "make test" for s in steps)
    units = ci["jobs"]["units"]
    # every Python requires-python admits that the pinned wheels exist for (3.10 has no matplotlib 3.11)
    assert units["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert floor == ">=3.11" and ci["jobs"]["lowest"]["steps"][1]["with"]["python-version"] == "3.11"
    assert any("make test-units" in s.get("run", "") for s in units["steps"])
    lowest = ci["jobs"]["lowest"]
    assert any("make test-lowest" in s.get("run", "") for s in lowest["steps"])
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest-lowest:", 1)[1].split("\n\n", 1)[0]
    assert "--resolution lowest-direct" in recipe and "--group unit --group notebooks" in recipe


def test_pages_builds_the_site_and_only_the_deploy_job_writes():
    pages = load("pages.yml")
    build = pages["jobs"]["build"]["steps"]
    assert any(s.get("run", "").strip() == "make site" for s in build)
    upload = next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "build/site"
    assert pages["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in pages["jobs"]["deploy"]["steps"])


def test_weekly_newest_dependencies_run_the_browser_tests_and_fail_visibly():
    latest = load("latest.yml")
    assert latest["on"]["schedule"], "runs on a schedule"
    job = latest["jobs"]["latest"]
    assert "continue-on-error" not in job
    runs = [s for s in job["steps"] if "run" in s]
    assert not [s for s in runs if s.get("continue-on-error")], "a step that cannot fail hides the news"
    assert any("make test-latest" in s["run"] and "GITHUB_STEP_SUMMARY" in s["run"] for s in runs)
    assert any("make test-latest-browser" in s["run"] for s in runs)
    assert "tests/browser" in (ROOT / "Makefile").read_text().split("\ntest-latest-browser:", 1)[1].split("\n\n")[0]


def test_release_builds_on_a_tag_and_publishes_by_trusted_publishing():
    release = load("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    build, publish = release["jobs"]["build"], release["jobs"]["publish"]
    script = " ".join(s.get("run", "") for s in build["steps"])
    assert "python -m build --sdist --wheel" in script and "__version__" in script
    assert publish["needs"] == "build" and publish["environment"]["name"] == "pypi"
    step = next(s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@"))
    assert "with" not in step or "password" not in step["with"], "trusted publishing: no token"


def test_dependabot_bumps_pip_pins_and_actions():
    config = yaml.safe_load((ROOT / ".github" / "dependabot.yml").read_text())
    ecosystems = {u["package-ecosystem"] for u in config["updates"]}
    assert ecosystems == {"pip", "github-actions"}
