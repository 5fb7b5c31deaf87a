"""The shipped summaries of CUDA-bound library functions (data/library_summaries.yaml).

Loaded on first use only, which happens only for a file that imports one of the summarised
libraries: every other file never pays for it.
"""
from __future__ import annotations

import functools
import re
from npu_lint.core.kept import kept
from npu_lint.core.records import record

DATA_NAME = "library_summaries.yaml"

# The import names summarised, for the check's triggers: kept here so that a file which imports
# none of them never makes the data file load (tests compare it with the data).
SUMMARISED = frozenset({"timm", "transformers", "accelerate", "torchvision", "mmengine", "mmcv", "fairseq",
                        "pytorch_lightning", "ultralytics"})


@record(frozen=True)
class CudaUse:
    """Where a library function becomes CUDA-bound."""

    path: str  # "<package>/<module path>.py"
    line: int
    use: str  # the CUDA-only expression, shortened
    param: str | None = None  # the parameter whose "cuda"/"nccl" default it is: pass it instead
    via: str | None = None  # the library function called that is CUDA-bound


@record(frozen=True)
class Summary:
    """One library release: CUDA-bound qualified names, and public re-exports of them."""

    package: str
    version: str
    bound: dict
    aliases: dict

    def lookup(self, qname: str) -> tuple[str, CudaUse] | None:
        """(defining name, where it becomes CUDA-bound) for a name as the user reached it."""
        name = self._canonical(qname)
        use = self.bound.get(name)
        return (name, use) if use is not None else None

    def _canonical(self, qname: str) -> str:
        if qname in self.bound:
            return qname
        if qname in self.aliases:
            return self.aliases[qname]
        # `timm.utils.ModelEmaV2.update`: the class is re-exported, the method follows it
        prefix, _, rest = qname.rpartition(".")
        while prefix:
            if prefix in self.aliases:
                return f"{self.aliases[prefix]}.{rest}"
            prefix, _, last = prefix.rpartition(".")
            rest = f"{last}.{rest}"
        return qname


def encode_use(use: CudaUse) -> list:
    return [use.path, use.line, use.use, use.param, use.via]


def decode_use(row: list) -> CudaUse:
    path, line, text, param, via = row
    return CudaUse(path, line, text, param, via)


@functools.lru_cache(maxsize=1)
def _document() -> dict:
    from npu_lint.knowledge.location import data_file
    from npu_lint.knowledge.yaml_data import load_yaml

    return load_yaml(data_file(DATA_NAME))["libraries"]


@kept
def trigger_pairs() -> frozenset[tuple[str, ...]]:
    """(library, [class,] last part of a summarised name): all must be in a file for NPU420 to look at it.

    Read from the data file's text with a pattern, without parsing it (about a millisecond), so
    that building an engine costs nothing and a file importing timm without calling any of its
    CUDA-bound names never reaches astroid for this rule.
    """
    from npu_lint.knowledge.location import data_file

    pattern = re.compile(r"\b(" + "|".join(sorted(SUMMARISED)) + r")((?:\.\w+)+)")
    return frozenset(_trigger(top, rest.split(".")[1:]) for top, rest in pattern.findall(data_file(DATA_NAME)))


def _trigger(top: str, parts: list[str]) -> tuple[str, ...]:
    """All words as attributes or in imports ("."): the check resolves a call through the file's
    imports, or through the library call that built its receiver. A method (`Cls.step`: a
    capitalised owner, by convention) is reached only where the class is named too; `step` or
    `update` alone are on every other line of a training script."""
    if len(parts) >= 2 and parts[-2][:1].isupper():
        return ("." + top, "." + parts[-2], "." + parts[-1])
    return ("." + top, "." + parts[-1])


def versions(package: str) -> tuple[str, ...]:
    """Summarised releases of a library, oldest first."""
    return tuple(sorted(_document().get(package, {}), key=_version_key))


def _version_key(version: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


@functools.lru_cache(maxsize=64)
def summary(package: str, version: str | None = None) -> Summary | None:
    """The summary of `package` at `version` (None: the newest summarised); None when not summarised.

    A version that is not summarised falls back to the newest summarised one not newer than it
    (or the oldest), so that `library-versions = {timm = "0.9.12"}` reads 0.9.16's facts.
    """
    known = versions(package)
    if not known:
        return None
    chosen = known[-1]
    if version is not None and version not in known:
        older = [v for v in known if _version_key(v) <= _version_key(version)]
        chosen = older[-1] if older else known[0]
    elif version is not None:
        chosen = version
    entry = _document()[package][chosen]
    bound = {name: decode_use(row) for name, row in (entry.get("bound") or {}).items()}
    return Summary(package, chosen, bound, dict(entry.get("aliases") or {}))
