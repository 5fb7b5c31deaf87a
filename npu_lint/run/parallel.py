"""`--jobs N`: check (or fix) files in a pool of worker processes, results in file order.

Each worker builds one Engine from the Settings in its initializer and keeps it for every file it
is given.  Results (findings and problems, frozen dataclasses) come back through pickling between
our own processes; nothing read from disk is ever unpickled.  `jobs == 1`, or too little work to
pay for starting workers, runs in this process.
"""
from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import Callable, Iterable, Sequence

from npu_lint.config.settings import Settings
from npu_lint.core.source import SourceError, decode_source
from npu_lint.run.runner import FileResult, lint_bytes, read_path

# Each worker gets at least this many files to check (cache misses), else fewer workers start.
MIN_FILES_PER_WORKER = 2

# astroid trees are millions of small objects: with CPython's default thresholds (700, 10, 10)
# the collector runs every 700 allocations and walks the young trees again and again, 20-28% of a
# run over the real-code set (docs/performance.md).  Collections of every generation still happen.
GC_THRESHOLDS = (50_000, 20, 10)

_WORKER: dict = {}


@contextlib.contextmanager
def tuned_gc():
    """Fewer garbage collections while checking (workers forked inside inherit them)."""
    old = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def default_jobs() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _chunksize(count: int, workers: int) -> int:
    """Small chunks: files differ in cost by 1000x, and a chunk left for last idles the other workers."""
    return max(1, min(8, count // (workers * 16)))


def _largest_first(items: Sequence, size: Callable[[object], int]) -> list[int]:
    """Indices of items, most expensive (largest) first, so the pool ends on small files."""
    return sorted(range(len(items)), key=lambda i: -size(items[i]))


def _run_pool(function, initializer, initargs, items: list, jobs: int, size, progress=None) -> list:
    """function(item) for each item in a pool, returned in the items' order."""
    from concurrent.futures import ProcessPoolExecutor  # a run in one process never needs it

    order = _largest_first(items, size)
    results: list = [None] * len(items)
    workers = min(jobs, max(1, len(items) // MIN_FILES_PER_WORKER))
    with ProcessPoolExecutor(max_workers=workers, initializer=initializer, initargs=initargs) as pool:
        for index, result in zip(order, pool.map(function, [items[i] for i in order],
                                                 chunksize=_chunksize(len(items), workers))):
            results[index] = result
            if progress is not None:
                progress()
    return results


def _pool_or_inline(function, initializer, initargs, items: list, jobs: int, size) -> list:
    if jobs > 1 and len(items) >= 2 * MIN_FILES_PER_WORKER:
        from concurrent.futures.process import BrokenProcessPool

        try:
            return _run_pool(function, initializer, initargs, items, jobs, size)
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory): finish here
            print(f"npu-lint: a worker process died ({exc}); checking in this process", file=sys.stderr)
    initializer(*initargs)
    try:
        return [function(item) for item in items]
    finally:
        _WORKER.clear()


# -- check -----------------------------------------------------------------

def _init_check(settings: Settings, cache_folder: str | None) -> None:
    gc.set_threshold(*GC_THRESHOLDS)  # in a worker started without fork too
    _WORKER["settings"] = settings
    _WORKER["engine"] = None  # built on the first file that is not in the cache
    if cache_folder:
        from npu_lint.run.result_cache import ResultCache

        _WORKER["cache"] = ResultCache.for_settings(cache_folder, settings)
    else:
        _WORKER["cache"] = None


def _lint(path: str, data: bytes) -> FileResult:
    engine = _WORKER["engine"]
    if engine is None:
        from npu_lint.engine.engine import engine_for

        engine = _WORKER["engine"] = engine_for(_WORKER["settings"])
    result = lint_bytes(engine, data, path)
    if not (result.findings or result.problems):
        result.source = None  # reports quote the source of findings only: keep and send no more
    cache = _WORKER["cache"]
    if cache is not None:
        cache.put(path, data, result)
    return result


def _check_path(path: str) -> FileResult:
    """Read, look up, check and store one file (in a worker, the lookup was done already)."""
    data = read_path(path)
    if isinstance(data, FileResult):
        return data
    cache = _WORKER["cache"]
    if cache is not None and _WORKER.get("look_up", True):
        hit = cache.get(path, data)
        if hit is not None:
            return _with_source(hit, data)
    return _lint(path, data)


def _with_source(result: FileResult, data: bytes) -> FileResult:
    """A cached result with the decoded source that the reports quote (only when they quote it)."""
    if result.findings or result.problems:
        try:
            result.source = decode_source(data)
        except SourceError:  # not cached: such a result has an "unreadable" problem
            pass
    return result


def _init_pool_worker(settings: Settings, cache_folder: str | None) -> None:
    _init_check(settings, cache_folder)
    _WORKER["look_up"] = False  # the parent answered the hits


def check_files(paths: Iterable[str], settings: Settings, jobs: int = 1,
                cache_folder: str | None = None, progress: Callable[[], None] | None = None) -> list[FileResult]:
    """Results of `npu-lint check` for each path, in the order given.

    With a cache folder, files whose bytes are unchanged since a run with the same settings and
    the same npu-lint are answered from it, and only the others are checked.
    """
    from npu_lint.engine.engine import engine_for

    # Bad rule files fail here, before any file. The engine is what the files need anyway, and
    # usually a snapshot (engine/snapshot.py) that costs less to load than the rules to read.
    engine_for(settings)
    paths = list(paths)
    with tuned_gc():
        return _check_files(paths, settings, jobs, cache_folder, progress or (lambda: None))


def _check_files(paths: list[str], settings: Settings, jobs: int, cache_folder: str | None,
                 progress: Callable[[], None]) -> list[FileResult]:
    _init_check(settings, cache_folder)

    def checked_here(path: str) -> FileResult:
        result = _check_path(path)
        progress()
        return result

    try:
        if jobs <= 1 or len(paths) < 2 * MIN_FILES_PER_WORKER:
            return [checked_here(path) for path in paths]  # one file in memory at a time
        cache = _WORKER["cache"]
        results: list[FileResult | None] = [None] * len(paths)
        todo: list[tuple[int, str, int]] = []
        for index, path in enumerate(paths):
            data = read_path(path)
            if isinstance(data, FileResult):
                results[index] = data
                continue
            hit = cache.get(path, data) if cache is not None else None
            if hit is not None:
                results[index] = _with_source(hit, data)
                progress()
            else:
                todo.append((index, path, len(data)))
        if len(todo) < 2 * MIN_FILES_PER_WORKER:
            for index, path, _size in todo:
                results[index] = checked_here(path)
            return results  # type: ignore[return-value]
        folder = str(cache.folder) if cache is not None and cache.enabled else None
        from concurrent.futures.process import BrokenProcessPool

        try:
            checked = _run_pool(_check_path, _init_pool_worker, (settings, folder),
                                [path for _, path, _ in todo], jobs, size=dict((p, s) for _, p, s in todo).__getitem__,
                                progress=progress)
        except BrokenProcessPool as exc:  # a worker died (killed, out of memory): finish here
            print(f"npu-lint: a worker process died ({exc}); checking in this process", file=sys.stderr)
            checked = [checked_here(path) for _, path, _ in todo]
        for (index, _, _), result in zip(todo, checked):
            results[index] = result
        return results  # type: ignore[return-value]
    finally:
        _WORKER.clear()


# -- fix -------------------------------------------------------------------

def _init_fix(settings: Settings, unsafe: bool) -> None:
    from npu_lint.run.fixer import Fixer

    gc.set_threshold(*GC_THRESHOLDS)
    _WORKER["fixer"] = Fixer(settings, unsafe=unsafe)


def _fix_one(item: tuple[str, str]):
    path, text = item
    return _WORKER["fixer"].fix_text(text, path)


def fix_texts(items: list[tuple[str, str]], settings: Settings, unsafe: bool, jobs: int = 1) -> list:
    """FixOutcome of each (path, text), in order; the caller writes the files."""
    with tuned_gc():
        return _pool_or_inline(_fix_one, _init_fix, (settings, unsafe), items, jobs, size=lambda item: len(item[1]))
