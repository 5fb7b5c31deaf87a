"""CUDA classes whose NPU sibling is defined in another module of the same folder
(analysis/npu_siblings.py; ColossalAI's accelerator/ and kernel extension layouts)."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

CUDA_CLASS = """import torch

from .base import BaseAccelerator


class CudaAccelerator(BaseAccelerator):
    def synchronize(self):
        torch.cuda.synchronize()
"""
NPU_CLASS = "import torch\n\nfrom .base import BaseAccelerator\n\n\nclass NpuAccelerator(BaseAccelerator):\n    pass\n"


def _codes(module) -> list[str]:
    result = Engine(Settings()).check_text(module.read_text(), str(module))
    return [finding.code for finding in result.findings]


def _folder(tmp_path, **modules: str):
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path / "cuda_accelerator.py"


def test_the_cuda_class_beside_its_npu_sibling_is_left_alone(tmp_path):
    module = _folder(tmp_path, cuda_accelerator=CUDA_CLASS, npu_accelerator=NPU_CLASS)
    assert _codes(module) == []


def test_without_an_npu_sibling_the_cuda_class_is_reported(tmp_path):
    other = NPU_CLASS.replace("NpuAccelerator", "CpuAccelerator")
    module = _folder(tmp_path, cuda_accelerator=CUDA_CLASS, cpu_accelerator=other)
    assert _codes(module) == ["NPU101"]


def test_an_npu_class_of_another_interface_is_no_sibling(tmp_path):
    other = NPU_CLASS.replace("BaseAccelerator)", "BaseKernel)")
    module = _folder(tmp_path, cuda_accelerator=CUDA_CLASS, npu_kernel=other)
    assert _codes(module) == ["NPU101"]


def test_a_sibling_written_later_is_seen(tmp_path):
    module = _folder(tmp_path, cuda_accelerator=CUDA_CLASS)
    assert _codes(module) == ["NPU101"]
    (tmp_path / "npu_accelerator.py").write_text(NPU_CLASS)
    assert _codes(module) == []


def test_on_the_transfer_to_npu_route_the_cuda_class_is_still_reported(tmp_path):
    # torch.cuda.is_available() says True there: a project that probes CUDA first runs the CUDA
    # class on the NPU (ColossalAI's auto_set_accelerator tries "cuda" before "npu").
    uses_nvml = CUDA_CLASS + "\n    def utilization(self):\n        import pynvml\n        return pynvml.nvmlInit()\n"
    module = _folder(tmp_path, cuda_accelerator=uses_nvml, npu_accelerator=NPU_CLASS)
    assert "NPU401" not in _codes(module)
    result = Engine(Settings(strategy="auto")).check_text(module.read_text(), str(module))
    assert "NPU401" in [finding.code for finding in result.findings]


ROCM_CLASS = """import torch

from .platform_cuda import PlatformCUDA


class PlatformROCm(PlatformCUDA):
    def is_platform_available(self):
        return torch.cuda.is_available()
"""
NPU_PLATFORM = "from .platform_base import PlatformBase\n\n\nclass PlatformNPU(PlatformBase):\n    pass\n"


def test_a_rocm_class_extending_the_cuda_twin_of_an_npu_class_is_left_alone(tmp_path):
    # verl's plugin/platform/: ROCm answers through torch.cuda, so its class extends CUDA's,
    # whose NPU twin (PlatformNPU) runs on the NPU instead.
    (tmp_path / "platform_npu.py").write_text(NPU_PLATFORM)
    module = tmp_path / "platform_gpu_vendors.py"  # a module named for ROCm is AMD's anyway (amd_modules.py)
    module.write_text(ROCM_CLASS)
    assert _codes(module) == []


def test_a_rocm_class_without_an_npu_twin_of_its_base_is_reported(tmp_path):
    (tmp_path / "platform_npu.py").write_text(NPU_PLATFORM.replace("PlatformNPU", "NpuKernels"))
    module = tmp_path / "platform_gpu_vendors.py"  # a module named for ROCm is AMD's anyway (amd_modules.py)
    module.write_text(ROCM_CLASS)
    assert _codes(module) == ["NPU101"]


# FastVideo's platforms/cuda.py (after vLLM's): the CUDA platform's base is the NPU platform's
# sibling, and the platforms the loader picks extend that base.
CUDA_PLATFORMS = """import torch

