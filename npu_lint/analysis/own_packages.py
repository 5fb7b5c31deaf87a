"""Is a module the linted project's own? A library importing itself is not a user of it.

bitsandbytes' optimizers import `bitsandbytes.functional`, DeepSpeed's engine imports
`deepspeed.ops.adam`: inside the library, its own names are its implementation, and what is CUDA
about it is reported where it is written (the kernels, the torch.cuda calls, the .cu sources).
The package holding the file and the packages at its project root count (config.project_scripts).

A project may also be a library's NPU plugin: vllm-ascend declares `ascend = vllm_ascend:register`
in the entry-point group `vllm.platform_plugins`, so vLLM loads the NPU's platform by itself, and a
program of that project that imports vllm runs vLLM on the NPU without transfer_to_npu
(`npu_plugin_hosts`).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import bindings, identifier_words, single_value
from npu_lint.config.project_scripts import own_packages, plugins_for_file

_NPU_WORDS = frozenset({"npu", "ascend"})


def is_own_package(ctx: ModuleContext, module: str) -> bool:
    """Is the top-level package of the dotted `module` one of the project's own?"""
    return module.split(".")[0] in project_packages(ctx)


def project_packages(ctx: ModuleContext) -> frozenset:
    """The project's own top-level packages, found once per module."""
    if "own_packages" not in ctx.scratch:
        ctx.scratch["own_packages"] = own_packages(ctx.module.file or "")
    return ctx.scratch["own_packages"]


def npu_plugin_hosts(ctx: ModuleContext) -> frozenset:
    """The top-level names of the libraries the project is an NPU plugin of: an entry-point group
    of theirs (`vllm.platform_plugins`, `vllm.general_plugins`) holds an entry of the project named
    for the NPU, by its name or its module (`ascend = vllm_ascend:register`)."""
    if "npu_plugin_hosts" not in ctx.scratch:
        ctx.scratch["npu_plugin_hosts"] = plugin_hosts_of(ctx.module.file or "")
    return ctx.scratch["npu_plugin_hosts"]


def plugin_hosts_of(path: str) -> frozenset:
    if not path or path.startswith("<"):
        return frozenset()
    return frozenset(group.split(".")[0] for group, name, module in plugins_for_file(path)
                     if "." in group and not _NPU_WORDS.isdisjoint(identifier_words(name) + identifier_words(module)))


def imported_from_own_module(ctx: ModuleContext, name: nodes.Name) -> bool:
    """Is `name` bound only by `from <the project's module> import name` (or a relative import)
    at the top of the module? super-gradients' `from super_gradients.common.environment.device_utils
    import device_config`: the project's own object, whose attributes (`device_config.is_cuda`, a
    property of its DeviceConfig) are the project's, written and ported where it defines them."""
    found = bindings(name)
    return bool(found) and all(
        isinstance(binding, nodes.ImportFrom) and binding.scope() is binding.root()
        and (bool(binding.level) or is_own_package(ctx, binding.modname))
        for binding in found)


def own_object(ctx: ModuleContext, node: nodes.NodeNG) -> bool:
    """Is `node` an object of the project's own: a name imported from its own module
    (`imported_from_own_module`), what a function so imported returns when called without
    arguments (SGLang's `get_platform().is_cuda`, a fact of its PlatformContext singleton), or a
    local name bound once to that call (`platform = get_platform()`, then `platform.is_cuda`)?
    A call with arguments transforms a value (`preprocess(image).is_cuda` is a tensor's)."""
    if isinstance(node, nodes.Name) and imported_from_own_module(ctx, node):
        return True
    if isinstance(node, nodes.Name):
        value = single_value(node)
        if not isinstance(value, nodes.Call):
            return False
        node = value
    return isinstance(node, nodes.Call) and not node.args and not node.keywords \
        and isinstance(node.func, nodes.Name) and imported_from_own_module(ctx, node.func)
