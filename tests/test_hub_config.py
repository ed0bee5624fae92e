"""deploy/jupyterhub/jupyterhub_config.py read as JupyterHub reads it (a `c` from get_config), without
starting a hub: the learners' server ports (ATTNLAB_HUB_USER_PORTS). The hub itself is tested in
tests/browser/test_hub.py."""
import runpy
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("traitlets")
from traitlets.config import Config  # noqa: E402

CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "jupyterhub" / "jupyterhub_config.py"


def load(monkeypatch, tmp_path, **env):
    for key in ("ATTNLAB_HUB_USER_PORTS", "ATTNLAB_HUB_PASSWORD", "ATTNLAB_HUB_SPARE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ATTNLAB_HUB_DIR", str(tmp_path))
    monkeypatch.setenv("ATTNLAB_HUB_PASSWORD", "a-class-password")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    c = Config()
    runpy.run_path(str(CONFIG), init_globals={"get_config": lambda: c})
    return c


def spawner(name):
    return SimpleNamespace(port=0, active=False, user=SimpleNamespace(name=name))


def test_without_a_range_jupyterhub_chooses_the_ports(monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)
    assert "pre_spawn_hook" not in c.Spawner


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
        hook = c.Spawner.pre_spawn_hook
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
