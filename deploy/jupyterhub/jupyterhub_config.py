"""JupyterHub for a class on ONE large machine: every learner logs in with the class password and
gets a Jupyter server of their own (Voila as its extension, the same settings as Binder), which
opens on the dashboards' index. `make hub` starts it; tests/browser/test_hub.py starts it on
127.0.0.1 with three learners and checks their dashboards, stopping and culling.

Pieces (all from their own projects, nothing home-made):
- JupyterHub from pip (requirements-hub.txt), configurable-http-proxy from npm in build/hub/;
- the class authenticator: JupyterHub's SharedPasswordAuthenticator (any name + the class
  password; ATTNLAB_HUB_PASSWORD, at least 8 characters, or one generated and printed at start);
- the spawner: SystemdSpawner where the hub runs as root under systemd (it enforces the per-learner
  memory and CPU limits below through cgroups; `pip install jupyterhub-systemdspawner`), else
  SimpleLocalProcessSpawner (every server runs as the hub's user, no enforced limit; for a
  rehearsal or a trusted room). Either way each server's kernel manager
  (attnlab.classroom.ClassroomKernelManager) reads the limit (MEM_LIMIT) and starts no more
  kernels than it holds;
- jupyterhub-idle-culler as a hub service: servers idle for ATTNLAB_HUB_CULL seconds (default 20
  minutes) are stopped, and their memory freed.

Environment (all optional): ATTNLAB_HUB_IP (127.0.0.1; 0.0.0.0 for the class network),
ATTNLAB_HUB_PORT (8000), ATTNLAB_HUB_PASSWORD, ATTNLAB_HUB_DIR (build/hub: database, cookie
secret), ATTNLAB_HUB_MEM (per learner, 2G), ATTNLAB_HUB_CPU (per learner, 1.0),
ATTNLAB_HUB_CULL (1200), ATTNLAB_HUB_SPARE (page kernels each learner's server keeps started
ahead, 1; 0 saves a kernel's memory per learner and costs ~3 s per page), ATTNLAB_HUB_SPAWNER (auto|simple|systemd), ATTNLAB_HUB_API_PORT and
ATTNLAB_HUB_PROXY_API_PORT (internal ports, 8081 and 8001), ATTNLAB_HUB_USER_PORTS ("LOW-HIGH":
the learners' servers listen on a free port of that range, for a machine whose other ports are
taken; default: any free port, JupyterHub's choice).
"""
import os
import re
import secrets
import shutil
import socket
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - JupyterHub's config loader provides it

ROOT = Path(__file__).resolve().parents[2]
env = os.environ.get
state = Path(env("ATTNLAB_HUB_DIR") or ROOT / "build" / "hub")
state.mkdir(parents=True, exist_ok=True)
ip, port = env("ATTNLAB_HUB_IP") or "127.0.0.1", int(env("ATTNLAB_HUB_PORT") or 8000)

c.JupyterHub.bind_url = f"http://{ip}:{port}/"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(env("ATTNLAB_HUB_API_PORT") or 8081)
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('ATTNLAB_HUB_PROXY_API_PORT') or 8001)}"
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True          # stopping the hub stops every learner's server
proxy = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
c.ConfigurableHTTPProxy.command = [str(proxy) if proxy.exists() else (shutil.which("configurable-http-proxy") or str(proxy))]

# The class authenticator: one password for the class, any name.
password = env("ATTNLAB_HUB_PASSWORD") or secrets.token_urlsafe(9)
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = password
c.Authenticator.allow_all = True
if not env("ATTNLAB_HUB_PASSWORD"):
    print(f"\n    Class password (learners choose any name): {password}\n"
          f"    Address: http://{ip if ip not in ('0.0.0.0', '') else '<this machine>'}:{port}/\n",
          file=sys.stderr, flush=True)

# Spawner: enforced limits with systemd, else local processes.
choice = env("ATTNLAB_HUB_SPAWNER") or "auto"
if choice == "auto":
    try:
        import systemdspawner  # noqa: F401
        choice = "systemd" if os.geteuid() == 0 else "simple"
    except ImportError:
        choice = "simple"
if choice == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.dynamic_users = True
else:
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(state / "home" / "{username}")
c.Spawner.mem_limit = env("ATTNLAB_HUB_MEM") or "2G"
c.Spawner.cpu_limit = float(env("ATTNLAB_HUB_CPU") or 1.0)
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120

spare = (env("ATTNLAB_HUB_SPARE") or "1").strip()
if not spare.isdigit():
    raise ValueError(f"ATTNLAB_HUB_SPARE: expected a count of spare kernels per learner (0, 1, ...), got {spare!r}")
spare = int(spare)

# Each learner's server: the repository's notebooks, Voila as its extension with Binder's
# settings (progressive rendering, no pool), attnlab's kernel manager, the index dashboard first.
c.Spawner.notebook_dir = str(ROOT)
c.Spawner.default_url = "/voila/render/notebooks/00_index.ipynb"
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.args = [
    "--ServerApp.kernel_manager_class=attnlab.classroom.ClassroomKernelManager",
    # a page kernel started ahead, imports done (attnlab/classroom.py): ~3 s off each page, one kernel's memory
    f"--ClassroomKernelManager.spare_kernels={spare}",
    "--VoilaConfiguration.template=attnlab",
    "--VoilaConfiguration.strip_sources=True",
    "--VoilaConfiguration.show_tracebacks=False",
    "--VoilaConfiguration.progressive_rendering=True",
    # the formulas from the MathJax Voila's page bundles, not MathJax 2 from cdnjs (binder/postBuild)
    '--ServerApp.tornado_settings={"mathjax_url": None, "mathjax_config": None}',
    "--MappingKernelManager.cull_idle_timeout=600",
    "--MappingKernelManager.cull_interval=60",
    *(["--allow-root"] if os.geteuid() == 0 and choice != "systemd" else []),   # a container's root
]
c.Spawner.environment = {"OMP_NUM_THREADS": "1"}

user_ports = env("ATTNLAB_HUB_USER_PORTS")
if user_ports:
    m = re.fullmatch(r"(\d+)-(\d+)", user_ports.strip())
    if not m or int(m.group(1)) > int(m.group(2)):
        raise ValueError(f"ATTNLAB_HUB_USER_PORTS: expected a port range LOW-HIGH such as 8910-8919, got {user_ports!r}")
    low, high = int(m.group(1)), int(m.group(2))

    def _pre_spawn(spawner):
        """Before each spawn: a port of the range nobody listens on, nor given to another running server."""
        given = {sp.port for sp in _spawners.values() if sp is not spawner and sp.active}
        for port in range(low, high + 1):
            if port in given:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    continue
            spawner.port = port
            _spawners[spawner.user.name] = spawner
            return
        raise RuntimeError(f"ATTNLAB_HUB_USER_PORTS={user_ports}: no free port left for {spawner.user.name}'s server")

    _spawners = {}
    c.Spawner.pre_spawn_hook = _pre_spawn
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
