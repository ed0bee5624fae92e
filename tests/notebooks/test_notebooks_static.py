"""What every stored notebook must be, read from its JSON (nothing executed): thin, importing its
lesson, and deterministic on any machine (no round-off-level number in any output)."""
import ast
import json
import re
from pathlib import Path

import pytest

_DIR = Path(__file__).parents[2] / "notebooks"
NOTEBOOKS = sorted(_DIR.glob("[0-9][0-9]_*.ipynb")) + sorted((_DIR / "zh").glob("[0-9][0-9]_*.ipynb"))   # both languages
# A number in scientific notation below 1e-11 is round-off: it changes from machine to machine
# (a bound the notebook states, "< 1e-12", is not: it is written, not measured).
ROUND_OFF = re.compile(r"(?<![\w.<])(?<!< )\d(?:\.\d+)?e-(?:1[1-9]|[2-9]\d|\d{3})\b")


def cells(path, kind="code"):
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == kind]


def output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_no_round_off_level_number_is_printed(path):
    for i, cell in enumerate(cells(path)):
        found = ROUND_OFF.findall(output_text(cell))
        assert not found, f"{path.name} code cell {i} prints {found}: print 'equal up to round-off' instead"


def test_the_round_off_pattern_can_fail():
    assert ROUND_OFF.findall("max diff = 5.6e-17, 3e-12; fine: 1e-3, 2.5e-05, < 1e-12, <1e-15") == ["5.6e-17", "3e-12"]


# A difference printed as a formatted zero ("max |a - b| = 0.000", "difference: 0.0e+00") reads as a
# measurement that happened to round to 0; say "exactly equal" or "equal up to round-off" instead.
ZERO_DIFF = re.compile(r"(?:\|[^|\n]*\s[-−]\s[^|\n]*\||\bdiff(?:erence)?s?\b)[^\n]*?[=:]\s*"
                       r"(?:0\.0+(?:e[+-]\d+)?|0e[+-]\d+)(?![\d.])", re.IGNORECASE)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_no_difference_is_printed_as_a_formatted_zero(path):
    for i, cell in enumerate(cells(path)):
        found = ZERO_DIFF.findall(output_text(cell))
        assert not found, f"{path.name} code cell {i} prints {found}: print 'exactly equal' or 'equal up to round-off'"


