"""`make setup` installs torch's CPU build on Linux by default (PyTorch's CPU wheel index, not PyPI's
Linux wheel with several GB of CUDA libraries); `make setup TORCH=cuda` takes PyPI's; anything else is
refused. Checked with `make -n` (what make would run), so nothing is installed."""
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
pytestmark = pytest.mark.skipif(not shutil.which("make"), reason="no make")


def dry_run(tmp_path, *args):
    return subprocess.run(["make", "-n", "-B", "setup", f"VENV={tmp_path / 'venv'}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def pip_lines(out):
    return [line for line in out.stdout.splitlines() if "-m pip install" in line and "requirements.txt" in line]


TORCH_PIN = "$(grep -E '^torch==' requirements.txt)"


@pytest.mark.skipif(platform.system() != "Linux", reason="the CPU index is for Linux only")
def test_setup_takes_cpu_torch_on_linux_by_default(tmp_path):
    out = dry_run(tmp_path)
    assert out.returncode == 0, out.stderr
    lines = pip_lines(out)
    torch_first = [i for i, line in enumerate(lines) if line.endswith(f"{CPU_INDEX} --no-deps {TORCH_PIN}")]
    runtime = [i for i, line in enumerate(lines) if line.endswith("-r requirements.txt")]
    # torch alone from the CPU index, then the rest from PyPI (only torch's lookup touches that index)
    assert torch_first and runtime and torch_first[0] < runtime[0], out.stdout
    assert CPU_INDEX not in lines[runtime[0]]
    assert f"touch {tmp_path / 'venv'}/.torch-cpu" in out.stdout


def test_torch_cuda_takes_pypis_build(tmp_path):
    out = dry_run(tmp_path, "TORCH=cuda")
    assert out.returncode == 0, out.stderr
    assert pip_lines(out) and not [line for line in pip_lines(out) if CPU_INDEX in line]
    assert f"touch {tmp_path / 'venv'}/.torch-cuda" in out.stdout


def test_another_torch_is_refused(tmp_path):
    out = dry_run(tmp_path, "TORCH=rocm")
    assert out.returncode != 0 and "TORCH must be cpu or cuda, got 'rocm'" in out.stderr
