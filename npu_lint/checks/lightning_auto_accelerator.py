"""check: lightning_auto_accelerator (NPU121) -- a Lightning Trainer or Fabric left to choose its
own accelerator.

Lightning's automatic choice (`accelerator="auto"`, the default) tries TPU, MPS and CUDA and
falls back to the CPU (lightning 2.6's `_select_auto_accelerator`): it has no NPU, so on an Ascend
host `L.Fabric(devices=8, strategy="fsdp")` (litgpt's pretrain and finetune scripts) trains on the
CPU, with no error to say so. The port passes an instance of the project's own NPU `Accelerator`
subclass, as NPU113 says for "gpu". Left alone: a call that names its accelerator, passes
`**kwargs` with no `accelerator=` or `gpus=` beside them or in an unpacked dict display (the
accelerator may be in them) or positional arguments, or asks for the CPU
(`gpus=0`) or another device kind (`tpu_cores=`), and the calls inside Lightning itself. Lightning
1.x's `gpus=N` asks for CUDA devices, which an Ascend host does not have: that is reported too,
also where `accelerator=` holds what Lightning before 1.5 took there, the name of a distributed
strategy (`gpus=args.gpus, accelerator="ddp"`, lightning-bolts' SwAV and SimCLR scripts): it
names no device. So is `Trainer.from_argparse_args(args, gpus=1)`, whose keywords override the
parsed command line; one without `gpus=` leaves the choice to the command line and is left alone.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import bindings, qualified_name
from npu_lint.analysis.own_packages import is_own_package
from npu_lint.checks.base import Check

LIGHTNING_ENTRY_POINTS = frozenset({
    "lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
    "lightning.pytorch.trainer.trainer.Trainer", "pytorch_lightning.Trainer", "pytorch_lightning.trainer.Trainer",
    "pytorch_lightning.trainer.trainer.Trainer", "lightning.Fabric", "lightning.fabric.Fabric",
    "lightning.fabric.fabric.Fabric", "lightning_fabric.Fabric", "lightning_fabric.fabric.Fabric",
})
# Lightning 1.x arguments that ask for another device kind themselves.
_OTHER_DEVICE_ARGUMENTS = frozenset({"tpu_cores", "ipus", "hpus"})
# What Lightning 1.x before 1.5 took as `accelerator=`: the distributed strategy (its
# `DistributedType` values), on the devices `gpus=` asks for. "ddp_cpu" and "tpu_spawn" name
# their device themselves.
_LEGACY_STRATEGIES = frozenset({
    "dp", "ddp", "ddp2", "ddp_spawn", "deepspeed", "horovod", "ddp_sharded", "ddp_sharded_spawn",
    "ddp_fully_sharded"})


def _names_strategy(value: nodes.NodeNG, depth: int = 0) -> bool:
    """`"ddp"`, `None`, `"ddp" if args.gpus > 1 else None`: an `accelerator=` beside `gpus=` that
    chooses no device, only (or no) distributed strategy; also a name that only such values are
    assigned to (torchsynth 1.0's profile script: `accelerator = None`, then `accelerator = "ddp"`
    for more than one GPU)."""
    if isinstance(value, nodes.IfExp):
        return _names_strategy(value.body, depth) and _names_strategy(value.orelse, depth)
    if isinstance(value, nodes.Name) and depth < 2:
        found = bindings(value)
        return bool(found) and all(
            isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign)
            and _names_strategy(binding.parent.value, depth + 1) for binding in found)
    return isinstance(value, nodes.Const) and (value.value is None or value.value in _LEGACY_STRATEGIES)


def _keywords(call: nodes.Call) -> tuple[dict, bool]:
    """The keywords `call` passes by name, and whether it also passes some it does not name
    (`**kwargs`). The entries of a dict display it unpacks count as named (gluonts 0.17's
    estimator: `pl.Trainer(**{"accelerator": "auto", "callbacks": [...], **self.trainer_kwargs})`,
    the project's default that its callers may override); so does a keyword beside `**kwargs`
    (`Trainer(accelerator="auto", **kwargs)`: the kwargs cannot hold a second one)."""
    named, open_ended = {}, False
    for keyword in call.keywords or ():
        if keyword.arg is not None:
            named[keyword.arg] = keyword.value
        elif isinstance(keyword.value, nodes.Dict):
            for key, value in keyword.value.items:
                if isinstance(key, nodes.Const) and isinstance(key.value, str):
                    named[key.value] = value  # a later entry wins, as in the dict
                else:
                    open_ended = True  # `**rest` inside the display, or a computed key
        else:
            open_ended = True
    return named, open_ended


class LightningAutoAccelerator(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset:
        # Called, and named through an import of Lightning: transformers' own `Trainer(...)` is
        # not Lightning's and lets no file in.
        called = {("(" + qname.rsplit(".", 1)[-1], "@" + qname) for qname in LIGHTNING_ENTRY_POINTS}
        return frozenset(called | {("(from_argparse_args", "@" + qname) for qname in LIGHTNING_ENTRY_POINTS
                                   if qname.endswith(".Trainer")})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        func = node.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        # Lightning 1.x's `Trainer.from_argparse_args(args, gpus=1)` (learn2learn's lightning
        # example): the keywords override the parsed namespace, so an explicit `gpus=` asks for
        # CUDA devices whatever the command line says; without one, the namespace decides.
        from_namespace = name == "from_argparse_args" and isinstance(func, nodes.Attribute) \
            and (func.expr.attrname if isinstance(func.expr, nodes.Attribute)
                 else getattr(func.expr, "name", None)) == "Trainer"
        if not from_namespace and (name not in ("Trainer", "Fabric") or node.args):
            return  # cheap syntax first
        keywords, open_ended = _keywords(node)
        if _OTHER_DEVICE_ARGUMENTS & keywords.keys():
            return
        accelerator, gpus = keywords.get("accelerator"), keywords.get("gpus")
        if open_ended and accelerator is None and gpus is None:
            return  # the accelerator may be in the `**kwargs`
        if from_namespace and gpus is None:
            return
        if accelerator is not None and not (isinstance(accelerator, nodes.Const) and accelerator.value == "auto") \
                and not (gpus is not None and _names_strategy(accelerator)):
            return
        if gpus is not None and isinstance(gpus, nodes.Const) and gpus.value in (0, None, "0"):
            return  # the CPU, asked for
        qname = qualified_name(func.expr if from_namespace else func)
        if qname not in LIGHTNING_ENTRY_POINTS or is_own_package(ctx, qname):
            return
        if gpus is not None:
            where, how = gpus, ("asks Lightning 1.x for CUDA devices with `gpus=`, which an Ascend host does "
                                "not have, and Lightning knows no NPU")
        elif accelerator is not None:
            where, how = accelerator, ('asks for `accelerator="auto"`: Lightning\'s automatic choice knows TPU, '
                                       "MPS and CUDA but not the NPU, so on an Ascend host it runs on the CPU")
        else:
            where, how = func, ("is given no accelerator: Lightning's automatic choice knows TPU, MPS and CUDA "
                                "but not the NPU, so on an Ascend host it runs on the CPU")
        callee = qname.rsplit(".", 1)[-1] + (".from_argparse_args" if from_namespace else "")
        ctx.report(self.rule, where, callee=callee, how=how)
