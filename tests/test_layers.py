"""The package's layers are its folders (docs/architecture.md), read from every module's imports:

core     attnlab/core/      the maths: torch only, no matplotlib, no widgets, nothing else of attnlab
ui       attnlab/ui/        figures, panels, self-checks, trainer: may import core and i18n
i18n     attnlab/i18n.py    the learner's language: standard library only
lessons  attnlab/lessons/nbNN_<notebook stem>/   may import ui, core and i18n; never another lesson
root     attnlab/__init__.py   the contract's names: imports core and i18n

No private name (_x) is imported from another module; the classroom server (attnlab_classroom/, its own
package beside attnlab) is never imported by the learner's package.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "attnlab"
MAY_IMPORT = {"core": {"core"}, "i18n": set(), "ui": {"core", "ui", "i18n"}, "root": {"core", "i18n"},
              "lessons-root": {"ui"}}
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
        elif their == "root" and my_layer in ("core", "i18n", "ui"):
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


@pytest.mark.parametrize("package", LESSON_PACKAGES, ids=lambda p: p.name)
def test_a_lesson_package_is_the_union_of_its_modules_surfaces(package):
    """The notebook sees one namespace, ``lesson.X``: the package's ``__all__`` is its modules' ``__all__``
    put together (every module, none left out), and each name is the module's own object."""
    import importlib
    lesson = importlib.import_module(f"attnlab.lessons.{package.name}")
    modules = [importlib.import_module(f"{lesson.__name__}.{p.stem}") for p in sorted(package.glob("*.py"))
               if p.name not in ("__init__.py", "__main__.py")]
    if not modules:                                  # a package whose only module is its __init__ (nb00)
        return
    assert sorted(lesson.__all__) == sorted(n for m in modules for n in m.__all__)
    for m in modules:
        for n in m.__all__:
            assert getattr(lesson, n) is getattr(m, n), f"{package.name}.{n} is not {m.__name__}.{n}"


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


def test_surface_gathers_names_and_refuses_a_clash_or_a_module_without_all():
    import types

    from attnlab.lessons import surface
    a, b, c = types.ModuleType("a"), types.ModuleType("b"), types.ModuleType("c")
    a.__all__, a.x, a.y = ["x", "y"], 1, 2
    b.__all__, b.x = ["x"], 3
    namespace = {}
    assert surface(namespace, a) == ["x", "y"] and namespace == {"x": 1, "y": 2}
    with pytest.raises(ValueError, match="modules: 'x' is declared by both a and b"):
        surface({}, a, b)
    with pytest.raises(ValueError, match="modules: c has no __all__"):
        surface({}, a, c)
