"""Fork-proof: a fork changes the two lines of pyproject.toml that name the repository (another owner,
another default branch), runs `python tools/notebook_links.py` as docs/serving.md says, and the link,
site-builder and site-page tests pass there as they do here. The scratch fork is a copy of the tracked
files; its tests run in their own pytest process (not make test). No test names this repository's
owner: each reads the address from pyproject.toml."""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text()
URL = re.search(r'^Repository = "(https://github\.com/[^"]+)"', PYPROJECT, re.M).group(1)
BRANCH_LINE = re.search(r'^default-branch = "[^"]+"', PYPROJECT, re.M).group(0)
SLUG = URL.removeprefix("https://github.com/")
FORK, FORK_BRANCH = "someone-else/attn-fork", "trunk"
FORK_TESTS = ["tests/notebooks/test_notebook_links.py", "tests/serving/test_site_builder.py", "tests/browser/test_site_pages.py"]
KATEX = ROOT / "build" / "katex"
AXE = ROOT / "build" / "axe"                  # make axe (tests/browser/a11y.py)


def test_no_test_names_the_repositorys_owner():
    named = re.compile(rf"{re.escape(SLUG)}(?![\w-])")
    tests = sorted(p for p in (ROOT / "tests").rglob("*.py"))
    assert len(tests) > 50
    found = [f"{p.relative_to(ROOT)}:{n}" for p in tests for n, line in enumerate(p.read_text().splitlines(), 1)
             if named.search(line)]
    assert not found, f"read the address from pyproject.toml instead: {found}"


@pytest.fixture(scope="module")
def fork(tmp_path_factory):
    """The tracked files copied; pyproject.toml pointing at another owner and branch; links rewritten."""
    fork = tmp_path_factory.mktemp("fork") / "attn-fork"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        if (ROOT / name).is_file():
            (fork / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, fork / name)
    for fetched in (KATEX, AXE):              # npm packages make fetched: the site pages' math and their audit
        if fetched.exists():
            (fork / "build").mkdir(exist_ok=True)
            (fork / "build" / fetched.name).symlink_to(fetched)
    text = (fork / "pyproject.toml").read_text()
    text = text.replace(f'Repository = "{URL}"', f'Repository = "https://github.com/{FORK}"')
    text = text.replace(BRANCH_LINE, f'default-branch = "{FORK_BRANCH}"')
    assert FORK in text and FORK_BRANCH in text
    (fork / "pyproject.toml").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(fork)}
    done = subprocess.run([sys.executable, "tools/notebook_links.py"], cwd=fork, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return fork, env, done.stdout


def test_the_fork_links_to_itself(fork):
    folder, _, updated = fork
    assert updated.count("updated: ") >= 24 + 2          # every notebook, both READMEs (and CITATION.cff)
    readme = (folder / "README.md").read_text()
    assert f"gh/{FORK}/HEAD" in readme and f"{SLUG}/" not in readme
    first = (folder / "notebooks" / "zh" / "01_kernel_regression.ipynb").read_text()
    assert f"github/{FORK}/blob/{FORK_BRANCH}/notebooks/zh/01_kernel_regression.ipynb" in first
    assert f"{SLUG}/" not in first


def test_the_forks_link_site_and_page_tests_pass(fork):
    folder, env, _ = fork
    env = {**env, "ATTNLAB_NOTEBOOK_RUNS": str(folder / "build" / "notebook-runs")}
    # the site pages are browser tests: without playwright (the test extra has none; requirements-test.txt
    # and `make test-setup` bring it) the fork's link and site-builder tests still run, then this skips
    no_browser = importlib.util.find_spec("playwright") is None
    tests = [t for t in FORK_TESTS if not (no_browser and t.startswith("tests/browser/"))]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *tests],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    tail = done.stdout[-4000:] + done.stderr[-2000:]
    assert done.returncode == 0, tail
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    if no_browser:
        pytest.skip("playwright is not installed: the fork's site pages (tests/browser/test_site_pages.py) "
                    "were not run; its link and site-builder tests passed")
    if KATEX.exists():
        assert "skipped" not in summary, f"the site pages were skipped in the fork: {tail}"
