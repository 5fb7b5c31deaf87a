"""--format junit: one test suite per file, one failed test case per finding."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Iterable

from npu_lint.run.runner import FileResult


def format_junit(results: Iterable[FileResult]) -> str:
    results = list(results)
    root = ET.Element("testsuites", name="npu-lint")
    total = failures = 0
    for result in results:
        items = [(f"{f.code} {f.name}", f.start.line, f.start.column + 1, f"{f.code} {f.message_with_folded}") for f in result.findings]
        items += [(p.kind, p.line, p.column + 1, p.message) for p in result.problems]
        suite = ET.SubElement(root, "testsuite", name=result.path, tests=str(max(len(items), 1)),
                              failures=str(len(items)), errors="0")
        if not items:
            ET.SubElement(suite, "testcase", name="npu-lint", classname=result.path)
        for name, line, column, message in items:
            case = ET.SubElement(suite, "testcase", name=name, classname=result.path, line=str(line))
            failure = ET.SubElement(case, "failure", message=message)
            failure.text = f"{result.path}:{line}:{column}: {message}"
        total += max(len(items), 1)
        failures += len(items)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
