"""Put "run it live" links and a Colab install cell at the top of every notebook, and the Binder
badges in the README, and CITATION.cff's address and version, all built from the one repository
address in pyproject.toml (tools/repo_links.py) and the version in attnlab/__init__.py. Idempotent; executes nothing.

    python tools/notebook_links.py            # rewrite notebooks/*.ipynb and README.md where needed
    python tools/notebook_links.py --check    # exit 1, naming the files, if anything is out of date

In each notebook it keeps exactly two cells at the top, found by their cell ids:
  "attnlab-links"  markdown: Open in Colab · Binder (JupyterLab) · Binder (dashboard) · English / 中文
                   (the twin in the other language: notebooks/zh/ holds the Chinese notebooks under the
                   same names). Plain links, no badge images, so a page served offline loads nothing
                   from outside.
  "attnlab-colab"  code: installs attnlab ONLY when `import attnlab` fails (Colab): the released
                   version by name from PyPI (`attnlab==X.Y.Z`, attnlab/__init__.py's version, once
                   CHANGELOG.md dates it), else from the repository; no upgrade of what Colab has
                   and attnlab accepts (no -U). In JupyterLab, Voila and Binder attnlab imports, so the cell does
                   nothing and prints nothing; Voila strips its source.
Existing cells with those ids are updated in place (and moved to the top); no other cell, output
or metadata changes, so the notebooks stay executed. Run it after changing the address, then
re-execute nothing: the install cell has no output by design.
"""
import argparse
import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from repo_links import ROOT, released, repo, version

LINKS_ID, INSTALL_ID = "attnlab-links", "attnlab-colab"
README_START, README_END = "<!-- links: start (tools/notebook_links.py writes this block) -->", "<!-- links: end -->"


def links_source(r, name, lang="en"):
    """The top cell: run it live (Colab, Binder Lab, Binder Voila) and the twin in the other language.

    ``name`` is the notebook's file name; a Chinese notebook lives in notebooks/zh/ under the same name."""
    if lang == "zh":
        path = f"zh/{name}"
        return (f"*在线运行：*[在 Colab 中打开]({r.colab(path)}) · "
                f"[Binder（JupyterLab）]({r.binder_lab(path)}) · "
                f"[Binder（仪表盘）]({r.binder_voila(path)}) · "
                f"**中文** / [English](../{name})")
    return (f"*Run it live:* [Open in Colab]({r.colab(name)}) · "
            f"[Binder (JupyterLab)]({r.binder_lab(name)}) · "
            f"[Binder (dashboard)]({r.binder_voila(name)}) · "
            f"**English** / [中文](zh/{name})")


def install_source(r, version=None, released=False, lang="en"):
    """The Colab cell: ``version`` from PyPI when ``released``, else the repository's (its version named);
    its comments in the notebook's language (the code is the same in both)."""
    spec = r.pip_spec(version if released else None)
    named = f"attnlab {version}" if version else "attnlab"
    if lang == "zh":
        where = "从 PyPI" if released else "从它的代码仓库（尚未发布到 PyPI）"
        first = f"# Colab：缺少 attnlab 时{where}安装 {named}；在其他环境中，这个单元什么也不做。\n"
        again = "# 让下一次 import 能找到它"
    else:
        where = "from PyPI" if released else "from its repository (not on PyPI yet)"
        first = f"# Colab: install {named} {where} when it is missing; elsewhere this does nothing.\n"
        again = "# so the next import finds it"
    return (first +
            "try:\n"
            "    import attnlab\n"
            "except ImportError:\n"
            f"    %pip install -q \"{spec}\"\n"
            f"    import importlib; importlib.invalidate_caches()   {again}")


def update_notebook(nb, r, name, lang="en", version=None, released=False):
    """Return True when nb changed. The two cells are put at positions 0 and 1."""
    cells = {c.get("id"): c for c in nb.cells if c.get("id") in (LINKS_ID, INSTALL_ID)}
    links = cells.get(LINKS_ID) or nbformat.v4.new_markdown_cell(id=LINKS_ID)
    install = cells.get(INSTALL_ID) or nbformat.v4.new_code_cell(id=INSTALL_ID)
    before = nbformat.writes(nb)
    links.source = links_source(r, name, lang)
    install.source = install_source(r, version, released, lang)
    install.metadata.setdefault("tags", [])
    if "attnlab-colab-install" not in install.metadata["tags"]:
        install.metadata["tags"].append("attnlab-colab-install")
    links.metadata.setdefault("tags", [])
    if "attnlab-links" not in links.metadata["tags"]:
        links.metadata["tags"].append("attnlab-links")
    rest = [c for c in nb.cells if c.get("id") not in (LINKS_ID, INSTALL_ID)]
    nb.cells = [links, install, *rest]
    return nbformat.writes(nb) != before


def readme_block(r, lang="en"):
    index = "00_index.ipynb" if lang == "en" else "zh/00_index.ipynb"
    return "\n".join([
        README_START,
        f"[![CI]({r.ci()}/badge.svg)]({r.ci()})",
        f"[![Binder: JupyterLab](https://mybinder.org/badge_logo.svg)]({r.binder_lab(index)})",
        f"[![Binder: dashboards (Voila)](https://img.shields.io/badge/launch-dashboards%20(Voila)-579ACA.svg)]({r.binder_voila(index)})",
        f"[![Open in Colab](https://colab.research.google.com/assets/colab-badge.svg)]({r.colab(index)})",
        README_END])


def update_readme(text, r, lang="en"):
    pattern = re.compile(re.escape(README_START) + r".*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"README: expected a block between {README_START!r} and {README_END!r}")
    return pattern.sub(lambda _: readme_block(r, lang), text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is out of date")
    ap.add_argument("--notebooks", default=str(ROOT / "notebooks"))
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    ap.add_argument("--pyproject", default=str(ROOT / "pyproject.toml"))
    a = ap.parse_args(argv)
    r = repo(a.pyproject)
    checkout = Path(a.pyproject).resolve().parent
    v = version(checkout / "attnlab" / "__init__.py")
    is_released = released(v, checkout / "CHANGELOG.md")
    stale = []
    paths = [(p, "en") for p in sorted(Path(a.notebooks).glob("*.ipynb"))]
    paths += [(p, "zh") for p in sorted((Path(a.notebooks) / "zh").glob("*.ipynb"))]
    for path, lang in paths:
        text = path.read_text(encoding="utf-8")
        nb = nbformat.reads(text, as_version=4)
        update_notebook(nb, r, path.name, lang, v, is_released)
        new = nbformat.writes(nb) + "\n"
        if new != text:
            stale.append(path)
            if not a.check:
                path.write_text(new, encoding="utf-8")
    readme = Path(a.readme)
    for path, lang in ((readme, "en"), (readme.with_name("README.zh.md"), "zh")):
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        new = update_readme(text, r, lang)
        if new != text:
            stale.append(path)
            if not a.check:
                path.write_text(new, encoding="utf-8")
    citation = checkout / "CITATION.cff"          # the address and the version a citation names
    if citation.exists():
        text = citation.read_text(encoding="utf-8")
        new = re.sub(r'^repository-code: .*$', f'repository-code: "{r.url}"', text, flags=re.M)
        new = re.sub(r'^version: .*$', f'version: {v}', new, flags=re.M)
        if new != text:
            stale.append(citation)
            if not a.check:
                citation.write_text(new, encoding="utf-8")
    for p in stale:
        print(("out of date: " if a.check else "updated: ") + str(p))
    return 1 if (a.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
