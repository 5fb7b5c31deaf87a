"""check: transfer_rewrites_string -- a string that transfer_to_npu rewrites by accident.

Its wrappers replace "cuda" with "npu" (and "nccl" with "hccl") inside every
string argument of the functions they wrap, so `torch.load("ckpt_cuda.pt")`
opens `ckpt_npu.pt` under the patch.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.arguments import argument_role
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.transfer import call_is_wrapped
from npu_lint.checks.base import Check
from npu_lint.checks.string import string_template
from npu_lint.knowledge import release_data

# Strings that are the device or backend itself are meant to be rewritten.
_INTENDED = re.compile(r"^(cuda(:\S*)?|nccl)$")


class TransferRewritesString(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset:
        return frozenset()

    def string_triggers(self) -> frozenset[str]:
        return frozenset({"cuda", "nccl"})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        release = self.settings.release
        arguments = list(node.args) + [k.value for k in node.keywords or ()]
        candidates = [a for a in arguments if _has_rewritten_word(a)]
        if not candidates:
            return
        for wrapper, words in release_data.facts(release).string_replacements.items():
            if not call_is_wrapped(node, wrapper, release):
                continue
            for argument in candidates:
                value = string_template(argument)
                word = next((w for w in words if w in value), None)
                if word and not _INTENDED.match(value) and argument_role(argument) is None:
                    ctx.report(self.rule, argument, value=value, word=word, new=words[word])
            return


def _has_rewritten_word(node: nodes.NodeNG) -> bool:
    value = string_template(node)
    return value is not None and ("cuda" in value or "nccl" in value)
