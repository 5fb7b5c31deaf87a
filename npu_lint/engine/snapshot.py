"""The built engine, kept on this machine between processes.

Making an engine reads the rule records, builds the operator tables and release facts and
makes every check: a quarter of a one-file check, paid again by every process (each flake8 or
pre-commit run, each `--jobs` worker, the editor server's start). A pickle of the engine just
built loads in a quarter of that time.

A snapshot answers only for the same settings (their repr, and the bytes of their extend-rules
files) and the same installed code and data: its name hashes those with
`package_stamp()` (every file's size and modification time, as Python checks its .pyc files).
It lives in the machine's npu-lint cache (`~/.cache/npu-lint/engines/`), never in a project,
and is read only when this user owns it and no one else may write it: loading a pickle runs
what it names, so it is trusted exactly as the .pyc files beside the code are. Anything wrong
with it (missing, damaged, from another version, unreadable, unwritable folder) means: build
the engine as before, with the same answers.
"""
from __future__ import annotations

import copyreg
import gc
import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from types import MappingProxyType

from npu_lint.core.cache_location import cache_root, keep_file
from npu_lint.knowledge.fingerprint import package_stamp

FORMAT = 1
MAX_SNAPSHOTS = 32  # one per distinct settings and environment; ~0.5 MB each
_PROTOCOL = 5


def snapshot_path(settings, harden: bool) -> Path:
    """Where the engine of these settings is kept; the name changes with anything that decides it."""
    key = [package_stamp(), f"format {FORMAT}", f"protocol {_PROTOCOL}", f"harden {harden}", repr(settings)]
    for path in getattr(settings, "extend_rules", ()):
        try:
            key.append(hashlib.blake2b(Path(path).read_bytes(), digest_size=16).hexdigest())
        except OSError as exc:
            key.append(f"unreadable: {exc}")
    digest = hashlib.blake2b("\0".join(key).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return cache_root() / "engines" / f"{digest}.pickle"


def load(path: Path):
    """The value kept at `path`, or None when there is none this user may trust."""
    try:
        with open(path, "rb") as handle:
            if not _trusted(os.fstat(handle.fileno())):
                return None
            data = handle.read()
    except OSError:
        return None
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of new containers, none of them garbage: collections would
    try:          # walk the whole heap several times over and cost more than the load itself
        value = pickle.loads(data)
    except Exception:  # pylint: disable=broad-except  # damaged, or pickled by other code: rebuild
        return None
    finally:
        if collecting:
            gc.enable()
    # The engine lives as long as the process: no later collection needs to walk it again.
    gc.freeze()
    return value


def store(path: Path, value) -> None:
    """Keep `value` at `path`, atomically; a value that cannot be pickled is simply not kept."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_mapping_proxy}
    try:
        pickler.dump(value)
    except Exception:  # pylint: disable=broad-except  # e.g. an extend-rules value pickle cannot hold
        return
    keep_file(path, buffer.getvalue(), MAX_SNAPSHOTS)


def mapping_proxy(mapping: dict) -> MappingProxyType:
    """Rebuilds a read-only mapping (types.MappingProxyType pickles by no importable name)."""
    return MappingProxyType(mapping)


def _reduce_mapping_proxy(proxy: MappingProxyType):
    return mapping_proxy, (dict(proxy),)


def _trusted(status: os.stat_result) -> bool:
    """Owned by this user and writable by no one else (on systems that have owners)."""
    if sys.platform == "win32" or not hasattr(os, "geteuid"):
        return True
    return status.st_uid == os.geteuid() and not status.st_mode & 0o022
