"""The two routes: `auto` is quiet about what transfer_to_npu rewrites, `manual` reports it all."""
from __future__ import annotations

import pytest

from conftest import FIXTURES, run_tool

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge.loader import shipped_rules

SCRIPT = (FIXTURES / "auto" / "train_auto.py").read_text()
AUTO_ONLY = {r.code for r in shipped_rules() if r.strategies == ("auto",)}
MANUAL_ONLY = {r.code for r in shipped_rules() if r.strategies == ("manual",)}


def _codes(strategy: str) -> set[str]:
    return {f.code for f in Engine(Settings(strategy=strategy)).check_text(SCRIPT, "train.py").findings}


def test_manual_reports_what_the_patch_rewrites():
    manual = _codes("manual")
    assert {"NPU101", "NPU103", "NPU110", "NPU111", "NPU120", "NPU201"} <= manual
    assert not manual & AUTO_ONLY


def test_auto_reports_only_what_the_patch_leaves():
    auto = _codes("auto")
    assert not auto & MANUAL_ONLY
    assert {"NPU190", "NPU114", "NPU115", "NPU116", "NPU206"} <= auto


def test_every_rule_names_its_routes():
    for rule in shipped_rules():
        assert rule.strategies and set(rule.strategies) <= {"manual", "auto", "agnostic"}
        # Only what transfer_to_npu adds (NPU120 aside) is manual-only: agnostic serves the rest.
        assert "agnostic" in rule.strategies or rule.strategies == ("auto",) or rule.code == "NPU120"


def test_older_release_lists_decide_what_is_patched():
    # get_rng_state joined transfer_to_npu's torch.cuda list in 2.13: in 2.12 its
    # device argument is not rewritten.
    text = "import torch\ntorch.cuda.get_rng_state('cuda:0')\n"
    new = Engine(Settings(strategy="auto")).check_text(text, "a.py").findings
    old = Engine(Settings(strategy="auto", target_torch_npu="2.12.0.post3")).check_text(text, "a.py").findings
    assert "NPU115" not in {f.code for f in new}
    assert "NPU115" in {f.code for f in old}


def test_a_device_comparison_is_told_what_it_answers_on_the_npu_whichever_its_operator():
    # torchrl's `if device.type != "cuda":` (the device sync of its collectors and transforms) is
    # always true on the NPU under the patch: "never true" would be the opposite of what it does.
    text = ('import torch\n\n\ndef sync(device):\n    if device.type != "cuda":\n        return 1\n'
            '    return device.type == "cuda"\n')
    messages = [f.message for f in Engine(Settings(strategy="auto")).check_text(text, "a.py").findings
                if f.code == "NPU114"]
    assert len(messages) == 2
    assert all("the value never matches `cuda`" in message and "never true" not in message for message in messages)


def test_a_device_backend_list_is_rewritten_only_where_the_patch_renames_cuda_too():
    # _wrapper_hccl rewrites "nccl" in every release, "cuda" only in some (2.7.1, 2.9 on):
    # 2.1's patch turns vLLM's "cpu:gloo,cuda:nccl" into "cpu:gloo,cuda:hccl", no backend for NPU tensors.
    text = "import torch.distributed as dist\ndist.init_process_group(backend='cpu:gloo,cuda:nccl')\n"
    def told(release):
        settings = Settings(strategy="auto", target_torch_npu=release)
        return [f for f in Engine(settings).check_text(text, "a.py").findings if f.code == "NPU206"]
    assert told("2.14.0") == []
    [finding] = told("2.1.0.post17")
    assert "not cuda" in finding.message and "cpu:gloo,npu:hccl" in finding.message
    # the plain name is rewritten by every release
    assert not [f for f in Engine(Settings(strategy="auto", target_torch_npu="2.1.0.post17"))
                .check_text("import torch.distributed as dist\ndist.init_process_group('nccl')\n", "a.py").findings
                if f.code == "NPU206"]


