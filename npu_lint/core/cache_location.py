"""Where npu-lint keeps what it may recompute: one folder per machine, outside every project."""
from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "NPU_LINT_CACHE"


def cache_root() -> Path:
    """`$NPU_LINT_CACHE` if set, else `~/.cache/npu-lint`: the root of every machine-wide cache."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "npu-lint"
