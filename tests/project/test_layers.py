"""The package's layers are its folders (docs/architecture.md), read from every module's imports:

core     attnlab/core/      the maths: torch only, no matplotlib, no widgets, nothing else of attnlab
ui       attnlab/ui/        figures, panels, self-checks, trainer: may import core and i18n
i18n     attnlab/i18n.py    the learner's language: standard library only
lessons  attnlab/lessons/nbNN_<notebook stem>/   may import ui, core and i18n; never another lesson
root     attnlab/__init__.py   the contract's names: imports core and i18n
cli      attnlab/cli.py, __main__.py   the `attnlab` command: standard library and i18n (its messages in the
                                        learner's language; servers run as processes)

Inside a lesson, the same rooms: only figures.py and live.py import matplotlib or attnlab.ui.plotting,
and its exercises are in exercises.py. No private name (_x) is imported from another module; the classroom server (attnlab_classroom/, its own
package beside attnlab) is never imported by the learner's package.
"""
import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "attnlab"
MAY_IMPORT = {"core": {"core"}, "i18n": set(), "ui": {"core", "ui", "i18n"}, "root": {"core", "i18n"},
              "lessons-root": {"ui"}, "cli": {"cli", "i18n"}}
OUTSIDE_FORBIDDEN = {"core": ("matplotlib", "ipywidgets", "IPython", "PIL"), "i18n": ("torch", "matplotlib")}
NEVER = ("attnlab_classroom", "jupyter_server", "tornado", "voila")


def module_name(path):
    """attnlab/lessons/nb08_x/seq2seq.py -> 'attnlab.lessons.nb08_x.seq2seq' (packages end in __init__)."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def layer(name):
    """The folder a module name sits in: 'core', 'ui', 'i18n', 'root', 'lessons-root' or 'lesson:nbNN_...'."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] == "lessons" and parts[2] != "__init__":
        return "lesson:" + parts[2]
    if parts[1:] in ([], ["__init__"]):
        return "root"
    if parts[1] == "lessons":
        return "lessons-root"
    if parts[1] in ("core", "ui", "i18n"):
        return parts[1]
    if parts[1] in ("cli", "__main__"):
        return "cli"
    return "unknown:" + parts[1]


