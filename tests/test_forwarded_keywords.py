"""A switch handed to the project's own class in another module, which only hands its keywords on
to a library's call (pytorch-metric-learning 2.9: accuracy_calculator.py builds
`FaissKMeans(niter=20, gpu=self.device.type == "cuda")` from `.inference`, whose `__call__` runs
`faiss.Kmeans(d, k, **self.kwargs)`)."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

CALLER = """\
import torch
from .inference import FaissKMeans


class AccuracyCalculator:
    def __init__(self, device):
        self.device = device
        self.kmeans_func = FaissKMeans(niter=20, gpu=self.device.type == "cuda")
"""

FORWARDS = """\
import numpy as np
try:
    import faiss
except ModuleNotFoundError:
    pass


class FaissKMeans:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, x, nmb_clusters):
        kmeans = faiss.Kmeans(x.shape[1], nmb_clusters, **self.kwargs)
        kmeans.train(x)
        return kmeans
"""


def _codes(tmp_path, inference: str) -> list[str]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "inference.py").write_text(inference)
    module = package / "accuracy_calculator.py"
    module.write_text(CALLER)
    result = Engine(Settings()).check_text(module.read_text(), str(module))
    return [finding.code for finding in result.findings]


def test_a_switch_the_own_class_hands_to_faiss_is_faiss_switch(tmp_path):
    assert _codes(tmp_path, FORWARDS) == []


def test_a_switch_the_own_class_reads_is_ported(tmp_path):
    reads = FORWARDS.replace("self.kwargs = kwargs", "self.kwargs = kwargs\n        self.on_gpu = kwargs['gpu']")
    assert _codes(tmp_path, reads) == ["NPU111"]


def test_a_switch_the_own_class_hands_to_its_own_code_is_ported(tmp_path):
    own = FORWARDS.replace("faiss.Kmeans(", "np.Kmeans(").replace("import numpy as np", "from .kmeans import np")
    assert _codes(tmp_path, own) == ["NPU111"]