def test_the_zero_difference_pattern_can_fail():
    old = ["scaled dot weights for q = [100, -100]: 0.3333 0.3333 0.3333    largest |w - 1/3| over the 4 queries: 0.0e+00",
           "bottom-right: max |cached - full| = 0.000", "max difference: 0.0", "diffs = 0e+00"]
    assert all(ZERO_DIFF.search(text) for text in old)
    fine = ["top-left: max |cached - full| = 1.234", "max |a - b| = 0.012", "all 4 queries: exactly 1/3",
            "bottom-right: cached = full, equal up to round-off", "|x| = 0.000", "difference < 10⁻¹²: True",
            "convolution: max |conv(X[π]) - conv(X)[π]| = 1.772  (not 0)", "max diff = 0.05"]
    assert not [text for text in fine if ZERO_DIFF.search(text)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_executed_without_errors(path):
    for i, cell in enumerate(cells(path)):
        if "".join(cell["source"]).strip():
            assert cell.get("execution_count") is not None, f"{path.name} code cell {i} never ran"
        assert not [o for o in cell.get("outputs", []) if o["output_type"] == "error"], f"{path.name} cell {i}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_imports_its_own_lesson_and_no_other(path):
    source = "\n".join("".join(c["source"]) for c in cells(path))
    assert f"from attnlab.lessons import nb{path.stem} as lesson" in source
    others = set(re.findall(r"attnlab\.lessons\.?(?: import)? ?(nb\d\d_\w+)", source)) - {f"nb{path.stem}"}
    assert not others, f"{path.name} imports other lessons: {others}"


MAX_LINES = 15
BY_POSITION = re.compile(r"\.(lines|images|texts|patches|collections|axes|artists|children)\[\s*-?\d+\s*\]")


def code_lines(source):
    return [line for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_cells_are_short_and_find_no_artist_by_position(path):
    for i, cell in enumerate(cells(path)):
        source = "".join(cell["source"])
        assert len(code_lines(source)) <= MAX_LINES, f"{path.name} code cell {i}: move the plumbing into the lesson"
        assert not BY_POSITION.search(source), f"{path.name} code cell {i} looks up an artist by position"


def test_the_thinness_rules_can_fail():
    assert BY_POSITION.search("ax_fit.lines[0].set_ydata(y)") and BY_POSITION.search("fig.axes[-1].set_ylabel('w')")
    assert not BY_POSITION.search("handles.fit.set_ydata(y); weights[0]")
    assert len(code_lines("# a comment\n\nx = 1\n  # indented comment\ny = 2\n")) == 2


# docs/architecture.md, the one Play contract: a Play cell is one call into the lesson,
# `lesson.play(<starting values>)` or a second panel's `lesson.play_<name>(...)`, every argument a keyword; the
# controls are declared in the lesson, not built in the cell. The call may be named and shown
# (`explorer = lesson.play(...)` then `explorer`), and a panel made by such a call in an earlier section (09's
# explorer, which §7's trainer adds its models to) is shown by its name alone. A code cell that calls selfcheck
# is an exercise, not a Play cell (00's warm-up exercise sits under its Play heading).
PLAY_HEADING = re.compile(r"^## (?:\d+ · )?(?:Play|动手试一试)(?:\s*[:：].*)?\s*$", re.M)
EXERCISE = re.compile(r"\bselfcheck\.\w+\(")


def play_cells(path):
    """The code cells of the notebook's Play section: after its '## Play' heading (which may close a markdown
    cell), up to the next '## ' heading."""
    out, inside = [], False
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        headings = re.findall(r"^## .*$", source, re.M) if cell["cell_type"] == "markdown" else []
        if headings:
            inside = bool(PLAY_HEADING.match(headings[-1]))
        elif inside and cell["cell_type"] == "code":
            out.append(source)
    return out


def _play_call(node):
    """The name `play` / `play_x` if ``node`` is a call ``lesson.play...(...)`` with keyword arguments only."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "lesson" and re.fullmatch(r"play(_[a-z]\w*)?", node.func.attr)
            and not node.args and all(k.arg is not None for k in node.keywords)):
        return node.func.attr
    return None


def panels_named(path):
    """The names the notebook's code cells bind to a call of lesson.play / lesson.play_<name> (``x = lesson.play()``)."""
    names = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            source = "\n".join(line for line in "".join(cell["source"]).splitlines()
                               if not line.lstrip().startswith(("%", "!")))          # magics are not Python
            for node in ast.parse(source).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                        and _play_call(node.value) is not None:
                    names.add(node.targets[0].id)
    return names


def play_problems(sources, named=frozenset()):
    """The Play code cells that are not one keyword-only call of lesson.play / lesson.play_<name>, nor the name
    alone of a panel such a call made earlier (``named``); none at all is a problem too; exercises (cells
    calling selfcheck) are left out."""
    sources = [s for s in sources if not EXERCISE.search(s)]
    if not sources:
        return ["no Play section with a code cell"]
    bad = []
    for source in sources:
        body = ast.parse(source).body
        if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Name) \
                and body[0].value.id in named:
            continue                                      # a panel a Play call made earlier, shown here
        named_here = None
        if body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 \
                and isinstance(body[0].targets[0], ast.Name):
            named_here, call = body[0].targets[0].id, body[0].value
        elif body and isinstance(body[0], ast.Expr):
            call = body[0].value
        else:
            call = None
        shown = body[1:] == [] if named_here is None else (
            len(body) == 2 and isinstance(body[1], ast.Expr) and ast.unparse(body[1].value) == named_here)
        if _play_call(call) is None or not shown:
            bad.append(source)
    return bad


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: ("zh-" if p.parent.name == "zh" else "") + p.stem)
def test_every_play_cell_is_one_call_of_lesson_play(path):
    assert play_problems(play_cells(path), panels_named(path)) == []


def test_the_play_rule_can_fail():
    assert play_problems([]) == ["no Play section with a code cell"]
    good = ['lesson.play(kind="local", w=2)    # controls: w', "explorer = lesson.play(sigma=0.3)\nexplorer",
            "lesson.play_trainer(explorer=explorer, steps=80)", "lesson.play()"]
    assert play_problems(good) == []
    bad = ["lesson.MaskExplorer(kind='local')", "play = lesson.ScoringPlay(n=8)\nplay", "lesson.play(n=1)\nlesson.play(n=2)",
           'lesson.play("masks", w=2)', 'controls = {"a": widgets.IntSlider()}\nlesson.play(controls=controls)',
           "lesson.play(controls)", "lesson.play(**start)", "x = lesson.play(n=1)\ny", "lesson.playground(n=1)",
           "al.play(n=1)"]
    assert play_problems(bad) == bad
    assert play_problems(["explorer"]) == ["explorer"]                               # a bare name is no call
    assert play_problems(["explorer   # controls: sentence"], {"explorer"}) == []    # ... unless a Play call made it
    assert play_problems(["trainer"], {"explorer"}) == ["trainer"]
    exercise = "def f(x):\n    raise NotImplementedError\nselfcheck.check_function(f, g, cases=[(1,)]);"
    assert play_problems(["lesson.play(n=2)", exercise]) == []
    assert play_problems([exercise]) == ["no Play section with a code cell"]
    assert PLAY_HEADING.search("## Play: decode a date step by step") and PLAY_HEADING.search("## 动手试一试：一个日期")
    assert PLAY_HEADING.search("## 7 · Play") and not PLAY_HEADING.search("## Playing with masks")
