"""deploy/jupyterhub/jupyterhub_config.py read as JupyterHub reads it (a `c` from get_config), without
starting a hub (ATTNLAB_HUB_READ_ONLY: no start checks, no banner): the learners' server ports
(ATTNLAB_HUB_USER_PORTS), the modes, TLS and what is refused at start, the learner checks of the
pre-spawn hook. The hub itself is tested in tests/browser/test_hub.py and test_hub_isolation.py."""
import asyncio
import os
import re
import runpy
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("traitlets")
pytest.importorskip("jupyterhub")
from traitlets.config import Config

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub" / "jupyterhub_config.py"


HUB_ENV = ("ATTNLAB_HUB_USER_PORTS", "ATTNLAB_HUB_PASSWORD", "ATTNLAB_HUB_SPARE", "ATTNLAB_HUB_MODE", "ATTNLAB_HUB_IP",
           "ATTNLAB_HUB_SSL_CERT", "ATTNLAB_HUB_SSL_KEY", "ATTNLAB_HUB_TLS_PROXY", "ATTNLAB_HUB_INSECURE",
           "ATTNLAB_HUB_SPAWNER", "ATTNLAB_HUB_GROUP", "ATTNLAB_HUB_HOMES", "ATTNLAB_LANG", "SUDO_UID",
           "ATTNLAB_HUB_MAX_LEARNERS", "ATTNLAB_HUB_NOTEBOOKS", "ATTNLAB_HUB_LESSON", "ATTNLAB_HUB_SPAWNS")


def load(monkeypatch, tmp_path, read_only=True, **env):
    for key in HUB_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ATTNLAB_HUB_DIR", str(tmp_path))
    monkeypatch.setenv("ATTNLAB_HUB_PASSWORD", "a-class-password")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    c = Config()
    names = runpy.run_path(str(CONFIG), init_globals={"get_config": lambda: c, "ATTNLAB_HUB_READ_ONLY": read_only})
    c.names = names
    return c


def spawner(name):
    return SimpleNamespace(port=0, active=False, user=SimpleNamespace(name=name))


def test_without_a_range_jupyterhub_chooses_the_ports(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)
    assert c.names["hooks"] == [c.names["prepare_learner"]]


