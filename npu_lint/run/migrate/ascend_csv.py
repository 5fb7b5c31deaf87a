"""The CSV dialect msFmkTransplt writes (pandas' `to_csv` defaults): comma separated,
`"` quotes only where a field needs them, `\\n` line ends, UTF-8 without a BOM,
a header row even when no row follows, `NA` for a missing value.

Like msFmkTransplt's `sanitize_csv_value`, a text field that a spreadsheet would run
as a formula (starting with = + - % @, or with one after `;`) gets a leading space.
"""
from __future__ import annotations

import csv
import io
import re

MISSING = "NA"
_FORMULA = re.compile(r"^[=+\-%@＝＋－]|;[=+\-%@＝＋－]")


def cell(value) -> str | int:
    if value is None or value == "":
        return MISSING
    if isinstance(value, int):
        return value
    text = " ".join(str(value).split())  # one line: no cell ever holds a line break
    return " " + text if _FORMULA.search(text) else text


def csv_bytes(header: tuple[str, ...], rows: list[tuple]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows([cell(value) for value in row] for row in rows)
    return buffer.getvalue().encode("utf-8")