from .interface import Platform


class CudaPlatformBase(Platform):
    pass


class NonNvmlCudaPlatform(CudaPlatformBase):
    def get_device_name(self, device_id=0):
        return torch.cuda.get_device_name(device_id)
"""
NPU_INTERFACE_PLATFORM = "import torch\n\nfrom .interface import Platform\n\n\nclass NPUPlatform(Platform):\n    pass\n"


def test_a_cuda_class_extending_the_cuda_member_of_a_family_is_left_alone(tmp_path):
    module = _folder(tmp_path, cuda_accelerator=CUDA_PLATFORMS, npu=NPU_INTERFACE_PLATFORM)
    assert _codes(module) == []


def test_a_cuda_class_extending_a_base_without_an_npu_sibling_is_reported(tmp_path):
    other = NPU_INTERFACE_PLATFORM.replace("(Platform)", "(OtherInterface)")
    module = _folder(tmp_path, cuda_accelerator=CUDA_PLATFORMS, npu=other)
    assert _codes(module) == ["NPU101"]


# vLLM's platforms/: the NPU's platform is a plugin (vllm-ascend), and ROCm's platform beside
# CUDA's answers through torch.cuda.
VLLM_ROCM_PLATFORM = """import torch

from .interface import Platform


class RocmPlatform(Platform):
    device_type: str = "cuda"

    @classmethod
    def set_device(cls, device):
        torch.cuda.set_device(device)
"""
VLLM_CUDA_PLATFORM = "from .interface import Platform\n\n\nclass CudaPlatformBase(Platform):\n    pass\n"


def test_a_rocm_class_beside_a_cuda_sibling_is_left_alone(tmp_path):
    (tmp_path / "cuda.py").write_text(VLLM_CUDA_PLATFORM)
    module = tmp_path / "vendor_platforms.py"  # vLLM's is rocm.py, which amd_modules.py leaves alone anyway
    module.write_text(VLLM_ROCM_PLATFORM)
    assert _codes(module) == []


def test_a_rocm_class_beside_a_cuda_class_of_another_interface_is_reported(tmp_path):
    (tmp_path / "cuda.py").write_text(VLLM_CUDA_PLATFORM.replace("(Platform)", "(Communicator)"))
    module = tmp_path / "vendor_platforms.py"  # vLLM's is rocm.py, which amd_modules.py leaves alone anyway
    module.write_text(VLLM_ROCM_PLATFORM)
    assert _codes(module) == ["NPU111", "NPU101"]


def test_a_cuda_sibling_in_the_same_module_counts_too(tmp_path):
    module = tmp_path / "platforms.py"
    module.write_text(VLLM_ROCM_PLATFORM + "\n\n" + VLLM_CUDA_PLATFORM.split("\n\n\n", 1)[1])
    assert _codes(module) == []


# Ray 2.60 _private/accelerators/nvidia_gpu.py: the module's constant, read only by the CUDA class.
CUDA_CONSTANT = """import os

from .accelerator import AcceleratorManager

CUDA_VISIBLE_DEVICES_ENV_VAR = "CUDA_VISIBLE_DEVICES"


class NvidiaGPUAcceleratorManager(AcceleratorManager):
    @staticmethod
    def get_visible_accelerator_ids_env_var():
        return CUDA_VISIBLE_DEVICES_ENV_VAR
"""
NPU_MANAGER = ("from .accelerator import AcceleratorManager\n\n\nclass NPUAcceleratorManager(AcceleratorManager):\n"
               "    @staticmethod\n    def get_visible_accelerator_ids_env_var():\n"
               "        return \"ASCEND_RT_VISIBLE_DEVICES\"\n")


def test_a_constant_only_the_cuda_class_reads_is_left_alone(tmp_path):
    module = _folder(tmp_path, cuda_accelerator=CUDA_CONSTANT, npu=NPU_MANAGER)
    assert _codes(module) == []


# FastVideo 0.2.1 platforms/cuda.py: a module function that only the CUDA platform class calls.
CUDA_HELPER = """import os

