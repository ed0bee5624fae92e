"""A Python the hub's learners can run (deploy/jupyterhub/): their servers run as their own Unix users, so
the interpreter, its standard library and the packages must be readable by users other than the teacher.

    .venv/bin/python tools/learners_python.py build/learners-python     (make hub-setup runs it, as root)

OUT lies OUTSIDE the hub's state folder (build/hub, which the hub makes mode 700 because it holds the
database, the cookie secret and the learners' password hashes): learners must enter the folders on the way
to their Python, and they must never enter the state folder.

The project's venv is enough where its base interpreter is readable by everyone (a system or /usr/local
Python): then nothing is made, and OUT is removed if an earlier run made it. Where the base interpreter
lives in a private folder (pyenv under /root, as on the project's test machines), OUT becomes a venv of
the system's python3 of the same minor version whose site-packages reads the project's venv's (a .pth
that calls site.addsitedir, so the venv's own .pth files, the editable attnlab among them, apply too) and
whose etc/jupyter and share/jupyter are the venv's (server extensions, Voila's templates, kernel spec).
Says what it did; exits 1 only when it cannot find any Python the learners could run.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

CHECK = ("import attnlab, jupyterhub.singleuser, voila, ipykernel; from jupyter_core.paths import jupyter_config_path; "
         "import os; assert any(os.path.exists(os.path.join(p, 'jupyter_server_config.d', 'voila.json')) for p in jupyter_config_path())")


def runs_for_others(python, user="nobody", check=CHECK):
    """True when ``user`` (an unprivileged account) can run ``python`` and import what a learner's server
    needs. Only root can ask (it switches to that user); elsewhere None: not known."""
    if os.geteuid() != 0:
        return None
    try:
        run = subprocess.run([str(python), "-c", check], user=user, group=user if _has_group(user) else None,
                             extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
                                                            "PYTHONDONTWRITEBYTECODE": "1"},
                             capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError, KeyError):
        return False
    return run.returncode == 0


def unreadable_for_learners(path):
    """The first folder on the way to ``path`` that other users cannot enter (None: they can)."""
    path = Path(path).resolve()
    for part in [*reversed(path.parents), path]:
        if not part.stat().st_mode & 0o001:
            return part
    return None


def _has_group(name):
    import grp
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


MADE = Path("build") / "learners-python"       # where `make hub-setup` makes it, relative to the checkout


def learners_python(root):
    """The interpreter the hub starts learners' servers with: ATTNLAB_HUB_PYTHON, else the one this tool
    made under build/learners-python, else the project's venv's."""
    made = Path(root) / MADE / "bin" / "python"
    return os.environ.get("ATTNLAB_HUB_PYTHON") or (str(made) if made.exists() else sys.executable)


def why_others_cannot_run(python, root, state=None):
    """What the hub tells the teacher when other users cannot run ``python`` (runs_for_others is False):
    what stands in the way and the one step that fixes it."""
    python, root = Path(python), Path(root).resolve()
    given = os.environ.get("ATTNLAB_HUB_PYTHON")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    # the folder learners cannot enter: on the way to the venv itself, else to the interpreter it links to
    blocked = unreadable_for_learners(python.parent.absolute()) or unreadable_for_learners(python)
    where = f"other users cannot run {python} with attnlab, Voila and JupyterHub"
    if given:
        return (f"{where} (ATTNLAB_HUB_PYTHON)" + (f": they cannot enter {blocked}" if blocked else "") +
                ". Point ATTNLAB_HUB_PYTHON at a Python other users can run, or unset it and run `make hub-setup`")
    if state is not None and blocked is not None and Path(state).resolve() in (blocked, *blocked.parents):
        return (f"{where}: it lies in the hub's private state folder {state} (mode 700). Run `make hub-setup` "
                f"(as root): it makes the learners' Python in {root / MADE}, outside it")
    if blocked is not None and root in (blocked, *blocked.parents):
        return (f"{where}: they cannot enter {blocked}. Run `chmod o+x {blocked}` (learners only pass through it), "
                "then `make hub`")
    if blocked is not None:
        return (f"{where}: its interpreter is in {blocked}, which other users cannot enter (pyenv or conda under a "
                f"private home). Run `make hub-setup` as root: it makes {root / MADE}, a Python {version} of the system "
                f"reading this venv's packages; if it says no system Python {version} was found, install one "
                f"(`apt-get install python{version}`) and run it again, or set ATTNLAB_HUB_PYTHON")
    return (f"{where} (an import fails for user nobody: try `sudo -u nobody {python} -c 'import attnlab, voila, "
            "jupyterhub'`). Run `make hub-setup` as root, which makes one where needed, or set ATTNLAB_HUB_PYTHON")


def make(out):
    out = Path(out).resolve()
    if runs_for_others(sys.executable) is not False:
        shutil.rmtree(out, ignore_errors=True)
        print(f"learners_python: learners run {sys.executable} (nothing to make)")
        return 0
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    ours = sysconfig.get_paths()["purelib"]
    pth = out / "lib" / f"python{version}" / "site-packages" / "attnlab-project-venv.pth"
    if pth.is_file() and repr(ours) in pth.read_text() and runs_for_others(out / "bin" / "python"):
        print(f"learners_python: learners run {out}/bin/python (made before, reading {ours})")
        return 0
    for base in (f"/usr/bin/python{version}", f"/usr/local/bin/python{version}"):
        if not Path(base).exists() or not runs_for_others(base, check="import sys"):
            continue
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([base, "-m", "venv", "--without-pip", str(out)], check=True)
        site = out / "lib" / f"python{version}" / "site-packages"
        (site / "attnlab-project-venv.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
        # Jupyter finds its server extensions (Voila, JupyterLab), templates and kernel spec under sys.prefix:
        # the project venv's own, linked
        for folder in ("etc/jupyter", "share/jupyter"):
            if (Path(sys.prefix) / folder).is_dir():
                (out / folder).parent.mkdir(parents=True, exist_ok=True)
                (out / folder).symlink_to(Path(sys.prefix) / folder)
        if runs_for_others(out / "bin" / "python"):
            print(f"learners_python: {sys.executable}'s base is private to its owner; learners run {out}/bin/python "
                  f"({base} reading {ours})")
            return 0
        shutil.rmtree(out, ignore_errors=True)
    print(f"learners_python: no Python that other users can run was found ({sys.executable}'s base is private, and no "
          f"/usr/bin/python{version}): the hub will refuse to start. Install one (`apt-get install python{version}`) and run "
          f"`make hub-setup` again, or set ATTNLAB_HUB_PYTHON to a Python {version} other users can run", file=sys.stderr)
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(make(sys.argv[1]))
