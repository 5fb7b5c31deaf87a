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


# A test that keeps `torch.version.cuda` off the NPU, where it is None and its parse raises
# (DeepSpeed's op_builder/*.py): renamed alone, the test would run the parse on the NPU.
def cuda_version_matches(installed_major):
    if torch.cuda.is_available():
        return installed_major == int(torch.version.cuda.split(".")[0])
    return True


# A loop over the CUDA devices guards its body: on the NPU host it runs no time (DeepSpeed's
# op_builder/builder.py, bitsandbytes' cuda_setup/main.py, fairscale's optim/oss.py).
def compute_capabilities():
    ccs = []
    for i in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(i)
        ccs.append(f"{major}.{minor}")
    return ccs


# A comprehension over the CUDA devices guards what it builds (bitsandbytes' cuda_specs.py).
def get_compute_capabilities():
    return sorted(torch.cuda.get_device_capability(torch.cuda.device(i)) for i in range(torch.cuda.device_count()))


# Left: a test that also needs a CUDA build (`torch.version.cuda is not None`) is false on the
# NPU whatever its probe says. Renamed with what they guard: the loop's body has NPU names.
def cuda_version_checked():
    if torch.cuda.is_available() and torch.version.cuda is not None:
        return int(torch.version.cuda.split(".")[0])
    return None


def memory_summaries():
    for i in range(0, torch.cuda.device_count()):
        print(torch.cuda.memory_summary(device=i))


def memory_summary_list():
    return [torch.cuda.memory_summary(device=i) for i in range(torch.cuda.device_count())]
