# args: --unsafe-fixes
# A schedule or activity moves to torch_npu only with the profile call that takes it: torch's
# profile keys its actions by torch's ProfilerAction (nanotron's helpers.py imports `profile`).
import torch
import torch_npu
from torch.profiler import ProfilerActivity, profile

kept = profile(
    activities=[ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
    schedule=torch.profiler.schedule(wait=1, warmup=1, active=1),
)
moved = torch_npu.profiler.profile(
    activities=[torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU],
    schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=1),
)
# And the profile call moves only with its arguments: TorchANI's tools/tool_utils.py imports
# `ProfilerActivity`, which no fix renames, so torch_npu's profile would get torch's activity.
also_kept = torch.profiler.profile(activities=[ProfilerActivity.CUDA])