def imports(path):
    """(imported module, [names]) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    if path.name == "__init__.py":
        package = here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[:len(package) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            names = [alias.name for alias in node.names]
            # `from attnlab import plotting` imports a module: count it as that module
            found += [(base, names)]
            found += [(f"{base}.{n}", []) for n in names if (PACKAGE.parent / (base + "." + n).replace(".", "/")).exists()
                      or (PACKAGE.parent / ((base + "." + n).replace(".", "/") + ".py")).exists()]
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def violations(path):
    me = module_name(path)
    my_layer = layer(me)
    out = []
    if my_layer.startswith("unknown"):
        out.append(f"{me} sits outside the layers' folders (core/, ui/, lessons/, i18n.py)")
    for target, names in imports(path):
        top = target.split(".")[0]
        if top in NEVER:
            out.append(f"{me} imports {target}, which the learner's package never needs")
        if top in OUTSIDE_FORBIDDEN.get(my_layer, ()):
            out.append(f"{my_layer} module {me} imports {target}")
        if not target.startswith("attnlab.") and target != "attnlab":
            continue
        their = layer(target)
        if my_layer.startswith("lesson:"):
            if their.startswith("lesson:") and their != my_layer:
                out.append(f"lesson {me} imports another lesson {target}")
            elif their in ("root", "lessons-root") and names and not set(names) <= {"surface"}:
                pass                                     # `from attnlab import x`: counted as the module x below
        elif their != my_layer and their not in MAY_IMPORT.get(my_layer, set()) and their != "root":
            out.append(f"{my_layer} module {me} imports {their} {target}")
        elif their == "root" and my_layer in ("core", "i18n", "ui", "cli"):
            out.append(f"{my_layer} module {me} imports the package's top {target}")
        for n in names:
            if n.startswith("_") and not (PACKAGE.parent / (target + "." + n).replace(".", "/")).exists() \
                    and not (PACKAGE.parent / ((target + "." + n).replace(".", "/") + ".py")).exists():
                out.append(f"{me} imports the private name {n} from {target}")
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_module_respects_the_layers(path):
    assert violations(path) == []


def test_the_rule_catches_what_it_should(tmp_path, monkeypatch):
    """Each forbidden kind of import, written into a throwaway module, is reported."""
    cases = {
        "core/masking.py": ("from ..ui import plotting\n", "core module attnlab.core.masking imports ui"),
        "core/scoring.py": ("import matplotlib.pyplot as plt\n", "core module attnlab.core.scoring imports matplotlib"),
        "core/data.py": ("from ..i18n import gettext\n", "core module attnlab.core.data imports i18n"),
        "ui/plotting.py": ("from ..lessons import nb01_kernel_regression\n", "ui module attnlab.ui.plotting imports lesson"),
        "ui/trainer.py": ("import attnlab_classroom\n", "imports attnlab_classroom"),
        "lessons/nb01_kernel_regression/model.py": ("from ...lessons.nb06_positional_encoding import encoding\n",
                                                    "imports another lesson"),
        "ui/panels/panel.py": ("from ...core.masking import softmax_unchecked, _hidden\n", "imports the private name _hidden"),
        "extra.py": ("", "sits outside the layers' folders"),
    }
    for rel, (line, message) in cases.items():
        fake = PACKAGE / rel
        monkeypatch.setattr(Path, "read_text", lambda self, encoding=None, _f=fake, _l=line, _o=Path.read_text:
                            _l if self == _f else _o(self, encoding=encoding))
        assert any(message in v for v in violations(fake)), (rel, violations(fake))
        monkeypatch.undo()


def global_seeding(source):
    """Line numbers of calls that seed a global RNG outside ``with torch.random.fork_rng(...)``."""
    tree = ast.parse(source)
    forked = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any("fork_rng" in ast.unparse(item.context_expr) for item in node.items):
            forked |= {id(n) for n in ast.walk(node)}
    bad = ("torch.manual_seed", "torch.random.manual_seed", "torch.seed", "np.random.seed", "numpy.random.seed",
           "random.seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all")
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and ast.unparse(node.func) in bad and id(node) not in forked]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_no_library_module_seeds_the_global_rng(path):
    assert global_seeding(path.read_text(encoding="utf-8")) == [], "use a torch.Generator or torch.random.fork_rng"


def test_the_seeding_rule_can_fail():
    assert global_seeding("import torch\ntorch.manual_seed(0)\n") == [2]
    assert global_seeding("import torch\nwith torch.random.fork_rng(devices=[]):\n    torch.manual_seed(0)\n") == []


def test_layout_lists_one_lesson_per_notebook():
    notebooks = {p.stem for p in (PACKAGE.parent / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    lessons = {p.stem if p.suffix == ".py" else p.name for p in (PACKAGE / "lessons").iterdir()
               if p.name.startswith("nb")}
    assert lessons == {"nb" + n for n in notebooks}


def public_definitions(source):
    """The public names a module defines at its top level (functions, classes, assigned names)."""
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in dict.fromkeys(names) if not n.startswith("_") and n != "__all__"]


def surface_problems(source, module):
    """What is wrong with a lesson module's declared surface: ``__all__`` missing, listing a name twice or a
    name the module lacks, or leaving out a public name the module defines (make that one private: ``_x``)."""
    declared = getattr(module, "__all__", None)
    if declared is None:
        return [f"{module.__name__} has no __all__"]
    out = [f"{module.__name__}.__all__ lists {n!r} twice" for n in sorted({n for n in declared if declared.count(n) > 1})]
    out += [f"{module.__name__}.__all__ lists {n!r}, which it does not have" for n in declared if not hasattr(module, n)]
    out += [f"{module.__name__} defines the public {n!r} but its __all__ leaves it out"
            for n in public_definitions(source) if n not in declared]
    return out


LESSON_MODULES = sorted(p for p in (PACKAGE / "lessons").rglob("*.py")
                        if p.parent != PACKAGE / "lessons" or p.name.startswith("nb"))
LESSON_MODULES = [p for p in LESSON_MODULES if p.name != "__main__.py"]


@pytest.mark.parametrize("path", LESSON_MODULES, ids=lambda p: module_name(p))
def test_a_lesson_module_declares_its_public_names_once(path):
    """Each lesson module lists in ``__all__`` exactly the public names it defines, once."""
    import importlib
    name = module_name(path).removesuffix(".__init__")
    assert surface_problems(path.read_text(encoding="utf-8"), importlib.import_module(name)) == []


LESSON_PACKAGES = sorted(p for p in (PACKAGE / "lessons").iterdir() if p.is_dir() and p.name.startswith("nb"))


# What outside checks call (docs/api.md's "Lesson 09" ... "Lesson 14" API blocks), beyond what the notebooks use
DOCUMENTED = {
    "nb09_transformer_block": {"VOCAB", "examples", "pretrained", "resolve"},
    "nb10_encoder_decoder": {"random_dates", "pretrained", "translate", "decode"},
    "nb11_induction_heads": {"VOCAB", "CONTEXT", "LENGTHS", "repeats", "pretrained", "scores", "ablate", "train"},
    "nb12_gpt": {"pretrained", "generate", "vocab", "cache_bytes", "bits_per_char"},
    "nb13_long_context": {"receptive_field", "RollingCache", "generate_windowed", "sink_model", "train_sink_model",
                          "sink_batch", "sink_scores", "LATENT_SIZES", "latent", "cache_bytes_per_token"},
    "nb14_length_generalisation": {"ENCODINGS", "TASKS", "TRAIN_LENGTH", "batch", "pretrained", "accuracy",
                                   "alibi_bias", "train"},
}
NOTEBOOK_DIR = PACKAGE.parent / "notebooks"


def notebook_uses(stem):
    """The names the notebook ``stem`` (English and Chinese) reads as ``lesson.<name>`` in its code cells, or imports
    from its lesson (``from attnlab.lessons.nb05_cat_milk_it import cat_milk_it``)."""
    import json
    import re
    used = set()
    for path in (NOTEBOOK_DIR / f"{stem}.ipynb", NOTEBOOK_DIR / "zh" / f"{stem}.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                used |= set(re.findall(r"\blesson\.([A-Za-z_]\w*)", source))
                for names in re.findall(rf"^from attnlab\.lessons\.nb{stem} import (.+)$", source, re.M):
                    used |= {n.strip() for n in names.split(",")}
    return used


def surface_is_the_notebooks(package_name, declared, used, defines_thumbnail):
    """What is wrong with a lesson package's ``__all__``: names no notebook (or outside check) uses, and names
    the notebook uses that it leaves out. ``thumbnail`` (the index's picture, tools/make_thumbnails.py) counts
    as used where the lesson has one."""
    wanted = used | DOCUMENTED.get(package_name, set()) | ({"thumbnail"} if defines_thumbnail else set())
    out = [f"{package_name}.__all__ exports {n!r}, which its notebooks do not use" for n in sorted(set(declared) - wanted)]
    out += [f"{package_name}: the notebook uses lesson.{n}, which __all__ leaves out" for n in sorted(wanted - set(declared))]
    return out


@pytest.mark.parametrize("package", LESSON_PACKAGES, ids=lambda p: p.name)
def test_a_lesson_exports_what_its_notebook_uses(package):
    """``__all__`` of a lesson is its notebook's vocabulary (both languages), plus documented outside names;
    tests import internals from the lesson's modules."""
    import importlib
    lesson = importlib.import_module(f"attnlab.lessons.{package.name}")
    assert surface_is_the_notebooks(package.name, lesson.__all__, notebook_uses(package.name[2:]),
                                    hasattr(lesson, "thumbnail")) == []
    assert all(hasattr(lesson, n) for n in lesson.__all__)


def test_the_notebook_surface_rule_can_fail():
    assert surface_is_the_notebooks("nb99_x", ["play", "extra"], {"play", "figure"}, False) == [
        "nb99_x.__all__ exports 'extra', which its notebooks do not use",
        "nb99_x: the notebook uses lesson.figure, which __all__ leaves out"]
    assert surface_is_the_notebooks("nb99_x", ["play"], {"play"}, True) == [
        "nb99_x: the notebook uses lesson.thumbnail, which __all__ leaves out"]
    assert surface_is_the_notebooks("nb10_encoder_decoder", ["play"], {"play"}, False)[0].endswith(
        "the notebook uses lesson.decode, which __all__ leaves out")


def play_contract_problems(name, function):
    """A Play function's signature: keyword-only parameters (a real signature, no *args, no **kwargs), and its
    declared return (``-> Panel``) an ``attnlab.ui.panels.Panel`` or a subclass of it (a Trainer, a panel a
    trainer adds models to). That the functions return what they declare is checked where every notebook's
    Play cells are called (tests/_notebook_panels.py, for test_panel_names.py and the blit test)."""
    import inspect

    from attnlab.ui.panels import Panel
    out = []
    signature = inspect.signature(function)
    for p in signature.parameters.values():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY:
            out.append(f"{name}: parameter {p.name!r} is {p.kind.description}, expected keyword-only")
    returns = signature.return_annotation
    if not (isinstance(returns, type) and issubclass(returns, Panel)):
        shown = "nothing" if returns is inspect.Signature.empty else getattr(returns, "__name__", repr(returns))
        out.append(f"{name}: declared to return {shown}, expected attnlab.ui.panels.Panel (or a subclass)")
    return out


PLAY_NAME = re.compile(r"play(_[a-z]\w*)?")


def play_definitions(package_dir, sources=None):
    """(file name, function name) of every top-level ``def play`` / ``def play_<name>`` in a lesson folder: the
    Play functions, which live in live.py and return panels (a helper that is not a panel has another name)."""
    found = []
    if sources is None:
        sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(package_dir.glob("*.py"))}
    for file, source in sorted(sources.items()):
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and PLAY_NAME.fullmatch(node.name):
                found.append((file, node.name))
    return found


