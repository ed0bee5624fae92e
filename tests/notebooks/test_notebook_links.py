"""tools/notebook_links.py and tools/repo_links.py: one repository address, links and a Colab
install cell in every notebook, idempotent, and an install cell that does nothing where attnlab
imports."""
import builtins
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import notebook_links
import repo_links

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The repository's address as pyproject.toml writes it (no test names the owner: a fork's tests pass too)
PYPROJECT = (ROOT / "pyproject.toml").read_text()
URL = re.search(r'^Repository = "(https://github\.com/[^"]+)"', PYPROJECT, re.M).group(1)
SLUG = URL.removeprefix("https://github.com/")
BRANCH = re.search(r'^default-branch = "([^"]+)"', PYPROJECT, re.M).group(1)


@pytest.fixture
def copy(tmp_path):
    """notebooks/, README.md and pyproject.toml copied, so the script can rewrite them."""
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    for name in ("README.md", "pyproject.toml", "CHANGELOG.md", "CITATION.cff", "attnlab/__init__.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def run(d, *extra):
    return notebook_links.main(["--notebooks", str(d / "notebooks"), "--readme", str(d / "README.md"),
                                "--pyproject", str(d / "pyproject.toml"), *extra])


def test_repo_address_comes_from_pyproject():
    r = repo_links.repo()
    assert r.slug == SLUG and r.branch == BRANCH and SLUG.count("/") == 1
    assert r.colab("01_x.ipynb") == f"https://colab.research.google.com/github/{SLUG}/blob/{BRANCH}/notebooks/01_x.ipynb"
    assert r.binder_voila("01_x.ipynb") == (f"https://mybinder.org/v2/gh/{SLUG}/HEAD?urlpath="
                                            "voila%2Frender%2Fnotebooks%2F01_x.ipynb")
    assert r.binder_lab() == f"https://mybinder.org/v2/gh/{SLUG}/HEAD?urlpath=lab%2Ftree%2Fnotebooks%2F00_index.ipynb"
    assert r.pip_spec() == f"attnlab @ git+https://github.com/{SLUG}@{BRANCH}"
    assert r.pip_spec("1.2.3") == "attnlab==1.2.3"


def test_version_is_read_from_the_package_and_released_from_the_changelog(tmp_path):
    import attnlab
    assert repo_links.version() == attnlab.__version__
    log = tmp_path / "CHANGELOG.md"
    log.write_text("# Changelog\n\n## [0.2.0] - unreleased\n\n- x\n\n## [0.1.0] - 2026-12-01\n\n- y\n")
    assert repo_links.released("0.1.0", log) is True and repo_links.released("0.2.0", log) is False
    with pytest.raises(ValueError, match=r"expected a section '## \[0.3.0\] - YYYY-MM-DD' or .*got sections for \['0.1.0', '0.2.0'\]"):
        repo_links.released("0.3.0", log)
    log.write_text("## [0.1.0] - soon\n")
    with pytest.raises(ValueError, match=r"\[0.1.0\]: expected a date YYYY-MM-DD or 'unreleased', got 'soon'"):
        repo_links.released("0.1.0", log)
    (tmp_path / "init.py").write_text("version = 1\n")
    with pytest.raises(ValueError, match=r"expected a line __version__ = "):
        repo_links.version(tmp_path / "init.py")


@pytest.mark.parametrize("url", ["https://gitlab.com/a/b", "github.com/a/b", "https://github.com/a"])
def test_repo_address_must_be_a_github_repository(url):
    with pytest.raises(ValueError, match=r"Repository: expected 'https://github.com/<owner>/<name>', got"):
        repo_links.Repo(url)


def test_bad_branch_is_refused():
    with pytest.raises(ValueError, match=r"default-branch: expected a branch name, got 'a b'"):
        repo_links.Repo("https://github.com/a/b", "a b")


def test_missing_repository_key_is_named(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(ValueError, match=r"expected \[project.urls\] Repository"):
        repo_links.repo(tmp_path / "pyproject.toml")


def test_links_and_install_cell_inserted_once_and_nothing_else_changes(copy):
    assert run(copy) == 0
    first = {p.name: p.read_text() for p in (copy / "notebooks").glob("*.ipynb")}
    assert run(copy) == 0 and run(copy, "--check") == 0          # idempotent: a second run is a no-op
    assert first == {p.name: p.read_text() for p in (copy / "notebooks").glob("*.ipynb")}
    for path in NOTEBOOKS:
        old = nbformat.read(path, as_version=4)
        new = nbformat.read(copy / "notebooks" / path.name, as_version=4)
        if old.cells and old.cells[0].get("id") == notebook_links.LINKS_ID:
            old.cells = old.cells[2:]                 # already there (and executed): compare the rest
        else:
            assert new.cells[1].execution_count is None   # inserted now: never run by the tool
        assert [c.id for c in new.cells[:2]] == ["attnlab-links", "attnlab-colab"]
        assert new.cells[0].cell_type == "markdown" and new.cells[1].cell_type == "code"
        assert f"blob/{BRANCH}/notebooks/{path.name}" in new.cells[0].source
        assert new.cells[1].outputs == []        # a no-op where attnlab imports: nothing printed
        assert json.dumps(new.cells[2:], sort_keys=True) == json.dumps(old.cells, sort_keys=True)
        assert new.metadata == old.metadata
        assert "<img" not in new.cells[0].source and "![" not in new.cells[0].source   # no outside request


def test_check_names_what_is_stale(copy, capsys):
    nb = copy / "notebooks" / NOTEBOOKS[0].name
    data = nbformat.read(nb, as_version=4)
    data.cells = [c for c in data.cells if c.get("id") not in ("attnlab-links", "attnlab-colab")]
    nbformat.write(data, nb)
    assert run(copy, "--check") == 1
    assert f"out of date: {nb}" in capsys.readouterr().out


def test_a_fork_changes_one_line_and_every_link_follows(copy):
    text = (copy / "pyproject.toml").read_text()
    assert f'Repository = "{URL}"' in text
    (copy / "pyproject.toml").write_text(text.replace(f'Repository = "{URL}"',
                                                      'Repository = "https://github.com/someone/attn-fork"'))
    assert run(copy) == 0
    readme = (copy / "README.md").read_text()
    assert "someone/attn-fork" in readme and f"gh/{SLUG}/" not in readme
    assert 'repository-code: "https://github.com/someone/attn-fork"' in (copy / "CITATION.cff").read_text()
    for p in (copy / "notebooks").glob("*.ipynb"):
        head = "".join(c.source for c in nbformat.read(p, as_version=4).cells[:2])
        assert "someone/attn-fork" in head and f"{SLUG}/" not in head


class FakeShell:
    def __init__(self):
        self.magics = []

    def run_line_magic(self, name, line, *a, **k):
        self.magics.append((name, line))


def run_install_cell(block_attnlab, monkeypatch, version=None, released=False):
    """Run the install cell as IPython would (magics transformed), with a shell that records them."""
    source = notebook_links.install_source(repo_links.repo(), version, released)
    code = TransformerManager().transform_cell(source)
    shell = FakeShell()
    if block_attnlab:
        real_import = builtins.__import__

        def no_attnlab(name, *a, **k):
            if name == "attnlab" or name.startswith("attnlab."):
                raise ImportError("No module named 'attnlab'")
            return real_import(name, *a, **k)
        monkeypatch.setattr(builtins, "__import__", no_attnlab)
    try:
        exec(compile(code, "<install cell>", "exec"), {"get_ipython": lambda: shell})
    finally:
        monkeypatch.undo()
    return shell.magics


def test_install_cell_does_nothing_when_attnlab_imports(monkeypatch):
    assert run_install_cell(False, monkeypatch) == []


def test_install_cell_installs_a_released_version_by_name_without_upgrading(monkeypatch):
    magics = run_install_cell(True, monkeypatch, "1.2.3", True)
    assert magics == [("pip", 'install -q "attnlab==1.2.3"')]
    source = notebook_links.install_source(repo_links.repo(), "1.2.3", True)
    assert source.startswith("# Colab: install attnlab 1.2.3 from PyPI when it is missing")
    assert not re.search(r"\s(-U|--upgrade|--force-reinstall)\b", source)


def test_install_cell_installs_an_unreleased_version_from_the_repository(monkeypatch):
    assert run_install_cell(True, monkeypatch, "1.2.3", False) == [
        ("pip", f'install -q "attnlab @ git+https://github.com/{SLUG}@{BRANCH}"')]
    assert "attnlab 1.2.3 from its repository (not on PyPI yet)" in notebook_links.install_source(
        repo_links.repo(), "1.2.3", False)


def test_the_stored_install_cell_follows_the_version_and_the_changelog():
    v = repo_links.version()
    for lang, paths in (("en", NOTEBOOKS), ("zh", sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")))):
        expected = notebook_links.install_source(repo_links.repo(), v, repo_links.released(v), lang)
        for path in paths:
            assert nbformat.read(path, as_version=4).cells[1].source == expected, path


@pytest.mark.parametrize("released", [False, True])
def test_the_chinese_install_cell_has_the_same_code_and_chinese_comments(released):
    """issue 39: a Chinese notebook's code comments are Chinese, the generated Colab cell's too."""
    en = notebook_links.install_source(repo_links.repo(), "1.2.3", released, "en")
    zh = notebook_links.install_source(repo_links.repo(), "1.2.3", released, "zh")
    def code(source):
        return [line.split("#")[0].rstrip() for line in source.splitlines()]
    assert code(en) == code(zh)
    comments = [line.split("#", 1)[1] for line in zh.splitlines() if "#" in line]
    assert len(comments) == 2 and all(re.search(r"[\u4e00-\u9fff]", c) for c in comments), comments


def test_install_cell_prints_nothing_in_a_real_kernel(tmp_path):
    """Executed by a kernel where attnlab imports (as in Lab, Voila, Binder): no output at all."""
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(notebook_links.install_source(repo_links.repo()))])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    assert nb.cells[0].outputs == []


def test_readme_badges_are_current():
    text = (ROOT / "README.md").read_text()
    assert notebook_links.update_readme(text, repo_links.repo()) == text, "run python tools/notebook_links.py"


def test_stored_notebooks_have_current_links():
    """Fails until `python tools/notebook_links.py` has been run on the notebooks (it executes nothing)."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "notebook_links.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout


def test_every_notebook_links_its_twin_and_chinese_ones_run_live_from_their_own_folder():
    """English <-> 中文 at the top of every notebook; a Chinese notebook's Colab and Binder links open
    notebooks/zh/<same name>, from the same single address."""
    r = repo_links.repo()
    for path in NOTEBOOKS:
        en = nbformat.read(path, as_version=4).cells[0].source
        zh_path = ROOT / "notebooks" / "zh" / path.name
        assert zh_path.exists(), f"{path.name} has no Chinese twin"
        zh = nbformat.read(zh_path, as_version=4).cells[0].source
        assert f"[中文](zh/{path.name})" in en and f"[English](../{path.name})" in zh
        assert r.colab(f"zh/{path.name}") in zh and r.binder_voila(f"zh/{path.name}") in zh
        assert r.binder_lab(f"zh/{path.name}") in zh and "notebooks%2Fzh%2F" in r.binder_lab(f"zh/{path.name}")
