"""Keep the Chinese notebooks (notebooks/zh/) in step with the English ones (notebooks/).

    python tools/translations.py --check               exit 1, listing every problem (make test runs it)
    python tools/translations.py --status              a table per notebook: cells, translated, stale, missing
    python tools/translations.py --init NN             a new notebooks/zh/NN_<stem>.ipynb: the English cells,
                                                       prose still English (untranslated), code with the
                                                       language line
    python tools/translations.py --sync [NN ...]       after editing English notebooks: code cells copied
                                                       (outputs of changed ones cleared: re-execute), cells
                                                       added or removed as the English did, translated
                                                       prose kept; stale prose is left to the translator
    python tools/translations.py --stamp NN [ID ...]   after updating translations: record that the zh
                                                       cells (all, or these ids) translate the English
                                                       cells' current text

Every Chinese markdown cell carries ``metadata.attnlab_translation = {"source": <English cell id>,
"sha": <first 16 hex of the SHA-256 of that cell's source when it was translated>}``. A Chinese
cell is
  stale         when its English cell's text changed since (the sha differs),
  untranslated  when it has no Chinese character though its English twin has prose,
  an orphan     when its English cell is gone,
  markdown      when bold/italic markers would show as text (``**下一步：**从``: see unrendered_emphasis);
an English cell is missing when no Chinese cell translates it. Code cells keep the English cell's
id and must equal its code, except the first code cell after the Colab install cell, which
begins with LANGUAGE_LINE. Only the comments may differ (a Chinese cell's comments are Chinese): the
code is compared as Python's tokenizer reads it with the comments left out (``code_tokens``: a ``#``
inside a string is code), and a Chinese cell's comment in English (Latin words and no Chinese
character: ``english_comments``) is a problem of its own. The two "run it live" cells at the top
(attnlab-links, attnlab-colab) are written by tools/notebook_links.py for each language and are not compared here.
"""
import argparse
import copy
import hashlib
import io
import re
import sys
import tokenize
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
EN_DIR = ROOT / "notebooks"
ZH_DIR = EN_DIR / "zh"
KEY = "attnlab_translation"
LANGUAGE_LINE = 'import attnlab; attnlab.set_language("zh")   # 中文版：图、控件和自测题都用中文'
GENERATED = {"attnlab-links", "attnlab-colab"}
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LETTERS = re.compile(r"[A-Za-z]{3,}")


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def twin(en_path):
    return ZH_DIR / en_path.name


def english_notebooks():
    return sorted(EN_DIR.glob("[0-9][0-9]_*.ipynb"))


def find(number):
    """notebooks/NN_*.ipynb for 'NN' (or a file name)."""
    matches = [p for p in english_notebooks() if p.name.startswith(f"{int(number):02d}_")] if str(number).isdigit() \
        else [p for p in english_notebooks() if p.name == Path(number).name]
    if len(matches) != 1:
        raise SystemExit(f"no single English notebook for {number!r}")
    return matches[0]


def _cells(nb):
    return [c for c in nb.cells if c.get("id") not in GENERATED]


def language_cell_id(en_nb):
    """Id of the English code cell whose Chinese twin starts with LANGUAGE_LINE."""
    return next((c.id for c in _cells(en_nb) if c.cell_type == "code"), None)


def zh_code_source(en_cell, en_nb):
    if en_cell.id == language_cell_id(en_nb):
        return LANGUAGE_LINE + "\n" + en_cell.source
    return en_cell.source


