"""The README and the docs name only paths that exist, so they cannot go stale again (issue 43).

Checked in README*.md and docs/*.md:
- every repository path written in backticks (inline or in a fenced block, commands included): a word
  whose first part is an entry at the top of the repository (`attnlab/core/checks.py`, `tests/...`,
  `pyproject.toml` is left alone: a bare name has no folder to tell it from a module or a URL part);
- every relative markdown link, `[text](docs/x.md#anchor)`: the file, and the heading its anchor names.

Left out: paths made at run time (RUN_TIME) and placeholders (`notebooks/NN_<stem>.ipynb`, `*.png`).
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN_TIME = ("build/", ".venv/", ".venv-ipywidgets7/", ".venv-latest/", "screenshots/", "bench/results/")
PLACEHOLDER = re.compile(r"[<>*{}…$]|\.\.\.|NN")
CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.M)


def documents():
    return sorted(ROOT.glob("README*.md")) + sorted((ROOT / "docs").glob("*.md"))


def top_level():
    """The names at the top of the repository that a path in the docs can start with."""
    return {p.name for p in ROOT.iterdir()} - {r.rstrip("/") for r in RUN_TIME if r.count("/") == 1}


def backticked_paths(text, top):
    """(line, path) for each word in backticks that starts with a top-level entry of the repository."""
    found = []
    for span in CODE.finditer(text):
        first = text.count("\n", 0, span.start()) + 1
        for line, words in enumerate(span.group(0).split("\n"), first):
            for word in words.split():
                word = word.strip("`'\"(),;:").removesuffix("'s").rstrip(".").split("::")[0]
                word = re.sub(r":\d+$", "", word)                       # a line number
                if "/" in word and word.split("/")[0] in top and not PLACEHOLDER.search(word):
                    found.append((line, word))
    return found


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def links(text):
    """(line, target) for each relative markdown link (no scheme, not a bare #anchor)."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(text)
            if not re.match(r"[a-z]+:", m.group(1)) and not m.group(1).startswith("#")]


def missing(doc, top=None):
    """What `doc` names that does not exist: 'file:line: path' for each."""
    text, top = doc.read_text(encoding="utf-8"), top or top_level()
    name = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc.name
    problems = [f"{name}:{line}: {path}" for line, path in backticked_paths(text, top)
                if not path.startswith(RUN_TIME) and not (ROOT / path).exists()]
    for line, target in links(text):
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve()
        if not path.exists():
            problems.append(f"{name}:{line}: link {target}")
        elif anchor and path.suffix == ".md" and anchor not in {slug(h) for h in
                                                                HEADING.findall(path.read_text(encoding="utf-8"))}:
            problems.append(f"{name}:{line}: link {target}: no such heading")
    return problems


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_and_link_in_the_docs_exists(doc):
    assert missing(doc) == []


def test_the_docs_name_many_paths_and_the_check_reads_them():
    """Not vacuous: the README and the docs name dozens of paths and links, and every kind is read."""
    top = top_level()
    paths = [p for doc in documents() for _, p in backticked_paths(doc.read_text(encoding="utf-8"), top)]
    assert len(paths) > 50 and "tests/test_layers.py" in paths and "attnlab/core/checks.py" in paths
    assert len([t for doc in documents() for _, t in links(doc.read_text(encoding="utf-8"))]) > 20
    assert {"README.md", "README.zh.md"} <= {d.name for d in documents()}


def test_a_stale_path_a_dead_link_and_a_missing_heading_are_found(tmp_path):
    doc = tmp_path / "stale.md"
    doc.write_text("# Title\n\nSee `attnlab/panels.py` and `tests/test_thumbnails.py -k x`, run\n"
                   "```bash\n.venv/bin/python bench/bench_gone.py\n```\n"
                   "[ok](stale.md#title) [gone](notebooks/11_nowhere.ipynb) [anchor](stale.md#nowhere)\n"
                   "Fine: `build/site/index.html`, `notebooks/NN_<stem>.ipynb`, `attnlab/core/checks.py:12`,\n"
                   "`bench/results/x.log`, `docs/glossary.md's` terms,\n"
                   "`tests/test_layers.py::test_x`, `image/png`, [web](https://example.org/x).\n",
                   encoding="utf-8")
    assert missing(doc) == ["stale.md:3: attnlab/panels.py", "stale.md:3: tests/test_thumbnails.py",
                            "stale.md:5: bench/bench_gone.py", "stale.md:7: link notebooks/11_nowhere.ipynb",
                            "stale.md:7: link stale.md#nowhere: no such heading"]


def test_slug_is_githubs_anchor():
    assert slug("A learner's laptop: `make dashboard`") == "a-learners-laptop-make-dashboard"
    assert slug("Glossary · 术语表") == "glossary--术语表"
