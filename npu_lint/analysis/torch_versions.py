"""Tests of torch's version that the target's torch decides.

x-transformers 2.31's attend.py picks the SDPA backend switch by torch's version:

    torch_version = version.parse(torch.__version__)
    if torch_version >= version.parse('2.3'):
        self.sdp_context_manager = partial(torch.nn.attention.sdpa_kernel, sdpa_backends)
    else:
        self.sdp_context_manager = partial(torch.backends.cuda.sdp_kernel, **sdp_kwargs)

torch_npu pins the torch it runs with (torch_npu 2.14.0 needs torch 2.14.0), so the target release
decides such a test: the `else` runs only on a torch older than 2.3, never beside the target's, and
the port has nothing to change in it (legacy_fallbacks.py drops findings there, for every rule).

The version is `torch.__version__` (a TorchVersion, which compares with a string as a version),
the `parse`/`Version`/`parse_version`/`LooseVersion` of it (or of its `.base_version`), or a name
assigned one of these once in its scope (a `self.x` assigned once in its class). The other side
is a literal version: a plain dotted number, in a string or in the same kind of call. Only the
order operators count, and only where the literal's major and minor differ from the target
torch's: a patch release, a pre-release or a local build (`2.14.0+cpu`) then cannot change the
answer. A test that `and`/`or`/`not` build from such a comparison is decided where its parts
decide it; a flag assigned such a test once is decided as the test.
"""
from __future__ import annotations

import operator
import re
from typing import Optional

from astroid import nodes

from npu_lint.analysis.names import qualified_name, single_value, values_stored_in_self
from npu_lint.knowledge.torch_surface import torch_version, version_tuple

_PARSERS = frozenset({"parse", "Version", "parse_version", "LooseVersion", "StrictVersion"})
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PLAIN_VERSION = re.compile(r"^\d+(\.\d+)*$")
_DEPTH = 4


def may_test_torch_version(text: str) -> bool:
    """False when the text never reads a `__version__`, which every test here needs."""
    return "__version__" in text


def decided(test: nodes.NodeNG, release: str | None, depth: int = 0) -> Optional[bool]:
    """What `test` comes out as with the target's torch, or None where the target does not tell."""
    if depth > _DEPTH:
        return None
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = decided(test.operand, release, depth + 1)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp) and test.op in ("and", "or"):
        parts = [decided(value, release, depth + 1) for value in test.values]
        if test.op == "and":
            return False if False in parts else True if all(part is True for part in parts) else None
        return True if True in parts else False if all(part is False for part in parts) else None
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        return _compare(test, release, depth)
    if isinstance(test, (nodes.Name, nodes.Attribute)):
        stored = _stored_value(test)  # TORCH_2 = version.parse(torch.__version__) >= version.parse("2.0")
        if stored is not None and not _is_torch_version(stored, depth + 1):
            return decided(stored, release, depth + 1)
    return None


def _compare(test: nodes.Compare, release: str | None, depth: int) -> Optional[bool]:
    op, right = test.ops[0]
    if op not in _ORDER:
        return None
    left = test.left
    if not _is_torch_version(left, depth):
        if not _is_torch_version(right, depth):
            return None
        left, right, op = right, left, _MIRRORED[op]
    literal = _literal_version(right)
    if literal is None:
        return None
    target = version_tuple(torch_version(release))[:2]
    if literal[:2] == target:
        return None  # 2.14 against torch 2.14.x: the patch release or the build could decide it
    return _ORDER[op](target, literal[:2])


def _is_torch_version(node: nodes.NodeNG, depth: int) -> bool:
    if depth > _DEPTH:
        return False
    if isinstance(node, nodes.Attribute) and node.attrname == "__version__":
        return qualified_name(node) == "torch.__version__"
    if isinstance(node, nodes.Name) and qualified_name(node) == "torch.__version__":
        return True  # from torch import __version__ as torch_version
    if isinstance(node, nodes.Attribute) and node.attrname == "base_version":
        return _is_torch_version(node.expr, depth + 1)  # version.parse(torch.__version__).base_version
    if isinstance(node, nodes.Call) and len(node.args) == 1 and not node.keywords and _parser(node.func):
        return _is_torch_version(node.args[0], depth + 1)
    if isinstance(node, (nodes.Name, nodes.Attribute)):
        stored = _stored_value(node)  # torch_version = version.parse(torch.__version__)
        return stored is not None and _is_torch_version(stored, depth + 1)
    return False


def _parser(func: nodes.NodeNG) -> bool:
    name = func.attrname if isinstance(func, nodes.Attribute) else func.name if isinstance(func, nodes.Name) else None
    return name in _PARSERS


def _literal_version(node: nodes.NodeNG) -> Optional[tuple[int, ...]]:
    """(2, 3) of `'2.3'` or `version.parse('2.3')`; None for anything else, a pre-release too."""
    if isinstance(node, nodes.Call) and len(node.args) == 1 and not node.keywords and _parser(node.func):
        node = node.args[0]
    if isinstance(node, nodes.Const) and isinstance(node.value, str) and _PLAIN_VERSION.match(node.value):
        return (version_tuple(node.value) + (0, 0))[:3]
    return None


def _stored_value(node: nodes.NodeNG) -> Optional[nodes.NodeNG]:
    """The one value a plain name (in its scope) or `self.x` (in its class) is assigned."""
    if isinstance(node, nodes.Name):
        return single_value(node)
    values = values_stored_in_self(node) if isinstance(node, nodes.Attribute) else None
    return values[0] if values is not None and len(values) == 1 else None
