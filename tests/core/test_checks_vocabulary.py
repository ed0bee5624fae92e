"""One check vocabulary (attnlab/core/checks.py), inclusive bounds, applied once at the public boundary.

- every bound is inclusive (low <= x <= high); exclusive ones are named (positive=True, below=)
- every spec is its function with the keywords fixed, so the two forms cannot drift apart
- no module writes its own Axes check or hand-written type check (a scan of attnlab/)
- a value is checked once on the way down a live panel's move (counted)
"""
import ast
import math
import re
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest
import torch
from hypothesis import given, settings, strategies as st

import attnlab as al
from attnlab.core import checks

matplotlib.use("Agg")

PACKAGE = Path(__file__).parents[2] / "attnlab"
EXAMPLES = min(50, settings.default.max_examples)
finite = st.floats(-1e9, 1e9, allow_nan=False)


# ------------------------------------------------------------------ inclusive bounds
@settings(max_examples=EXAMPLES, deadline=None)
@given(finite, finite)
def test_real_bounds_are_inclusive(a, b):
    low, high = min(a, b), max(a, b)
    assert checks.real(low, "x", low=low, high=high) == low
    assert checks.real(high, "x", low=low, high=high) == high
    checks.Real(low=low, high=high)(high, "x")                          # the spec: the same bounds
    if high > low:
        with pytest.raises(ValueError, match=re.escape(f"x: expected a number <= {high:g}, got")):
            checks.real(math.nextafter(high, math.inf), "x", high=high)
        with pytest.raises(ValueError, match=re.escape(f"x: expected a number >= {low}, got")):
            checks.real(math.nextafter(low, -math.inf), "x", low=low)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.integers(-10 ** 6, 10 ** 6), st.integers(0, 10 ** 6))
def test_int_bounds_are_inclusive(low, width):
    high = low + width
    assert checks.count(low, "n", low=low, high=high) == low
    assert checks.count(high, "n", low=low, high=high) == high
    checks.Int(low, high)(high, "n")
    with pytest.raises(ValueError, match=re.escape(f"n: expected an int <= {high}, got {high + 1}")):
        checks.Int(low, high)(high + 1, "n")
    with pytest.raises(ValueError, match=re.escape(f"n: expected an int >= {low}, got {low - 1}")):
        checks.count(low - 1, "n", low=low, high=high)


@settings(max_examples=EXAMPLES, deadline=None)
@given(finite)
def test_below_is_the_exclusive_bound(b):
    with pytest.raises(ValueError, match=re.escape(f"p: expected a number < {b}, got {b}")):
        checks.real(b, "p", below=b)
    below = math.nextafter(b, -math.inf)
    assert checks.Real(below=b)(below, "p") is None


def test_dropout_accepts_exactly_zero_to_one_exclusive():
    """The callers that were [0, 1) before stay [0, 1): 0 and just under 1 pass, 1 does not."""
    q = torch.ones(1, 2, 3)
    for p in (0.0, math.nextafter(1.0, 0.0)):
        al.scaled_dot_product_attention(q, q, q, dropout=p, generator=torch.Generator().manual_seed(0))
        al.DotProductAttention(dropout=p)
        al.MultiHeadAttention(3, 3, 3, 4, 2, dropout=p)
        al.PositionalEncoding(4, dropout=p)
    for make in (lambda: al.DotProductAttention(dropout=1.0), lambda: al.AdditiveAttention(3, 3, 4, dropout=1.0),
                 lambda: al.MultiHeadAttention(3, 3, 3, 4, 2, dropout=1.0), lambda: al.PositionalEncoding(4, dropout=1.0)):
        with pytest.raises(ValueError, match=re.escape("dropout: expected a number < 1.0, got 1.0")):
            make()


def test_a_slider_range_is_inclusive_at_both_ends():
    """Real(low=, high=) with ``why``: both ends of a slider are accepted, past them named with the reason."""
    spec = checks.Real(low=0.01, high=100, why="the T slider's range")
    spec(0.01, "temperature")
    spec(100, "temperature")
    with pytest.raises(ValueError, match=re.escape("temperature: expected a number <= 100 (the T slider's range), "
                                                   "got 100.5")):
        spec(100.5, "temperature")


