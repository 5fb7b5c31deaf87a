"""check: cuda_extension_build -- `cpp_extension.load(..., with_cuda=True)` / `load_inline(cuda_sources=...)`.

These compile CUDA code with nvcc at run time; on an Ascend host there is no
nvcc. The `.cu` file names themselves are matched by a string rule.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name
from npu_lint.checks.base import Check

BUILDERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})


class CudaExtensionBuild(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"cpp_extension"})  # load / load_inline are reached through it

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        for keyword in node.keywords or ():
            if keyword.arg == "cuda_sources" or (
                keyword.arg == "with_cuda" and isinstance(keyword.value, nodes.Const) and keyword.value.value is True
            ):
                qname = qualified_name(node.func)
                if qname in BUILDERS:
                    ctx.report(self.rule, keyword, qname=qname, argument=keyword.arg)
                return