def code_tokens(source):
    """The cell as Python's tokenizer reads it, without its comments and without the layout that
    comments bring (blank and comment-only lines, the spaces before a comment): a list of (type,
    text). A ``#`` inside a string is part of the string token, so it is code. A cell the tokenizer
    cannot read (a cell magic, unbalanced brackets) is compared as its text, line by line."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [(None, line.rstrip()) for line in source.splitlines() if line.strip()]
    # a NEWLINE token's text is "" on a last line without "\n", so only its type is compared
    return [(t.type, "" if t.type == tokenize.NEWLINE else t.string) for t in tokens
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)]


def comments(source):
    """The comments of a code cell (``#`` and after), as the tokenizer finds them; none if it cannot read it."""
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


# What a comment may hold in Latin letters and still be code, not English: a name with an underscore,
# a digit or a dot (d_k, float64, al.masked_softmax, .samples), a call or an index (exp(, x[), a name in
# capitals (VOCAB), a symbol of one or two letters (Q, d, LN), and these words of maths and code.
CODE_WORDS = {"softmax", "exp", "inf", "nan", "log", "max", "min", "sum", "mean", "tanh", "sin", "cos",
              "torch", "True", "False", "None", "noqa", "dtype", "shape", "BOS", "FFN", "GRU", "KV"}
_CODE_LIKE = re.compile(r"""`[^`]*`|"[^"]*"|'[^']*'|\.\w+|\b[A-Z][A-Z\d_]+\b|[A-Za-z_][\w.]*(?:[\d_.][\w.]*|\s*[(\[])""")


def english_comments(source):
    """Comments of a Chinese code cell that are still English: no Chinese character, and at least one
    word of three or more Latin letters that is not code (see CODE_WORDS). A comment that is otherwise
    Chinese may name identifiers and formulas freely."""
    found = []
    for text in comments(source):
        body = text.lstrip("#").strip()
        if CJK.search(body):
            continue
        words = [w for w in re.findall(r"[A-Za-z]{3,}", _CODE_LIKE.sub(" ", body)) if w not in CODE_WORDS]
        if words:
            found.append(text)
    return found


PLAIN = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`|\]\([^)]*\)|<[^>]*>", re.S)   # math, code, link targets, tags


def is_untranslated(zh_cell, en_cell):
    """Prose that is still English: unchanged from the English (or without a Chinese character),
    though the English has words outside its formulas, code and link targets."""
    if zh_cell.cell_type != "markdown" or len(LETTERS.findall(PLAIN.sub(" ", en_cell.source))) < 3:
        return False
    return zh_cell.source == en_cell.source or not CJK.search(zh_cell.source)


def unrendered_emphasis(source):
    """Bold/italic markers a Markdown renderer leaves as text: in CommonMark ``**下一步：**从`` does not
    close (a closing ``**`` after punctuation must be followed by a space or punctuation), which
    Chinese text meets often; write ``**下一步**：从`` instead. Checked as nbconvert (Voila, the site)
    renders, outside math and code."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune
    rendered = markdown2html_mistune(source)
    text = re.sub(r"<code>.*?</code>|<pre>.*?</pre>|\$\$.*?\$\$|\$[^$\n]*\$", " ", rendered, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.findall(r".{0,12}(?<![*_])(?:\*\*|__)(?![*_]).{0,12}", text)     # not a ___ blank


def _translation_cell(en_cell):
    cell = nbformat.v4.new_markdown_cell(source=en_cell.source, id=en_cell.id)
    cell.metadata = copy.deepcopy(en_cell.metadata)
    cell.metadata[KEY] = {"source": en_cell.id, "sha": sha(en_cell.source)}
    return cell


def _code_cell(en_cell, en_nb):
    cell = nbformat.v4.new_code_cell(source=zh_code_source(en_cell, en_nb), id=en_cell.id)
    cell.metadata = copy.deepcopy({k: v for k, v in en_cell.metadata.items() if k != "execution"})
    return cell


def compare(en_path):
    """Problems of one pair, as (kind, cell id, text) tuples; kinds: missing, stale, untranslated, orphan,
    code, comment, order, no-twin."""
    zh_path = twin(en_path)
    if not zh_path.exists():
        return [("no-twin", "", f"{zh_path.relative_to(ROOT)} does not exist (tools/translations.py --init)")]
    en_nb, zh_nb = nbformat.read(en_path, as_version=4), nbformat.read(zh_path, as_version=4)
    en_cells = {c.id: c for c in _cells(en_nb)}
    problems, seen, order = [], set(), []
    for cell in _cells(zh_nb):
        if cell.cell_type == "markdown":
            meta = cell.metadata.get(KEY)
            if not meta or meta.get("source") not in en_cells:
                problems.append(("orphan", cell.id, "translates no English cell (its English cell is gone?)"))
                continue
            source = en_cells[meta["source"]]
            seen.add(source.id)
            order.append(source.id)
            if meta.get("sha") != sha(source.source):
                problems.append(("stale", cell.id, "its English cell changed since it was translated"))
            if is_untranslated(cell, source):
                problems.append(("untranslated", cell.id, "still English"))
            elif CJK.search(cell.source) and (left := unrendered_emphasis(cell.source)):
                problems.append(("markdown", cell.id, f"bold/italic markers left as text: {left[0]!r} "
                                                      "(put the punctuation outside the ** markers)"))
        elif cell.cell_type == "code":
            source = en_cells.get(cell.id)
            if source is None or source.cell_type != "code":
                problems.append(("orphan", cell.id, "code cell with no English twin of the same id"))
                continue
            seen.add(source.id)
            order.append(source.id)
            if code_tokens(cell.source) != code_tokens(zh_code_source(source, en_nb)):
                problems.append(("code", cell.id, "differs from the English code cell in more than its comments "
                                                  "(tools/translations.py --sync)"))
            for text in english_comments(cell.source):
                problems.append(("comment", cell.id, f"English comment in a Chinese cell: {text!r}"))
    for cell_id, cell in en_cells.items():
        if cell_id not in seen and cell.cell_type in ("markdown", "code"):
            problems.append(("missing", cell_id, f"English {cell.cell_type} cell has no Chinese twin"))
    en_order = [c.id for c in _cells(en_nb) if c.id in set(order)]
    if [i for i in order if i in en_order] != en_order:
        problems.append(("order", "", "cells are not in the English order"))
    return problems


def init(en_path):
    zh_path = twin(en_path)
    if zh_path.exists():
        raise SystemExit(f"{zh_path.relative_to(ROOT)} exists: use --sync")
    en_nb = nbformat.read(en_path, as_version=4)
    zh_nb = nbformat.v4.new_notebook(metadata=copy.deepcopy({k: v for k, v in en_nb.metadata.items() if k != "widgets"}))
    zh_nb.metadata["language"] = "zh"
    for cell in en_nb.cells:
        if cell.get("id") in GENERATED:
            continue
        zh_nb.cells.append(_translation_cell(cell) if cell.cell_type == "markdown" else _code_cell(cell, en_nb))
    ZH_DIR.mkdir(exist_ok=True)
    nbformat.write(zh_nb, zh_path)
    print(f"wrote {zh_path.relative_to(ROOT)}: translate its markdown cells, then run tools/notebook_links.py")


def sync(en_path):
    """Rebuild the zh cell list in English order: translated prose kept, code copied (a cell whose code is
    unchanged keeps its translated comments), new cells added."""
    zh_path = twin(en_path)
    en_nb, zh_nb = nbformat.read(en_path, as_version=4), nbformat.read(zh_path, as_version=4)
    by_source = {}
    for cell in zh_nb.cells:
        if cell.cell_type == "markdown" and KEY in cell.metadata:
            by_source[cell.metadata[KEY]["source"]] = cell
        elif cell.cell_type == "code":
            by_source.setdefault(cell.id, cell)
    head = [c for c in zh_nb.cells if c.get("id") in GENERATED]
    cells, changed = [], 0
    for en_cell in _cells(en_nb):
        old = by_source.get(en_cell.id)
        if en_cell.cell_type == "markdown":
            cells.append(old if old is not None and old.cell_type == "markdown" else _translation_cell(en_cell))
        else:
            want = zh_code_source(en_cell, en_nb)
            if old is not None and old.cell_type == "code" and code_tokens(old.source) == code_tokens(want):
                cells.append(old)
            else:
                cells.append(_code_cell(en_cell, en_nb))
                changed += 1
    zh_nb.cells = head + cells
    nbformat.write(zh_nb, zh_path)
    print(f"{zh_path.relative_to(ROOT)}: {changed} code cell(s) copied (re-execute the notebook)")


def stamp(en_path, ids):
    zh_path = twin(en_path)
    en_nb, zh_nb = nbformat.read(en_path, as_version=4), nbformat.read(zh_path, as_version=4)
    en_cells = {c.id: c for c in _cells(en_nb)}
    for cell in zh_nb.cells:
        meta = cell.metadata.get(KEY)
        if meta and meta["source"] in en_cells and (not ids or cell.id in ids or meta["source"] in ids):
            meta["sha"] = sha(en_cells[meta["source"]].source)
    nbformat.write(zh_nb, zh_path)


def status_rows():
    rows = []
    for en_path in english_notebooks():
        problems = compare(en_path)
        kinds = [k for k, _i, _t in problems]
        en_nb = nbformat.read(en_path, as_version=4)
        prose = sum(1 for c in _cells(en_nb) if c.cell_type == "markdown")
        missing_md = sum(1 for k, i, _t in problems if k == "missing" and _is_markdown(en_nb, i))
        if "no-twin" in kinds:
            rows.append((en_path.stem, prose, 0, 0, prose))
            continue
        untranslated, stale = kinds.count("untranslated"), kinds.count("stale")
        rows.append((en_path.stem, prose, prose - missing_md - untranslated, stale, missing_md + untranslated))
    return rows


def _is_markdown(nb, cell_id):
    return any(c.id == cell_id and c.cell_type == "markdown" for c in nb.cells)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true")
    group.add_argument("--status", action="store_true")
    group.add_argument("--init", metavar="NN")
    group.add_argument("--sync", nargs="*", metavar="NN")
    group.add_argument("--stamp", nargs="+", metavar=("NN", "ID"))
    args = parser.parse_args(argv)
    if args.init:
        init(find(args.init))
    elif args.sync is not None:
        for path in ([find(n) for n in args.sync] or [p for p in english_notebooks() if twin(p).exists()]):
            sync(path)
    elif args.stamp:
        stamp(find(args.stamp[0]), set(args.stamp[1:]))
    elif args.status:
        print(f"{'notebook':40s} {'prose cells':>11s} {'translated':>10s} {'stale':>5s} {'missing':>7s}")
        for row in status_rows():
            print(f"{row[0]:40s} {row[1]:11d} {row[2]:10d} {row[3]:5d} {row[4]:7d}")
    else:
        found = [(p, problem) for p in english_notebooks() for problem in compare(p)]
        for path, (kind, cell_id, text) in found:
            print(f"notebooks/zh/{path.name} {kind} {cell_id}: {text}".replace("  ", " "))
        if not found:
            print(f"translations: {len(english_notebooks())} Chinese notebooks in step with the English")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