@pytest.mark.parametrize("package", LESSON_PACKAGES, ids=lambda p: p.name)
def test_every_play_function_takes_keyword_starting_values(package):
    """One Play contract: ``lesson.play(*, <starting values>) -> Panel``; a second panel is
    ``lesson.play_<name>(*, ...) -> Panel``, never a string; every function named so is one, in live.py, exported;
    no module named ``play`` for the function to shadow."""
    import importlib
    lesson = importlib.import_module(f"attnlab.lessons.{package.name}")
    live = importlib.import_module(f"attnlab.lessons.{package.name}.live")
    plays = [n for n in lesson.__all__ if PLAY_NAME.fullmatch(n)]
    assert "play" in plays
    assert not (package / "play.py").exists() and not (package / "play").is_dir()
    for n in plays:
        assert callable(getattr(lesson, n)) and play_contract_problems(n, getattr(lesson, n)) == []
    defined = play_definitions(package)
    assert {file for file, _name in defined} == {"live.py"}, defined
    for _file, n in defined:
        assert n in plays and play_contract_problems(n, getattr(live, n)) == []


def test_the_play_contract_rule_can_fail():
    from attnlab.ui.panels import Panel
    from attnlab.ui.trainer import Trainer

    def old(which, *args, **kwargs):
        pass

    def new(*, sigma=0.3, n_train=50) -> Panel:
        pass

    def trainer(*, steps=30) -> Trainer:
        pass

    def returns_its_argument(*, explorer=None) -> object:
        return explorer
    assert play_contract_problems("play", new) == [] and play_contract_problems("play_trainer", trainer) == []
    assert play_contract_problems("play", old) == [
        "play: parameter 'which' is positional or keyword, expected keyword-only",
        "play: parameter 'args' is variadic positional, expected keyword-only",
        "play: parameter 'kwargs' is variadic keyword, expected keyword-only",
        "play: declared to return nothing, expected attnlab.ui.panels.Panel (or a subclass)"]
    assert play_contract_problems("play", returns_its_argument) == [
        "play: declared to return object, expected attnlab.ui.panels.Panel (or a subclass)"]
    assert play_definitions(None, {"live.py": "def play(*, n=1): pass\ndef _play_x(): pass\ndef player(): pass\n",
                                   "stats.py": "def play_limit(d_k):\n    return 40\n"}) == [
        ("live.py", "play"), ("stats.py", "play_limit")]


