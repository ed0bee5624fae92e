"""The page rules of ClassroomKernelManager (kernels.py), which inherits them: which page may have a
kernel (the ceiling, the memory free now, the per-client limit; else the "full" page, HTTP 503, in the
learner's language), and when a page's kernel goes (never claimed within ``claim_timeout``, or its page
gone for ``release_grace``)."""
import time

from jupyter_server.base.call_context import CallContext
from tornado import web
from tornado.ioloop import PeriodicCallback

from .identity import is_loopback, learner_client
from .memory import memory_available_mb
from .pages import full_page, page_language

__all__ = ["PageRules"]


def _handler():
    """The request handler being served in this call (jupyter_server's CallContext), or None."""
    try:
        return CallContext.get(CallContext.JUPYTER_HANDLER)
    except Exception:  # no request in progress
        return None


class PageRules:
    """Admission and claims of page kernels (module docstring); the state (``_page_kernels``, ``_reserved``)
    and the settings are ClassroomKernelManager's."""

    def _admit(self, spare=False, per_client=True):
        """Let the current page have a kernel, or answer it with the "full" page (503). With
        ``spare`` the page takes a kernel the server already holds: only the per-client limit applies.
        The client is the browser where the class link gave it an identity (``learner_client``), else
        its address."""
        handler = _handler()
        address = getattr(getattr(handler, "request", None), "remote_ip", None)
        client = learner_client(handler)
        reason, limit = None, self.ceiling
        # a page adopting a spare is in _reserved and its kernel is already listed: count it once
        held = len(self.list_kernel_ids()) + sum(self._reserved.values()) - self._adopting
        per_client = per_client and self.max_per_client and address is not None and (
            self.limit_loopback or not is_loopback(address))
        if per_client and (sum(1 for k in self._page_kernels.values() if k["client"] == client)
                           + self._reserved.get(client, 0)) >= self.max_per_client:
            reason, limit = "client", self.max_per_client
        elif not spare and held >= self.ceiling:
            reason = "full"
        elif not spare and memory_available_mb(self.reserve_mb) < self.kernel_mb:
            reason = "memory"
        if reason is not None:
            self.log.warning("attnlab classroom: page refused (%s) for %s: %d kernels held, ceiling %d",
                             reason, client, held, self.ceiling)
            if handler is None:
                raise web.HTTPError(503, "This lesson is full")
            handler.set_status(503)
            handler.set_header("Content-Type", "text/html; charset=UTF-8")
            handler.set_header("Retry-After", "30")
            raise web.Finish(full_page(page_language(handler), reason, limit))
        self._reserved[client] = self._reserved.get(client, 0) + 1
        return client

    def _release(self, client):
        n = self._reserved.get(client, 0) - 1
        if n > 0:
            self._reserved[client] = n
        else:
            self._reserved.pop(client, None)

    def _claimed_by(self, kernel_id, client):
        self._page_kernels[kernel_id] = {"client": client, "handed": time.time(), "connected": False,
                                         "closed_at": None}
        self._start_reaper()

    def notify_connect(self, kernel_id):
        super().notify_connect(kernel_id)
        page = self._page_kernels.get(kernel_id)
        if page is not None:
            page["connected"], page["closed_at"] = True, None

    def notify_disconnect(self, kernel_id):
        super().notify_disconnect(kernel_id)
        page = self._page_kernels.get(kernel_id)
        if page is not None and self._kernel_connections.get(kernel_id, 0) <= 0:
            page["closed_at"] = time.time()

    def _start_reaper(self):
        if self._reaper is None:
            self._reaper = PeriodicCallback(self._reap, self.check_interval * 1000)
            self._reaper.start()

    def unclaimed(self, now=None):
        """The page kernels to shut down now, as (kernel_id, why)."""
        now = time.time() if now is None else now
        found = []
        for kernel_id, page in list(self._page_kernels.items()):
            if kernel_id not in self:
                self._page_kernels.pop(kernel_id, None)
                continue
            if self._kernel_connections.get(kernel_id, 0) > 0:
                continue
            if page["connected"]:
                closed = page["closed_at"] if page["closed_at"] is not None else now
                page["closed_at"] = closed
                if now - closed >= self.release_grace:
                    found.append((kernel_id, f"its page left {now - closed:.0f} s ago"))
                continue
            kernel = self.get_kernel(kernel_id)
            if getattr(kernel, "execution_state", None) == "busy":
                continue
            activity = getattr(kernel, "last_activity", None)
            since = max(page["handed"], activity.timestamp() if activity is not None else 0)
            if now - since >= self.claim_timeout:
                found.append((kernel_id, f"no page connected within {self.claim_timeout:.0f} s"))
        return found

    async def _reap(self):
        for kernel_id, why in self.unclaimed():
            self.log.info("attnlab classroom: shutting down kernel %s: %s", kernel_id, why)
            try:
                await self.shutdown_kernel(kernel_id)
            except Exception as exc:  # already gone; keep reaping the others
                self.log.warning("attnlab classroom: could not shut down %s: %s", kernel_id, exc)
                self._page_kernels.pop(kernel_id, None)

