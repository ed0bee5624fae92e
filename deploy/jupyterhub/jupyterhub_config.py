"""JupyterHub for a class on ONE large machine: every learner logs in with the class password, becomes a
Unix user of their own (never root, never the teacher), and gets a Jupyter server of their own on their
own copy of the notebooks. `make hub` starts it; docs/teaching.md is the teacher's guide;
tests/browser/test_hub.py and test_hub_isolation.py start it for real (as root) and try what a learner
could do to another learner or to the teacher.

Pieces (all from their own projects; what is attnlab's is said):
- JupyterHub from pip (requirements-hub.txt), configurable-http-proxy from npm in build/hub/;
- the class authenticator (attnlab's, on JupyterHub's LocalAuthenticator): a learner's first login
  takes a name, a password of their own and the class password (ATTNLAB_HUB_PASSWORD, at least 8
  characters, or one generated and printed at start); later logins take their own password, so the
  class password does not open another learner's account. LocalAuthenticator creates a system user
  for each new name (`useradd`, in the group ATTNLAB_HUB_GROUP, home ATTNLAB_HUB_HOMES/<name> private
  to them, no login shell). A name must be lowercase letters, digits, '-' or '_' (a Unix user name); a
  name the machine already has for someone else (root, the teacher, a service) is refused;
- the spawner: LocalProcessSpawner (JupyterHub's: the server runs as the learner's Unix user), or
  SystemdSpawner where the hub runs as root under systemd (it also enforces the memory and CPU limits
  below through cgroups; `pip install jupyterhub-systemdspawner`). Before each start (attnlab's
  pre-spawn hook) the learner's user is checked (refused if it is root, the teacher, or not a learner)
  and the notebooks are copied into ~/attnlab/ AS the learner, only the files they do not have yet:
  their edits survive a cull and a restart, and the teacher's checkout stays read-only to them;
- the mode (ATTNLAB_HUB_MODE): `dashboards` (the default) serves only Voila pages: no JupyterLab, and
  the kernels take only the widget messages a dashboard sends (no code a learner types runs); `lab`
  adds JupyterLab for classes that do the exercises (code runs as the learner's own user). Terminals
  are off in both;
- TLS: ATTNLAB_HUB_SSL_CERT and ATTNLAB_HUB_SSL_KEY (PEM files) serve https. Listening beyond the
  loopback interface over plain http is refused (the class password would cross the room's network in
  clear) unless ATTNLAB_HUB_TLS_PROXY names the https address of a TLS proxy in front, or
  ATTNLAB_HUB_INSECURE=1 says the teacher accepts it;
- memory per learner (ATTNLAB_HUB_MEM, 2G): enforced by the OS only under SystemdSpawner; otherwise
  said at start, and each learner's kernel manager (attnlab_classroom.ClassroomKernelManager) reads
  the limit (MEM_LIMIT) and starts no more kernels than it holds;
- jupyterhub-idle-culler as a hub service: servers idle for ATTNLAB_HUB_CULL seconds (default 20
  minutes) are stopped, and their memory freed.

Environment (all optional): ATTNLAB_HUB_IP (127.0.0.1; 0.0.0.0 for the class network), ATTNLAB_HUB_PORT
(8000), ATTNLAB_HUB_PASSWORD, ATTNLAB_HUB_MODE (dashboards|lab), ATTNLAB_HUB_SSL_CERT,
ATTNLAB_HUB_SSL_KEY, ATTNLAB_HUB_TLS_PROXY, ATTNLAB_HUB_INSECURE, ATTNLAB_HUB_DIR (build/hub: database,
cookie secret, password hashes; made mode 700, so nothing learners must read lives there: their Python is
build/learners-python, tools/learners_python.py), ATTNLAB_HUB_HOMES (/home), ATTNLAB_HUB_GROUP (attnlab-learners), ATTNLAB_HUB_MEM (2G),
ATTNLAB_HUB_CPU (1.0), ATTNLAB_HUB_CULL (1200), ATTNLAB_HUB_SPARE (page kernels each learner's server
keeps started ahead, 1; 0 saves a kernel's memory per learner and costs ~3 s per page),
ATTNLAB_HUB_SPAWNER (auto|local|systemd), ATTNLAB_HUB_MAX_LEARNERS (servers at once), ATTNLAB_HUB_SPAWNS
(servers starting at once; JupyterHub's 100), ATTNLAB_LANG (en|zh: the index a learner lands on),
ATTNLAB_HUB_LESSON (a notebook learners land on instead of the index, e.g. 01_kernel_regression.ipynb),
ATTNLAB_HUB_NOTEBOOKS (the folder copied to each learner as ~/attnlab/notebooks: this checkout's notebooks/;
another absolute folder laid out the same way, with its 00_index.ipynb and zh/, e.g. a class's own edition),
ATTNLAB_HUB_API_PORT and ATTNLAB_HUB_PROXY_API_PORT (internal ports, 8081 and 8001),
ATTNLAB_HUB_USER_PORTS ("LOW-HIGH": the learners' servers listen on a free port of that range, for a
machine whose other ports are taken; default: any free port, JupyterHub's choice).
"""
import asyncio
import hashlib
import hmac
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from jupyterhub.auth import LocalAuthenticator