# ------------------------------------------------------------------ each message of the vocabulary
@pytest.mark.parametrize("call,error,message", [
    (lambda: checks.real(2, "x", below=1.0, why="a probability"), ValueError, "x: expected a number < 1.0 (a probability), got 2.0"),
    (lambda: checks.count(5, "n", high=4, why="four at most"), ValueError, "n: expected an int <= 4 (four at most), got 5"),
    (lambda: checks.instance(3, "cache", dict, "a KVCache"), TypeError, "cache: expected a KVCache, got int"),
    (lambda: checks.instance(3, "g", torch.Generator, "a torch.Generator or None", optional=True), TypeError,
     "g: expected a torch.Generator or None, got int"),
    (lambda: checks.axes("abc", "ax"), TypeError, "ax: expected a matplotlib Axes, got str"),
    (lambda: checks.axes(3, "ax", optional=True), TypeError, "ax: expected a matplotlib Axes or None, got int"),
    (lambda: checks.Axes()([], "ax"), TypeError, "ax: expected a matplotlib Axes, got list"),
    (lambda: checks.has(3, "controls['x']", ("value",), "a widget with a .value"), TypeError,
     "controls['x']: expected a widget with a .value, got int"),
    (lambda: checks.identifier("a b", "names", "keyword names"), ValueError, "names: expected keyword names, got 'a b'"),
    (lambda: checks.identifier(3, "names"), TypeError, "names: expected a str, got int"),
    (lambda: checks.items("ab", "words"), TypeError, "words: expected a list or tuple, got str"),
    (lambda: checks.items((), "words", min_len=1), ValueError, "words: expected at least 1 entries, got 0"),
    (lambda: checks.items((1,), "words", item=checks.Text()), TypeError, "words[0]: expected a str, got int"),
    (lambda: checks.dictionary([], "d"), TypeError, "d: expected a dict, got list"),
    (lambda: checks.dictionary({1: 1, 2: 2}, "d", max_len=1), ValueError, "d: expected at most 1 entries, got 2"),
    (lambda: checks.string("abcd", "s", max_len=3), ValueError, "s: expected at most 3 characters, got 4"),
    (lambda: checks.array("abc", "a"), TypeError, "a: expected a tensor or an array of numbers, got str"),
    (lambda: checks.tensor(torch.zeros(3), "t", dims=2), ValueError, "t: expected a 2-D tensor, got shape (3,)"),
    (lambda: checks.tensor(torch.zeros(3), "t", integer=True), TypeError, "t: expected an integer tensor, got dtype torch.float32"),
    (lambda: al.sequence_mask([1, 2], 3), TypeError, "valid_lens: expected a torch.Tensor, got list"),
    (lambda: al.scaled_dot_product_attention(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 3), causal=1), TypeError,
     "causal: expected True or False, got int 1"),
])
def test_each_message_names_argument_expected_and_given(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_the_good_values_pass_and_come_back():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    assert checks.axes(ax, "ax") is ax and checks.axes(None, "ax", optional=True) is None
    assert checks.identifier("temperature", "n") == "temperature"
    assert checks.items(("a",), "w", item=checks.Text(), min_len=1) == ("a",)
    assert checks.tensor(torch.arange(3), "t", dims=(1, 2), integer=True).shape == (3,)
    plt.close(fig)


@pytest.mark.parametrize("spec,function", [
    (checks.Int(), checks.count), (checks.Real(), checks.real), (checks.Tensor(), checks.tensor),
    (checks.Choice((1,)), checks.choice), (checks.Text(), checks.string), (checks.Flag(), checks.flag),
    (checks.Instance(int, "an int"), checks.instance), (checks.Axes(), checks.axes), (checks.Function(), checks.function),
    (checks.Items(), checks.items), (checks.Dict(), checks.dictionary), (checks.Array(), checks.array)])
def test_each_spec_is_its_function_with_the_keywords_fixed(spec, function):
    assert spec.check is function


def test_the_axes_check_needs_no_matplotlib():
    """core may not import matplotlib: checks.axes works (and refuses) in a process that never imported it."""
    code = ("import sys; from attnlab.core import checks\n"
            "try:\n    checks.axes('a', 'ax')\nexcept TypeError as e:\n    print(e)\n"
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["ax: expected a matplotlib Axes, got str", "False"]


# ------------------------------------------------------------------ no private checkers elsewhere
# Hand-written type checks left in core/ui, each with its reason (not an argument's plain type, or a
# message the vocabulary cannot say more plainly). Anything else raising TypeError there must call checks.
ALLOWED = {
    ("ui/selfcheck.py", "options"): "a dict of str to str feedback, named as the learner wrote it",
    ("ui/selfcheck.py", "mistakes"): "a dict or a list of (value, message) pairs: two accepted shapes in one message",
    ("ui/selfcheck.py", "cases"): "each case must be a tuple of the learner function's arguments",
    ("ui/selfcheck.py", "hints"): "a Hint or a (function, message) pair: two accepted shapes",
    ("ui/selfcheck.py", "reference"): "the reference function's return value, not an argument",
    ("ui/trainer.py", "run"): "what a lesson's generator yields, not an argument",
    ("ui/panels/png.py", "rgba"): "a uint8 (h, w, 4) numpy array, the encoder's input from Agg's buffer",
    ("ui/plotting.py", "{name}"): "to_numpy and _labels convert what they check (any array-like numpy reads)",
}


def _message_head(node):
    """The argument a raise names: the text before the first ':' of its message, or ``checks.error``'s first
    argument; None without one."""
    call = node.exc if isinstance(node.exc, ast.Call) else None
    if call is None or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Name):                                     # checks.error(name, ...)
        return "{" + arg.id + "}"
    text = arg.value if isinstance(arg, ast.Constant) else "".join(
        v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
        for v in getattr(arg, "values", []))
    return str(text).split(":")[0]


def _raised_kind(node):
    """'TypeError' / 'ValueError' for ``raise TypeError(...)`` and ``raise checks.error(..., kind=TypeError)``."""
    call = node.exc if isinstance(node.exc, ast.Call) else None
    if call is None:
        return ""
    if ast.unparse(call.func) == "checks.error":
        return next((ast.unparse(k.value) for k in call.keywords if k.arg == "kind"), "ValueError")
    return ast.unparse(call.func)


def hand_checks(source, rel):
    """(line, what) of each hand-written check in ``source`` (a module at ``rel`` under attnlab/)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance" and len(node.args) == 2 \
                and re.search(r"\b(Axes|Figure)\b", ast.unparse(node.args[1])):
            found.append((node.lineno, f"isinstance(..., {ast.unparse(node.args[1])})"))
        if isinstance(node, ast.Raise) and node.exc is not None:
            head = _message_head(node)
            kind = _raised_kind(node)
            if head in ("ax", "axes") and kind == "TypeError":
                found.append((node.lineno, f"raise TypeError('{head}: ...')"))
            elif kind == "TypeError" and rel.split("/")[0] in ("core", "ui") and (rel, head) not in ALLOWED:
                found.append((node.lineno, f"raise TypeError('{head}: ...')"))
    return found


# The renderer sorts artists by kind (is this artist a whole Axes?): not an argument check.
NOT_CHECKS = {"ui/panels/renderer.py"}


def test_no_module_writes_its_own_checks():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "core/checks.py" or rel in NOT_CHECKS:
            continue
        problems += [f"{rel}:{line}: {what}" for line, what in hand_checks(path.read_text(encoding="utf-8"), rel)]
    assert problems == [], "use attnlab.core.checks (checks.axes, checks.instance, checks.flag, ...)"


def test_the_scan_finds_what_it_should():
    axes_copy = "def f(ax):\n    if not isinstance(ax, Axes):\n        raise TypeError(f'ax: expected an Axes, got {ax}')\n"
    assert sorted(w for _, w in hand_checks(axes_copy, "lessons/nb01_x/figures.py")) == [
        "isinstance(..., Axes)", "raise TypeError('ax: ...')"]
    core_copy = "def g(causal):\n    if not isinstance(causal, bool):\n        raise TypeError(f'causal: expected a bool')\n"
    assert [w for _, w in hand_checks(core_copy, "core/attention.py")] == ["raise TypeError('causal: ...')"]
    assert hand_checks(core_copy, "lessons/nb01_x/model.py") == []          # lessons: only Axes copies are scanned
    assert hand_checks("checks.axes(ax, 'ax')\n", "ui/plotting.py") == []


# ------------------------------------------------------------------ checked once, on the way down
@pytest.fixture
def counted(monkeypatch):
    """Count each vocabulary call by (function, argument name), and plotting's array conversions."""
    from attnlab.ui import plotting
    seen = {}

    def wrap(module, fn_name):
        original = getattr(module, fn_name)

        def counting(x, name, *args, **kwargs):
            seen[(fn_name, name)] = seen.get((fn_name, name), 0) + 1
            return original(x, name, *args, **kwargs)
        monkeypatch.setattr(module, fn_name, counting)

    for fn_name in ("real", "count", "tensor", "flag", "axes", "instance", "bool_mask", "string"):
        wrap(checks, fn_name)
    wrap(plotting, "to_numpy")
    return seen


def test_a_heatmap_panel_move_checks_each_value_once(counted):
    """A live panel's move: temperature slider -> masked_softmax -> update_heatmap. The temperature is
    checked once, the weights converted and checked once, the scores once (update_heatmap's tick and
    text update and heatmap_state lookups are unchecked)."""
    import ipywidgets as widgets

    from attnlab.ui import panels, plotting
    scores = torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.3, 3.0]])
    fig, ax = panels.new_figure()
    plotting.heatmap(al.masked_softmax(scores), ax=ax)
    slider = widgets.FloatSlider(value=1.0, min=0.1, max=5.0)
    panel = panels.Panel(fig, {"temperature": slider},
                         lambda temperature: plotting.update_heatmap(ax, al.masked_softmax(scores, temperature=temperature))
                         and None, blit=False)
    counted.clear()
    slider.value = 2.0                                   # one move
    assert panel.error.value == ""
    assert counted == {("real", "temperature"): 1, ("tensor", "scores"): 1, ("to_numpy", "weights"): 1}


