"""Modules the project wrote for another vendor's accelerator, neither NVIDIA's nor the NPU.

FlagGems keeps one backend package per chip vendor (`runtime/backend/_cambricon/`,
`_kunlunxin/`, `_mthreads/`, `_enflame/`, `_hygon/`, `_iluvatar/`, `_metax/`, ... beside
`_ascend/` and `_nvidia/`) and imports only the one whose device the host has. Several of those
chips answer through `torch.cuda` and the "cuda" device (Hygon's DCU runs ROCm; Iluvatar's CoreX,
MetaX's MACA and Kunlunxin's XPU bring a CUDA-compatible torch: their backends say
`device_name="cuda"`), the others through their own torch extension (torch_mlu, torch_musa,
torch_gcu) whose transfer shims keep the CUDA spellings, and each uses its vendor's build of
Triton. That code runs on its vendor's chip alone: an Ascend host never imports it, "npu" there
would break that chip, and what the NPU's port needs is said in the project's common code or its
own NPU package. So, as for AMD's modules (amd_modules.py), a module is such a vendor's when its
file, or a package of the package chain holding it, is named with the vendor's or its device's
word; `ModuleContext.report` drops every finding there. Only the package chain counts (a checkout
under a folder named so says nothing), and a word must be whole (`_mlu_ops` is, `mlucas` is not).
Apple's MLX counts too: GPTQModel's `mlx_*.py` modules hand tensors to MLX arrays on macOS on
Apple silicon and back (`torch.from_dlpack(mlx_array)`), a path no Ascend host takes.
So is a module that imports such a vendor's torch plugin at its top, outside any guard
(`import habana_frameworks.torch.core`, `import torch_mlu`): it loads on that vendor's hosts only.
Not DeepLink's DIPU, which runs on Ascend too, nor the CPU's architectures (FlagGems' `_arm/`
backend is Triton for the CPU, which may be the NPU host's own).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.module_names import module_named_for
from npu_lint.analysis.names import identifier_words

# The vendor's name and its device's (and its software stack's, where the two differ).
_VENDOR_WORDS = frozenset({
    "cambricon", "mlu",          # Cambricon's MLU (torch_mlu)
    "mthreads", "musa",          # Moore Threads' MUSA (torch_musa)
    "kunlunxin", "kunlun",       # Kunlunxin's XPU (its CUDA-compatible torch, XPU Triton)
    "enflame", "gcu",            # Enflame's GCU (torch_gcu, triton_gcu)
    "hygon", "dcu",              # Hygon's DCU (ROCm)
    "iluvatar", "corex",         # Iluvatar's CoreX
    "metax", "maca",             # MetaX's MACA
    "tsingmicro", "txda",        # TsingMicro (torch_txda)
    "ptpu",                      # Sunrise's PTPU (torch_ptpu)
    "sdaa",                      # Tecorigin's SDAA (torch_sdaa)
    "aipu",                      # Arm China's Zhouyi AIPU
    "habana", "gaudi", "hpu",    # Intel's Gaudi (habana_frameworks' torch.hpu)
    "mlx",                       # Apple's MLX on Apple silicon (GPTQModel's mlx_exl3_pipeline.py)
})


# The torch plugins of those vendors' chips, which only their hosts have installed.
_VENDOR_PLUGINS = frozenset({"habana_frameworks", "torch_mlu", "torch_musa", "torch_gcu", "torch_sdaa",
                             "torch_txda", "torch_ptpu"})


def written_for_other_accelerator(path: str) -> bool:
    """Is the module at `path` the project's code for another vendor's accelerator, by its name
    or its packages' names?"""
    return module_named_for(path, _VENDOR_WORDS)


def imports_vendor_plugin(module: nodes.Module) -> bool:
    """Does the module import another vendor's torch plugin in its own body, outside any `try` or
    `if` (neural-compressor 3.10's mixed_low_precision/custom_methods/gptq.py: `import
    habana_frameworks.torch.core as htcore`)? It then fails to load where the plugin is missing,
    an Ascend host among them: it is that vendor's code, whatever its name. A plugin imported
    lazily or under a guard (`LazyImport("habana_frameworks.torch.core")`) leaves the module common."""
    for statement in module.body:
        if isinstance(statement, nodes.Import):
            names = [name for name, _alias in statement.names]
        elif isinstance(statement, nodes.ImportFrom) and not statement.level:
            names = [statement.modname]
        else:
            continue
        if any(name.split(".", 1)[0] in _VENDOR_PLUGINS for name in names):
            return True
    return False


_MLX = "mlx"


def may_name_mlx(text: str) -> bool:
    """False when the source cannot name a function for MLX: then no finding needs the walk."""
    return _MLX in text.lower()


def in_function_for_mlx(node: nodes.NodeNG) -> bool:
    """Is `node` inside a function named for Apple's MLX (GPTQModel's `_mlx_array_to_torch`,
    `_gguf_quantize_weight_mlx_to_torch` in its common modules)? It takes or makes MLX arrays,
    which only Apple silicon has, so as in an `mlx_*.py` module no Ascend host runs it."""
    scope = node.scope()
    while not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.FunctionDef) and _MLX in identifier_words(scope.name):
            return True
        scope = scope.parent.scope()
    return False