c = get_config()  # noqa: F821 - JupyterHub's config loader provides it

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from attnlab_classroom import is_loopback  # the classroom server's own test, one definition
from learners_python import learners_python, runs_for_others, unreadable_for_learners, why_others_cannot_run

env = os.environ.get
# The Python learners' servers run (they are other Unix users): tools/learners_python.py
LEARNER_PYTHON = learners_python(ROOT)


def _refuse(message):
    """Stop the hub before it starts, saying why (JupyterHub prints the SystemExit's text)."""
    raise SystemExit(f"make hub: {message}")


state = Path(env("ATTNLAB_HUB_DIR") or ROOT / "build" / "hub")
state.mkdir(parents=True, exist_ok=True)
if os.geteuid() == 0 and not globals().get("ATTNLAB_HUB_READ_ONLY"):
    state.chmod(0o700)          # the database, the cookie secret and the learners' password hashes: root's only
ip, port = env("ATTNLAB_HUB_IP") or "127.0.0.1", int(env("ATTNLAB_HUB_PORT") or 8000)


# -- TLS ------------------------------------------------------------------------------------------
cert, key = env("ATTNLAB_HUB_SSL_CERT") or "", env("ATTNLAB_HUB_SSL_KEY") or ""
tls_proxy = (env("ATTNLAB_HUB_TLS_PROXY") or "").strip()
insecure = (env("ATTNLAB_HUB_INSECURE") or "").strip()
if insecure not in ("", "0", "1"):
    _refuse(f"ATTNLAB_HUB_INSECURE: expected 1 (or unset), got {insecure!r}")
if bool(cert) != bool(key):
    _refuse("ATTNLAB_HUB_SSL_CERT and ATTNLAB_HUB_SSL_KEY: expected both (a certificate and its key), got only "
            + ("the certificate" if cert else "the key"))
for name, path in (("ATTNLAB_HUB_SSL_CERT", cert), ("ATTNLAB_HUB_SSL_KEY", key)):
    if path and not Path(path).is_file():
        _refuse(f"{name}: expected a PEM file, got {path!r} (no such file)")
if tls_proxy and not tls_proxy.startswith("https://"):
    _refuse(f"ATTNLAB_HUB_TLS_PROXY: expected the https:// address learners use, got {tls_proxy!r}")
if tls_proxy and not cert and not is_loopback(ip) and insecure != "1":
    _refuse(f"ATTNLAB_HUB_TLS_PROXY: the proxy in front reaches the hub on this machine, so the hub listens on "
            f"127.0.0.1, not ATTNLAB_HUB_IP={ip} (plain http there would carry the passwords past the proxy)")
if not cert and not is_loopback(ip) and insecure != "1":
    _refuse(f"ATTNLAB_HUB_IP={ip} over plain http would send the class password across the network in clear. "
            "Give a certificate (ATTNLAB_HUB_SSL_CERT and ATTNLAB_HUB_SSL_KEY), or name the TLS proxy in front "
            "(ATTNLAB_HUB_TLS_PROXY=https://...), or accept it with ATTNLAB_HUB_INSECURE=1.")
