"""Ascend's per-API support lists (`ascend-api-support/pytorch_<version>/*.md`), parsed.

Each API block has a `**原生文档**：[torch.x.y](...)` anchor (the upstream name), an optional
`**NPU 形式名称**` (NPU name), a table with ✔/✘ per chip (Atlas A2, Atlas A3, Ascend 950DT), and
an optional `**限制与说明**` block ("limits"): dtype allowlists written as `` `arg`仅支持a，b ``
(optionally for some chips only, or "另外/额外支持" extras), and "可能回退至CPU执行" ("may fall
back to the CPU") or "回退至CPU执行" (does fall back). An API the lists do not mention is "not
verified", which is not the same as unsupported.

Only the generator reads these files; the installed package reads the generated data.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

CHIPS = {"Atlas A2 训练系列产品": "A2", "Atlas A3 训练系列产品": "A3", "Ascend 950DT": "950DT"}
CHIP_IDS = ("A2", "A3", "950DT")
# Dtype words of the lists -> the short names the data uses.
DTYPE_WORDS = {
    "fp16": "fp16", "float16": "fp16", "half": "fp16",
    "fp32": "fp32", "float32": "fp32", "float": "fp32",
    "fp64": "fp64", "float64": "fp64", "double": "fp64",
    "bf16": "bf16", "bfloat16": "bf16",
    "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool", "complex32": "complex32", "complex64": "complex64", "complex128": "complex128",
    "fp8_e4m3fn": "fp8_e4m3fn", "fp8_e5m2": "fp8_e5m2", "float8_e4m3fn": "fp8_e4m3fn",
    "float8_e5m2": "fp8_e5m2", "hifloat8": "hifloat8",
}

_ANCHOR = re.compile(r"\*\*原生文档\*\*\s*[:：]\s*\[([^\]]+)\]\([^)]*\)")
_NPU_NAME = re.compile(r"\*\*NPU 形式名称\*\*\s*[:：]\s*(\S+)")
_CHIP_ROW = re.compile(r"\|\s*<term>([^<]+)</term>\s*\|\s*([✔✘])\s*\|")
_LIMITS = "**限制与说明**"
_ALLOW = re.compile(r"`(\w+)`\s*(?:参数)?(?:的数据类型)?仅支持\s*([^。；;\n]*)")
_EXTRA = re.compile(r"(?:额外|另外)支持\s*([^。；;\n]*)")
_DENY = re.compile(r"不支持\s*([^。；;\n]*)")
_TERM = re.compile(r"<term>([^<]+)</term>")
_BLOCK_END = re.compile(r"</div>|\n#{1,6} |\n> <font")


@dataclasses.dataclass
class AscendEntry:
    name: str                                   # "torch.Tensor.acos", "torch.nn.functional.gelu"
    file: str                                   # "torch-Tensor.md"
    chips: Dict[str, bool]                      # "A2" -> supported
    dtypes: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)   # every chip
    chip_dtypes: Dict[str, Dict[str, Tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    denied: Dict[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)  # chip -> dtypes
    falls_back: str = ""                        # "", "may" or "yes"
    npu_name: str = ""

    def allowed(self, chip: str, argument: str) -> Optional[Tuple[str, ...]]:
        per_chip = self.chip_dtypes.get(chip, {})
        return per_chip.get(argument, self.dtypes.get(argument))

    def rejects(self, chip: str, argument: str, dtype: str) -> bool:
        allowed = self.allowed(chip, argument)
        return (allowed is not None and dtype not in allowed) or dtype in self.denied.get(chip, ())

    @property
    def unsupported_on(self) -> Tuple[str, ...]:
        return tuple(chip for chip in CHIP_IDS if self.chips.get(chip) is False)


@dataclasses.dataclass(frozen=True)
class AscendList:
    folder: str                 # "pytorch_2-13-0"
    torch: str                  # "2.13.0"
    files: int
    sha256: str                 # over the files' names and bytes, sorted by name
    entries: Dict[str, AscendEntry]


def normalize_name(text: str) -> Optional[str]:
    name = text.strip().strip("`")
    if name.startswith("Tensor."):
        name = "torch." + name
    return name if name.startswith("torch.") and re.match(r"^[\w.]+$", name) else None


def _dtype_list(text: str) -> Optional[Tuple[str, ...]]:
    """("fp16", "fp32") for "fp16，fp32", None when a word is not a dtype (a value restriction)."""
    words = [w.strip().lower() for w in re.split(r"[，,、和及与\s]+", text.strip()) if w.strip()]
    words = [w[:-4] if w.endswith("数据类型") else w for w in words]
    words = [w for w in words if w]
    if not words or any(w not in DTYPE_WORDS for w in words):
        return None
    return tuple(dict.fromkeys(DTYPE_WORDS[w] for w in words))


def _line_chips(line: str) -> Tuple[str, ...]:
    """Chips a limit line is scoped to (its leading <term> mentions), () for every chip."""
    head = re.split(r"`", line, maxsplit=1)[0]
    return tuple(CHIPS[t] for t in _TERM.findall(head) if t in CHIPS)


def parse_limits(entry: AscendEntry, text: str) -> None:
    if "回退至CPU" in text:
        entry.falls_back = "may" if "可能回退" in text else "yes"
    for raw_line in text.splitlines():
        line = raw_line.strip().lstrip(":：").strip().lstrip("-").strip()
        if not line:
            continue
        chips = _line_chips(line)
        for argument, values in _ALLOW.findall(line):
            allowed = _dtype_list(values)
            if allowed is None:
                continue
            if chips:
                for chip in chips:
                    entry.chip_dtypes.setdefault(chip, {})[argument] = allowed
            else:
                entry.dtypes[argument] = allowed
        extra = _EXTRA.search(line)
        if extra and chips:
            added = _dtype_list(extra.group(1))
            if added:
                for chip in chips:
                    for argument, allowed in entry.dtypes.items():
                        current = entry.chip_dtypes.setdefault(chip, {}).get(argument, allowed)
                        entry.chip_dtypes[chip][argument] = tuple(dict.fromkeys(current + added))
        deny = _DENY.search(line)
        if deny and "仅支持" not in line:
            denied = _dtype_list(deny.group(1))
            if denied:
                for chip in chips or CHIP_IDS:
                    entry.denied[chip] = tuple(dict.fromkeys(entry.denied.get(chip, ()) + denied))
    for chip in list(entry.chip_dtypes):
        same = {a: v for a, v in entry.chip_dtypes[chip].items() if entry.dtypes.get(a) != v}
        if same:
            entry.chip_dtypes[chip] = same
        else:
            del entry.chip_dtypes[chip]


def parse_file(text: str, file: str) -> List[AscendEntry]:
    entries = []
    anchors = list(_ANCHOR.finditer(text))
    for index, anchor in enumerate(anchors):
        end = anchors[index + 1].start() if index + 1 < len(anchors) else len(text)
        block = text[anchor.end():end]
        stop = _BLOCK_END.search(block)
        if stop:
            block = block[:stop.start()]
        name = normalize_name(anchor.group(1))
        if name is None:
            continue
        chips = {CHIPS[term]: mark == "✔" for term, mark in _CHIP_ROW.findall(block) if term in CHIPS}
        npu_name = _NPU_NAME.search(block)
        entry = AscendEntry(name, file, chips, npu_name=npu_name.group(1) if npu_name else "")
        if _LIMITS in block:
            parse_limits(entry, block.split(_LIMITS, 1)[1])
        entries.append(entry)
    return entries


def folder_torch_version(folder: str) -> Optional[str]:
    match = re.match(r"^pytorch_(\d+)-(\d+)-(\d+)$", folder)
    return ".".join(match.groups()) if match else None


def read_list(folder: Path) -> AscendList:
    digest = hashlib.sha256()
    entries: Dict[str, AscendEntry] = {}
    paths = sorted(folder.glob("*.md"), key=lambda p: p.name)
    for path in paths:
        data = path.read_bytes()
        digest.update(path.name.encode("utf-8") + b"\0" + data + b"\0")
        for entry in parse_file(data.decode("utf-8"), path.name):
            entries.setdefault(entry.name, entry)
    return AscendList(folder.name, folder_torch_version(folder.name) or "", len(paths),
                      digest.hexdigest(), entries)


def available_lists(root: Path) -> Dict[str, Path]:
    """torch version -> its list folder, for every `pytorch_X-Y-Z` under root."""
    found = {}
    for child in sorted(root.iterdir()) if root.is_dir() else ():
        version = folder_torch_version(child.name)
        if version and child.is_dir():
            found[version] = child
    return found