def test_a_library_importing_itself_is_not_told_it_takes_cuda_paths(tmp_path):
    # fairseq's own modules import fairseq hundreds of times; NPU191 is for the users of a library.
    package = tmp_path / "fairseq" / "models"
    package.mkdir(parents=True)
    (tmp_path / "fairseq" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    inside = package / "transformer.py"
    script = tmp_path / "train.py"
    text = ("import fairseq\nfrom fairseq import utils\nfrom fairseq.models import register_model\n"
            "if __name__ == '__main__':\n    utils.move_to_cuda({}, device='cuda')\n")
    engine = Engine(Settings(strategy="auto"))
    assert not [f for f in engine.check_text(text, str(inside)).findings if f.code == "NPU191"]
    user = [f for f in engine.check_text(text, str(script)).findings if f.code == "NPU191"]
    assert [f.start.line for f in user] == [1]  # once per module and library, at its first import


# vllm-ascend 0.23.0.post1: setup.py declares the project vLLM's NPU platform plugin, so its
# examples run vLLM on the NPU through the plugin, with no transfer_to_npu to mislead vLLM.
# A program that uses CUDA (`device="cuda"`), which the auto route patches (NPU190): NPU191 speaks
# of the libraries only where the patch runs.
VLLM_EXAMPLE = "from vllm import LLM, SamplingParams\n\nif __name__ == '__main__':\n    LLM(model='m', device='cuda')\n"


@pytest.mark.parametrize("entry_points, said", [
    ('{"vllm.platform_plugins": ["ascend = vllm_ascend:register"]}', False),
    ('{"vllm.general_plugins": ["ascend_model = vllm_ascend:register_model"]}', False),
    ('"[vllm.platform_plugins]\\nascend = vllm_ascend:register"', False),
    # a vLLM plugin that is not the NPU's leaves vLLM on its CUDA paths
    ('{"vllm.general_plugins": ["lora_loader = my_lora:register"]}', True),
    # a plugin of another library says nothing about vLLM
    ('{"sglang.srt.platforms": ["ascend = vllm_ascend:register"]}', True),
    ('{"console_scripts": ["ascend = vllm_ascend.cli:main"]}', True),
])
def test_a_library_whose_npu_plugin_the_project_is_is_not_told_it_takes_cuda_paths(tmp_path, entry_points, said):
    (tmp_path / "setup.py").write_text(f"from setuptools import setup\nsetup(name='p', entry_points={entry_points})\n")
    script = tmp_path / "examples" / "offline_inference_npu.py"
    script.parent.mkdir()
    script.write_text(VLLM_EXAMPLE)
    found = [f for f in Engine(Settings(strategy="auto")).check_text(VLLM_EXAMPLE, str(script)).findings
             if f.code == "NPU191"]
    assert bool(found) == said


def test_the_plugin_groups_of_pyproject_and_setup_cfg_count_too(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(VLLM_EXAMPLE)
    (tmp_path / "pyproject.toml").write_text('[project.entry-points."vllm.platform_plugins"]\nascend = "vllm_ascend:register"\n')
    engine = Engine(Settings(strategy="auto"))
    assert not [f for f in engine.check_text(VLLM_EXAMPLE, str(script)).findings if f.code == "NPU191"]
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.cfg").write_text("[options.entry_points]\nvllm.platform_plugins =\n    npu = vllm_npu:register\n")
    assert not [f for f in engine.check_text(VLLM_EXAMPLE, str(script)).findings if f.code == "NPU191"]


AGNOSTIC_SCRIPT = "import torch\ntorch.cuda.synchronize()\nx = torch.ones(2).cuda()\nok = x.is_cuda\n"


def test_agnostic_fixes_are_device_neutral_and_the_rest_is_shown_only():
    findings = Engine(Settings(strategy="agnostic")).check_text(AGNOSTIC_SCRIPT, "a.py").findings
    by_code = {f.code: f for f in findings}
    assert "NPU120" not in by_code, "torch loads torch_npu by itself on the targets of this route"
    assert by_code["NPU101"].fix.message == "Use `torch.accelerator.synchronize`"
    assert all("torch_npu" not in edit.content for f in findings if f.fix for edit in f.fix.edits)
    assert by_code["NPU104"].fix.applicability.value == "display-only" and not by_code["NPU104"].fix.edits
    assert "for the NPU only" in by_code["NPU104"].fix.message


def test_agnostic_is_refused_for_a_target_without_torch_accelerator(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(AGNOSTIC_SCRIPT)
    proc = run_tool("npu_lint", "check", "--strategy", "agnostic", "--target-torch-npu", "2.5", str(path))
    assert proc.returncode == 2
    assert "torch 2.5.1" in proc.stderr and "torch.accelerator" in proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nstrategy = "agnostic"\ntarget-torch-npu = "2.4"\n')
    proc = run_tool("npu_lint", "check", str(path))
    assert proc.returncode == 2 and "pyproject.toml" in proc.stderr and "'strategy'" in proc.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nstrategy = "agnostic"\n')
    assert run_tool("npu_lint", "check", str(path)).returncode == 1


def test_every_front_end_takes_the_agnostic_route(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(AGNOSTIC_SCRIPT)
    flake8 = run_tool("flake8", "--select", "NPU", "--strategy", "agnostic", str(path)).stdout
    assert "NPU101" in flake8 and "NPU120" not in flake8
    pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", "npu-lint-npu1xx",
                      "--strategy", "agnostic", "--score", "n", "--persistent", "n", str(path)).stdout
    assert "torch-cuda-api" in pylint and "missing-torch-npu-import" not in pylint
    from npu_lint.frontends.lsp_server import settings_for

    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nstrategy = "agnostic"\n')
    assert settings_for(str(path)).strategy == "agnostic"


def test_agnostic_findings_name_what_the_route_writes():
    text = ('import torch\nimport torch_npu\n\ntorch.cuda.synchronize()\nx = torch.ones(1).cuda()\n'
            'stream = torch.cuda.Stream()\nparser_default = "cuda"\n')
    agnostic = {f.start.line: f.message for f in Engine(Settings(strategy="agnostic")).check_text(text).findings}
    manual = {f.start.line: f.message for f in Engine(Settings()).check_text(text).findings}
    assert "alike uses `torch.accelerator.synchronize`" in agnostic[4]
    assert "alike uses `.to(torch.accelerator.current_accelerator())`" in agnostic[5]
    assert "use `torch.npu.synchronize`" in manual[4] and "use `.npu()`" in manual[5]
    # No device-neutral form: the finding keeps the NPU wording (its fix is shown, not applied).
    assert agnostic[6] == manual[6] and "torch.npu.Stream" in agnostic[6]


def test_a_cuda_override_needs_the_method_each_route_calls():
    # NPU103 writes `.npu()` on the manual route and `.to(device)` on the agnostic one; each skips
    # a cuda() override (gpytorch's priors), so the class needs that method. Lightning's
    # device mixin overrides to() already: the agnostic route's `.to(device)` reaches it.
    text = ("import torch\n\n\nclass Prior(torch.nn.Module):\n"
            "    def cuda(self, device=None):\n        self._cache = None\n"
            "        return self._apply(lambda t: t.cuda(device))\n\n\n"
            "class DeviceMixin(torch.nn.Module):\n"
            "    def to(self, *args, **kwargs):\n        return super().to(*args, **kwargs)\n\n"
            "    def cuda(self, device=None):\n        self._device = torch.device('cuda', device or 0)\n"
            "        return super().cuda(device=device)\n")

    def told(strategy):
        findings = Engine(Settings(strategy=strategy)).check_text(text, "a.py").findings
        return [(f.start.line, f.message.split(":")[0]) for f in findings if f.code == "NPU119"]

    assert told("manual") == [(5, "`Prior` overrides `cuda()` but not `npu()`"),
                              (14, "`DeviceMixin` overrides `cuda()` but not `npu()`")]
    assert told("agnostic") == [(5, "`Prior` overrides `cuda()` but not `to()`")]
    assert told("auto") == []  # transfer_to_npu keeps `.cuda()`, which reaches the override