def test_the_surface_rule_can_fail():
    """A module without ``__all__``, with a name twice or missing, or defining a public name it leaves out."""
    import types
    m = types.ModuleType("attnlab.lessons.nb99_x")
    assert surface_problems("", m) == ["attnlab.lessons.nb99_x has no __all__"]
    m.__all__, m.f = ["f", "f", "g"], 1
    problems = surface_problems("def f(): pass\ndef h(): pass\ndef _k(): pass\nC = 1\n", m)
    assert problems == ["attnlab.lessons.nb99_x.__all__ lists 'f' twice",
                        "attnlab.lessons.nb99_x.__all__ lists 'g', which it does not have",
                        "attnlab.lessons.nb99_x defines the public 'h' but its __all__ leaves it out",
                        "attnlab.lessons.nb99_x defines the public 'C' but its __all__ leaves it out"]


# ---- every lesson the same rooms: figures draw, live wires, exercises check
DRAWING = ("matplotlib", "attnlab.ui.plotting")
DRAWING_ROOMS = {"figures.py", "live.py"}


def room_problems(package_dir, sources=None):
    """What breaks the rooms of one lesson folder: a module other than figures.py and live.py that imports
    matplotlib or attnlab.ui.plotting (a figure outside figures.py), and an exercise module other than
    exercises.py. ``sources`` ({file name: text}) replaces the files, for the test that the rule can fail."""
    out = []
    if sources is None:
        sources = {p.name: p for p in sorted(package_dir.glob("*.py"))}
    for name, source in sorted(sources.items()):
        path = package_dir / name
        if isinstance(source, str):
            path.write_text(source, encoding="utf-8")
        drawn = sorted({m for m, _names in imports(path) if m.startswith(DRAWING)})
        if drawn and name not in DRAWING_ROOMS:
            out.append(f"{package_dir.name}/{name} imports {', '.join(drawn)}: its figures belong in figures.py")
        if "exercise" in name and name != "exercises.py":
            out.append(f"{package_dir.name}/{name}: a lesson's exercises are in exercises.py")
    return out


@pytest.mark.parametrize("package", LESSON_PACKAGES, ids=lambda p: p.name)
def test_a_lesson_draws_only_in_figures_and_live_and_checks_only_in_exercises(package):
    assert room_problems(package) == []


def test_the_rooms_rule_can_fail(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "module_name", lambda path: f"attnlab.lessons.nb99_x.{path.stem}")
    sources = {"analysis.py": "def f():\n    import matplotlib.pyplot as plt\n",
               "model.py": "from ...ui import plotting\n",
               "figures.py": "from ...ui.plotting import heatmap\n", "live.py": "import matplotlib\n",
               "tile_exercise.py": "X = 1\n", "exercises.py": "X = 1\n"}
    folder = tmp_path / "nb99_x"
    folder.mkdir()
    assert room_problems(folder, sources) == [
        "nb99_x/analysis.py imports matplotlib.pyplot: its figures belong in figures.py",
        "nb99_x/model.py imports attnlab.ui.plotting: its figures belong in figures.py",
        "nb99_x/tile_exercise.py: a lesson's exercises are in exercises.py"]
