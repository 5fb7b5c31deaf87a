"""What to do on the NPU for a name of a CUDA-only library (data/cuda_libraries.yaml)."""
from __future__ import annotations

import dataclasses

from npu_lint.core.kept import kept
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

LIBRARIES_FILE = "cuda_libraries.yaml"


@record(frozen=True)
class Choice:
    """The replacement picked by a literal bool keyword, which the fix then drops."""

    keyword: str
    default: bool
    values: dict[bool, str]


@record(frozen=True)
class Advice:
    key: str  # the table entry that matched
    advice: str = ""
    limits: str = ""
    replacement: str | None = None
    choose_by: Choice | None = None
    keywords_without_equivalent: frozenset[str] = frozenset()
    covered_by: str | None = None
    runs_on_npu: str | None = None  # why this part of the library is not CUDA-only after all
    kernel: bool = False  # a decorator that compiles its function for the GPU: one finding per kernel


@record(frozen=True)
class LibraryTable:
    libraries: dict[str, str]  # top module -> the name a message uses
    symbols: dict[str, Advice]
    # CPU and CUDA kernels, none for the NPU: not reported, but a device test that keeps the
    # NPU off them is no CUDA-only code (analysis/cuda_library_guards.py)
    without_npu_kernels: tuple[str, ...] = ()
    cuda_builds: frozenset[str] = frozenset()  # pip's names of libraries' CUDA builds (onnxruntime-gpu)
    # top module -> Ascend's build of it under that name (triton -> triton-ascend)
    npu_builds: dict[str, str] = dataclasses.field(default_factory=dict)
    # AMD's GPUs alone (aiter, flydsl): not reported, guarded as the libraries above are
    rocm_only: tuple[str, ...] = ()

    def guarded_library_of(self, qname: str) -> str | None:
        """The CUDA-only library, or the library without NPU kernels, that qname belongs to."""
        found = self.library_of(qname)
        if found is not None:
            return found
        return next((module for module in (*self.without_npu_kernels, *self.rocm_only)
                     if qname == module or qname.startswith(module + ".")), None)

    def library_of(self, qname: str) -> str | None:
        """The library module that qname belongs to, if any."""
        for module in self.libraries:
            if qname == module or qname.startswith(module + "."):
                return module
        return None

    def advice_for(self, qname: str) -> Advice | None:
        """The longest table entry that is qname or a parent of it."""
        parts = qname.split(".")
        for end in range(len(parts), 0, -1):
            advice = self.symbols.get(".".join(parts[:end]))
            if advice is not None:
                return advice
        return None


def parse_table(text: str, file: str = LIBRARIES_FILE) -> LibraryTable:
    data = load_yaml(text)
    try:
        libraries = {str(k): str(v) for k, v in data["libraries"].items()}
        limits = {str(k): str(v) for k, v in data["limits"].items()}
        symbols = {}
        for key, body in data["symbols"].items():
            choose_by = None
            if "choose_by" in body:
                raw = body["choose_by"]
                choose_by = Choice(str(raw["keyword"]), bool(raw["default"]),
                                   {bool(k): str(v) for k, v in raw["values"].items()})
            limit_key = body.get("limits")
            if limit_key is not None and limit_key not in limits:
                raise KeyError(f"{key}: unknown limits {limit_key!r}")
            symbols[str(key)] = Advice(
                key=str(key),
                advice=str(body.get("advice", "")),
                limits=limits[limit_key] if limit_key else "",
                replacement=body.get("replacement"),
                choose_by=choose_by,
                keywords_without_equivalent=frozenset(body.get("keywords_without_equivalent", ())),
                covered_by=body.get("covered_by"),
                runs_on_npu=body.get("runs_on_npu"),
                kernel=bool(body.get("kernel", False)),
            )
            entry = symbols[str(key)]
            if not (entry.advice or entry.covered_by or entry.runs_on_npu):
                raise KeyError(f"{key}: needs advice, covered_by or runs_on_npu")
        table = LibraryTable(libraries, symbols, tuple(map(str, data.get("without_npu_kernels", ()))),
                             frozenset(map(str, data.get("cuda_builds", ()))),
                             {str(k): str(v) for k, v in (data.get("npu_builds") or {}).items()},
                             tuple(map(str, data.get("rocm_only", ()))))
        for key in (*symbols, *table.npu_builds):
            if table.library_of(key) is None:
                raise KeyError(f"{key}: not under a listed library")
        return table
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RuleDataError(file, None, "symbols", f"malformed library table: {exc}") from None


@kept
def table() -> LibraryTable:
    return parse_table(data_file(LIBRARIES_FILE))