def test_a_bad_range_is_refused_by_name(monkeypatch, tmp_path):
    with pytest.raises(ValueError, match=r"ATTNLAB_HUB_USER_PORTS: expected a port range LOW-HIGH .* got '8919-8910'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_USER_PORTS="8919-8910")
    with pytest.raises(ValueError, match=r"ATTNLAB_HUB_USER_PORTS: expected a port range LOW-HIGH .* got 'any'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_USER_PORTS="any")


def test_each_learner_gets_a_free_port_of_the_range(monkeypatch, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        low = busy.getsockname()[1]
        c = load(monkeypatch, tmp_path, ATTNLAB_HUB_USER_PORTS=f"{low}-{low + 2}")
        hook = c.names["pick_port"]
        a, b, d = spawner("alice"), spawner("bob"), spawner("carol")
        hook(a)
        assert a.port != low and low < a.port <= low + 2        # the busy port is skipped
        a.active = True
        try:
            hook(b)
        except RuntimeError:
            pytest.skip("the ports after the busy one are taken on this machine")
        assert b.port not in (low, a.port) and low < b.port <= low + 2     # not the running server's either
        b.active = True
        with pytest.raises(RuntimeError, match=r"no free port left for carol's server"):
            hook(d)


@pytest.mark.parametrize("cull, activity", [("1200", 300), ("120", 30), ("8", 5)])
def test_servers_report_activity_well_inside_the_cull_time(monkeypatch, tmp_path, cull, activity):
    """Learners' servers report activity every cull/4 s (at most JupyterHub's 300 s): with the default 300 s a
    cull of 120 s stopped servers of learners still moving sliders (bench_classroom --mode hub)."""
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_CULL=cull)
    assert c.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"] == str(activity)
    assert c.JupyterHub.last_activity_interval == activity
    assert c.Spawner.environment["OMP_NUM_THREADS"] == "1"


def test_each_learners_server_keeps_one_spare_kernel_unless_told_otherwise(monkeypatch, tmp_path):
    assert "--ClassroomKernelManager.spare_kernels=1" in load(monkeypatch, tmp_path).Spawner.args
    assert "--ClassroomKernelManager.spare_kernels=0" in load(monkeypatch, tmp_path, ATTNLAB_HUB_SPARE="0").Spawner.args
    for bad in ("-1", "one"):
        with pytest.raises(ValueError, match=rf"ATTNLAB_HUB_SPARE: expected a count of spare kernels per learner \(0, 1, ...\), got '{bad}'"):
            load(monkeypatch, tmp_path, ATTNLAB_HUB_SPARE=bad)


# -- who learners are (issue 40) --------------------------------------------------------------------
def test_learners_are_unix_users_made_by_jupyterhub_in_a_group_of_their_own(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_GROUP="class-3b", ATTNLAB_HUB_HOMES="/srv/learners")
    auth = c.JupyterHub.authenticator_class
    from jupyterhub.auth import LocalAuthenticator
    assert issubclass(auth, LocalAuthenticator)
    assert c.LocalAuthenticator.create_system_users is True
    assert c.Authenticator.request_otp is True and "Class password" in c.Authenticator.otp_prompt
    [templates] = c.JupyterHub.template_paths
    assert "Your own password" in (Path(templates) / "login.html").read_text()
    cmd = c.LocalAuthenticator.add_user_cmd
    assert cmd[:4] == ["useradd", "--create-home", "--home-dir", "/srv/learners/USERNAME"]
    assert cmd[cmd.index("--gid") + 1] == "class-3b" and cmd[cmd.index("--shell") + 1] == "/usr/sbin/nologin"
    assert "HOME_MODE=0700" in cmd
    assert c.JupyterHub.spawner_class == "localprocess"          # JupyterHub's: the server runs as that user
    assert c.Spawner.notebook_dir == "~/attnlab"
    assert re.fullmatch(c.Authenticator.username_pattern, "alice") and re.fullmatch(c.Authenticator.username_pattern, "zhang-3")
    for bad in ("Alice", "../root", "a b", "1abc", "x" * 40):
        assert not re.fullmatch(c.Authenticator.username_pattern, bad), bad


def test_a_name_the_machine_already_has_is_not_a_learner(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_GROUP="attnlab-nobody-here")
    auth = c.JupyterHub.authenticator_class(config=c)
    assert auth.check_blocked_users("root") is False
    assert auth.check_blocked_users("daemon") is False
    assert auth.check_blocked_users("attnlab-no-such-user-xyz") is True       # a new name: the hub creates the user


@pytest.mark.parametrize("name", ["root", "daemon"])
def test_the_hub_refuses_to_start_a_server_as_root_or_as_anyone_not_a_learner(monkeypatch, tmp_path, name):
    c = load(monkeypatch, tmp_path)
    with pytest.raises(RuntimeError, match=rf"refusing to start '{name}''s server as uid \d+: a learner's server runs only "
                                           r"as an unprivileged user of the group attnlab-learners, never as root or the teacher"):
        asyncio.run(c.names["prepare_learner"](spawner(name)))


def test_a_server_for_a_name_without_a_user_is_refused(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)
    with pytest.raises(RuntimeError, match=r"no Unix user 'attnlab-no-such-user-xyz'"):
        asyncio.run(c.names["prepare_learner"](spawner("attnlab-no-such-user-xyz")))


# -- modes ----------------------------------------------------------------------------------------
def test_dashboards_mode_is_the_default_and_runs_no_typed_code(monkeypatch, tmp_path):
    args = load(monkeypatch, tmp_path).Spawner.args
    assert "--ServerApp.terminals_enabled=False" in args
    assert "--ServerApp.jpserver_extensions={'jupyterlab': False, 'notebook': False, 'jupyter_lsp': False}" in args
    assert "--ClassroomKernelManager.dashboards_only=True" in args


def test_lab_mode_adds_jupyterlab_and_keeps_terminals_off(monkeypatch, tmp_path):
    args = load(monkeypatch, tmp_path, ATTNLAB_HUB_MODE="lab").Spawner.args
    assert "--ServerApp.terminals_enabled=False" in args
    assert not any("jpserver_extensions" in a or "dashboards_only" in a for a in args)


def test_an_unknown_mode_is_refused_naming_it(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_MODE: expected dashboards or lab, got 'teacher'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_MODE="teacher")


def test_the_chinese_edition_lands_on_its_index(monkeypatch, tmp_path):
    assert load(monkeypatch, tmp_path, ATTNLAB_LANG="zh").Spawner.default_url == "/voila/render/notebooks/zh/00_index.ipynb"
    assert load(monkeypatch, tmp_path).Spawner.default_url == "/voila/render/notebooks/00_index.ipynb"
    with pytest.raises(SystemExit, match=r"ATTNLAB_LANG: expected en or zh, got 'fr'"):
        load(monkeypatch, tmp_path, ATTNLAB_LANG="fr")


def test_learners_get_a_copy_of_the_checkouts_notebooks_or_of_the_folder_named(monkeypatch, tmp_path):
    assert load(monkeypatch, tmp_path).names["NOTEBOOKS"] == CONFIG.parents[2] / "notebooks"
    folder = tmp_path / "class"
    (folder / "zh").mkdir(parents=True)
    (folder / "00_index.ipynb").write_text("{}")
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_NOTEBOOKS=str(folder))
    assert c.names["NOTEBOOKS"] == folder
    assert c.Spawner.default_url == "/voila/render/notebooks/00_index.ipynb"
    # the Chinese edition lands on the folder's zh/00_index.ipynb, which this one lacks
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_NOTEBOOKS: expected an absolute folder laid out as notebooks/ "
                                         r"\(with zh/00_index\.ipynb\), got '.*class'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_NOTEBOOKS=str(folder), ATTNLAB_LANG="zh")
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_NOTEBOOKS: expected an absolute folder .* got 'class'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_NOTEBOOKS="class")


