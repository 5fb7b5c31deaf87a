"""Classify every ATen overload for the NPU with the dispatch rules of DESIGN.md section 5.

In order, the first that applies:

- `npu`: torch_npu registers an NPU kernel for the overload.
- `delegated`: `structured_delegate: X.out` and X.out has an NPU kernel, so the functional and
  in-place forms run on the NPU too (a naive diff flags `gelu`, `argmax`, `scatter`); a delegate
  without an NPU kernel passes its own class on (usually `cpu-fallback`).
- `composite-explicit`: an `autogen` overload, or a CompositeExplicitAutograd(NonFunctional)
  kernel: device-agnostic code that runs on any backend (it may call ops that fall back).
- `composite-implicit`: no `dispatch:` at all, or CompositeImplicitAutograd: it decomposes into
  other ops on every device, and is as good as its callees.
- `cpu-fallback`: a CPU kernel and no NPU kernel: torch_npu copies the inputs to the host, runs the
  CPU kernel and warns "CAUTION: The operator 'aten::X' is not currently supported on the NPU
  backend and will fall back to run on the CPU".
- `no-kernel`: a dense device kernel (CUDA, XPU, MTIA, HPU; or only a Meta shape function) but
  neither NPU nor CPU: the CPU fallback cannot run it, so the call fails (cudnn, miopen, flash
  attention, ...).
- `layout`: only sparse, quantized, nested, mkldnn or MPS kernels (a Meta shape function aside):
  it applies to tensors of that layout or backend only.

`_foreach_*` overloads without an NPU kernel are CompositeExplicitAutograd with a device-generic
slow path (a loop over the tensors), so they land in `composite-explicit`.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Dict, FrozenSet, Mapping

from npu_lint.generate.aten_ops import Overload

NPU = "npu"
DELEGATED = "delegated"
COMPOSITE_IMPLICIT = "composite-implicit"
COMPOSITE_EXPLICIT = "composite-explicit"
CPU_FALLBACK = "cpu-fallback"
NO_KERNEL = "no-kernel"
LAYOUT = "layout"
CLASSES = (NPU, DELEGATED, COMPOSITE_IMPLICIT, COMPOSITE_EXPLICIT, CPU_FALLBACK, NO_KERNEL, LAYOUT)
RUNS_ON_NPU = frozenset({NPU, DELEGATED})
FAILS_ON_NPU = frozenset({CPU_FALLBACK, NO_KERNEL})  # falls back, or fails

DESCRIPTIONS = {
    NPU: "NPU kernel registered by torch_npu",
    DELEGATED: "structured_delegate to an `.out` with an NPU kernel: runs on the NPU",
    COMPOSITE_IMPLICIT: "CompositeImplicitAutograd: decomposes into other ops on any device",
    COMPOSITE_EXPLICIT: "CompositeExplicitAutograd or autogen: device-agnostic kernel",
    CPU_FALLBACK: "CPU kernel only: falls back to the CPU (slow, warns)",
    NO_KERNEL: "neither NPU nor CPU kernel: fails on the NPU",
    LAYOUT: "layout-specific kernels only (sparse, quantized, nested, mkldnn, mps)",
}

_COMPOSITE_EXPLICIT_KEYS = frozenset({"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"})
_DENSE_DEVICE_KEYS = frozenset({"CUDA", "XPU", "MTIA", "HPU"})
_LAYOUT_KEY = re.compile(r"^(Sparse|Quantized|NestedTensor|Mkldnn|MPS|ZeroTensor)")


def classify(overloads: Mapping[str, Overload], npu_kernels: FrozenSet[str]) -> Dict[str, str]:
    """{overload name: class} for every overload."""
    result: Dict[str, str] = {}

    def one(name: str, depth: int = 0) -> str:
        if name in result:
            return result[name]
        overload = overloads[name]
        keys = overload.dispatch_keys
        if name in npu_kernels:
            found = NPU
        elif overload.structured_delegate and depth < 4:
            delegate = one(overload.structured_delegate, depth + 1)
            found = DELEGATED if delegate in RUNS_ON_NPU else delegate
        elif overload.autogen_of is not None:
            found = COMPOSITE_EXPLICIT
        elif not keys or "CompositeImplicitAutograd" in keys:
            found = COMPOSITE_IMPLICIT
        elif keys & _COMPOSITE_EXPLICIT_KEYS:
            found = COMPOSITE_EXPLICIT
        elif "CPU" in keys:
            found = CPU_FALLBACK
        elif keys & _DENSE_DEVICE_KEYS:
            found = NO_KERNEL
        elif keys - {"Meta"} and all(_LAYOUT_KEY.match(key) for key in keys - {"Meta"}):
            found = LAYOUT
        else:
            found = NO_KERNEL  # Meta only: shape functions, no kernel that computes
        result[name] = found
        return found

    for name in overloads:
        one(name)
    return result


def counts(classes: Mapping[str, str]) -> Dict[str, int]:
    tally = Counter(classes.values())
    return {name: tally.get(name, 0) for name in CLASSES}
