"""What a reader makes of a file on disk, read once while the file stays as it is.

The analyses that look beyond the linted file (star imports, a project's own modules, the NPU
classes beside a CUDA one) read the same project files for every file they lint. Each keeps one
`FileFacts`: the answer for a path is kept while the file's modification time and size stay the
same, so an edited file is read again, and the whole store is dropped when it grows past its limit.
"""
from __future__ import annotations

import os
from typing import Callable, Generic, Optional, TypeVar

T = TypeVar("T")


class FileFacts(Generic[T]):
    def __init__(self, read: Callable[[str], T], max_entries: int = 4096):
        self._read = read
        self._max_entries = max_entries
        self._entries: dict[str, tuple[tuple[int, int], T]] = {}

    def get(self, path: str) -> Optional[T]:
        """The reader's answer for `path`, or None when the file cannot be looked at."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        stamp = (status.st_mtime_ns, status.st_size)
        cached = self._entries.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        facts = self._read(path)
        if len(self._entries) >= self._max_entries:
            self._entries.clear()
        self._entries[path] = (stamp, facts)
        return facts
