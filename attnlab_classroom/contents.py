"""ReadOnlyContentsManager: the files of the hub's dashboards mode (deploy/jupyterhub/)."""
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado import web

__all__ = ["ReadOnlyContentsManager"]


class ReadOnlyContentsManager(AsyncLargeFileManager):
    """Files a learner can open but not change (the hub's dashboards mode, deploy/jupyterhub/): every
    save, rename, delete, new file, copy and checkpoint answers 403, so no notebook a learner writes can
    be rendered by Voila and no module a learner writes can be imported by a kernel."""

    def _refuse(self, *args, **kwargs):
        raise web.HTTPError(403, "Read-only: this class serves the dashboards only")

    save = delete_file = rename_file = create_checkpoint = restore_checkpoint = delete_checkpoint = _refuse

    async def new(self, *args, **kwargs):
        self._refuse()

    async def new_untitled(self, *args, **kwargs):
        self._refuse()

    async def copy(self, *args, **kwargs):
        self._refuse()

