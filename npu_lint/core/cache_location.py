"""Where npu-lint keeps what it may recompute: one folder per machine, outside every project."""
from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "NPU_LINT_CACHE"


def cache_root() -> Path:
    """`$NPU_LINT_CACHE` if set, else `~/.cache/npu-lint`: the root of every machine-wide cache."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "npu-lint"


def keep_file(path: Path, data: bytes, most: int) -> None:
    """Write `data` to `path` in a cache folder, atomically (parallel processes may race), after
    removing the folder's oldest files of the same suffix beyond `most`. A folder that cannot be
    written (a read-only home, a full disk) keeps nothing: a cache is only ever a shortcut."""
    import tempfile  # pylint: disable=import-outside-toplevel  # only when something is written

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        entries = sorted(path.parent.glob("*" + path.suffix), key=lambda p: p.stat().st_mtime)
        for stale in entries[:max(0, len(entries) - most + 1)]:
            stale.unlink(missing_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