scheme = "https" if cert else "http"
if cert:
    c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key = cert, key
c.JupyterHub.bind_url = f"{scheme}://{ip}:{port}/"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("ATTNLAB_HUB_API_PORT") or 8081)
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('ATTNLAB_HUB_PROXY_API_PORT') or 8001)}"
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True          # stopping the hub stops every learner's server
proxy = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [str(proxy) if proxy.exists() else (shutil.which("configurable-http-proxy") or str(proxy))]

# -- who may log in, as whom ----------------------------------------------------------------------
GROUP = env("ATTNLAB_HUB_GROUP") or "attnlab-learners"
HOMES = Path(env("ATTNLAB_HUB_HOMES") or "/home")
NAME = r"[a-z][a-z0-9_-]{0,31}"
if not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", GROUP):
    _refuse(f"ATTNLAB_HUB_GROUP: expected a Unix group name, got {GROUP!r}")
if not HOMES.is_absolute():
    _refuse(f"ATTNLAB_HUB_HOMES: expected an absolute directory, got {str(HOMES)!r}")


def teacher_uids():
    """Who is not a learner, whatever the name: root, the owner of the checkout, whoever ran sudo."""
    uids = {0, ROOT.stat().st_uid}
    if (env("SUDO_UID") or "").isdigit():
        uids.add(int(env("SUDO_UID")))
    return uids


def is_learner(name):
    """True if ``name`` is a Unix user of the learners' group that is not root nor the teacher."""
    import grp
    try:
        user = pwd.getpwnam(name)
        group = grp.getgrnam(GROUP)
    except KeyError:
        return False
    return user.pw_gid == group.gr_gid and user.pw_uid not in teacher_uids()


PASSWORDS = state / "learner_passwords.json"      # name -> scrypt hash of the learner's own password


def _hash(secret, salt):
    return hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1).hex()


