"""Write a fixed file back without losing a byte: same encoding, BOM,
permissions; atomically (temporary file in the same folder, then rename);
never over a file that changed since it was read."""
from __future__ import annotations

import codecs
import os
import stat
import tempfile

from npu_lint.core.source import DecodedSource


class WriteRefused(Exception):
    """The file was left as it was; the message says why."""


def encode_like(text: str, source: DecodedSource) -> bytes:
    data = text.encode("utf-8" if source.encoding == "utf-8-sig" else source.encoding)
    return codecs.BOM_UTF8 + data if source.bom else data


def write_atomically(path: str, data: bytes, original: bytes) -> None:
    if os.path.islink(path):
        raise WriteRefused("it is a symbolic link; fix the file it points to instead")
    if not os.access(path, os.W_OK):
        raise WriteRefused("it is read-only")
    try:
        with open(path, "rb") as handle:
            current = handle.read()
    except OSError as exc:
        raise WriteRefused(f"cannot read it again before writing: {exc.strerror or exc}") from None
    if current != original:
        raise WriteRefused("it changed on disk while it was being fixed; run again")
    info = os.stat(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".npu-lint-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise WriteRefused(f"cannot create a temporary file beside it: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        os.replace(temporary, path)
    except OSError as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise WriteRefused(f"cannot write it: {exc.strerror or exc}") from None
