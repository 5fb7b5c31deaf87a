import torch

device_props = torch.cuda.get_device_properties("cuda")
free_memory = torch.cuda.mem_get_info("cuda:0")[0]
properties = torch.cuda.get_device_properties(torch.device("cuda"))
current = torch.device("cuda", torch.cuda.current_device())
