"""Where a positionally passed argument sits, for the APIs whose dtype allowlists name it
(data/argument_positions.yaml).

The facts are hand-written from torch's signatures; this module only reads and validates them.
"""
from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Mapping

from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml

DATA_FILE = "argument_positions.yaml"


def parse(text: str) -> Mapping[str, Mapping[str, int]]:
    """API qualified name -> argument name -> its 0-based position."""
    data = load_yaml(text) or {}
    positions = data.get("positions")
    if not isinstance(positions, dict):
        raise RuleDataError(DATA_FILE, None, "positions", "expected a mapping of API names")
    result = {}
    for api, arguments in positions.items():
        if not isinstance(arguments, dict) or not arguments or not all(
                isinstance(name, str) and isinstance(index, int) and not isinstance(index, bool) and index >= 0
                for name, index in arguments.items()):
            raise RuleDataError(DATA_FILE, None, f"positions.{api}",
                                "expected a mapping of argument names to positions (integers from 0)")
        if len(set(arguments.values())) != len(arguments):
            raise RuleDataError(DATA_FILE, None, f"positions.{api}", "two arguments at one position")
        result[str(api)] = MappingProxyType(dict(arguments))
    return MappingProxyType(result)


@functools.lru_cache(maxsize=None)
def argument_positions() -> Mapping[str, Mapping[str, int]]:
    return parse(data_file(DATA_FILE))
