#!/usr/bin/env python3
"""Summarise a py-spy profile of `npu-lint check` (raw format: one `frame;frame;... count` per line).

    py-spy record --format raw -r 100 -o check.raw -- python -m npu_lint check --no-cache --jobs 1 DIRS
    python tests/benchmarks/profile_summary.py check.raw

Prints where the samples went by phase (the first of PHASES that the stack matches), then the
functions with the most samples inclusive and exclusive.  Samples without a Python frame are
native time: mostly the garbage collector, started from C code.
"""
from __future__ import annotations

import argparse
import collections
import re
import sys

CHECK = re.compile(r"^(Engine\.)?check_module \(")
BUILD = re.compile(r"^build_module \(")
# (phase, pattern, under): the stack is in the phase when a frame matches the pattern below (inside)
# a frame matching `under` (None: anywhere); the first phase that matches wins.
PHASES = (
    ("torch stub building", re.compile(r"torch_model/hook\.py"), None),
    ("astroid build of the file: transforms", re.compile(r"^(AstroidBuilder\._post_build|TransformVisitor\.\w+) \("), BUILD),
    ("astroid build of the file: TreeRebuilder", re.compile(r"^(AstroidBuilder|TreeRebuilder|_PreparsedBuilder)\.\w+ \("), BUILD),
    ("astroid build of the file: other", BUILD, None),
    ("rule checks: astroid builds of imported modules", re.compile(r"^AstroidBuilder\.\w+ \("), CHECK),
    ("rule checks: inference", re.compile(r"^(receiver_kind|NodeNG\.infer|\w+\.infer_call_result|safe_infer) \("), CHECK),
    ("rule checks: matching", re.compile(r"npu_lint/checks/|npu_lint/names\.py|npu_lint/context\.py|^walk \("), CHECK),
    ("rule checks: other", CHECK, None),
    ("ast.parse", re.compile(r"^parse \((<frozen ast>|ast\.py|.*/ast\.py)"), None),
    ("ast prefilter", re.compile(r"npu_lint/prefilter\.py|^words_in_tree \("), None),
    ("trigger-word text scan", re.compile(r"^(Engine\.)?could_fire \("), None),
    ("noqa comments (tokenize)", re.compile(r"npu_lint/suppression\.py"), None),
    ("reports", re.compile(r"npu_lint/reports/|npu_lint/formats\.py"), None),
    ("result cache", re.compile(r"npu_lint/result_cache\.py"), None),
    ("read and decode", re.compile(r"^(read_path|decode_source) \("), None),
    ("start-up: imports, rule data, Engine", re.compile(
        r"^(_find_and_load|Engine\.__init__|shipped_rules|rules_with_extensions|load_rules|make_check)\b"), None),
)


def read(path: str) -> list[tuple[list[str], int]]:
    stacks = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line:
                continue
            frames, _, count = line.rpartition(" ")
            try:
                stacks.append((frames.split(";"), int(count)))
            except ValueError:
                continue
    return stacks


def phase_of(frames: list[str]) -> str:
    if not any(frames):
        return "interpreter start-up (no Python frame)"
    for name, pattern, under in PHASES:
        start = 0
        if under is not None:
            outer = [i for i, frame in enumerate(frames) if under.search(frame)]
            if not outer:
                continue
            start = outer[0]
        if any(pattern.search(frame) for frame in frames[start:]):
            return name
    return "other"


def _function(frame: str) -> str:
    return re.sub(r":\d+\)$", ")", frame)


def summary(stacks: list[tuple[list[str], int]], top: int = 20) -> str:
    total = sum(count for _, count in stacks) or 1
    phases: collections.Counter = collections.Counter()
    inclusive: collections.Counter = collections.Counter()
    exclusive: collections.Counter = collections.Counter()
    for frames, count in stacks:
        phases[phase_of(frames)] += count
        for function in {_function(f) for f in frames}:
            inclusive[function] += count
        exclusive[_function(frames[-1]) or "(no Python frame)"] += count
    lines = [f"{total} samples", "", "| phase | share |", "| --- | ---: |"]
    lines += [f"| {name} | {count / total:.1%} |" for name, count in phases.most_common()]
    lines += ["", "| function (inclusive) | share |", "| --- | ---: |"]
    lines += [f"| `{name}` | {count / total:.1%} |" for name, count in inclusive.most_common(top)]
    lines += ["", "| function (exclusive) | share |", "| --- | ---: |"]
    lines += [f"| `{name}` | {count / total:.1%} |" for name, count in exclusive.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profile", help="py-spy --format raw output")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args(argv)
    print(summary(read(args.profile), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
