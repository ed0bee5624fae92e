"""The wheel `pip install .` builds: every file git tracks under attnlab/ (code, checkpoints,
thumbnails), the Voila template as shared data for the Jupyter data path, and nothing else."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = "share/jupyter/voila/templates/attnlab"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)],
                   check=True, capture_output=True)
    (path,) = out.glob("attnlab-*.whl")
    return zipfile.ZipFile(path).namelist()


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
    stray = [n for n in wheel if not (n.startswith("attnlab/") or ".dist-info/" in n or ".data/data/" in n)]
    assert not stray, stray
    assert not [n for n in wheel if "__pycache__" in n or n.endswith(".pyc")]
