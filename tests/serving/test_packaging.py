"""The wheel `pip install .` builds: every file git tracks under attnlab/ (code, checkpoints,
thumbnails) and attnlab_classroom/ (the classroom server, its dependencies an extra), the Voila
template as shared data for the Jupyter data path, and nothing else."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "share/jupyter/voila/templates/attnlab"


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True)
    (path,) = out.glob("attnlab-*.whl")
    return path


@pytest.fixture(scope="module")
def wheel(wheel_file):
    return zipfile.ZipFile(wheel_file).namelist()


def tracked(folder):
    files = subprocess.run(["git", "ls-files", folder], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.split()
    return {f for f in files if (ROOT / f).is_file()}


def test_wheel_holds_every_tracked_package_file(wheel):
    package = tracked("attnlab")
    assert any(f.endswith(".pt") for f in package) and any(f.endswith(".png") for f in package)
    missing = sorted(package - set(wheel))
    assert not missing, f"not in the wheel: {missing}"


def test_wheel_installs_the_voila_template_as_data(wheel):
    data = {n.split(".data/data/", 1)[1] for n in wheel if ".data/data/" in n}
    assert data == tracked(TEMPLATE), data


def test_wheel_holds_nothing_from_beside_the_package(wheel):
    """The learner's package and the classroom server beside it, nothing else of the repository."""
    stray = [n for n in wheel if not (n.startswith(("attnlab/", "attnlab_classroom/")) or ".dist-info/" in n
                                      or ".data/data/" in n)]
    assert not stray, stray
    assert sorted(tracked("attnlab_classroom") - set(wheel)) == []
    assert not [n for n in wheel if "__pycache__" in n or n.endswith(".pyc")]


def test_the_classroom_servers_dependencies_are_an_extra(wheel_file, wheel):
    """``pip install attnlab`` brings no server; ``attnlab[classroom]`` brings what attnlab_classroom imports."""
    import email
    metadata = next(n for n in wheel if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel_file) as z:
        message = email.message_from_bytes(z.read(metadata))
    requires = message.get_all("Requires-Dist")
    plain = [r for r in requires if "extra ==" not in r]
    extra = " ".join(r for r in requires if "extra == 'classroom'" in r or 'extra == "classroom"' in r)
    assert not [r for r in plain if r.split(">")[0].split("=")[0].strip() in ("voila", "jupyter-server", "psutil")]
    for name in ("voila", "jupyter_server", "psutil", "tornado", "traitlets"):
        assert name in extra.replace("-", "_"), (name, extra)


def metadata(wheel_file, wheel):
    import email
    name = next(n for n in wheel if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel_file) as z:
        return email.message_from_bytes(z.read(name))


def test_wheel_carries_the_notebooks_equal_to_the_repositorys(wheel_file, wheel):
    """attnlab/notebooks/ in the wheel (built from notebooks/ and voila.json: one copy in git) holds
    every tracked notebook, English and Chinese, byte for byte, and voila.json; nothing else."""
    inside = {n.removeprefix("attnlab/notebooks/") for n in wheel if n.startswith("attnlab/notebooks/")}
    notebooks = {f.removeprefix("notebooks/") for f in tracked("notebooks") if f.endswith(".ipynb")}
    assert len(notebooks) >= 24 and any(n.startswith("zh/") for n in notebooks)
    assert inside == notebooks | {"voila.json"}, sorted(inside ^ (notebooks | {"voila.json"}))
    with zipfile.ZipFile(wheel_file) as z:
        for rel in notebooks:
            assert z.read(f"attnlab/notebooks/{rel}") == (ROOT / "notebooks" / rel).read_bytes(), rel
        assert z.read("attnlab/notebooks/voila.json") == (ROOT / "voila.json").read_bytes()


