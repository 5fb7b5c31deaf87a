"""Facts about operators that no wheel file states, listed by hand, each with its reference.

- Non-ATen operators that fall back: torchvision registers CPU (and CUDA) kernels for its
  `torchvision::` ops; torch_npu's boxed fallback runs every operator without an NPU kernel on the
  CPU, so on an NPU tensor they fall back unless Ascend's Torchvision Adapter (`torchvision_npu`)
  is installed.
- Workarounds: NPU fused operators of torch_npu (only offered where the release exports them), and
  the generic op to call instead of a cuDNN/MIOpen-only one.
- NPU-wide dtype facts that torch_npu does not list in code.
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Tuple

MINERU_NMS = "https://github.com/opendatalab/MinerU/issues/1695"
TORCHVISION_CPU_KERNELS = "https://github.com/pytorch/vision/tree/main/torchvision/csrc/ops/cpu"
TORCHVISION_ADAPTER = "https://gitee.com/ascend/vision"
DESIGN = "DESIGN.md section 5 (observed dtype pain)"


class HandListed(NamedTuple):
    name: str                     # the Python API
    overloads: Tuple[str, ...]    # the dispatcher operators it reaches
    reference: str
    npu_op: str = ""              # torch_npu fused operator to use instead


_ADAPTER = f"torchvision registers CPU kernels only ({TORCHVISION_CPU_KERNELS})"
HAND_LISTED: Tuple[HandListed, ...] = (
    HandListed("torchvision.ops.nms", ("torchvision::nms",), MINERU_NMS, "torch_npu.npu_nms_v4"),
    HandListed("torchvision.ops.boxes.nms", ("torchvision::nms",), MINERU_NMS, "torch_npu.npu_nms_v4"),
    HandListed("torchvision.ops.batched_nms", ("torchvision::nms",), MINERU_NMS, "torch_npu.npu_batch_nms"),
    HandListed("torchvision.ops.boxes.batched_nms", ("torchvision::nms",), MINERU_NMS,
               "torch_npu.npu_batch_nms"),
    HandListed("torchvision.ops.roi_align", ("torchvision::roi_align",), _ADAPTER, "torch_npu.npu_roi_align"),
    HandListed("torchvision.ops.RoIAlign", ("torchvision::roi_align",), _ADAPTER, "torch_npu.npu_roi_align"),
    HandListed("torchvision.ops.roi_pool", ("torchvision::roi_pool",), _ADAPTER),
    HandListed("torchvision.ops.RoIPool", ("torchvision::roi_pool",), _ADAPTER),
    HandListed("torchvision.ops.ps_roi_align", ("torchvision::ps_roi_align",), _ADAPTER),
    HandListed("torchvision.ops.PSRoIAlign", ("torchvision::ps_roi_align",), _ADAPTER),
    HandListed("torchvision.ops.ps_roi_pool", ("torchvision::ps_roi_pool",), _ADAPTER,
               "torch_npu.npu_ps_roi_pooling"),
    HandListed("torchvision.ops.PSRoIPool", ("torchvision::ps_roi_pool",), _ADAPTER,
               "torch_npu.npu_ps_roi_pooling"),
    HandListed("torchvision.ops.deform_conv2d", ("torchvision::deform_conv2d",), _ADAPTER,
               "torch_npu.npu_deformable_conv2d"),
    HandListed("torchvision.ops.DeformConv2d", ("torchvision::deform_conv2d",), _ADAPTER,
               "torch_npu.npu_deformable_conv2d"),
)
HAND_LISTED_WORKAROUND = (f"install Ascend's Torchvision Adapter (`import torchvision_npu`, "
                          f"{TORCHVISION_ADAPTER}), which registers NPU kernels for torchvision ops")

# API -> torch_npu fused operator that does the same job on the NPU.
FUSED_OPERATORS: Dict[str, str] = {
    "torch.nn.TransformerEncoderLayer": "torch_npu.npu_fusion_attention",
    "torch.nn.TransformerEncoder": "torch_npu.npu_fusion_attention",
}
# API -> generic op that torch_npu implements (for cuDNN / MIOpen-only entry points).
GENERIC_INSTEAD: Dict[str, str] = {
    "torch.cudnn_convolution": "torch.nn.functional.conv2d",
    "torch.cudnn_convolution_relu": "torch.nn.functional.conv2d followed by relu",
    "torch.cudnn_convolution_add_relu": "torch.nn.functional.conv2d followed by add and relu",
    "torch.cudnn_convolution_transpose": "torch.nn.functional.conv_transpose2d",
    "torch.cudnn_batch_norm": "torch.nn.functional.batch_norm",
    "torch.cudnn_grid_sampler": "torch.nn.functional.grid_sample",
    "torch.cudnn_affine_grid_generator": "torch.nn.functional.affine_grid",
    "torch.miopen_convolution": "torch.nn.functional.conv2d",
    "torch.miopen_convolution_relu": "torch.nn.functional.conv2d followed by relu",
    "torch.miopen_convolution_add_relu": "torch.nn.functional.conv2d followed by add and relu",
    "torch.miopen_convolution_transpose": "torch.nn.functional.conv_transpose2d",
    "torch.miopen_depthwise_convolution": "torch.nn.functional.conv2d with groups",
    "torch.miopen_batch_norm": "torch.nn.functional.batch_norm",
    "torch.miopen_rnn": "torch.nn.LSTM / torch.nn.GRU",
    "torch.miopen_ctc_loss": "torch.nn.functional.ctc_loss",
}
# Modules whose fallback is on the inference fast path, which torch can switch off.
FAST_PATH_MODULES = frozenset({"torch.nn.TransformerEncoderLayer", "torch.nn.TransformerEncoder"})
FAST_PATH_SWITCH = "torch.backends.mha.set_fastpath_enabled(False)"

# dtypes whose arithmetic torch_npu lacks, beyond its `unsupported_dtype` list.
NPU_WIDE_DTYPES: Dict[str, str] = {
    "uint64": f"arithmetic on uint64 tensors has no NPU kernels ({DESIGN})",
}
