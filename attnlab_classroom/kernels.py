"""ClassroomKernelManager (``VoilaConfiguration.multi_kernel_manager_class`` or
``ServerApp.kernel_manager_class``): a jupyter_server ``AsyncMappingKernelManager`` that

1. **shuts down a page's kernel nobody uses**: a kernel handed to a page (started for it, or taken
   from Voila's preheated pool) whose page has not opened its kernel websocket within
   ``claim_timeout`` seconds of the kernel's last activity (a plain GET, a link preview, a tab
   closed before its scripts ran), or whose last websocket closed ``release_grace`` seconds ago
   (a closed tab whose shutdown beacon never came). Kernels waiting in the pool are never
   touched, nor kernels that are not a Voila page's (JupyterLab's, under Binder);
2. **has a ceiling**: it refuses a page a kernel when the server already holds ``max_kernels``
   (``ATTNLAB_MAX_KERNELS``, ``make lesson MAX_KERNELS=...``; 0: from the memory available at
   start, a cgroup's or JupyterHub's MEM_LIMIT included, divided by ``kernel_mb``, a measured
   kernel's size), when less than ``kernel_mb`` of memory is free now (beyond ``reserve_mb``),
   or when one client already holds ``max_per_client`` page kernels: one browser, where the class link
   gave it an identity (a cookie; a class behind one NAT address is then many clients), else one
   address (loopback clients excepted unless ``limit_loopback``: behind a proxy every learner is
   127.0.0.1). The page then says so in the learner's language (HTTP 503, "This lesson is full..."),
   before anything else is sent;
3. **warms a page kernel's imports and keeps one started ahead** where there is no pool (spares.py).

The rules of 1 and 2 are admission.py's, the spare kernels spares.py's; this class holds their settings
and state, and starts and shuts down kernels.
"""
import asyncio
import os

from jupyter_core.utils import ensure_async
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import IOLoop
from traitlets import Bool, Float, Integer, default

from .admission import PageRules
from .memory import memory_available_mb
from .spares import PREHEAT_ENV, SpareKernels, warm_up_line

__all__ = ["ClassroomKernelManager", "DASHBOARD_MESSAGES", "MAX_KERNELS_ENV", "MAX_PER_CLIENT_ENV"]

MAX_KERNELS_ENV = "ATTNLAB_MAX_KERNELS"
MAX_PER_CLIENT_ENV = "ATTNLAB_MAX_PER_CLIENT"


# What a dashboard's page sends its kernel (Voila's own list for standalone Voila, voila/app.py).
DASHBOARD_MESSAGES = ("comm_open", "comm_close", "comm_msg", "comm_info_request", "kernel_info_request",
                      "shutdown_request")


