"""Worker processes end with the run's process: ``kill -9`` of the run leaves no orphan
encoding on."""

from __future__ import annotations

import os


def watch_parent(parent: int) -> None:
    """End this worker process as soon as ``parent`` (the run's process) is gone."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="tokbench-parent-watch").start()
