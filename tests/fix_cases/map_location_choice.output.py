import torch
import torch_npu


# big-sleep's BigGAN loader and many public checkpoint loaders: `None` restores each tensor where it
# was saved, CUDA for a checkpoint from a GPU host; on the NPU host the renamed test picks it, so
# its `None` becomes "npu" in the same fix
def load(path):
    return torch.load(path, map_location="npu" if torch.npu.is_available() else "cpu")


def load_biggan(path):
    map_location = 'cpu' if not torch.npu.is_available() else 'npu'
    return torch.load(path, map_location=map_location)


def load_on_device(path):
    return torch.load(path, map_location="npu" if torch.npu.is_available() else torch.device("cpu"))


# near misses: a None that is no load place, and a name also used for something else
def pick():
    return None if torch.npu.is_available() else "cpu"


def load_and_log(path, log):
    where = None if torch.npu.is_available() else "cpu"
    log(where)
    return torch.load(path, map_location=where)
