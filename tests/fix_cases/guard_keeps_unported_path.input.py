# A device test is renamed only with what it guards: renamed alone, it would let a torch.cuda
# name with no NPU fix run on the NPU, where the test kept it off (torchtune's _import_guard.py
# and training/precision.py).
import torch

_SUPPORTS_FLEX_ATTENTION = (
    torch.__version__ >= "2.5.0"
    and torch.cuda.is_available()
    and torch.cuda.get_device_capability() >= (7, 5)
)
bf16_ok = torch.cuda.is_available() and torch.cuda.is_bf16_supported() and torch.cuda.nccl.version() >= (2, 10)
if not torch.cuda.is_available() or torch.cuda.get_device_capability()[0] < 8:
    flash = False
nccl = torch.cuda.nccl.version() if torch.cuda.is_available() else None


def capability():
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_capability()


# The guarded names have NPU fixes of their own: the test is renamed with them.
if torch.cuda.is_available():
    torch.cuda.synchronize()
bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()


# A test stored in a flag guards what the tests of the flag decide (stable-audio-tools'
# models/blocks.py: on the NPU the flag kept the compute-capability query off).
class Attend(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.use_flash = torch.cuda.is_available() and torch.__version__ >= "2.0.0"
        if not self.use_flash:
            return
        props = torch.cuda.get_device_properties(0)
        self.config = (props.major == 8, False, False)


def report():
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        print(torch.cuda.get_device_capability())


# The flag guards only names with NPU fixes, or is not what the later test reads: renamed.
class Cache:
    def __init__(self):
        self.on_gpu = torch.cuda.is_available()

    def clear(self):
        if self.on_gpu:
            torch.cuda.empty_cache()


def reassigned(force):
    ready = torch.cuda.is_available()
    ready = force
    if ready:
        print(torch.cuda.get_device_capability())
