import torch
import torch_npu


# A test stored in a flag and the device the flag picks are one port, as when the test is written
# in place (advertorch 0.2.3's advertorch_examples/tutorial_train_mnist.py). Renamed alone, the
# stored test would pick "cuda" on the NPU, where the program ran on the CPU before: a safe fix
# run leaves both while the string's fix is unsafe, and fixes both where it is safe.
def default_device():
    use_cuda = torch.cuda.is_available()
    return "cuda" if use_cuda else "cpu"


def main():
    use_cuda = torch.npu.is_available()
    device = torch.device("npu" if use_cuda else "cpu")
    return device
