"""A dashboard server a class cannot knock over: kernels belong to pages, a ceiling, a class token.

Voila's settings name the classes here by dotted name (``attnlab_classroom.ClassroomKernelManager``, ...),
so every way the project serves dashboards uses them: ``voila notebooks/`` from the repository root and
``make dashboard`` / ``make lesson`` read ``voila.json``; Binder and JupyterHub's single-user servers read
the ``ServerApp.kernel_manager_class`` that ``binder/postBuild`` and ``deploy/jupyterhub/`` write (there
JupyterHub's own login is the token). Those names, and every other public one, are re-exported here.

The modules, one job each:

- ``kernels``: ``ClassroomKernelManager``, the kernel manager (its settings and state; starts and shuts
  down kernels), built from
- ``admission``: the page rules: the ceiling, the per-client limit, a page's kernel shut down when no page
  claims it or its page left;
- ``spares``: the warm imports and the spare kernels of a server without Voila's pool;
- ``memory``: how much memory kernels may still use;
- ``identity``: ``ClassroomIdentityProvider``, the class token and each browser's identity;
- ``contents``: ``ReadOnlyContentsManager``, the hub's dashboards mode;
- ``pages``: what a learner reads instead of a dashboard ("full", "needs the class link"), in their language.

Jupyter and Voila are imported here, not by ``import attnlab``: only servers load this package.
"""
from .admission import PageRules
from .contents import ReadOnlyContentsManager
from .identity import LEARNER_COOKIE, TOKEN_ENV, ClassroomIdentityProvider, is_loopback, learner_client
from .kernels import DASHBOARD_MESSAGES, MAX_KERNELS_ENV, MAX_PER_CLIENT_ENV, ClassroomKernelManager
from .memory import memory_available_mb
from .pages import forbidden_page, full_page, page_language
from .spares import PREHEAT_ENV, WARM_THREAD, SpareKernels, adopt_line, warm_up_line

__all__ = ["ClassroomKernelManager", "ClassroomIdentityProvider", "page_language", "memory_available_mb",
           "is_loopback", "warm_up_line", "adopt_line", "learner_client", "ReadOnlyContentsManager",
           "full_page", "forbidden_page", "PageRules", "SpareKernels", "DASHBOARD_MESSAGES", "MAX_KERNELS_ENV",
           "MAX_PER_CLIENT_ENV", "TOKEN_ENV", "LEARNER_COOKIE", "PREHEAT_ENV", "WARM_THREAD"]
