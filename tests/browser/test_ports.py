"""free_port(): the system's pick, or a free port in ATTNLAB_TEST_PORTS's range (a shared machine)."""
import socket

import pytest

import dashboard_helpers
from dashboard_helpers import free_port


def test_unset_the_system_picks(monkeypatch):
    monkeypatch.delenv("ATTNLAB_TEST_PORTS", raising=False)
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))     # free


def test_in_the_range_skipping_a_busy_port_and_not_handing_the_last_one_out_again(monkeypatch):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        taken = busy.getsockname()[1]
        low = taken - 1 if taken > 1024 else taken
        monkeypatch.setenv("ATTNLAB_TEST_PORTS", f"{low}-{low + 2}")
        monkeypatch.setattr(dashboard_helpers, "_LAST", [None])
        got = [free_port(), free_port(), free_port()]
    assert taken not in got, got
    assert all(low <= p <= low + 2 for p in got), got
    assert got[0] != got[1], "the port just handed out (its server not listening yet) came back"


@pytest.mark.parametrize("wanted", ["8730", "8749-8730", "a-b", "8730-"])
def test_a_bad_range_is_refused_naming_the_variable(monkeypatch, wanted):
    monkeypatch.setenv("ATTNLAB_TEST_PORTS", wanted)
    with pytest.raises(ValueError, match=rf"ATTNLAB_TEST_PORTS: expected a range LOW-HIGH .* got '{wanted}'"):
        free_port()
