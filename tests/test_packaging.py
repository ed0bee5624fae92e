"""The wheel `pip install .` builds: every file git tracks under attnlab/ (code, checkpoints,
thumbnails) and attnlab_classroom/ (the classroom server, its dependencies an extra), the Voila
template as shared data for the Jupyter data path, and nothing else."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
