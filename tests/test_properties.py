"""Property tests: generated programs and mutated snippets never make the engine raise,
and every fix parses, touches only flagged lines (plus the added import), and is idempotent."""
from __future__ import annotations

import ast
import difflib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npu_lint.engine.engine import Engine
from npu_lint.run.fixer import Fixer

PATTERNS = [
    "torch.cuda.synchronize()",
    "x = torch.randn(3).cuda()",
    "model = torch.nn.Linear(2, 2).cuda()",
    "y = batch.cuda(non_blocking=True)",
    "device = torch.device('cuda:0')",
    "z = torch.zeros(2, device=\"cuda\")",
    "z = z.to(f'cuda:{rank}')",
    "dist.init_process_group('nccl')",
    "dist.init_process_group(backend=\"nccl\")",
    "ok = dist.is_nccl_available()",
    "b = dist.Backend.NCCL",
    "with torch.cuda.amp.autocast():\n    pass",
    "scaler = torch.cuda.amp.GradScaler()",
    "with torch.autocast('cuda'):\n    pass",
    "flag = x.is_cuda",
    "if x.device.type == 'cuda':\n    pass",
    "parser_default = 'cuda'",
    "torch.backends.cudnn.benchmark = True",
]
FILLERS = [
    "value = compute(1, 2)",
    "def helper(a, b=3):\n    return a + b",
    "class Thing:\n    def cuda(self):\n        return self",
    "# a comment that mentions cuda",
    "text = 'a string with cuda inside'",
    "for i in range(3):\n    total = i * 2",
    "items = [n for n in range(10) if n % 2]",
    "try:\n    pass\nexcept Exception:\n    pass",
    "",
]
HEADER = "import torch\nimport torch.distributed as dist\nrank = 0\nbatch = None\n"


def _program(parts: list[str], crlf: bool) -> str:
    text = HEADER + "\n".join(parts) + "\n"
    return text.replace("\n", "\r\n") if crlf else text


@pytest.fixture(scope="module")
def fixer():
    return Fixer(unsafe=True)


programs = st.builds(
    _program,
    st.lists(st.sampled_from(PATTERNS + FILLERS), min_size=1, max_size=12),
    st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=programs)
def test_fix_parses_touches_only_flagged_lines_and_is_idempotent(fixer, text):
    engine = fixer.engine
    flagged = {f.start.line for f in engine.check_text(text, "p.py").findings}
    for finding in engine.check_text(text, "p.py").findings:
        if finding.fix:
            flagged.update(range(finding.start.line, finding.end.line + 1))
            flagged.update(e.start.line for e in finding.fix.edits)
    out = fixer.fix_text(text, "p.py")
    ast.parse(out.text)
    assert fixer.fix_text(out.text, "p.py").text == out.text, "a second fix run changed the text"
    assert out.text.count("\r\n") >= text.count("\r\n"), "line endings changed"
    before, after = text.splitlines(), out.text.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            assert after[j1:j2] == ["import torch_npu"], after[j1:j2]
            continue
        changed = set(range(i1 + 1, i2 + 1))
        assert changed <= flagged, (tag, before[i1:i2], after[j1:j2])


@settings(max_examples=40, deadline=None)
@given(text=programs, cut=st.integers(min_value=0, max_value=400), junk=st.sampled_from(["(", ")", ":", "'", "\x00", "\\", "é", "\t", "f'{"]))
def test_mutated_snippets_never_raise(text, cut, junk):
    engine = Engine()
    mutated = text[:cut] + junk + text[cut:]
    result = engine.check_text(mutated, "m.py")
    assert not [p for p in result.problems if p.kind == "internal-error"], result.problems


try:
    import hypothesmith
except ImportError:  # the other property tests still run
    hypothesmith = None


@pytest.mark.skipif(hypothesmith is None, reason="hypothesmith is not installed")
def test_generated_programs_never_raise():
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(source=hypothesmith.from_grammar())
    def check(source):
        result = Engine().check_text("import torch\n" + source, "g.py")
        assert not [p for p in result.problems if p.kind == "internal-error"], result.problems

    check()
