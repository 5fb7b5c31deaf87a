"""Source text: decoding files as Python does, and converting positions."""
from __future__ import annotations

import codecs
import io
import tokenize
from npu_lint.core.records import record


class SourceError(Exception):
    """A file that cannot be read as Python source; the message says why."""


@record(frozen=True)
class DecodedSource:
    text: str
    encoding: str  # as declared or detected, e.g. "utf-8" or "latin-1"
    bom: bool


def decode_source(data: bytes) -> DecodedSource:
    """Decode bytes the way the interpreter would (PEP 263 cookie, BOM)."""
    if b"\x00" in data:
        raise SourceError("file contains NUL bytes; it is not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"cannot determine the encoding: {exc}") from None
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8):]
        encoding = "utf-8"
    try:
        text = data.decode("utf-8" if encoding == "utf-8-sig" else encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"cannot decode as {encoding}: {exc}") from None
    return DecodedSource(text=text, encoding=encoding, bom=bom)


class LineIndex:
    """Convert the UTF-8 byte columns of Python's ast into character columns."""

    def __init__(self, text: str):
        # newline="" splits on \n, \r\n and \r only, as Python's tokenizer does
        self.lines = io.StringIO(text, newline="").readlines()

    def line(self, lineno: int) -> str:
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def char_column(self, lineno: int, byte_column: int) -> int:
        line = self.line(lineno)
        if line.isascii():
            return byte_column
        return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    def segment(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """Text between two (line, char column) positions."""
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.line(l1)[c1:c2]
        parts = [self.line(l1)[c1:]]
        parts.extend(self.line(n) for n in range(l1 + 1, l2))
        parts.append(self.line(l2)[:c2])
        return "".join(parts)
