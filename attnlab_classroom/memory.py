"""How much memory kernels may still use (attnlab_classroom.kernels' ceiling): the machine's, a
container's cgroup limit, or the MEM_LIMIT JupyterHub gives a learner's server, whichever is least."""
import os

__all__ = ["memory_available_mb"]


def _cgroup_mb():
    """(limit, used) of this process's cgroup v2 memory in MB, or None without a limit."""
    try:
        limit = open("/sys/fs/cgroup/memory.max").read().strip()
        if limit == "max":
            return None
        used = int(open("/sys/fs/cgroup/memory.current").read().strip())
        return int(limit) / 2**20, used / 2**20
    except (OSError, ValueError):
        return None


def _server_mb():
    """Memory (RSS, MB) of this server and every process it started (its kernels)."""
    import psutil
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


def memory_available_mb(reserve_mb=0.0):
    """Memory kernels may still use, in MB: the machine's available memory less ``reserve_mb`` (the
    system's share), or what is left under this container's cgroup limit (less 256 MB for the
    server) or under the MEM_LIMIT (bytes) JupyterHub gives this learner's server, if less."""
    import psutil
    available = psutil.virtual_memory().available / 2**20 - reserve_mb
    cgroup = _cgroup_mb()
    if cgroup is not None:
        available = min(available, cgroup[0] - cgroup[1] - min(reserve_mb, 256))
    hub_limit = os.environ.get("MEM_LIMIT")
    if hub_limit and hub_limit.isdigit() and int(hub_limit) > 0:
        available = min(available, int(hub_limit) / 2**20 - _server_mb())
    return available