def test_multi_head_attention_checks_its_inputs_once(counted):
    """MultiHeadAttention checks queries/keys/values and temperature, then runs the unchecked kernels
    (split, attend, merge): nothing is checked a second time inside."""
    mha = al.MultiHeadAttention(4, 4, 4, 8, 2)
    x = torch.randn(2, 3, 4)
    counted.clear()
    mha(x, x, x, temperature=0.5)
    assert counted == {("tensor", "queries"): 1, ("tensor", "keys"): 1, ("tensor", "values"): 1,
                       ("real", "temperature"): 1, ("flag", "causal"): 1}


def test_the_counter_can_fail(counted):
    al.masked_softmax(al.masked_softmax(torch.ones(2, 3)))     # a checked call inside a checked call
    assert counted[("tensor", "scores")] == 2


# ------------------------------------------------------------------ lessons: no private checkers either
# A lesson's own checks are what the vocabulary cannot say: relations between arguments (shapes that must
# agree, an index below a size another argument gives), a learner's input judged by the lesson (checks.refuse).
# What it can say (the type of one argument, a bound already in the decorator) goes through checks, once.
# Left, each with its reason (the message is tested as it is; the vocabulary has no call that says it):
LESSON_ALLOWED = {
    ("lessons/nb04_self_attention_walkthrough/exercises.py", "scores"): "a pair of numbers (first, second), "
    "named as the exercise asks for it",
    ("lessons/nb04_self_attention_walkthrough/exercises.py", "words"): "a pair of str, named as the exercise asks",
    ("lessons/nb06_positional_encoding/figures.py", "columns"): "whole column numbers: a list, tuple or range of ints "
    "in one message",
    ("lessons/nb07_masks_and_efficient_attention/masks.py", "length"): "the shared side spec allows 0 (an empty mask); "
    "these two patterns ask for at least one position",
}


