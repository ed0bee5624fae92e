"""Root conftest: applies to tests/ and notebooks/ alike."""
try:
    from nbval.kernel import RunningKernel
except ImportError:  # nbval not installed: nothing to adjust
    RunningKernel = None

if RunningKernel is not None:
    # nbval 0.11 executes cells with store_history=False, and IPython then cannot see a cell's
    # trailing ";", so `plt.plot(...);` shows a result under nbval that Jupyter hides, and every
    # such cell "differs". Execute the way Jupyter does.
    def _execute_like_jupyter(self, cell_input, allow_stdin=None):
        return self.kc.execute(cell_input, store_history=True, allow_stdin=allow_stdin, stop_on_error=False)

    RunningKernel.execute_cell_input = _execute_like_jupyter
