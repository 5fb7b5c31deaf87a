# args: --unsafe-fixes
from torch.cuda import is_available

# The import's finding speaks for the test (MONAI's bundle/scripts.py), so the device the test
# picks is part of its port: renamed alone, the test would pick "cuda:0" on the NPU.
device = "cuda:0" if is_available() else "cpu"
