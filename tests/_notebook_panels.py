"""A notebook's live panels, for tests and benches.

    from _notebook_panels import play_panels      # tests/ on sys.path
    for panel in play_panels("notebooks/03_multi_head_attention.ipynb"): ...

``play_panels`` does NOT execute the notebook: it finds its Play cells (the code cells whose stored
output is a live panel, or that call ``lesson.play...``), and calls the lesson's Play function of each
with that cell's own keyword arguments (the one Play contract, docs/architecture.md: ``lesson.play(*,
<starting values>)``; a positional argument is an error): literal values evaluated directly
(``ast.literal_eval``), the others in a namespace built by running only the earlier cells that define
the names the Play cells use, transitively (the imports cell; 08's pretrained models, 07's q, k, v, 01's
explorer). Each call must return an ``attnlab.ui.panels.Panel`` (a TypeError otherwise). A Play cell's
other statements (10's and 11's printed measurements before their trainer, a name that shows a panel made
earlier) run as written. ``last_plan`` says which cells ran and which calls were made, and holds what
each call returned (``results``: the panels the cells display).

``notebook_panels`` runs the whole notebook in this process (every cell) and is counted as a notebook
execution (tests/notebook_runs.py); the benches use it.

The cells run in an IPython shell (magics work) with the notebook's folder as working directory;
every ``attnlab.ui.panels.Panel`` built on the way is collected.
"""
import ast
import builtins
import contextlib
import io
import os
from pathlib import Path

import ipywidgets as widgets
import matplotlib
import nbformat
from IPython.core.inputtransformer2 import TransformerManager
from IPython.core.interactiveshell import InteractiveShell

import notebook_runs
from attnlab.ui import panels
from attnlab.ui.panels import Panel

LESSON = "lesson"
last_plan = {}


def _python(source):
    """The cell as plain Python (magics become get_ipython() calls), without %matplotlib lines."""
    source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("%matplotlib"))
    return TransformerManager().transform_cell(source)


def _names(tree):
    """(names the code reads, names it binds), over every scope of it: an over-approximation of what a
    cell needs and gives, which at worst runs a cell more."""
    used, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return used - set(dir(builtins)), bound


def _play_call(node):
    """The ``lesson.play...(...)`` call a statement is or assigns, else None."""
    value = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == LESSON
            and value.func.attr.startswith("play")):
        return value
    return None


def _shows_a_panel(cell):
    prefix = "Live panel"
    for out in cell.get("outputs", []):
        text = out.get("data", {}).get("text/plain", "")
        if ("".join(text) if isinstance(text, list) else text).startswith(prefix):
            return True
    return False


def expected_panel_cells(path):
    """Indices of the cells whose stored output is a live panel."""
    nb = nbformat.read(path, as_version=4)
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and _shows_a_panel(c)]


def play_cells(nb):
    """Indices (among the notebook's cells) of its Play cells."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tree = ast.parse(_python(cell.source))
        if _shows_a_panel(cell) or any(_play_call(n) for n in tree.body):
            found.append(i)
    return found


def plan(nb):
    """(cells to run, in order): the Play cells and the earlier cells they depend on by name."""
    code = {i: ast.parse(_python(c.source)) for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    names = {i: _names(tree) for i, tree in code.items()}
    plays = play_cells(nb)
    needed, wanted = set(plays), [(i, names[i][0] - names[i][1]) for i in plays]
    while wanted:
        i, free = wanted.pop()
        for name in free:
            earlier = [j for j in code if j < i and name in names[j][1]]
            if earlier and earlier[-1] not in needed:                  # the last cell that binds it
                needed.add(earlier[-1])
                wanted.append((earlier[-1], names[earlier[-1]][0] - names[earlier[-1]][1]))
    return sorted(needed), plays


def _argument(node, namespace):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return eval(compile(ast.Expression(node), "<play argument>", "eval"), namespace)


def _collecting():
    made, original = [], panels.Panel.__init__

    def collecting(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)
    return made, original, collecting


@contextlib.contextmanager
def _in_folder(path, original, collecting):
    matplotlib.use("agg")
    cwd = os.getcwd()
    panels.Panel.__init__ = collecting
    try:
        os.chdir(path.parent)
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        panels.Panel.__init__ = original
        os.chdir(cwd)


def _run(shell, path, source):
    result = shell.run_cell(source, silent=True)
    if not result.success:
        raise RuntimeError(f"{path.name}: a cell failed: {result.error_in_exec!r}")


def play_panels(path):
    """The panels of the notebook's Play cells, built by calling the lesson's Play functions with each
    cell's own arguments (nothing else of the notebook runs but the cells those arguments need)."""
    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    cells, plays = plan(nb)
    # one notebook's panels alive at a time: ipywidgets keeps every widget until it is closed, and through
    # a panel's controls its figure (the blit test's worker held all 13 notebooks' panels, ~0.8 GB)
    widgets.Widget.close_all()
    made, original, collecting = _collecting()
    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    calls, results = [], []
    with _in_folder(path, original, collecting):
        for i in cells:
            source = _python(nb.cells[i].source)
            if i not in plays:
                _run(shell, path, source)
                continue
            for node in ast.parse(source).body:
                call = _play_call(node)
                if call is None:                  # the cell's other statements, as written
                    _run(shell, path, ast.unparse(node))
                    continue
                ns = shell.user_ns
                if call.args or any(k.arg is None for k in call.keywords):
                    raise ValueError(f"{path.name}: cell {i}: {ast.unparse(call)}: a Play function takes its "
                                     "starting values by keyword only")
                kwargs = {k.arg: _argument(k.value, ns) for k in call.keywords}
                result = getattr(ns[LESSON], call.func.attr)(**kwargs)
                if not isinstance(result, Panel):
                    raise TypeError(f"{path.name}: cell {i}: {LESSON}.{call.func.attr}(...) returned "
                                    f"{type(result).__name__}, expected an attnlab.ui.panels.Panel")
                results.append(result)
                calls.append(f"cell {i}: {LESSON}.{call.func.attr}({ast.unparse(call)[len(LESSON) + len(call.func.attr) + 2:]}")
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        shell.user_ns[target.id] = result
    last_plan.clear()
    last_plan.update(notebook=path.name, cells=cells, plays=plays, calls=calls, results=results)
    return made


def notebook_panels(path):
    """Every panel built while the whole notebook runs in this process (a counted notebook execution)."""
    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    notebook_runs.record(path, "in-process")        # counted (make test prints the table)
    made, original, collecting = _collecting()
    shell = InteractiveShell.instance()
    with _in_folder(path, original, collecting):
        for cell in nb.cells:
            if cell.cell_type == "code":   # no GUI here: figures go nowhere, panels still render
                _run(shell, path, _python(cell.source))
    return made
