"""The `attnlab` command (attnlab/cli.py): `attnlab notebooks` copies the notebooks and voila.json,
never over a learner's edits; `attnlab serve` starts Voila as `make dashboard` does (checked here
without starting it: tests/browser/test_pip_voila.py serves from an installed wheel); `serve` and
`lab` say which extra to install when Voila or JupyterLab is missing; the command imports no server."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab import cli

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def repo_notebooks(lang=None):
    en = sorted(p.relative_to(NOTEBOOKS) for p in NOTEBOOKS.glob("*.ipynb"))
    zh = sorted(p.relative_to(NOTEBOOKS) for p in (NOTEBOOKS / "zh").glob("*.ipynb"))
    return {None: en + zh, "en": en, "zh": zh}[lang]


@pytest.mark.parametrize("lang", [None, "en", "zh"])
def test_notebooks_copies_every_notebook_of_the_language_and_the_settings(tmp_path, lang, capsys):
    args = ["notebooks", str(tmp_path / "mine")] + (["--lang", lang] if lang else [])
    assert cli.main(args) == 0
    copied = sorted(p.relative_to(tmp_path / "mine") for p in (tmp_path / "mine").rglob("*.ipynb"))
    assert copied == repo_notebooks(lang) and len(copied) >= (12 if lang else 24)
    for rel in copied:
        assert (tmp_path / "mine" / rel).read_bytes() == (NOTEBOOKS / rel).read_bytes()
    assert (tmp_path / "mine" / "voila.json").read_bytes() == (ROOT / "voila.json").read_bytes()
    start = "zh/00_index.ipynb" if lang == "zh" else "00_index.ipynb"
    said = f"从 '{tmp_path / 'mine' / start}' 开始" if lang == "zh" else f"start with '{tmp_path / 'mine' / start}'"
    assert said in capsys.readouterr().out


def test_notebooks_never_overwrites_a_learners_edits_without_force(tmp_path, capsys):
    assert cli.main(["notebooks", str(tmp_path)]) == 0
    assert cli.main(["notebooks", str(tmp_path)]) == 0            # unchanged copies: again is fine
    edited = tmp_path / "01_kernel_regression.ipynb"
    edited.write_text("my notes")
    assert cli.main(["notebooks", str(tmp_path)]) == 1
    assert "differ from the package's (your edits?)" in capsys.readouterr().err
    assert edited.read_text() == "my notes"
    with pytest.raises(FileExistsError, match=r"1 notebook\(s\) in .* differ from the package's .*pass --force"):
        cli.copy_notebooks(tmp_path)
    assert cli.main(["notebooks", str(tmp_path), "--force"]) == 0
    assert edited.read_bytes() == (NOTEBOOKS / edited.name).read_bytes()


def test_notebooks_into_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match=r"DIR: expected a folder, got the file"):
        cli.copy_notebooks(tmp_path / "f")


def test_a_wheels_layout_is_found_before_a_checkout(tmp_path, monkeypatch):
    """Installed from the wheel, the notebooks are attnlab/notebooks/ (voila.json beside them)."""
    package = tmp_path / "site" / "attnlab"
    (package / "notebooks" / "zh").mkdir(parents=True)
    for rel in ("00_index.ipynb", "zh/00_index.ipynb", "voila.json"):
        (package / "notebooks" / rel).write_text(rel)
    monkeypatch.setattr(cli, "PACKAGE", package)
    assert cli.shipped() == (package / "notebooks", package / "notebooks")
    assert [str(p) for p in cli.notebook_files("zh")] == ["zh/00_index.ipynb"]
    monkeypatch.setattr(cli, "PACKAGE", tmp_path / "nowhere" / "attnlab")
    with pytest.raises(FileNotFoundError, match=r"no notebooks found in .*reinstall the package"):
        cli.shipped()


def test_bad_language_and_port_are_refused():
    with pytest.raises(ValueError, match=r"lang: expected one of \('en', 'zh'\), got 'fr'"):
        cli.index_page("fr")
    with pytest.raises(ValueError, match=r"lang: expected one of \('en', 'zh'\) or None, got 'de'"):
        cli.notebook_files("de")
    for port in (0, 70000, "8866", True):
        with pytest.raises(ValueError, match=r"port: expected an integer from 1 to 65535, got"):
            cli.serve_command(NOTEBOOKS, "en", port)
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["serve", "--lang", "fr"])


@pytest.mark.parametrize("lang, page", [("en", "00_index.ipynb"), ("zh", "zh/00_index.ipynb")])
def test_serve_starts_voila_as_make_dashboard_does(lang, page):
    argv, got = cli.serve_command(NOTEBOOKS, lang, 9001)
    assert got == page and argv[:4] == [sys.executable, "-m", "voila", str(NOTEBOOKS)]
    assert "--no-browser" in argv and "--port=9001" in argv and "--Voila.ip=127.0.0.1" in argv
    pools = json.loads(next(a for a in argv if a.startswith("--VoilaKernelManager.kernel_pools_config=")).split("=", 1)[1])
    assert pools == {page: {"pool_size": 1}, "default": {"pool_size": 0}}
    # the Makefile's dashboard target preheats the same page the same way
    assert '{"$(DASHBOARD_PAGE)": {"pool_size": 1}, "default": {"pool_size": 0}}' in (ROOT / "Makefile").read_text()


def test_serve_runs_voila_where_voila_json_is(monkeypatch, tmp_path):
    calls = []

    class Server:
        def __init__(self, argv, cwd, env):
            calls.append((argv, cwd, env))

        def wait(self):
            return 0
    monkeypatch.setattr(cli.subprocess, "Popen", Server)
    monkeypatch.setattr(cli, "_need", lambda module, command: None)
    assert cli.main(["serve", "--lang", "zh", "--port", "9002", "--no-browser"]) == 0
    (argv, cwd, env), = calls
    assert (Path(cwd) / "voila.json").read_bytes() == (ROOT / "voila.json").read_bytes()
    assert argv[3] == str(NOTEBOOKS.resolve()) and env["OMP_NUM_THREADS"]
    with pytest.raises(SystemExit, match=r"attnlab serve: DIR: no zh/00_index.ipynb in .*attnlab notebooks"):
        cli.serve(tmp_path, "zh", 9003, browser=False)


@pytest.mark.parametrize("command, module", [("serve", "voila"), ("lab", "jupyterlab")])
def test_serve_and_lab_name_the_extra_when_their_server_is_missing(monkeypatch, command, module):
    real = cli.importlib.util.find_spec
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: None if name == module else real(name))
    with pytest.raises(SystemExit, match=rf"attnlab {command}: {module} is not installed; .*attnlab\[dashboard\]"):
        cli.main([command, "--no-browser"] if command == "serve" else [command])


def test_the_command_imports_no_server(tmp_path):
    code = ("import sys; from attnlab import cli; cli.main(['notebooks', sys.argv[1], '--lang', 'en']); "
            "print(sorted(m for m in ('voila', 'jupyter_server', 'tornado', 'jupyterlab', 'notebook') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    assert out.strip().endswith("[]"), out


HEAVY = ("torch", "numpy", "matplotlib", "ipywidgets")


def heavy_imports(importtime_log):
    """The heavy packages a `python -X importtime` log (its stderr) shows imported."""
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in importtime_log.splitlines() if "|" in line}
    return sorted(names & set(HEAVY))


def test_attnlab_help_imports_no_torch(tmp_path):
    """`attnlab --help` answers at once: it imports neither torch nor numpy, matplotlib or ipywidgets (read from
    Python's own import log, not timed); nor does copying the notebooks. `import attnlab` itself is light: the
    contract's names (attnlab.causal_mask ...) import their core module, and torch, on first use."""
    log = subprocess.run([sys.executable, "-X", "importtime", "-m", "attnlab", "--help"], capture_output=True,
                         text=True, cwd=ROOT, check=True).stderr
    assert "attnlab.cli" in log and heavy_imports(log) == []
    assert heavy_imports("import time:       150 |        150 |   torch\nimport time: 9 | 9 |     numpy.core") == [
        "numpy", "torch"]                                                    # the rule can fail
    code = ("import sys, attnlab; from attnlab import cli; cli.main(['notebooks', sys.argv[1], '--lang', 'zh']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in {}))".format(HEAVY))
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip().endswith("[]"), out
    code = "import sys, attnlab; attnlab.causal_mask(2, 2); print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.strip() == "True"


def test_python_dash_m_attnlab_is_the_command():
    out = subprocess.run([sys.executable, "-m", "attnlab", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "{notebooks,serve,lab}" in out.stdout


def section(text, heading):
    body = text.split(f"\n{heading}\n", 1)[1]
    return body.split("\n## ", 1)[0].strip("\n")


@pytest.mark.parametrize("readme, heading, beside", [("README.md", "## Install (to learn)", "## Two commands"),
                                                     ("README.zh.md", "## 安装（学习用）", "## 两条命令")])
def test_the_readmes_install_section_is_short_and_names_the_commands(readme, heading, beside):
    """A learner's way in, <= 15 lines, beside the two make commands; the README stays <= 120 lines."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    install = section(text, heading)
    assert len(install.splitlines()) <= 15, install
    assert 'pip install "attnlab[dashboard]"' in install and "attnlab serve --lang zh" in install
    assert "attnlab notebooks" in install and "download.pytorch.org/whl/cpu" in install
    after = text.split(f"\n{heading}\n", 1)[1]
    assert after.split("\n## ", 1)[1].startswith(beside.removeprefix("## "))
    assert "make dashboard" in section(text, next(h for h in text.splitlines() if h.startswith(beside)))
    assert len(text.splitlines()) <= 120


@pytest.mark.parametrize("argv,env,said", [
    (["serve", "--help"], {}, "the edition whose index opens"),
    (["serve", "--lang", "zh", "--help"], {}, "打开哪个版本的目录页"),
    (["lab", "--lang=zh", "--help"], {}, "打开哪个版本的目录页"),
    (["notebooks", "--help"], {"ATTNLAB_LANG": "zh"}, "复制到哪里"),
    (["serve", "--lang", "en", "--help"], {"ATTNLAB_LANG": "zh"}, "the edition whose index opens"),
])
def test_the_commands_messages_are_in_the_language_asked_for(argv, env, said):
    """--lang chooses the language of the command's own help and messages; without it, the learner's
    (ATTNLAB_LANG, as attnlab.get_language() reads it). Run as a process: the language is read at start."""
    import os
    done = subprocess.run([sys.executable, "-m", "attnlab", *argv], capture_output=True, text=True,
                          env={**os.environ, "ATTNLAB_LANG": "en", **env}, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert said in done.stdout, done.stdout
