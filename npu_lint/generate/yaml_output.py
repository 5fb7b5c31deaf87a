"""How the generators write their YAML: deterministic, compact, diff-friendly, and only when it changed."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Optional

import yaml


class _Dumper(yaml.SafeDumper):
    """Block mappings and flow lists of plain words (compact); lists of longer items (such as
    "a -> b" pairs) one per line, since a flow list would fold them across lines."""


def _represent_list(dumper: yaml.SafeDumper, data: list):
    flow = all(isinstance(item, (str, int, bool)) and " " not in str(item) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _represent_list)


def dump_yaml(document: dict) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     width=100, allow_unicode=True)


def write_or_check(path: Path, text: str, check: bool, generator: str,
                   summarize: Optional[Callable[[str, str], Iterable[str]]] = None) -> bool:
    """Write `text` to `path` where it differs (never an unchanged file), or with `check` write
    nothing and say whether the committed file is stale. True when the file is (now) up to date."""
    label = path.name
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current == text:
        print(f"{label} is up to date" if check else f"{label} unchanged")
        return True
    if check:
        print(f"{label} is stale: run `{generator}`" + (" (the file does not exist)" if current is None else ""))
        if current is not None and summarize is not None:
            for line in summarize(current, text):
                print(f"  {line}")
        return False
    path.write_text(text, encoding="utf-8")
    print(f"wrote {label} ({len(text.encode('utf-8'))} bytes)")
    return True
