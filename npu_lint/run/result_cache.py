"""A cache of `npu-lint check` results, so that a second run over an unchanged tree reads JSON.

Where: `.npu_lint_cache/` in the current directory (like Ruff's `.ruff_cache`), with a
`.gitignore` holding `*` and a `CACHEDIR.TAG`, or the folder given by `--cache-dir`.  A project
folder keeps one project's entries together: deleting it, or a CI cache step saving it, touches
that project only, and nothing grows in the home folder across every project ever checked.
A folder that cannot be written disables the cache silently.

An entry is addressed by sha256(fingerprint, settings, path) and valid only while the sha256 of
the file's bytes matches the one it records (and whether the project's packaging metadata names the
file as a console script, which decides where NPU120 goes, and which libraries it declares itself
an NPU plugin of, which decides whether NPU191 names them, and which top-level modules it installs
beside its packages, whose imports are its own and no library's; and the hashes of the project modules whose names
reach it through star imports, and, for an NPU120 finding, the modification times and sizes of the
project modules its imports run, one of which may start importing torch_npu, and, for a file defining
a CUDA-named class, the modification times and sizes of the other modules of its folder, where an
NPU sibling class may be written or deleted), so each file has one
entry per configuration,
replaced when the file changes, and the folder does not grow with every edit.  The fingerprint
covers the npu-lint version, its code, the rule data, the torch model data, astroid's and
Python's versions: changing any of them, or the settings (`--select`, configuration file),
misses every entry.  The path is part of the address because the findings depend on it
(per-file-ignores, the module name astroid gives the file).

Entries are JSON (never pickle: a cache folder may come from anywhere), written to a temporary
file and moved into place with `os.replace`, so concurrent runs never see half an entry.  An
entry that does not read back as exactly what was written is a miss, never an error.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from npu_lint import __version__
from npu_lint.analysis.npu_siblings import folder_modules_read
from npu_lint.analysis.project_torch_npu import project_modules_reached
from npu_lint.analysis.cuda_builds import build_modules_read
from npu_lint.analysis.extension_flags import flag_modules_read
from npu_lint.analysis.imported_classes import modules_read as class_modules_read
from npu_lint.analysis.kernel_wrappers import wrapper_modules_read
from npu_lint.analysis.own_packages import plugin_hosts_of
from npu_lint.analysis.star_imports import star_dependencies
from npu_lint.config.cuda_extensions import setup_py_read_for
from npu_lint.config.project_scripts import is_script_target, own_modules_for_file
from npu_lint.core.findings import Applicability, Confidence, Edit, Finding, Fix, Position, Related, Severity
from npu_lint.engine.engine import Problem
from npu_lint.knowledge.fingerprint import package_fingerprint
from npu_lint.run.runner import FileResult

DEFAULT_DIR = ".npu_lint_cache"
FORMAT = 5  # 2: entries record the star-imported modules they depend on; 3: and NPU120's project modules;
# 4: and the folder's modules an NPU sibling class may be in; 5: related places say which are folded
# findings, and entries record the setup.py that builds a CUDA extension the module imports
# NPU120 ("this program never imports torch_npu") looks through the project's own modules for one
# that does: its answer goes stale when one of them changes, not only when the program does.
_PROJECT_MODULE_RULES = frozenset({"NPU120"})
# Results with these problems are not stored: they may not repeat (a rule failing, astroid
# running out of stack) and must be reported by every run until fixed.
_UNCACHED_PROBLEMS = frozenset({"internal-error", "unreadable"})


class CorruptEntry(ValueError):
    pass


@functools.lru_cache(maxsize=None)
def fingerprint() -> str:
    """Hash of everything besides the file and the settings that decides the findings, and of
    this cache's entry format."""
    return hashlib.sha256(f"{package_fingerprint()}\0npu-lint {__version__}\0format {FORMAT}".encode()).hexdigest()


# -- JSON <-> findings ------------------------------------------------------

def _position(position: Position) -> list[int]:
    return [position.line, position.column]


def finding_to_json(finding: Finding) -> dict:
    fix = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability.value,
            "message": finding.fix.message,
            "edits": [[*_position(e.start), *_position(e.end), e.content] for e in finding.fix.edits],
        }
    return {
        "code": finding.code, "name": finding.name, "message": finding.message,
        "start": _position(finding.start), "end": _position(finding.end),
        "severity": finding.severity.value, "confidence": finding.confidence.value, "fix": fix,
        "related": [[*_position(r.start), *_position(r.end), r.message, r.path, r.folded] for r in finding.related],
    }