def test_a_folder_of_notebooks_learners_cannot_read_is_refused_at_start(monkeypatch, tmp_path):
    """The copy runs as the learner: a folder only its owner can enter would give them nothing."""
    if os.geteuid() != 0:
        pytest.skip("the start checks run as root only")
    folder = tmp_path / "class"
    folder.mkdir(mode=0o700)
    (folder / "00_index.ipynb").write_text("{}")
    folder.chmod(0o700)
    try:
        load(monkeypatch, tmp_path, read_only=False, ATTNLAB_HUB_NOTEBOOKS=str(folder))
    except SystemExit as exc:
        if "learners' servers run this checkout" in str(exc):
            pytest.skip("other users cannot read this checkout either (refused first)")
        assert re.search(r"ATTNLAB_HUB_NOTEBOOKS: learners copy .*class as themselves, but other users cannot "
                         r"enter /", str(exc)), str(exc)
    else:
        raise AssertionError("a folder other users cannot enter was accepted")


# -- TLS ------------------------------------------------------------------------------------------
def test_beyond_loopback_plain_http_is_refused(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_IP=0\.0\.0\.0 over plain http would send the class password "
                                         r"across the network in clear\. Give a certificate"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_IP="0.0.0.0")


def test_the_teacher_may_accept_plain_http(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_IP="0.0.0.0", ATTNLAB_HUB_INSECURE="1")
    assert c.JupyterHub.bind_url == "http://0.0.0.0:8000/"


def test_behind_a_tls_proxy_the_hub_listens_on_loopback_only(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_TLS_PROXY="https://class.example.org")
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000/"
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_TLS_PROXY: the proxy in front reaches the hub on this machine, so "
                                         r"the hub listens on 127\.0\.0\.1, not ATTNLAB_HUB_IP=0\.0\.0\.0"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_IP="0.0.0.0", ATTNLAB_HUB_TLS_PROXY="https://class.example.org")


# -- passwords: the class password opens a first login only ------------------------------------------
def _login(c, **data):
    import asyncio
    auth = c.JupyterHub.authenticator_class(config=c)
    return asyncio.run(auth.authenticate(None, data))


def test_a_first_login_needs_the_class_password_and_a_password_of_ones_own(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)                      # the class password: a-class-password
    name = "attnlab-newlearner"
    assert _login(c, username=name, password="my-own-pass", otp="wrong-class") is None
    assert _login(c, username=name, password="short", otp="a-class-password") is None
    assert _login(c, username=name, password="a-class-password", otp="a-class-password") is None
    assert _login(c, username=name, password="my-own-pass", otp="a-class-password") == name
    stored = tmp_path / "learner_passwords.json"
    assert (stored.stat().st_mode & 0o777) == 0o600 and "my-own-pass" not in stored.read_text()
    # from now on, their own password; the class password does not open their account
    assert _login(c, username=name, password="my-own-pass") == name
    assert _login(c, username=name, password="a-class-password", otp="a-class-password") is None
    assert _login(c, username=name, password="guess-guess", otp="a-class-password") is None


