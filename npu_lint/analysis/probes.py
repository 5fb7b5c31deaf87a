"""Feature probes: code that asks about a name without using it.

`hasattr(torch.backends.cudnn, "flags")`, `hasattr(te, "__version__")`,
`inspect.getfullargspec(FastLayerNormFN.forward)`, `inspect.signature(fn)`: whether a name
exists, or what it takes, runs nothing of it. The call next to the probe is the use to port.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.names import qualified_name


# `inspect` functions that answer about an object; `getmembers` and `getmro` hand its members or
# bases on (mmengine registers every bitsandbytes optimizer that way), which is a use.
_ASKING = frozenset({"signature", "getfullargspec", "getargspec", "getsource", "getsourcelines",
                     "getsourcefile", "getfile", "getmodule", "getdoc"})


def probed(node: nodes.NodeNG) -> bool:
    """Is `node` the object a probe asks about: the first argument of `hasattr(...)` or of an
    `inspect` function that answers about it (`inspect.signature`, `inspect.isclass`)?"""
    call = node.parent
    if not isinstance(call, nodes.Call) or not call.args or call.args[0] is not node:
        return False
    func = call.func
    if isinstance(func, nodes.Name) and func.name == "hasattr":
        return True
    module, _, name = (qualified_name(func) or "").rpartition(".")
    return module == "inspect" and (name in _ASKING or name.startswith("is"))