def problem_to_json(problem: Problem) -> dict:
    return {"kind": problem.kind, "message": problem.message, "line": problem.line,
            "column": problem.column, "rule": problem.rule}


def _typed(value, kind):
    if type(value) is not kind:  # bool is not an int here, and no subclasses
        raise CorruptEntry(f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _pos(value) -> Position:
    if not isinstance(value, list) or len(value) != 2:
        raise CorruptEntry("bad position")
    return Position(_typed(value[0], int), _typed(value[1], int))


def _edit(value) -> Edit:
    if not isinstance(value, list) or len(value) != 5:
        raise CorruptEntry("bad edit")
    return Edit(_pos(value[0:2]), _pos(value[2:4]), _typed(value[4], str))


def _related(value) -> Related:
    if not isinstance(value, list) or len(value) != 7 or not (value[5] is None or isinstance(value[5], str)):
        raise CorruptEntry("bad related location")
    return Related(_pos(value[0:2]), _pos(value[2:4]), _typed(value[4], str), value[5], _typed(value[6], str))


def finding_from_json(data) -> Finding:
    if not isinstance(data, dict):
        raise CorruptEntry("bad finding")
    fix = data["fix"]
    if fix is not None:
        if not isinstance(fix, dict) or not isinstance(fix["edits"], list):
            raise CorruptEntry("bad fix")
        fix = Fix(Applicability(fix["applicability"]), _typed(fix["message"], str),
                  tuple(_edit(e) for e in fix["edits"]))
    return Finding(
        code=_typed(data["code"], str), name=_typed(data["name"], str), message=_typed(data["message"], str),
        start=_pos(data["start"]), end=_pos(data["end"]),
        severity=Severity(data["severity"]), confidence=Confidence(data["confidence"]), fix=fix,
        related=tuple(_related(r) for r in data.get("related", ())),
    )


def problem_from_json(data) -> Problem:
    if not isinstance(data, dict):
        raise CorruptEntry("bad problem")
    rule = data["rule"]
    return Problem(_typed(data["kind"], str), _typed(data["message"], str), _typed(data["line"], int),
                   _typed(data["column"], int), None if rule is None else _typed(rule, str))


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ResultCache:
    """Results of one configuration, stored under `folder`."""

    def __init__(self, folder: str | os.PathLike, settings_key: str):
        self.folder = Path(folder)
        self.prefix = hashlib.sha256(f"{fingerprint()}\0{settings_key}\0".encode()).hexdigest()
        self.enabled = True
        self.hits = self.misses = self.stored = 0

    @classmethod
    def for_settings(cls, folder: str | os.PathLike, settings) -> "ResultCache":
        """The cache of a run with these settings, including the text of their `extend-rules` files."""
        key = [repr(settings)]
        for path in getattr(settings, "extend_rules", ()):
            try:
                key.append(content_hash(Path(path).read_bytes()))
            except OSError as exc:
                key.append(f"unreadable: {exc}")
        return cls(folder, "\0".join(key))

    def entry_path(self, path: str) -> Path:
        key = hashlib.sha256(f"{self.prefix}\0{os.path.abspath(path)}".encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / "results" / key[:2] / f"{key[2:]}.json"

    def get(self, path: str, data: bytes) -> FileResult | None:
        """The stored result of this file with these bytes, or None (missing, stale or corrupt)."""
        if not self.enabled:
            return None
        try:
            with open(self.entry_path(path), "rb") as handle:
                entry = json.loads(handle.read())
            if not isinstance(entry, dict) or entry.get("format") != FORMAT \
                    or entry.get("prefix") != self.prefix or entry.get("content") != content_hash(data) \
                    or entry.get("script") != is_script_target(path) \
                    or entry.get("plugin_hosts", []) != sorted(plugin_hosts_of(path)) \
                    or entry.get("own_modules", []) != sorted(own_modules_for_file(path)) \
                    or not _dependencies_unchanged(entry.get("depends", [])) \
                    or not _stamps_unchanged(entry.get("reached", [])) \
                    or entry.get("folder") != _folder_stamps(path, data):
                raise CorruptEntry("stale")
            findings = [finding_from_json(f) for f in _typed(entry["findings"], list)]
            problems = [problem_from_json(p) for p in _typed(entry["problems"], list)]
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
            # missing, unreadable, not JSON, stale, or not the shape written (CorruptEntry is a ValueError)
            self.misses += 1
            return None
        self.hits += 1
        return FileResult(path, findings, problems)

    def put(self, path: str, data: bytes, result: FileResult) -> None:
        """Store a result; a result that may not repeat, or a write that fails, is skipped."""
        if not self.enabled or any(p.kind in _UNCACHED_PROBLEMS for p in result.problems):
            return
        entry = {
            "format": FORMAT, "prefix": self.prefix, "content": content_hash(data),
            "script": is_script_target(path),  # a console script of its project (pyproject, setup.cfg)
            "plugin_hosts": sorted(plugin_hosts_of(path)),  # libraries it is an NPU plugin of (NPU191)
            "own_modules": sorted(own_modules_for_file(path)),  # its project's py_modules: no library's
            "depends": _dependencies(path, data),
            "reached": _project_stamps(path, result),
            "folder": _folder_stamps(path, data),
            "findings": [finding_to_json(f) for f in result.findings],
            "problems": [problem_to_json(p) for p in result.problems],
        }
        target = self.entry_path(path)
        try:
            self._prepare(target.parent)
            handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=target.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(entry, stream, ensure_ascii=False, separators=(",", ":"))
                os.replace(temporary, target)
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
        except OSError:
            self.enabled = False  # read-only folder, disk full: run on without the cache
            return
        self.stored += 1

    def _prepare(self, folder: Path) -> None:
        if folder.is_dir():
            return
        if not self.folder.is_dir():
            self.folder.mkdir(parents=True, exist_ok=True)
            _write_if_missing(self.folder / ".gitignore", "# Created by npu-lint automatically.\n*\n")
            _write_if_missing(self.folder / "CACHEDIR.TAG",
                              "Signature: 8a477f597d28d172789f06886806bc55\n"
                              "# This file is a cache directory tag created by npu-lint.\n"
                              "# For information about cache directory tags see https://bford.info/cachedir/\n")
        folder.mkdir(parents=True, exist_ok=True)


def _dependencies(path: str, data: bytes) -> list[list[str]]:
    """[path, content hash] of the project files its findings read: the modules whose names reach
    this file through star imports (fastai's `from .torch_imports import *`), and the setup.py
    that builds a CUDA extension it names, the modules whose decorators it may apply (trl's
    `from .chunked_logprob import _jit`), and the modules it imports inside a block, whose import
    may build CUDA code (cogdl's `if torch.cuda.is_available(): from ..operators.spmm import
    csrspmm`) or which may set a flag saying a CUDA extension loaded (torchani's `from
    torchani.csrc import CUAEV_IS_INSTALLED`), and the modules that define a class whose instance
    it moves with `.cuda()` (torchbearer's `Trial`). Its findings change when they do."""
    if b"import" not in data:
        return []
    dependencies = [setup_py] if (setup_py := setup_py_read_for(path, data)) else []
    if b"*" in data:
        dependencies += star_dependencies(path)
    dependencies += wrapper_modules_read(path, data)
    dependencies += build_modules_read(path, data)
    dependencies += flag_modules_read(path, data)
    dependencies += class_modules_read(path, data)
    entries = []
    for dependency in dependencies:
        try:
            entries.append([dependency, content_hash(Path(dependency).read_bytes())])
        except OSError:
            entries.append([dependency, ""])
    return entries


def _dependencies_unchanged(recorded) -> bool:
    for dependency, digest in _typed(recorded, list):
        try:
            current = content_hash(Path(_typed(dependency, str)).read_bytes())
        except OSError:
            current = ""
        if current != digest:
            return False
    return True


def _project_stamps(path: str, result: FileResult) -> list[list]:
    """[path, mtime_ns, size] of the project modules a finding of `_PROJECT_MODULE_RULES` read
    (stamps, not hashes: a program reaches hundreds of them, and each lookup checks them all)."""
    if not any(finding.code in _PROJECT_MODULE_RULES for finding in result.findings):
        return []
    return [[module, *_stamp(module)] for module in project_modules_reached(path)]


def _folder_stamps(path: str, data: bytes) -> list[list]:
    """[path, mtime_ns, size] of the folder's modules that the NPU-sibling rule may read for this
    file: a module added, deleted or edited there misses the entry."""
    return [[module, *_stamp(module)] for module in folder_modules_read(path, data)]


def _stamp(path: str) -> list[int]:
    try:
        status = os.stat(path)
    except OSError:
        return [-1, -1]
    return [status.st_mtime_ns, status.st_size]


def _stamps_unchanged(recorded) -> bool:
    for module, mtime, size in _typed(recorded, list):
        if _stamp(_typed(module, str)) != [mtime, size]:
            return False
    return True


def _write_if_missing(path: Path, text: str) -> None:
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        pass
