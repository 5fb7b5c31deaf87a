"""How the generators write their YAML: deterministic, compact, diff-friendly."""
from __future__ import annotations

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
