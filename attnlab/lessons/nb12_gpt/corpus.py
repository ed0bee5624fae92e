"""The training text of notebook 12 (12_gpt.ipynb): the prose of notebooks 00-11 in both languages.

``extract(notebooks)`` reads the markdown cells of ``notebooks/NN_*.ipynb`` and ``notebooks/zh/NN_*.ipynb``
(NN = 00 ... 11) and turns them into paragraphs:
- dropped: fenced code blocks, display maths ``$$...$$``, HTML comments and tags, table rules (|---|),
  image links, the "run it live" line at the top of each notebook;
- kept as plain text: a link's words (not its address), inline code without its backticks, inline maths
  without ``$`` and backslash commands (``$\\sqrt{d_k}$`` -> ``√d_k``), table rows as cells joined by
  " | ", headings and list items without their markers (#, -, *), emphasis without ** or *;
- a paragraph is a run of non-blank lines (line breaks inside it are kept); paragraphs shorter than
  MIN_CHARS are dropped, and a paragraph seen before (the same text) is kept once.
The result is shipped as ``attnlab/core/gpt/corpus.txt`` (paragraphs separated by a blank line), so training
and measurement do not move when the notebooks' prose is edited; ``python -m attnlab.lessons.nb12_gpt corpus``
rewrites it from a checkout. It sits in attnlab.core.gpt, with the model trained on it, because notebook 13
uses both: the reading side (the held-out split, ``vocab``, ``encode``, ``decode``) is
attnlab.core.gpt.corpus, re-exported here.
"""
import json
import re
from pathlib import Path

from ...core import checks
from ...core.gpt.corpus import CORPUS, SEPARATOR, decode, encode, is_heldout, paragraphs, text, vocab

__all__ = ["CORPUS", "MIN_CHARS", "SEPARATOR", "clean", "decode", "encode", "extract", "is_heldout", "paragraphs", "text",
           "vocab", "write"]

MIN_CHARS = 20
_FIRST, _LAST = 0, 11                     # notebooks 00 ... 11: the prose written before this lesson

_FENCE = re.compile(r"```.*?```", re.S)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_INLINE_MATH = re.compile(r"\$([^$\n]+)\$")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_MARKER = re.compile(r"^\s*(#{1,6}\s+|[-*+]\s+|>\s?)")
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ", "lambda": "λ",
          "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "Delta": "Δ", "Sigma": "Σ",
          "times": "×", "cdot": "·", "sum": "Σ", "sqrt": "√", "infty": "∞", "in": "∈",
          "mathbf": "", "mathrm": "", "text": "", "operatorname": "", "left": "", "right": "", "quad": " ", "le": "≤", "ge": "≥", "leq": "≤", "geq": "≥", "to": "→", "approx": "≈"}


def _math(match):
    """Inline maths as plain text: Greek letters and a few operators as characters, other commands as words."""
    inner = _COMMAND.sub(lambda m: _GREEK.get(m.group(1), m.group(1) + " "), match.group(1))
    inner = inner.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", inner).strip()


def _line(line):
    """One markdown line as plain text ('' to drop it)."""
    if _RULE.match(line):
        return ""
    line = _MARKER.sub("", line)
    if line.strip().startswith("|"):                                   # a table row: its cells
        line = " | ".join(c.strip() for c in line.strip().strip("|").split("|"))
    line = line.replace("**", "").replace("__", "")
    line = re.sub(r"(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])", r"\1", line)        # *emphasis*
    return line.replace("`", "").rstrip()


def clean(markdown):
    """A markdown cell's source -> its paragraphs (a list of str)."""
    s = _FENCE.sub("\n\n", markdown)
    s = _DISPLAY_MATH.sub("\n\n", s)
    s = _COMMENT.sub("", s)
    s = _IMAGE.sub("", s)
    s = _LINK.sub(r"\1", s)
    s = _TAG.sub("", s)
    s = _INLINE_MATH.sub(_math, s)
    out = []
    for block in re.split(r"\n\s*\n", s):
        lines = [_line(x) for x in block.split("\n")]
        para = "\n".join(x for x in lines if x.strip()).strip()
        para = re.sub(r"[ \t]+", " ", para)
        if len(para) >= MIN_CHARS and not para.startswith(("Run it live:", "在线运行：")):
            out.append(para)
    return out


def extract(notebooks):
    """The paragraphs of notebooks 00-11's markdown cells (``notebooks`` the folder with the English
    notebooks and zh/), English first, each notebook in order, each paragraph once."""
    notebooks = Path(notebooks)
    paths = []
    for folder in (notebooks, notebooks / "zh"):
        paths += sorted(p for p in folder.glob("[0-9][0-9]_*.ipynb") if _FIRST <= int(p.name[:2]) <= _LAST)
    if not paths:
        raise checks.error("notebooks", "a folder with NN_*.ipynb and zh/NN_*.ipynb", repr(str(notebooks)))
    seen, out = set(), []
    for path in paths:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] != "markdown":
                continue
            for para in clean("".join(cell["source"])):
                if para not in seen:
                    seen.add(para)
                    out.append(para)
    return out


def write(notebooks, path=CORPUS):
    """Extract the paragraphs and write them to ``path`` (default the shipped corpus.txt); return their number."""
    paras = extract(notebooks)
    Path(path).write_text(SEPARATOR.join(paras) + "\n", encoding="utf-8")
    return len(paras)
