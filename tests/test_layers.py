"""The package's layers, read from every module's imports (docs/architecture.md):

core     attnlab/{__init__, _checks, masking, scoring, attention, multihead, positional, efficient, data, transformer}
drawing  attnlab/{plotting, panels, trainer, selfcheck} and private renderer modules
lessons  attnlab/lessons/nbNN_<notebook stem> (a module or a package)

core imports neither drawing nor lessons; drawing imports no lesson; no lesson imports another;
no private name (_x) is imported from another module. Lessons and notebooks use the public API.
"""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[1] / "attnlab"
CORE = {"__init__", "_checks", "i18n", "masking", "scoring", "attention", "multihead", "positional", "efficient", "data",
        "transformer"}
# i18n (the learner's language) is standard library only, so `attnlab.set_language` is part of the core's
# namespace; the core's own messages stay English and never call it.


def module_name(path):
    """attnlab/lessons/nb08_x/seq2seq.py -> 'attnlab.lessons.nb08_x.seq2seq' (packages end in __init__)."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def layer(name):
    """'core', 'drawing' or 'lesson:nbNN_...' for a module name inside attnlab."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] == "lessons":
        return "lesson:" + parts[2]
    if parts == ["attnlab", "lessons"] or parts == ["attnlab", "lessons", "__init__"]:
        return "lessons-root"
    top = parts[1] if len(parts) > 1 else "__init__"
    return "core" if top in CORE else "drawing"


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
    for target, names in imports(path):
        if not target.startswith("attnlab"):
            continue
        their = layer(target)
        if my_layer == "core" and their != "core":
            out.append(f"core module {me} imports {their} {target}")
        if my_layer == "drawing" and their.startswith("lesson"):
            out.append(f"drawing module {me} imports lesson {target}")
        if my_layer.startswith("lesson:") and their.startswith("lesson:") and their != my_layer:
            out.append(f"lesson {me} imports another lesson {target}")
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
        "masking.py": ("from . import plotting\n", "core module attnlab.masking imports drawing"),
        "plotting.py": ("from .lessons import nb01_kernel_regression\n", "drawing module attnlab.plotting imports lesson"),
        "lessons/nb01_kernel_regression.py": ("from .nb06_positional_encoding import thumbnail\n", "imports another lesson"),
        "panels.py": ("from .masking import softmax_unchecked, _hidden\n", "imports the private name _hidden"),
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


LESSON_PACKAGES = sorted(p for p in (PACKAGE / "lessons").iterdir() if p.is_dir() and p.name.startswith("nb"))


@pytest.mark.parametrize("package", LESSON_PACKAGES, ids=lambda p: p.name)
def test_a_lesson_package_shows_every_public_name_of_its_modules(package):
    """The notebook sees one namespace: `lesson.X` for every public X defined in the package's modules."""
    import importlib
    lesson = importlib.import_module(f"attnlab.lessons.{package.name}")
    for path in sorted(package.glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        names += [t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
        missing = [n for n in names if not n.startswith("_") and not hasattr(lesson, n)]
        assert not missing, f"{package.name}/__init__.py does not re-export {missing} from {path.name}"
