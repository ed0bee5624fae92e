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

ROOT = Path(__file__).resolve().parents[2]
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
    assert len(paths) > 50 and "tests/project/test_layers.py" in paths and "attnlab/core/checks.py" in paths
    assert len([t for doc in documents() for _, t in links(doc.read_text(encoding="utf-8"))]) > 20
    assert {"README.md", "README.zh.md"} <= {d.name for d in documents()}


def test_a_stale_path_a_dead_link_and_a_missing_heading_are_found(tmp_path):
    doc = tmp_path / "stale.md"
    doc.write_text("# Title\n\nSee `attnlab/panels.py` and `tests/test_thumbnails.py -k x`, run\n"
                   "```bash\n.venv/bin/python bench/bench_gone.py\n```\n"
                   "[ok](stale.md#title) [gone](notebooks/11_nowhere.ipynb) [anchor](stale.md#nowhere)\n"
                   "Fine: `build/site/index.html`, `notebooks/NN_<stem>.ipynb`, `attnlab/core/checks.py:12`,\n"
                   "`bench/results/x.log`, `docs/glossary.md's` terms,\n"
                   "`tests/project/test_layers.py::test_x`, `image/png`, [web](https://example.org/x).\n",
                   encoding="utf-8")
    assert missing(doc) == ["stale.md:3: attnlab/panels.py", "stale.md:3: tests/test_thumbnails.py",
                            "stale.md:5: bench/bench_gone.py", "stale.md:7: link notebooks/11_nowhere.ipynb",
                            "stale.md:7: link stale.md#nowhere: no such heading"]


def test_slug_is_githubs_anchor():
    assert slug("A learner's laptop: `make dashboard`") == "a-learners-laptop-make-dashboard"
    assert slug("Glossary · 术语表") == "glossary--术语表"


# ---- the project's design is in the project: no file cites a document outside the repository
MARKDOWN_NAME = re.compile(r"(?<![\w/.-])((?:\.\./|/)?[\w./-]*\.md)\b")
OUTSIDE = re.compile(r"\.\./shared\b|/work/\w+")


MADE = {"report.md"}                   # tests/browser/a11y.py writes build/a11y/report.md


def outside_citations(files, names):
    """'file: name' for each markdown document a file names that the repository does not hold (``names``: the
    repository's file names), and each path into a folder beside it (``../shared``, ``/work/...``). ``files``:
    {path: text}."""
    found = []
    for path, text in sorted(files.items()):
        for m in MARKDOWN_NAME.finditer(text):
            cited = m.group(1)
            if (Path(cited).name not in names or cited.startswith(("../", "/"))) and not cited.startswith(RUN_TIME) \
                    and cited not in MADE:
                found.append(f"{path}: {cited}")
        found += [f"{path}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    return found


def tracked_text_files():
    import subprocess
    listed = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    files = {}
    for name in listed:
        if name == "tests/project/test_doc_paths.py":                   # this rule's own examples
            continue
        try:
            files[name] = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue                                            # binaries (checkpoints, fonts, pictures)
    return files, {Path(n).name for n in listed}


def test_no_file_cites_a_document_outside_the_repository():
    """docs/architecture.md and docs/api.md are the design; code, tests, notebooks and docs cite them, never a
    file the repository does not hold (a design document of the machine it was written on)."""
    files, names = tracked_text_files()
    assert len(files) > 300 and "docs/architecture.md" in files
    assert outside_citations(files, names) == []


def test_an_outside_citation_is_found():
    files = {"attnlab/x.py": '"""The names DESIGN.md\'s block documents."""\n',
             "docs/a.md": "See [the style](../shared/STYLE.md) and `docs/api.md`; run /work/shared/tools/look.py.\n",
             "tests/t.py": "# as docs/architecture.md says; build/a11y/report.md is made at run time\n"}
    assert outside_citations(files, {"api.md", "architecture.md"}) == [
        "attnlab/x.py: DESIGN.md", "docs/a.md: ../shared/STYLE.md", "docs/a.md: ../shared", "docs/a.md: /work/shared"]
