"""Fixes per target (issue 13 item 2): every fix of every fix case, fixed for each of the 13 releases,
writes only torch names that release has and torch does not deprecate there."""
from __future__ import annotations

import ast
import functools

import pytest
from conftest import REPO

from npu_lint.config.files import strategy_problem
from npu_lint.config.settings import Settings
from npu_lint.knowledge import release_data
from npu_lint.knowledge.torch_surface import _per_torch, torch_deprecates, torch_has
from npu_lint.run.fixer import Fixer

CASES = REPO / "tests" / "fix_cases"
CASE_NAMES = sorted(p.name[: -len(".input.py")] for p in CASES.glob("*.input.py"))
TRACKED = frozenset().union(*(names for names, _ in _per_torch().values()))


def qualified_names(text: str) -> set[str]:
    """Dotted torch names a program uses, through its import aliases."""
    tree = ast.parse(text)
    aliases, found = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                found.add(f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                parts.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                found.add(".".join([aliases[value.id], *reversed(parts)]))
    return {name for name in found if name.split(".")[0] == "torch"}


def npu_has(name: str, release: str) -> bool:
    facts = release_data.facts(release)
    parts = name.split(".")[2:]
    if not parts:
        return True
    names = facts.npu_submodules.get(parts[0])
    if names is not None and len(parts) > 1 and parts[0] not in names:
        return parts[1] in names
    return parts[0] in facts.npu_all | facts.npu_unlisted or parts[0] in facts.npu_submodules


def missing_or_deprecated(name: str, release: str) -> str | None:
    for end in range(2, name.count(".") + 2):
        prefix = ".".join(name.split(".")[:end])
        if prefix.startswith("torch.npu") and not npu_has(prefix, release):
            return f"{prefix} is not in torch_npu {release}"
        if prefix in TRACKED and not torch_has(prefix, release):
            return f"{prefix} is not in the torch of torch_npu {release}"
        if torch_deprecates(prefix, release):
            return f"{prefix} is deprecated in the torch of torch_npu {release}"
    return None


@functools.lru_cache(maxsize=None)
def _fixer(release: str, strategy: str) -> Fixer:
    return Fixer(Settings(target_torch_npu=release, strategy=strategy), unsafe=True)


def _strategy(text: str) -> str:
    first = text.splitlines()[0]
    args = first[len("# args:"):].split() if first.startswith("# args:") else []
    return args[args.index("--strategy") + 1] if "--strategy" in args else "manual"


@pytest.mark.parametrize("release", release_data.releases())
def test_fixes_write_only_what_the_target_has(release):
    problems = []
    for name in CASE_NAMES:
        source = (CASES / f"{name}.input.py").read_text(encoding="utf-8")
        settings = Settings(target_torch_npu=release, strategy=_strategy(source))
        if strategy_problem(settings):
            continue  # refused with a configuration error (tests/test_config.py)
        fixed = _fixer(release, settings.strategy).fix_text(source, "case.py").text
        for written in sorted(qualified_names(fixed) - qualified_names(source)):
            problem = missing_or_deprecated(written, release)
            if problem:
                problems.append(f"{name}: {written}: {problem}")
    assert not problems


def test_the_name_check_sees_what_it_must():
    assert missing_or_deprecated("torch.amp.GradScaler", "2.1.0.post17")
    assert not missing_or_deprecated("torch.amp.GradScaler", "2.3.1.post6")
    assert missing_or_deprecated("torch.accelerator.empty_cache", "2.6.0.post5")
    assert missing_or_deprecated("torch.cuda.amp.autocast", "2.4.0.post4")
    assert missing_or_deprecated("torch.npu.get_arch_list", "2.14.0")
    assert not missing_or_deprecated("torch.npu.mstx.range_pop", "2.14.0")
    assert qualified_names("import torch as t\nfrom torch.amp import autocast\nt.accelerator.current_accelerator().type\n") \
        >= {"torch.amp.autocast", "torch.accelerator.current_accelerator"}


def test_agnostic_is_refused_before_torch_2_6():
    refused = [r for r in release_data.releases() if strategy_problem(Settings(target_torch_npu=r, strategy="agnostic"))]
    assert refused == ["2.1.0.post17", "2.3.1.post6", "2.4.0.post4", "2.5.1.post1"]