class ClassPasswordAuthenticator(LocalAuthenticator):
    """A learner's first login: a name, a password of their own (8 characters or more) and the class
    password (the form's second field, JupyterHub's `otp` input); the name becomes a Unix user of the
    learners' group (JupyterHub's LocalAuthenticator creates it). Later logins: the name and their own
    password; the class password alone never opens an existing learner's account. A name the machine
    already has for anyone else is refused. Passwords are kept as scrypt hashes in the hub's state
    folder (root only)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.class_password = CLASS_PASSWORD

    def _stored(self):
        try:
            return json.loads(PASSWORDS.read_text())
        except FileNotFoundError:
            return {}

    async def authenticate(self, handler, data):
        name = self.normalize_username(data.get("username") or "")
        given, class_given = data.get("password") or "", data.get("otp") or ""
        record = self._stored().get(name)
        if record is not None:
            salt = bytes.fromhex(record["salt"])
            return name if hmac.compare_digest(_hash(given, salt), record["hash"]) else None
        if not hmac.compare_digest(class_given.encode(), self.class_password.encode()):
            self.log.warning("attnlab hub: first login of %r without the class password", name)
            return None
        if len(given) < 8 or hmac.compare_digest(given.encode(), self.class_password.encode()):
            self.log.warning("attnlab hub: first login of %r: their own password must have 8 characters or more "
                             "and differ from the class password", name)
            return None
        if not self.validate_username(name) or not self.check_blocked_users(name):
            return None
        salt = secrets.token_bytes(16)
        stored = self._stored()
        stored[name] = {"salt": salt.hex(), "hash": _hash(given, salt)}
        tmp = PASSWORDS.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored))
        tmp.chmod(0o600)
        tmp.replace(PASSWORDS)
        return name

    def check_blocked_users(self, username, authentication=None):
        """False (blocked) for a name this machine already has for anyone but a learner (asked before
        allow_all, which JupyterHub checks instead of check_allowed)."""
        try:
            pwd.getpwnam(username)
        except KeyError:
            return super().check_blocked_users(username, authentication)    # a new learner: created at login
        if is_learner(username):
            return super().check_blocked_users(username, authentication)
        self.log.warning("attnlab hub: refused the name %r: a user of this machine that is not a learner", username)
        return False

    def add_system_user(self, user):
        import grp
        try:
            grp.getgrnam(GROUP)
        except KeyError:
            subprocess.run(["groupadd", "--system", GROUP], check=True, capture_output=True)
        HOMES.mkdir(parents=True, exist_ok=True)
        return super().add_system_user(user)


CLASS_PASSWORD = env("ATTNLAB_HUB_PASSWORD") or secrets.token_urlsafe(9)
password = CLASS_PASSWORD
if len(CLASS_PASSWORD) < 8:
    _refuse(f"ATTNLAB_HUB_PASSWORD: expected 8 characters or more, got {len(CLASS_PASSWORD)}")
c.JupyterHub.authenticator_class = ClassPasswordAuthenticator
c.Authenticator.request_otp = True                 # the login form's second field: the class password
c.Authenticator.otp_prompt = "Class password (first login only):"
c.JupyterHub.template_paths = [str(Path(__file__).resolve().parent / "templates")]   # the login form's labels
c.Authenticator.allow_all = True
c.Authenticator.username_pattern = rf"^{NAME}$"
c.LocalAuthenticator.create_system_users = True
c.LocalAuthenticator.add_user_cmd = ["useradd", "--create-home", "--home-dir", f"{HOMES}/USERNAME", "--gid", GROUP,
                                     "--shell", "/usr/sbin/nologin", "--comment", "attnlab learner",
                                     "--key", "HOME_MODE=0700"]

# -- the learner's server ---------------------------------------------------------------------------
choice = env("ATTNLAB_HUB_SPAWNER") or "auto"
if choice not in ("auto", "local", "systemd"):
    _refuse(f"ATTNLAB_HUB_SPAWNER: expected auto, local or systemd, got {choice!r}")
if choice == "auto":
    try:
        import systemdspawner  # noqa: F401  (only: is it installed?)
        choice = "systemd" if os.geteuid() == 0 and Path("/run/systemd/system").is_dir() else "local"
    except ImportError:
        choice = "local"
if choice == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.dynamic_users = False        # the learner's own Unix user, with their own home
    c.SystemdSpawner.unit_name_template = "attnlab-learner-{USERNAME}"
    c.SystemdSpawner.disable_user_sudo = True
    c.SystemdSpawner.readonly_paths = [str(ROOT)]
else:
    c.JupyterHub.spawner_class = "localprocess"
mem = env("ATTNLAB_HUB_MEM") or "2G"
# At most this many learners' servers at once (ATTNLAB_HUB_MAX_LEARNERS; default: the machine's memory less
# 2 GB, at 500 MB a learner, the rehearsal's 440 MB PSS with room): past it JupyterHub asks a learner to wait.
max_learners = (env("ATTNLAB_HUB_MAX_LEARNERS") or "").strip()
if max_learners and not max_learners.isdigit():
    _refuse(f"ATTNLAB_HUB_MAX_LEARNERS: expected a count of learners' servers (0: no limit), got {max_learners!r}")


def _default_max_learners():
    try:
        total_mb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) / 1024
    except (OSError, AttributeError):
        return 0
    return max(1, int((total_mb - 2048) // 500))


c.JupyterHub.active_server_limit = int(max_learners) if max_learners else _default_max_learners()
# At most this many learners' servers starting at once (ATTNLAB_HUB_SPAWNS; default: JupyterHub's own, 100). A
# learner past it gets templates/error.html: in the queue, and the page tries again by itself in 10-20 s.
# Measured (bench/load, docs/benchmarks.md): 10 learners arriving together on 2 busy cores all got their figure
# within 143 s without a limit, and the last only after 210 s with 4 at a time (the waves and the retries add
# up): a limit is for a machine whose logins time out, not a default.
spawns = (env("ATTNLAB_HUB_SPAWNS") or "").strip()
if spawns and not spawns.isdigit():
    _refuse(f"ATTNLAB_HUB_SPAWNS: expected a count of servers starting at once (0: no limit), got {spawns!r}")
if spawns:
    c.JupyterHub.concurrent_spawn_limit = int(spawns)
c.JupyterHub.spawn_throttle_retry_range = (10, 20)
c.Spawner.mem_limit = mem
c.Spawner.cpu_limit = float(env("ATTNLAB_HUB_CPU") or 1.0)
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120

spare = (env("ATTNLAB_HUB_SPARE") or "1").strip()
if not spare.isdigit():
    raise ValueError(f"ATTNLAB_HUB_SPARE: expected a count of spare kernels per learner (0, 1, ...), got {spare!r}")
spare = int(spare)
mode = (env("ATTNLAB_HUB_MODE") or "dashboards").strip()
if mode not in ("dashboards", "lab"):
    _refuse(f"ATTNLAB_HUB_MODE: expected dashboards or lab, got {mode!r}")
lang = (env("ATTNLAB_LANG") or "en").strip()
if lang not in ("en", "zh"):
    _refuse(f"ATTNLAB_LANG: expected en or zh, got {lang!r}")
# The notebooks each learner gets a copy of, and the index they land on in it.
LANDING = ("zh/" if lang == "zh" else "") + "00_index.ipynb"
NOTEBOOKS = Path(env("ATTNLAB_HUB_NOTEBOOKS") or ROOT / "notebooks")
if not NOTEBOOKS.is_absolute() or not (NOTEBOOKS / LANDING).is_file():
    _refuse(f"ATTNLAB_HUB_NOTEBOOKS: expected an absolute folder laid out as notebooks/ (with {LANDING}), "
            f"got {str(NOTEBOOKS)!r}")
# ATTNLAB_HUB_LESSON (make hub NOTEBOOK=...): learners land on that lesson instead of the index. Each landing
# page runs its notebook in the learner's own kernel: a class arriving together on a small machine then pays for
# one notebook per learner, not two (bench/load: the index costs each learner ~15 s more on 2 busy cores).
lesson = (env("ATTNLAB_HUB_LESSON") or "").strip()
if lesson:
    lesson = ("zh/" if lang == "zh" and not lesson.startswith("zh/") else "") + lesson
    if not (NOTEBOOKS / lesson).is_file() or not lesson.endswith(".ipynb"):
        _refuse(f"ATTNLAB_HUB_LESSON: expected a notebook of {NOTEBOOKS} such as 01_kernel_regression.ipynb, "
                f"got {lesson!r}")
    LANDING = lesson


# Each learner's server: their copy of the notebooks (~/attnlab/notebooks), Voila as its extension with
# Binder's settings (progressive rendering, no pool), attnlab's kernel manager, the index dashboard first.
c.Spawner.notebook_dir = "~/attnlab"
c.Spawner.default_url = "/voila/render/notebooks/" + LANDING
c.Spawner.cmd = [LEARNER_PYTHON, "-m", "jupyterhub.singleuser"]
c.Spawner.args = [
    "--ServerApp.kernel_manager_class=attnlab_classroom.ClassroomKernelManager",
    # a page kernel started ahead, imports done (attnlab_classroom/): ~3 s off each page, one kernel's memory
    f"--ClassroomKernelManager.spare_kernels={spare}",
    "--VoilaConfiguration.template=attnlab",
    "--VoilaConfiguration.strip_sources=True",
    "--VoilaConfiguration.show_tracebacks=False",
    "--VoilaConfiguration.progressive_rendering=True",
    # the formulas from the MathJax Voila's page bundles, not MathJax 2 from cdnjs (binder/postBuild)
    '--ServerApp.tornado_settings={"mathjax_url": None, "mathjax_config": None}',
    "--MappingKernelManager.cull_idle_timeout=600",
    "--MappingKernelManager.cull_interval=60",
    "--ServerApp.terminals_enabled=False",
    "--VoilaConfiguration.allow_template_override=NO",
    "--VoilaConfiguration.allow_theme_override=NO",
    *([] if mode == "lab" else [
        "--ServerApp.jpserver_extensions={'jupyterlab': False, 'notebook': False, 'jupyter_lsp': False}",
        "--ClassroomKernelManager.dashboards_only=True",       # widget messages only, no execute_request
        # nothing a learner writes can be rendered by Voila or imported by a kernel: no file can be written
        "--ServerApp.contents_manager_class=attnlab_classroom.ReadOnlyContentsManager",
    ]),
]
c.Spawner.environment = {"OMP_NUM_THREADS": "1"}

# The copy a learner gets: run as the learner (never as root: a learner's symlink in their home then
# leads nowhere they could not write anyway), creating only what they do not have yet.
COPY = r"""
import os, shutil, sys
source, target = sys.argv[1], sys.argv[2]
os.makedirs(target, mode=0o700, exist_ok=True)
for folder, dirs, files in os.walk(source):
    dirs[:] = [d for d in dirs if not d.startswith('.')]
    rel = os.path.relpath(folder, source)
    here = os.path.join(target, rel) if rel != '.' else target
    os.makedirs(here, mode=0o700, exist_ok=True)
    for name in files:
        if name.startswith('.'):
            continue
        try:
            fd = os.open(os.path.join(here, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue                                   # the learner's own (edited) copy: never overwritten
        with os.fdopen(fd, 'wb') as out, open(os.path.join(folder, name), 'rb') as src:
            shutil.copyfileobj(src, out)
"""


async def prepare_learner(spawner):
    """Before a learner's server starts: refuse anything but a learner's own unprivileged user; make
    their home private; copy the notebooks in, as them."""
    name = spawner.user.name
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise RuntimeError(f"attnlab hub: no Unix user {name!r} (the authenticator creates learners' users)") from None
    if user.pw_uid in teacher_uids() or not is_learner(name):
        raise RuntimeError(f"attnlab hub: refusing to start {name!r}'s server as uid {user.pw_uid}: a learner's server "
                           f"runs only as an unprivileged user of the group {GROUP}, never as root or the teacher")
    home = Path(user.pw_dir)
    info = home.lstat()
    if home.is_symlink() or info.st_uid != user.pw_uid:
        raise RuntimeError(f"attnlab hub: {name!r}'s home {home} is not a directory of their own")
    os.chmod(home, 0o700)
    # -I: Python's isolated mode, so nothing in the learner's home (a shutil.py, a .pth, usercustomize) is
    # imported; a subprocess the hub's event loop awaits, so other logins go on meanwhile
    copy = await asyncio.create_subprocess_exec(
        LEARNER_PYTHON, "-I", "-c", COPY, str(NOTEBOOKS), str(home / "attnlab" / "notebooks"),
        user=user.pw_uid, group=user.pw_gid, extra_groups=[], umask=0o077, cwd="/",
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)}, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    try:
        out, _ = await asyncio.wait_for(copy.communicate(), timeout=60)
    except asyncio.TimeoutError:
        copy.kill()
        raise RuntimeError(f"attnlab hub: copying the notebooks for {name!r} took over 60 s") from None
    if copy.returncode != 0:
        raise RuntimeError(f"attnlab hub: copying the notebooks for {name!r} failed: {out.decode(errors='replace')[-500:]}")


hooks = [prepare_learner]

user_ports = env("ATTNLAB_HUB_USER_PORTS")
if user_ports:
    m = re.fullmatch(r"(\d+)-(\d+)", user_ports.strip())
    if not m or int(m.group(1)) > int(m.group(2)):
        raise ValueError(f"ATTNLAB_HUB_USER_PORTS: expected a port range LOW-HIGH such as 8910-8919, got {user_ports!r}")
    low, high = int(m.group(1)), int(m.group(2))

    def pick_port(spawner):
        """Before each spawn: a port of the range nobody listens on, nor given to another running server."""
        given = {sp.port for sp in _spawners.values() if sp is not spawner and sp.active}
        for port_ in range(low, high + 1):
            if port_ in given:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port_))
                except OSError:
                    continue
            spawner.port = port_
            _spawners[spawner.user.name] = spawner
            return
        raise RuntimeError(f"ATTNLAB_HUB_USER_PORTS={user_ports}: no free port left for {spawner.user.name}'s server")

    _spawners = {}
    hooks.append(pick_port)


async def pre_spawn(spawner):
    for hook in hooks:
        done = hook(spawner)
        if asyncio.iscoroutine(done):
            await done


c.Spawner.pre_spawn_hook = pre_spawn
c.Spawner.env_keep = ["PATH", "PYTHONPATH", "LANG", "LC_ALL", "VIRTUAL_ENV", "JUPYTERHUB_SINGLEUSER_APP",
                      "ATTNLAB_LANG"]

# Culling: jupyterhub-idle-culler stops servers idle for ATTNLAB_HUB_CULL seconds.
cull = int(env("ATTNLAB_HUB_CULL") or 1200)
# A learner's server tells the hub it is in use every `activity` seconds (JupyterHub's default: 300 s, set
# by JUPYTERHUB_ACTIVITY_INTERVAL in the server's environment). It must be well inside the cull time, or a
# short cull (the tests, the classroom bench) stops learners who are still in class.
activity = min(300, max(5, cull // 4))
c.JupyterHub.last_activity_interval = activity
c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] = str(activity)
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={cull}",
                f"--cull-every={max(5, min(600, cull // 4))}"],
}]


# -- what the teacher is told at start --------------------------------------------------------------
def banner():
    shown = ip if ip not in ("0.0.0.0", "", "::") else "<this machine>"
    address = tls_proxy or f"{scheme}://{shown}:{port}/"
    enforced = (f"memory {mem} and CPU {c.Spawner.cpu_limit:g} per learner, enforced by systemd (SystemdSpawner)"
                if choice == "systemd" else
                f"memory per learner NOT enforced by the OS (LocalProcessSpawner cannot; SystemdSpawner under systemd "
                f"does); each learner's server starts no more kernels than {mem} holds (attnlab's kernel manager)")
    lines = [f"Mode: {mode} (" + ("dashboards only: no JupyterLab, no typed code runs" if mode == "dashboards"
                                 else "JupyterLab for the exercises: code runs as the learner's own Unix user") + "; terminals off)",
             f"Address: {address}" + (" (behind the TLS proxy named)" if tls_proxy else
                                      " (plain http, accepted with ATTNLAB_HUB_INSECURE=1)" if scheme == "http" and not is_loopback(ip) else ""),
             f"Learners: Unix users of the group {GROUP}, homes in {HOMES}, each with their own copy of the notebooks",
             f"Limits: {enforced}; at most {c.JupyterHub.active_server_limit or 'any number of'} learners' servers at once; "
             f"idle servers stopped after {cull} s"]
    if not env("ATTNLAB_HUB_PASSWORD"):
        lines.insert(0, f"Class password, for each learner's first login (with a name of lowercase letters, digits, "
                        f"- or _, and a password of their own): {password}")
    print("\n" + "\n".join("    " + line for line in lines) + "\n", file=sys.stderr, flush=True)


# The start checks and the banner, unless the config is only being read (the unit tests pass
# ATTNLAB_HUB_READ_ONLY=True to runpy: they check the settings, they start nothing).
if globals().get("ATTNLAB_HUB_READ_ONLY"):
    pass
elif os.geteuid() != 0:
    _refuse("the hub must run as root (sudo make hub): it creates a Unix user for each learner and starts their "
            "server as that user, so that learners cannot reach each other's files or the teacher's")
elif (blocked := unreadable_for_learners(ROOT)):
    _refuse(f"learners' servers run this checkout's notebooks and package, but other users cannot enter {blocked}. "
            f"Either clone the project where everyone can read it (`git clone {ROOT} /srv/attnlab`, then `make hub-setup "
            f"&& make hub` there), or let them pass through that folder, `chmod o+x {blocked}` (they can then open any "
            f"file under it that is readable by all and whose path they know)")
elif (blocked := unreadable_for_learners(NOTEBOOKS)):
    _refuse(f"ATTNLAB_HUB_NOTEBOOKS: learners copy {NOTEBOOKS} as themselves, but other users cannot enter {blocked}: "
            "chmod o+rx it and o+x the folders on the way")
elif runs_for_others(LEARNER_PYTHON) is False:
    _refuse(why_others_cannot_run(LEARNER_PYTHON, ROOT, state))
else:
    banner()