def _parameters(fn):
    args = fn.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}


def lesson_private_checks(source, rel):
    """(line, what) of each private checker in a lesson module: a type check of one argument by hand
    (``if not isinstance(x, T): raise TypeError("x: ...")``), or an argument the ``checks.arguments``
    decorator checks that the body checks again."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = _parameters(fn)
        declared = {k.arg for d in fn.decorator_list if isinstance(d, ast.Call)
                    and ast.unparse(d.func) == "checks.arguments" for k in d.keywords}
        for node in ast.walk(fn):
            if isinstance(node, ast.If) and any(isinstance(n, ast.Call) and ast.unparse(n.func) == "isinstance"
                                                for n in ast.walk(node.test)):
                named = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)} & params
                for r in node.body:
                    if isinstance(r, ast.Raise) and _raised_kind(r) == "TypeError":
                        head = _message_head(r)
                        if named == {head} and (rel, head) not in LESSON_ALLOWED:
                            found.append((r.lineno, f"isinstance check of {head!r} by hand"))
            if isinstance(node, ast.Call) and ast.unparse(node.func).startswith("checks.") \
                    and ast.unparse(node.func) not in ("checks.same_kind", "checks.same_shape", "checks.error") \
                    and len(node.args) >= 2 \
                    and isinstance(node.args[0], ast.Name) and isinstance(node.args[1], ast.Constant) \
                    and node.args[0].id == node.args[1].value in declared and (rel, node.args[0].id) not in LESSON_ALLOWED:
                found.append((node.lineno, f"{node.args[0].id!r} checked by the decorator and again"))
    return found


def test_no_lesson_writes_its_own_checks_or_checks_twice():
    problems = []
    for path in sorted((PACKAGE / "lessons").rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        problems += [f"{rel}:{line}: {what}" for line, what in lesson_private_checks(path.read_text(encoding="utf-8"), rel)]
    assert problems == [], "use attnlab.core.checks once, at the public boundary"


def test_the_lesson_scan_finds_what_it_should():
    by_hand = ("def f(model):\n    if not isinstance(model, AttentionOnly):\n"
               "        raise TypeError(f'model: expected an AttentionOnly, got {model}')\n")
    assert [w for _, w in lesson_private_checks(by_hand, "lessons/nb99_x/m.py")] == ["isinstance check of 'model' by hand"]
    twice = "@checks.arguments(n=checks.Int(1))\ndef f(n):\n    n = checks.count(n, 'n', low=1)\n"
    assert [w for _, w in lesson_private_checks(twice, "lessons/nb99_x/m.py")] == ["'n' checked by the decorator and again"]
    relation = ("def f(x, n):\n    if not isinstance(x, list) or len(x) != n:\n"
                "        raise TypeError(f'x: expected {n} items, got {x}')\n")
    assert lesson_private_checks(relation, "lessons/nb99_x/m.py") == []          # two arguments: a relation
    assert lesson_private_checks("def f(a, b):\n    checks.same_kind(a, 'a', b, 'b')\n", "lessons/nb99_x/m.py") == []


# ------------------------------------------------------------------ one door for an argument's error
# Every ValueError/TypeError about an argument is made by attnlab/core/checks.py: its checks, or
# ``raise checks.error(name, expected, got)`` for a check only one function needs (a shape another argument
# sets). A private checker elsewhere (``def _check_x``, ``def _real``) is a second vocabulary. Left, each with
# its reason, keyed by (module, the start of its message):
RAISES_ALLOWED = {
    ("i18n.py", "{name}: expected a language code"): "i18n uses the standard library only (the attnlab command "
    "imports no torch); the vocabulary's wording, written out",
    ("i18n.py", "{name}: expected one of"): "as above",
    ("cli.py", "lang: expected one of"): "the attnlab command: the standard library and i18n only (no torch); "
    "the vocabulary's wording, written out",
    ("cli.py", "port: expected an integer"): "as above",
    ("ui/selfcheck.py", "mistakes: {wrong:g} is within"): "a relation between a listed mistake and the answer: "
    "which numbers clash, in words a teacher reads",
    ("ui/selfcheck.py", "mistakes: {other:g} and {wrong:g}"): "a relation between two listed mistakes, as above",
    ("lessons/nb07_masks_and_efficient_attention/exercises.py", "expected three tensors"): "not an argument: what "
    "the learner's tile_update returned, reported by the exercise",
    ("lessons/nb07_masks_and_efficient_attention/exercises.py", "expected shapes m"): "not an argument: the shapes "
    "the learner's tile_update returned",
}
PRIVATE_CHECKER = re.compile(r"_check|_real$")


def _message_text(node):
    """A raise's message as written: its literal text, each field shown as {expression} (a message built with +:
    its first part)."""
    arg = node.exc.args[0] if node.exc.args else None
    while isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        arg = arg.left
    if isinstance(arg, ast.Constant):
        return str(arg.value)
    if isinstance(arg, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + (
            ":" + ast.unparse(v.format_spec)[2:-1] if v.format_spec else "") + "}" for v in arg.values)
    return ast.unparse(arg) if arg is not None else ""


def argument_errors_outside_checks(source, rel, allowed=None):
    """(line, what) of each private checker (a function named _check*, or _real) and each ``raise ValueError(...)``
    / ``raise TypeError(...)`` of the module at ``rel`` (under attnlab/) that the allow-list does not name."""
    allowed = RAISES_ALLOWED if allowed is None else allowed
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and PRIVATE_CHECKER.match(node.name):
            found.append((node.lineno, f"def {node.name}: a checker of its own"))
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name) \
                and node.exc.func.id in ("ValueError", "TypeError"):
            text = _message_text(node)
            if not any(rel == module and text.startswith(start) for module, start in allowed):
                found.append((node.lineno, f"raise {node.exc.func.id}({text[:60]!r})"))
    return sorted(found)


def test_every_argument_error_comes_from_the_checks_vocabulary():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel != "core/checks.py":
            problems += [f"{rel}:{line}: {what}" for line, what in
                         argument_errors_outside_checks(path.read_text(encoding="utf-8"), rel)]
    assert problems == [], "raise checks.error(name, expected, got), or a check of attnlab/core/checks.py"


def test_every_allowed_raise_is_still_there():
    """An allow-list entry whose raise has gone (moved into checks, or reworded) goes too."""
    for module, start in RAISES_ALLOWED:
        source = (PACKAGE / module).read_text(encoding="utf-8")
        texts = [_message_text(n) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Raise)
                 and isinstance(n.exc, ast.Call) and isinstance(n.exc.func, ast.Name)]
        assert any(t.startswith(start) for t in texts), (module, start)


def test_the_argument_error_scan_can_fail():
    bad = ("def _check_pair(x, y):\n    pass\n\ndef _real(x, name):\n    pass\n\n"
           "def f(x):\n    if x.dim() != 2:\n        raise ValueError(f'x: expected shape (n, D), got {tuple(x.shape)}')\n"
           "    raise TypeError('y: expected a str')\n")
    assert [w for _, w in argument_errors_outside_checks(bad, "lessons/nb99_x/m.py")] == [
        "def _check_pair: a checker of its own", "def _real: a checker of its own",
        "raise ValueError('x: expected shape (n, D), got {tuple(x.shape)}')", "raise TypeError('y: expected a str')"]
    good = ("def f(x):\n    if x.dim() != 2:\n        raise checks.error('x', 'shape (n, D)', tuple(x.shape))\n"
            "    raise RuntimeError('not an argument')\n")
    assert argument_errors_outside_checks(good, "lessons/nb99_x/m.py") == []
    assert argument_errors_outside_checks("raise ValueError('lang: expected one of')\n", "cli.py") == []


@pytest.mark.parametrize("call,kind,message", [
    (lambda: checks.error("W", "shape (4, size) to match X", (3, 2)), ValueError,
     "W: expected shape (4, size) to match X, got (3, 2)"),
    (lambda: checks.error("words", "a pair of str", repr(("a",)), kind=TypeError), TypeError,
     "words: expected a pair of str, got ('a',)"),
    (lambda: checks.error("model", "an AttentionOnly model with at least 2 layers"), ValueError,
     "model: expected an AttentionOnly model with at least 2 layers"),
    (lambda: checks.error("x", "y", None), ValueError, "x: expected y, got None"),
])
def test_error_words_a_refusal_as_every_check_does(call, kind, message):
    exc = call()
    assert type(exc) is kind and str(exc) == message
    with pytest.raises(TypeError, match=re.escape("kind: expected ValueError or TypeError, got <class 'KeyError'>")):
        checks.error("x", "y", kind=KeyError)


def test_same_shape_names_both_tensors():
    x = torch.zeros(3)
    assert checks.same_shape(x, "x_train", torch.ones(3), "y_train").shape == (3,)
    with pytest.raises(ValueError, match=re.escape("y_train: expected shape (3,) to match x_train, got (2,)")):
        checks.same_shape(x, "x_train", torch.ones(2), "y_train")