def test_a_class_password_shorter_than_8_is_refused(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_PASSWORD: expected 8 characters or more, got 5"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_PASSWORD="short")


def test_dashboards_mode_serves_read_only_files_and_no_template_override(monkeypatch, tmp_path):
    args = load(monkeypatch, tmp_path).Spawner.args
    assert "--ServerApp.contents_manager_class=attnlab_classroom.ReadOnlyContentsManager" in args
    assert "--VoilaConfiguration.allow_template_override=NO" in args
    lab = load(monkeypatch, tmp_path, ATTNLAB_HUB_MODE="lab").Spawner.args
    assert not any("contents_manager_class" in a for a in lab)
    assert "--VoilaConfiguration.allow_theme_override=NO" in lab


def test_the_hub_holds_a_ceiling_of_learners_servers(monkeypatch, tmp_path):
    assert load(monkeypatch, tmp_path).JupyterHub.active_server_limit >= 1
    assert load(monkeypatch, tmp_path, ATTNLAB_HUB_MAX_LEARNERS="25").JupyterHub.active_server_limit == 25
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_MAX_LEARNERS: expected a count of learners' servers \(0: no limit\), got 'many'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_MAX_LEARNERS="many")


def test_loopback_needs_no_tls(monkeypatch, tmp_path):
    for ip in ("127.0.0.1", "localhost", "::1"):
        assert load(monkeypatch, tmp_path, ATTNLAB_HUB_IP=ip).JupyterHub.bind_url.startswith("http://")


def test_a_certificate_and_key_serve_https(monkeypatch, tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("x")
    key.write_text("y")
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_IP="0.0.0.0", ATTNLAB_HUB_SSL_CERT=str(cert), ATTNLAB_HUB_SSL_KEY=str(key))
    assert c.JupyterHub.bind_url == "https://0.0.0.0:8000/"
    assert (c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key) == (str(cert), str(key))


@pytest.mark.parametrize("env, message", [
    ({"ATTNLAB_HUB_SSL_CERT": "/x/cert.pem"}, r"expected both \(a certificate and its key\), got only the certificate"),
    ({"ATTNLAB_HUB_SSL_KEY": "/x/key.pem"}, r"expected both \(a certificate and its key\), got only the key"),
    ({"ATTNLAB_HUB_SSL_CERT": "/no/cert.pem", "ATTNLAB_HUB_SSL_KEY": "/no/key.pem"},
     r"ATTNLAB_HUB_SSL_CERT: expected a PEM file, got '/no/cert.pem' \(no such file\)"),
    ({"ATTNLAB_HUB_TLS_PROXY": "http://class"}, r"ATTNLAB_HUB_TLS_PROXY: expected the https:// address learners use, got 'http://class'"),
    ({"ATTNLAB_HUB_INSECURE": "yes"}, r"ATTNLAB_HUB_INSECURE: expected 1 \(or unset\), got 'yes'"),
    ({"ATTNLAB_HUB_SPAWNER": "simple"}, r"ATTNLAB_HUB_SPAWNER: expected auto, local or systemd, got 'simple'"),
    ({"ATTNLAB_HUB_GROUP": "Bad Group"}, r"ATTNLAB_HUB_GROUP: expected a Unix group name, got 'Bad Group'"),
    ({"ATTNLAB_HUB_HOMES": "homes"}, r"ATTNLAB_HUB_HOMES: expected an absolute directory, got 'homes'"),
])
def test_bad_settings_are_refused_naming_them(monkeypatch, tmp_path, env, message):
    with pytest.raises(SystemExit, match=message):
        load(monkeypatch, tmp_path, **env)


# -- what the teacher is told -----------------------------------------------------------------------
def test_the_start_says_mode_address_and_what_is_enforced(monkeypatch, tmp_path, capsys):
    if os.geteuid() != 0:
        with pytest.raises(SystemExit, match=r"the hub must run as root \(sudo make hub\)"):
            load(monkeypatch, tmp_path, read_only=False)
        return
    try:
        load(monkeypatch, tmp_path, read_only=False, ATTNLAB_HUB_IP="0.0.0.0", ATTNLAB_HUB_INSECURE="1")
    except SystemExit as exc:                       # a checkout or Python learners cannot read: said so
        assert "other users cannot" in str(exc)
        return
    said = capsys.readouterr().err
    assert "Mode: dashboards (dashboards only: no JupyterLab, no typed code runs; terminals off)" in said
    assert "Address: http://<this machine>:8000/ (plain http, accepted with ATTNLAB_HUB_INSECURE=1)" in said
    assert "memory per learner NOT enforced by the OS (LocalProcessSpawner cannot" in said
    assert "Learners: Unix users of the group attnlab-learners" in said


def test_systemd_enforces_the_limits_where_it_runs(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_SPAWNER="systemd", ATTNLAB_HUB_MEM="3G")
    assert c.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"
    assert c.SystemdSpawner.dynamic_users is False and c.SystemdSpawner.disable_user_sudo is True
    assert c.Spawner.mem_limit == "3G"
    assert str(CONFIG.parents[2]) in c.SystemdSpawner.readonly_paths


# -- a Python learners can run: what the hub says when they cannot (issue 50) -----------------------------
@pytest.fixture
def open_folder():
    """A folder everyone may enter (pytest's tmp_path is under a 0700 folder of root's)."""
    import shutil
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="attnlab-py-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _why(python, root, state=None):
    import sys
    sys.path.insert(0, str(CONFIG.parents[2] / "tools"))
    from learners_python import why_others_cannot_run
    return why_others_cannot_run(python, root, state)


def test_a_python_in_the_hubs_private_state_folder_is_named_with_the_step_that_fixes_it(open_folder, monkeypatch):
    monkeypatch.delenv("ATTNLAB_HUB_PYTHON", raising=False)
    state = open_folder / "build"
    (state / "learners-python" / "bin").mkdir(parents=True)
    state.chmod(0o700)
    said = _why(state / "learners-python" / "bin" / "python", open_folder, state)
    assert re.search(r"other users cannot run .*: it lies in the hub's private state folder .*build \(mode 700\)\. "
                     r"Run `make hub-setup` \(as root\): it makes the learners' Python in .*build/learners-python", said), said


def test_a_venv_whose_interpreter_is_private_says_make_hub_setup(open_folder, monkeypatch):
    monkeypatch.delenv("ATTNLAB_HUB_PYTHON", raising=False)
    private = open_folder / "home" / "pyenv"
    private.mkdir(parents=True)
    (private / "python3").write_text("")
    (open_folder / "home").chmod(0o750)
    (open_folder / "venv" / "bin").mkdir(parents=True)
    (open_folder / "venv" / "bin" / "python").symlink_to(private / "python3")
    said = _why(open_folder / "venv" / "bin" / "python", open_folder / "checkout")
    assert re.search(r"its interpreter is in .*/home, which other users cannot enter .* Run `make hub-setup` as root: "
                     r"it makes .*checkout/build/learners-python, a Python 3\.\d+ of the system", said), said
    assert "apt-get install python3." in said


def test_a_folder_of_the_checkout_others_cannot_enter_is_named_with_chmod(open_folder, monkeypatch):
    monkeypatch.delenv("ATTNLAB_HUB_PYTHON", raising=False)
    venv = open_folder / "checkout" / ".venv"
    (venv / "bin").mkdir(parents=True)
    venv.chmod(0o700)
    said = _why(venv / "bin" / "python", open_folder / "checkout")
    assert re.search(r"they cannot enter .*checkout/\.venv\. Run `chmod o\+x .*checkout/\.venv`", said), said


def test_the_hub_refuses_a_python_learners_cannot_run_naming_the_fix(monkeypatch, tmp_path, open_folder):
    if os.geteuid() != 0:
        pytest.skip("the start checks run as root only")
    private = open_folder / "private"
    private.mkdir(mode=0o700)
    private.chmod(0o700)
    with pytest.raises(SystemExit, match=r"make hub: other users cannot run .*private/python with attnlab, Voila and "
                                         r"JupyterHub \(ATTNLAB_HUB_PYTHON\): they cannot enter .*private\. Point "
                                         r"ATTNLAB_HUB_PYTHON at a Python other users can run"):
        load(monkeypatch, tmp_path, read_only=False, ATTNLAB_HUB_PYTHON=str(private / "python"))


def test_the_teacher_may_bound_the_servers_starting_at_once(monkeypatch, tmp_path):
    """No bound of attnlab's by default (bench/load: 4 at a time made 10 learners arriving together wait longer);
    ATTNLAB_HUB_SPAWNS sets JupyterHub's, and a learner past it retries in 10-20 s."""
    c = load(monkeypatch, tmp_path)
    assert "concurrent_spawn_limit" not in c.JupyterHub
    assert tuple(c.JupyterHub.spawn_throttle_retry_range) == (10, 20)
    assert load(monkeypatch, tmp_path, ATTNLAB_HUB_SPAWNS="6").JupyterHub.concurrent_spawn_limit == 6
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_SPAWNS: expected a count of servers starting at once \(0: no "
                                         r"limit\), got 'lots'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_SPAWNS="lots")


@pytest.mark.parametrize("message, words", [
    ("Too many users trying to log in right now. Try again in 20 seconds.",
     ["Yours is in the queue", "15</span> s", "你的已经在排队", "window.location.reload()"]),
    ("Active user limit exceeded. Try again in a few minutes.",
     ["This class is full", "这节课已经满了", "window.location.reload()"]),
])
def test_a_learner_the_hub_cannot_start_now_reads_why_in_both_languages_and_the_page_retries(message, words):
    """JupyterHub's 429 pages, through deploy/jupyterhub/templates/error.html as the hub renders them (its own
    templates behind ours, under the templates/ prefix)."""
    import jinja2
    from jupyterhub._data import DATA_FILES_PATH  # where JupyterHub finds its own templates
    ours, theirs = CONFIG.parent / "templates", Path(DATA_FILES_PATH) / "templates"
    env = jinja2.Environment(loader=jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(str(ours)), jinja2.PrefixLoader({"templates": jinja2.FileSystemLoader(str(theirs))}),
        jinja2.FileSystemLoader(str(theirs))]))
    page = env.get_template("error.html").render(status_code=429, status_message="Too Many Requests", message=message,
                                                 static_url=lambda *a, **k: "", base_url="/hub/", prefix="/",
                                                 logo_url="", parsed_scopes=set(), xsrf="", announcement=None)
    for word in words:
        assert word in page, word
    other = env.get_template("error.html").render(status_code=500, status_message="Internal Server Error", message="boom",
                                                  static_url=lambda *a, **k: "", base_url="/hub/", prefix="/", logo_url="",
                                                  parsed_scopes=set(), xsrf="", announcement=None)
    assert "boom" in other and 'id="attnlab-wait"' not in other


