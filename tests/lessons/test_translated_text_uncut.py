"""Titles and labels are built from data and whole catalog messages, never by cutting translated text.

A translation may move, merge or drop any part of its English message (a comma becomes "，", a
"=" moves, a phrase is reworded), so code that splits or edits the result of ``_()`` draws the right
thing only in the language it was tried in. The scan below (ast, over attnlab/lessons and attnlab/ui)
finds a call of ``.split`` / ``.rsplit`` / ``.replace`` / ``.partition`` / ``.rpartition`` or of
``re.*`` whose receiver (or argument, for ``re``) is translated text: a gettext call, a name bound from
one (also through a loop or a list it was appended to), or a call of a function of the package that
returns translated text.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "attnlab"
GETTEXT = {"_", "gettext", "ngettext", "pgettext", "explain"}
CUTS = {"split", "rsplit", "replace", "partition", "rpartition"}


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _own_nodes(scope):
    """The nodes of ``scope`` outside any function nested in it."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _names(target):
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


class _Scope:
    def __init__(self, scope, text_functions):
        self.text_functions = text_functions
        self.nodes = list(_own_nodes(scope))
        self.tainted = set()
        changed = True
        while changed:                                     # names bound from translated text, to a fixed point
            before = len(self.tainted)
            for node in self.nodes:
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None \
                        and self.translated(node.value):
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        self.tainted |= _names(t)
                elif isinstance(node, (ast.For, ast.comprehension)) and self.translated(node.iter):
                    self.tainted |= _names(node.target)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("append", "extend", "insert") \
                        and isinstance(node.func.value, ast.Name) and any(self.translated(a) for a in node.args):
                    self.tainted.add(node.func.value.id)
            changed = len(self.tainted) != before

    def translated(self, expr):
        """Does ``expr`` hold translated text (a gettext call, a tainted name, a text function's result)?"""
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in self.tainted:
                return True
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if name in GETTEXT or name in self.text_functions:
                    return True
        return False

    def cuts(self):
        for node in self.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            f = node.func
            if f.attr in CUTS and self.translated(f.value):
                yield node.lineno, ast.unparse(node)[:90]
            elif isinstance(f.value, ast.Name) and f.value.id == "re" and any(self.translated(a) for a in node.args):
                yield node.lineno, ast.unparse(node)[:90]


def text_functions(trees):
    """Names of the package's functions that return translated text they made themselves (a gettext
    call, or a name bound from one, in a return)."""
    found = set()
    for tree in trees:
        for fn in _functions(tree):
            scope = _Scope(fn, set())
            if not fn.name.startswith("__") and any(
                    isinstance(n, ast.Return) and n.value is not None and scope.translated(n.value)
                    for n in scope.nodes):
                found.add(fn.name)
    return found


def cuts_in(sources, functions=None):
    """{name: [(line, call), ...]} for each source (name -> text) that cuts translated text."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    functions = text_functions(trees.values()) if functions is None else functions
    out = {}
    for name, tree in trees.items():
        found = []
        for scope in [tree, *_functions(tree)]:
            found += list(_Scope(scope, functions).cuts())
        if found:
            out[name] = sorted(set(found))
    return out


def _package_sources():
    return {p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


def test_no_lesson_or_ui_module_cuts_translated_text():
    sources = _package_sources()
    functions = text_functions([ast.parse(t) for t in sources.values()])
    scanned = {k: v for k, v in sources.items() if k.startswith(("lessons/", "ui/"))}
    assert cuts_in(scanned, functions) == {}, "build the text from data and whole catalog messages"


@pytest.mark.parametrize("source", [
    "def f(n):\n    return _(n).replace(', ', ',\\n')\n",                                # a gettext call
    "def f():\n    t = _('a = {v}')\n    return t.split('=', 1)[0]\n",                   # a name bound from one
    "def f():\n    rows = [(_('a = {v}'), 1)]\n    return [l.split('=')[0] for l, _v in rows]\n",   # through a loop
    "def f():\n    lines = []\n    lines.append(_('x'))\n    return lines[0].partition(':')\n",
    "import re\ndef f():\n    return re.sub('a', 'b', _('a'))\n",
    "def g():\n    return _('a: b')\ndef f():\n    return [r.replace('a', 'c') for r in g().splitlines()]\n",
])
def test_the_scan_finds_each_kind_of_cut(source):
    assert list(cuts_in({"m.py": source})) == ["m.py"]


@pytest.mark.parametrize("source", [
    "def f(n):\n    return _(n).format(n=1)\n",
    "def f(words):\n    return ' '.join(words).split()\n",                           # data, not a message
    "def f(sentence):\n    t = _('x')\n    return sentence.split()\n",
])
def test_the_scan_leaves_data_alone(source):
    assert cuts_in({"m.py": source}) == {}


# ------------------------------------------------------------------ the four places that cut, built from data now
def test_nb09_tick_labels_are_whole_messages_in_each_language():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attnlab.i18n import language
    from attnlab.lessons.nb09_transformer_block import figures, model
    for lang, wrapped in (("en", "6 blocks,\nno residual"), ("zh", "6 个块，\n无残差连接")):
        with language(lang):
            ax = figures.ablation_bars(model.measured())
            labels = [t.get_text() for t in ax.get_xticklabels()]
            plt.close(ax.figure)
        assert labels[-1] == wrapped and all("\n" not in t for t in labels[:-1])


def test_nb04_largest_weights_are_built_from_the_numbers():
    import torch

    from attnlab.i18n import language
    from attnlab.lessons.nb04_self_attention_walkthrough import live
    A = torch.tensor([[0.25, 0.75, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 0.0]])
    words = ["a", "b", "<pad>"]
    assert live.largest_weights(A, words) == ["a: b 0.75", "b: a 0.50", "<pad>: all 0, no visible key"]
    with language("zh"):
        assert live.largest_weights(A, words)[2] == "<pad>：全为 0，没有可见的键"


def test_nb07_tile_rows_line_up_from_whole_labels():
    import torch

    from attnlab.i18n import language
    from attnlab.lessons.nb07_masks_and_efficient_attention import live
    from attnlab.ui import text
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(4, 3, generator=g) for _ in range(3))
    explorer = live.TileExplorer(q, k, v, 2, 2)
    en = explorer.update(2, 2, False).split("\n")[1:]
    assert [line[:16] for line in en] == ["running max m   ", "rescale         ", "denominator l   ",
                                          "output so far   ", "exact output    "]
    with language("zh"):
        zh = explorer.update(2, 2, False).split("\n")[1:]
    cells = [line.split("= ")[0] for line in zh]
    assert [c.strip(" \u3000") for c in cells] == ["当前最大值 m", "重缩放因子", "分母 l", "目前的输出", "精确输出"]
    assert len({text.room([c]) for c in cells}) == 1                 # as many wide and narrow characters each


def test_a_refusal_shows_the_error_message_whole_not_cut():
    """Where the lesson does not judge the input itself (a non-str), the panel shows the API's message uncut."""
    from attnlab.lessons.nb08_bahdanau_attention import live as nb08
    from attnlab.lessons.nb09_transformer_block import live as nb09
    explorer = nb09.Explorer()
    assert "Not accepted: sentence: expected a str, got int." in explorer.update(3, "shipped")
    from attnlab.lessons.nb08_bahdanau_attention import seq2seq
    dates = nb08.play(models={"additive": seq2seq.pretrained("additive")}, text="7 mar 1994")
    assert "Input not accepted: text: expected a str, got int" in dates.update(1994, "additive", "additive")
