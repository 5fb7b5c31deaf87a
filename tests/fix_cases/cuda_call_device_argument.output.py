import torch
import torch_npu

device_props = torch.npu.get_device_properties("npu")
free_memory = torch.npu.mem_get_info("npu:0")[0]
properties = torch.npu.get_device_properties(torch.device("npu"))
current = torch.device("npu", torch.npu.current_device())