from .interface import Platform


def device_id_to_physical_device_id(device_id: int) -> int:
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        device_ids = os.environ["CUDA_VISIBLE_DEVICES"].split(",")
        return int(device_ids[device_id])
    return device_id


class CudaPlatform(Platform):
    @classmethod
    def get_device_name(cls, device_id: int = 0) -> str:
        physical_device_id = device_id_to_physical_device_id(device_id)
        return str(physical_device_id)
"""
FASTVIDEO_NPU_PLATFORM = ("from .interface import Platform\n\n\nclass NPUPlatform(Platform):\n"
                "    device_control_env_var: str = \"ASCEND_RT_VISIBLE_DEVICES\"\n")


def test_a_function_only_the_cuda_class_calls_is_left_alone(tmp_path):
    (tmp_path / "npu.py").write_text(FASTVIDEO_NPU_PLATFORM)
    module = tmp_path / "cuda.py"
    module.write_text(CUDA_HELPER)
    assert _codes(module) == []


def test_a_function_called_outside_the_cuda_class_or_public_elsewhere_is_reported(tmp_path):
    (tmp_path / "npu.py").write_text(FASTVIDEO_NPU_PLATFORM)
    module = tmp_path / "cuda.py"
    module.write_text(CUDA_HELPER + "\n\nFIRST = device_id_to_physical_device_id(0)\n")
    assert _codes(module) == ["NPU210", "NPU210"]
    module.unlink()
    module = tmp_path / "platform_impls.py"  # a public function of a module not named for CUDA
    module.write_text(CUDA_HELPER)
    assert _codes(module) == ["NPU210", "NPU210"]
    module.write_text(CUDA_HELPER.replace("device_id_to_physical", "_device_id_to_physical"))
    assert _codes(module) == []


def test_a_constant_read_outside_the_cuda_class_is_reported(tmp_path):
    read_outside = CUDA_CONSTANT + "\n\nVISIBLE = os.environ.get(CUDA_VISIBLE_DEVICES_ENV_VAR)\n"
    module = _folder(tmp_path, cuda_accelerator=read_outside, npu=NPU_MANAGER)
    assert _codes(module) == ["NPU210"]
    module = _folder(tmp_path, cuda_accelerator=CUDA_CONSTANT, npu=NPU_MANAGER.replace("NPUAccel", "TPUAccel"))
    assert _codes(module) == ["NPU210"]


# flag_gems/runtime/backend/_nvidia/heuristics_config_utils.py, shortened: FlagGems imports only
# the backend package of the host's vendor, and _ascend/ beside it is the NPU's.
NVIDIA_BACKEND = """import torch


def simple_mm_heur(args):
    NUM_SMS = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return NUM_SMS
"""


def _packages(root, *names):
    folder = root
    for name in names:
        folder = folder / name
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    return folder


def test_a_module_in_a_cuda_package_beside_an_npu_package_is_left_alone(tmp_path):
    backend = _packages(tmp_path, "flag_gems", "runtime", "backend")
    _packages(backend, "_ascend")
    for module in (_packages(backend, "_nvidia") / "heuristics_config_utils.py",
                   _packages(backend, "_nvidia", "hopper", "ops") / "mm.py"):
        module.write_text(NVIDIA_BACKEND)
        assert _codes(module) == [], module


def test_a_cuda_package_without_an_npu_package_beside_it_is_reported(tmp_path):
    # vLLM's models/minimax_m3/nvidia/ beside amd/ only; an _ascend folder that is no package
    backend = _packages(tmp_path, "flag_gems", "runtime", "backend")
    (backend / "_ascend").mkdir()
    _packages(backend, "_amd")
    module = _packages(backend, "_nvidia") / "heuristics_config_utils.py"
    module.write_text(NVIDIA_BACKEND)
    assert _codes(module) == ["NPU101", "NPU101"]
    # an NPU package in the same package, but no CUDA package around the module
    _packages(backend, "_npu")
    common = _packages(tmp_path, "flag_gems", "runtime", "backend", "common") / "heuristics_config_utils.py"
    common.write_text(NVIDIA_BACKEND)
    assert _codes(common) == ["NPU101", "NPU101"]
