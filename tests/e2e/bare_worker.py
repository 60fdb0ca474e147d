"""A `dask worker` whose Python lacks Card Arena (its packages cannot be imported), as a
machine where it was never installed: ``python bare_worker.py SCHEDULER_FILE``."""

import sys


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("arbiter", "cardarena", "bots", "sdk"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None


sys.meta_path.insert(0, _NotInstalled())
sys.argv = ["dask-worker", "--scheduler-file", sys.argv[1], "--nthreads", "1", "--no-nanny", "--no-dashboard",
            "--host", "127.0.0.1", "--name", "bare"]
from distributed.cli.dask_worker import main  # noqa: E402 - after the finder that hides Card Arena

main()