class ClassroomKernelManager(PageRules, SpareKernels, AsyncMappingKernelManager):
    """Kernels belong to pages; no more kernels than the machine holds (module docstring): the page rules
    (PageRules, admission.py), the spare kernels (SpareKernels, spares.py)."""

    claim_timeout = Float(120.0, config=True, help="""Seconds a kernel handed to a page may stay
        without the page's websocket (counted from its last activity, so a notebook still running
        for its page is not cut short) before it is shut down. Two minutes: a page's scripts (3.6 MB)
        must load before its websocket opens, and 30 learners loading them at once share the room's
        network (7 Mbit/s for 120 s); the 30-learner rehearsal on two cores lost every page with 30 s.
        What a flood of plain GETs can hold meanwhile is bounded by the ceiling and max_per_client.""")
    release_grace = Float(60.0, config=True, help="""Seconds after a page's last kernel websocket
        closed (a tab closed without Voila's shutdown beacon) before its kernel is shut down; a page
        that reconnects within them keeps it. A minute: the page's client retries with a growing
        random backoff (1, 3, 7, 15 s ...), so a network blip of a few seconds can keep the socket
        away for over 15 s (tests/browser/test_kernel_lost.py's dropped connection did, on a busy machine).""")
    check_interval = Float(2.0, config=True, help="Seconds between two looks at the page kernels.")
    max_kernels = Integer(0, config=True, help=f"""At most this many kernels, pool included
        (environment {MAX_KERNELS_ENV}); 0: memory available at start (less reserve_mb) / kernel_mb.""")
    kernel_mb = Float(400.0, config=True, help="""Memory of one lesson kernel in MB: the classroom
        rehearsal (docs/benchmarks.md) measured a median of 263 MB PSS (ten notebooks' imports and figures), 400 leaves
        room for the largest notebooks.""")
    reserve_mb = Float(1024.0, config=True, help="MB of memory never given to kernels (the server, the system).")
    max_per_client = Integer(6, config=True, help=f"""At most this many page kernels per client
        address (environment {MAX_PER_CLIENT_ENV}); 0: no limit.""")
    limit_loopback = Bool(False, config=True, help="""Apply max_per_client to loopback clients too.
        Off by default: behind a proxy (JupyterHub, Binder) every learner comes from the loopback
        address, and a rehearsal runs its browsers here.""")

    refill_pool = Bool(True, config=True, help="""Refill Voila's preheated pool after a page took a
        kernel from it (Voila's way, after its fill_delay). False: each pool is filled once, at start; once
        it is empty a page gets a fresh kernel (Voila's path without a pool, ~6 s on a quiet machine).
        `make lesson` sets False. Voila's fill_delay cannot say this: a refill waiting out its delay is in
        the pool at once, and the next page of that notebook waits on it (4 hours with 14400).""")

    pool_renders = Integer(0, config=True, help="""At most this many of Voila's pool kernels start and run their
        notebook at once; the others wait their turn, in order (0: one per CPU core). `make lesson LEARNERS=30`
        asked for 30 notebook runs at the same second: on 2 cores each cell then took 15 times as long, past
        Voila's 60-s cell timeout, and no kernel was ready before all were (bench/load/, docs/benchmarks.md).
        In turn, the first are ready in seconds, and the whole pool no later. -1: no bound (Voila's way).""")

    dashboards_only = Bool(False, config=True, help="""Kernels take only the messages a dashboard's page sends
        (DASHBOARD_MESSAGES: widget messages, kernel info, shutdown), never an execute_request: the hub's
        dashboards mode. (Set here because a list on the command line reached allowed_message_types as one
        string, which blocked every message.)""")


    @default("max_kernels")
    def _max_kernels_default(self):
        return int(os.environ.get(MAX_KERNELS_ENV) or 0)

    @default("max_per_client")
    def _max_per_client_default(self):
        return int(os.environ.get(MAX_PER_CLIENT_ENV) or 6)

    def __init__(self, **kwargs):
        self._page_kernels = {}     # kernel_id -> {"client", "handed", "connected", "closed_at"}
        self._reserved = {}         # client -> page kernels being started or handed right now
        self._reaper = None
        self._memory_at_start = None
        self._spares = []           # tasks, each giving a spare kernel's id once it has started; not yet taken
        self._spare_ids = set()     # spares started and not yet a page's (adoption included): never culled
        self._filler = None         # the task starting spares (one at a time), or None
        self._adopting = 0          # spares being made a page's right now (already counted as kernels)
        self._closing = False
        super().__init__(**kwargs)
        if self.dashboards_only:
            self.allowed_message_types = list(DASHBOARD_MESSAGES)
        self._memory_at_start = memory_available_mb(self.reserve_mb)
        self.ceiling = self.max_kernels or max(1, int(self._memory_at_start // self.kernel_mb))
        self.log.info("attnlab classroom: at most %d kernels (%s), %s page kernels per client; a page's "
                      "kernel is shut down %.0f s unclaimed or %.0f s after its page left",
                      self.ceiling, "max_kernels" if self.max_kernels else
                      f"{self._memory_at_start:.0f} MB for kernels, {self.kernel_mb:.0f} MB a kernel",
                      self.max_per_client or "any", self.claim_timeout, self.release_grace)
        # Voila builds its pool manager as a subclass of this class (voila_kernel_manager_factory);
        # its get_rendered_notebook hands a pooled kernel to a page: admit the page first.
        handout = getattr(self, "get_rendered_notebook", None)
        if handout is not None:
            async def get_rendered_notebook(*args, **kw):
                client = self._admit()
                try:
                    result = await handout(*args, **kw)
                    self._claimed_by(result[2], client)
                    return result
                finally:
                    self._release(client)
            self.get_rendered_notebook = get_rendered_notebook
        # The same pool manager fills every pool (delay 0) after this __init__ returns, and asks for a
        # refill (delay None: its fill_delay) each time a page takes a kernel.
        fill = getattr(self, "fill_if_needed", None)
        if fill is not None and not self.refill_pool:
            def fill_if_needed(delay=None, notebook_name=None, **kw):
                if delay == 0:
                    fill(delay=delay, notebook_name=notebook_name, **kw)
            self.fill_if_needed = fill_if_needed
        # ... and starts each pool kernel with _initialize, which returns while the notebook runs on in a
        # task: a turn is taken before it and given back when that task ends.
        initialize = getattr(self, "_initialize", None)
        if initialize is not None and self.pool_renders >= 0:
            turns = asyncio.Semaphore(self.pool_renders or os.cpu_count() or 1)

            async def _initialize(notebook_path, kernel_id=None, **kw):
                await turns.acquire()
                try:
                    started = await initialize(notebook_path, kernel_id, **kw)
                except BaseException:
                    turns.release()
                    raise
                started["task"].add_done_callback(lambda task: turns.release())
                return started
            self._initialize = _initialize
        if self.spare_kernels > 0:
            IOLoop.current().add_callback(self._want_spares, 0.0)

    # -- kernel lifetime ---------------------------------------------------------------------
    async def start_kernel(self, *args, **kwargs):
        preheat = (kwargs.get("env") or {}).get(PREHEAT_ENV)
        if preheat == "True":       # the pool's own (refilled as configured)
            return await super().start_kernel(*args, **kwargs)
        if preheat != "False":      # not a dashboard's (JupyterLab's, a POST to /api/kernels): the ceiling only
            client = self._admit(per_client=False)
            try:
                return await super().start_kernel(*args, **kwargs)
            finally:
                self._release(client)
        task = None if args else self._pick_spare(kwargs.get("kernel_name") or self.default_kernel_name)
        if task is not None:
            client = self._admit(spare=True)        # a 503 here leaves the spare where it was
            self._spares.remove(task)
            self._adopting += 1
            try:
                kernel_id = await self._adopt_spare(task, kwargs)
                if kernel_id is not None:
                    self._claimed_by(kernel_id, client)
                    return kernel_id
            finally:
                self._adopting -= 1
                self._release(client)
                self._want_spares(self.spare_delay)
        client = self._admit()
        if self.warm_imports:
            kwargs["extra_arguments"] = [*(kwargs.get("extra_arguments") or []),
                                         f"--IPKernelApp.exec_lines={warm_up_line(self.warm_imports)}"]
        try:
            kernel_id = await super().start_kernel(*args, **kwargs)
            self._claimed_by(kernel_id, client)
            return kernel_id
        finally:
            self._release(client)


    async def shutdown_kernel(self, kernel_id, *args, **kwargs):
        self._page_kernels.pop(kernel_id, None)
        self._forget_spare(kernel_id)
        try:
            return await ensure_async(super().shutdown_kernel(kernel_id, *args, **kwargs))
        finally:
            self._want_spares(self.spare_delay)    # a spare gone, or room under the ceiling again

