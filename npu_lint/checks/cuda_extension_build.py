"""check: cuda_extension_build -- `cpp_extension.load(..., with_cuda=True)`, with nvcc flags
(`extra_cuda_cflags`) or `.cu` sources, `load_inline(cuda_sources=...)`.

These compile CUDA code with nvcc at run time; on an Ascend host there is no
nvcc. The `.cu` file names themselves are matched by a string rule.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_builds import cuda_build_argument
from npu_lint.analysis.names import qualified_name
from npu_lint.checks.base import Check


class CudaExtensionBuild(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"cpp_extension"})  # load / load_inline are reached through it

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        found = cuda_build_argument(node)
        if found is not None:
            argument, name = found
            ctx.report(self.rule, argument, qname=qualified_name(node.func), argument=name)