def test_wheel_has_the_attnlab_command(wheel_file, wheel):
    name = next(n for n in wheel if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(wheel_file) as z:
        text = z.read(name).decode()
    assert "[console_scripts]\nattnlab = attnlab.cli:main" in text


def imported_modules(folder):
    """Top-level names of every module imported anywhere in ``folder``'s Python files (absolute imports)."""
    import ast
    names = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"attnlab", "attnlab_classroom"}


def requirement_names(requires, extra=None):
    """Normalised distribution names of Requires-Dist lines: the plain ones, or those of ``extra``."""
    import re
    out = set()
    for r in requires:
        marker = re.search(r"extra == ['\"]([^'\"]+)['\"]", r)
        if (marker.group(1) if marker else None) == extra:
            out.add(re.split(r"[\s<>=!~;\[(]", r, maxsplit=1)[0].lower().replace("_", "-"))
    return out


def distributions_of(module):
    import importlib.metadata as md
    dists = md.packages_distributions().get(module)
    assert dists, f"{module}: imported, but no installed distribution provides it"
    return {d.lower().replace("_", "-") for d in dists}


def test_every_import_is_declared_and_nothing_undeclared_is_needed(wheel_file, wheel):
    """What attnlab/ imports is a plain dependency; what attnlab_classroom/ imports, the classroom extra;
    nothing declared that is never imported (pillow: the panels encode their own PNGs)."""
    requires = metadata(wheel_file, wheel).get_all("Requires-Dist")
    plain, classroom = requirement_names(requires), requirement_names(requires, "classroom")
    for folder, declared in (("attnlab", plain), ("attnlab_classroom", plain | classroom)):
        for module in sorted(imported_modules(folder)):
            assert distributions_of(module) & declared, f"{folder} imports {module}, not declared: {sorted(declared)}"
    used = {d for m in imported_modules("attnlab") for d in distributions_of(m)}
    assert plain <= used, f"declared and never imported by attnlab/: {sorted(plain - used)}"
    assert "pillow" not in plain


def test_extras_and_upper_bounds_where_a_major_release_breaks(wheel_file, wheel):
    message = metadata(wheel_file, wheel)
    assert set(message.get_all("Provides-Extra")) >= {"dashboard", "classroom", "hub", "test"}
    requires = message.get_all("Requires-Dist")
    dashboard = requirement_names(requires, "dashboard")
    assert {"voila", "psutil", "jupyterlab", "ipykernel"} <= dashboard, dashboard    # attnlab[classroom] + Lab
    assert "jupyterhub" in requirement_names(requires, "hub")
    bounds = {"ipywidgets": "<9", "voila": "<0.6", "matplotlib": "<4", "jupyterlab": "<5", "jupyter-server": "<3"}
    for name, bound in bounds.items():
        line = next(r for r in requires if r.lower().replace("_", "-").startswith(name))
        assert bound in line, (name, line)


def test_one_version_source(wheel_file, wheel):
    """pyproject.toml names no version of its own: the wheel's is attnlab/__init__.py's __version__."""
    import tomllib

    import attnlab
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert metadata(wheel_file, wheel)["Version"] == attnlab.__version__
    assert Path(wheel_file).name.startswith(f"attnlab-{attnlab.__version__}-")


def test_licence_metadata_covers_the_font_and_both_texts_ship(wheel_file, wheel):
    message = metadata(wheel_file, wheel)
    assert message["License-Expression"] == "MIT AND OFL-1.1"
    assert sorted(message.get_all("License-File")) == ["LICENSE", "attnlab/locale/fonts/OFL.txt"]
    info = next(n for n in wheel if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
    with zipfile.ZipFile(wheel_file) as z:
        assert z.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
        ofl = z.read(f"{info}/licenses/attnlab/locale/fonts/OFL.txt")
    assert ofl == (ROOT / "attnlab" / "locale" / "fonts" / "OFL.txt").read_bytes() and b"SIL OPEN FONT LICENSE" in ofl.upper()
    assert any(f.suffix in (".otf", ".ttf", ".woff2") for f in (ROOT / "attnlab" / "locale" / "fonts").iterdir())
