"""Where a run happened: the git commit of the working folder and the machine."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any


def git_commit(cwd: str | Path | None = None) -> str | None:
    """The current git commit (with "-dirty" when the tree has changes), or None."""
    try:
        where = cwd or os.getcwd()
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True,
                             text=True, timeout=5).stdout.strip()
        if not sha:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=where, capture_output=True, text=True, timeout=5).stdout
        return sha + ("-dirty" if dirty.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def machine_info() -> dict[str, Any]:
    return {"hostname": platform.node(), "platform": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine()}