def test_learners_can_land_on_the_lesson_instead_of_the_index(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path, ATTNLAB_HUB_LESSON="01_kernel_regression.ipynb")
    assert c.Spawner.default_url == "/voila/render/notebooks/01_kernel_regression.ipynb"
    zh = load(monkeypatch, tmp_path, ATTNLAB_HUB_LESSON="01_kernel_regression.ipynb", ATTNLAB_LANG="zh")
    assert zh.Spawner.default_url == "/voila/render/notebooks/zh/01_kernel_regression.ipynb"
    with pytest.raises(SystemExit, match=r"ATTNLAB_HUB_LESSON: expected a notebook of .*notebooks such as "
                                         r"01_kernel_regression\.ipynb, got '99_nothing\.ipynb'"):
        load(monkeypatch, tmp_path, ATTNLAB_HUB_LESSON="99_nothing.ipynb")


def test_a_checkout_other_users_cannot_enter_is_refused_with_both_ways_out(monkeypatch, tmp_path, open_folder):
    """The config of a checkout under a folder only its owner may enter (a clone under /root, a 0700 home)."""
    if os.geteuid() != 0:
        pytest.skip("the start checks run as root only")
    import shutil
    private = open_folder / "home"
    checkout = private / "attnlab"
    shutil.copytree(CONFIG.parent, checkout / "deploy" / "jupyterhub")
    (checkout / "tools").mkdir(parents=True)
    shutil.copy(CONFIG.parents[2] / "tools" / "learners_python.py", checkout / "tools")
    (checkout / "notebooks").mkdir()
    (checkout / "notebooks" / "00_index.ipynb").write_text("{}")
    private.chmod(0o700)
    for key in HUB_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ATTNLAB_HUB_DIR", str(tmp_path))
    monkeypatch.setenv("ATTNLAB_HUB_PASSWORD", "a-class-password")
    c = Config()
    with pytest.raises(SystemExit, match=r"other users cannot enter .*/home\. Either clone the project where everyone "
                                         r"can read it \(`git clone .*/home/attnlab /srv/attnlab`, then `make hub-setup "
                                         r"&& make hub` there\), or let them pass through that folder, `chmod o\+x "
                                         r".*/home`"):
        runpy.run_path(str(checkout / "deploy" / "jupyterhub" / "jupyterhub_config.py"),
                       init_globals={"get_config": lambda: c, "ATTNLAB_HUB_READ_ONLY": False})
