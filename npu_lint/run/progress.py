"""A progress bar on stderr for long runs, only when stderr is a terminal."""
from __future__ import annotations

import sys
import time

MIN_FILES = 50  # shorter runs finish before a bar helps
REDRAW_SECONDS = 0.1


class ProgressBar:
    def __init__(self, total: int, stream=None, force: bool = False):
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.enabled = force or (total >= MIN_FILES and getattr(self.stream, "isatty", lambda: False)())
        self._drawn = 0.0

    def update(self, count: int = 1) -> None:
        if not self.enabled:
            return
        self.done += count
        now = time.monotonic()
        if now - self._drawn >= REDRAW_SECONDS or self.done >= self.total:
            self._drawn = now
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(f"\r[{'#' * filled}{' ' * (width - filled)}] {self.done}/{self.total} files")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\r" + " " * 60 + "\r")  # leave the terminal clean for the report
            self.stream.flush()
