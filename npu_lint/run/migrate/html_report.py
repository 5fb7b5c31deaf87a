"""report.html: what a person reads first. Totals per rule family and per file,
bar charts of where the work is, and every finding with its source line and fix.
Self-contained (inline CSS and SVG, no script); every text is escaped."""
from __future__ import annotations

import collections
import html

from npu_lint.knowledge.loader import rule_by_code
from npu_lint.run.migrate.change_rows import file_change_rows, original_line
from npu_lint.run.migrate.copy_tree import write_new_file
from npu_lint.run.migrate.reports import HEADERS, report_for

FAMILIES = {
    "NPU1": "CUDA APIs and devices",
    "NPU2": "Distributed (NCCL to HCCL)",
    "NPU3": "Operators and dtypes",
    "NPU4": "CUDA-only libraries and extensions",
    "NPU5": "Fused NPU operators (advice)",
    "NPU6": "Performance and dynamic shapes (advice)",
    "NPU7": "Precision (advice)",
    "NPU9": "Optional checks",
}
ADVICE_FAMILIES = ("NPU5", "NPU6", "NPU7")
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
h1 { margin-bottom: 0.2rem; } .muted { color: #666; }
table { border-collapse: collapse; margin: 1rem 0; } td, th { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd; text-align: left; }
.bar { fill: #c7254e; } .fixed { fill: #3c8d40; } .chart text { font-size: 12px; }
pre { background: #f6f8fa; padding: 0.4rem; margin: 0.2rem 0 0.8rem; overflow-x: auto; }
.finding { margin-left: 1rem; } .code { font-weight: bold; }
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _bar_chart(title: str, counts: list[tuple[str, int, int]]) -> str:
    """Horizontal bars: total findings, and the part that was fixed."""
    if not counts:
        return ""
    width, row = 420, 22
    largest = max(total for _, total, _ in counts) or 1
    parts = [f'<svg class="chart" role="img" aria-label="{_e(title)}" width="{width + 400}" height="{row * len(counts) + 10}">']
    for i, (label, total, fixed) in enumerate(counts):
        y = i * row + 5
        parts.append(f'<text x="0" y="{y + 14}">{_e(label[:38])}</text>')
        parts.append(f'<rect class="bar" x="250" y="{y}" width="{max(total * width // largest, 1)}" height="16"/>')
        parts.append(f'<rect class="fixed" x="250" y="{y}" width="{fixed * width // largest}" height="16"/>')
        parts.append(f'<text x="{255 + max(total * width // largest, 1)}" y="{y + 14}">{total} ({fixed} fixed)</text>')
    parts.append("</svg>")
    return f"<h2>{_e(title)}</h2>" + "".join(parts)


def render(migration) -> str:
    per_family = collections.Counter()
    fixed_family = collections.Counter()
    per_file = []
    for item in migration.files:
        fixed_codes = collections.Counter(change.finding.code for change in item.changes)
        for finding in item.original:
            per_family[finding.code[:4]] += 1
        for code, count in fixed_codes.items():
            fixed_family[code[:4]] += count
        if item.original:
            per_file.append((item.relative, len(item.original), sum(fixed_codes.values())))
    per_file.sort(key=lambda row: (-row[1], row[0]))
    total = sum(per_family.values())
    advice = sum(count for family, count in per_family.items() if family in ADVICE_FAMILIES) + sum(
        1 for item in migration.files for f in item.original if f.code in ("NPU930", "NPU931"))
    fixed = sum(len(item.changes) for item in migration.files)
    remaining = sum(len(item.remaining) for item in migration.files)
    out = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>npu-lint migration report: {_e(migration.source)}</title><style>{STYLE}</style></head><body>",
        "<h1>Migration report</h1>",
        f'<p class="muted">{_e(migration.source)} &rarr; {_e(migration.project)}</p>',
        f"<p><b>{total}</b> findings in <b>{len(per_file)}</b> of {len(migration.files)} Python files "
        f"({advice} of them advice on speed, precision, dynamic shapes or unverified APIs); "
        f"<b>{fixed}</b> fixed, <b>{remaining}</b> left for a person.</p>",
        "<table><tr><th>Family</th><th>Findings</th><th>Fixed</th></tr>",
        *(f"<tr><td>{_e(FAMILIES.get(family, family))}</td><td>{count}</td><td>{fixed_family[family]}</td></tr>"
          for family, count in sorted(per_family.items())),
        "</table>",
        _bar_chart("Where the work is (findings per file)", per_file[:30]),
        _bar_chart("Per rule family", [(FAMILIES.get(f, f), c, fixed_family[f]) for f, c in sorted(per_family.items())]),
    ]
    if migration.launcher:
        out.append("<p>Multi-card scripts found: start them with <code>run_distributed_npu.sh</code>.</p>")
    out.append(_reports_table(migration))
    out.append(_cuda_ops_section(migration))
    if migration.skipped:
        out.append("<h2>Not copied</h2><ul>" + "".join(f"<li>{_e(s)}</li>" for s in migration.skipped) + "</ul>")
    out.append("<h2>Findings</h2>")
    for item in migration.files:
        if not item.original and not item.problems:
            continue
        out.append(f"<h3>{_e(item.relative)}</h3>")
        out.extend(f'<p class="muted">{_e(problem)}</p>' for problem in item.problems)
        applied: dict[tuple, list[str]] = collections.defaultdict(list)
        for row in file_change_rows(item.changes):
            applied[(row.finding.code, original_line_of(item, row.finding))].append(row.message)
        for finding in item.original:
            line = item.source_lines[finding.start.line - 1] if 0 < finding.start.line <= len(item.source_lines) else ""
            change = applied.get((finding.code, finding.start.line))
            rule = rule_by_code(finding.code)
            status = "fixed: " + "; ".join(_e(m) for m in change) if change else (
                (_e(finding.fix.message) if finding.fix else "no automatic fix")
                + f' <span class="muted">(in {_e(report_for(finding.code))})</span>')
            out.append(
                f'<div class="finding"><span class="code">{_e(finding.code)}</span> '
                f'<a href="{_e(rule.doc_path)}">{_e(rule.name)}</a>, line {finding.start.line}: {_e(finding.message)}'
                f"<pre>{_e(line)}</pre><p>{status}</p></div>"
            )
    out.append("</body></html>\n")
    return "\n".join(out)


def original_line_of(item, finding) -> int:
    """The original line of a fixed finding (a later fix pass sees shifted lines)."""
    for change in item.changes:
        if change.finding is finding:
            return original_line(change, finding.start.line)
    return finding.start.line


def _reports_table(migration) -> str:
    rows = "".join(f"<tr><td><code>{_e(name)}</code></td><td>{migration.report_rows.get(name, 0)}</td></tr>"
                   for name in HEADERS)
    return ("<h2>Reports</h2><p>The CSV files beside this page have the names and columns of Ascend's "
            "msFmkTransplt; <code>analysis.json</code> holds every finding and the report it went to.</p>"
            f"<table><tr><th>File</th><th>Rows</th></tr>{rows}</table>")


def _cuda_ops_section(migration) -> str:
    if not migration.cuda_ops:
        return ""
    items = "".join(f"<li><code>{_e(op.api)}</code> ({_e(op.registration)}) in <code>{_e(op.file)}</code>, "
                    f"line {op.line}</li>" for op in migration.cuda_ops)
    return ("<h2>Custom CUDA operators</h2><p>The project registers these operators in C++/CUDA sources "
            "(listed in <code>cuda_op_list.csv</code>). Their kernels were written for CUDA (or the CPU): "
            f"<b>each needs an NPU kernel</b> (Ascend C, or a composition of torch_npu operators) before "
            f"the Python code that calls it can run on the NPU.</p><ul>{items}</ul>")


def write_html_report(migration) -> None:
    write_new_file(migration.plan, "report.html", render(migration).encode("utf-8"), base=migration.output)
