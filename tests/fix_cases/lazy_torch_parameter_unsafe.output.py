# args: --unsafe-fixes
# cornac 3.0.1's TIGER: torch imported in `fit` and handed to private methods. The test of the
# device `fit` chose is ported with the choice, so the NPU is not sent back to the CPU.
class SequenceRecommender:
    def fit(self):
        import torch
        import torch_npu
        self.device_ = "npu" if torch.npu.is_available() else "cpu"
        self._seed(torch, 0)
        self._ensure_device(torch)

    def _seed(self, torch, seed):
        torch.manual_seed(seed)
        torch.npu.manual_seed_all(seed)

    def _ensure_device(self, torch):
        if self.device_ == "npu" and not torch.npu.is_available():
            self.device_ = "cpu"
