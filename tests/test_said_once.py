"""Findings that are only a consequence of one already reported are folded into it."""
from __future__ import annotations

from npu_lint.config import project_scripts
from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

AUTO = Settings(strategy="auto")


def _codes(text: str, path: str = "<string>", settings: Settings = Settings()) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(text, path).findings]


def test_a_project_importing_its_own_package_is_not_a_library_taking_cuda_paths(tmp_path):
    # fairseq's modules import fairseq: 1,253 NPU191 findings on the auto route before this fold.
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "timm"\n')
    package = tmp_path / "timm" / "models"
    package.mkdir(parents=True)
    (tmp_path / "timm" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    module = package / "resnet.py"
    text = ("import torch\nfrom timm.layers import create_conv2d\nimport transformers\nimport fairseq\n"
            "if __name__ == '__main__':\n    torch.cuda.synchronize()\n")
    module.write_text(text)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_models.py").write_text(text)
    project_scripts.project_root.cache_clear()
    for path in (module, tests / "test_models.py"):
        codes = _codes(text, str(path), AUTO)
        assert (2, "NPU191") not in codes, path.name  # its own package
        assert (4, "NPU191") in codes, path.name  # a third-party library that branches on CUDA


def test_an_import_reported_as_a_cuda_only_library_is_not_reported_again():
    text = ("import torch\nfrom deepspeed.ops.transformer import DeepSpeedTransformerLayer\nimport deepspeed\n"
            "if __name__ == '__main__':\n    torch.cuda.synchronize()\n")
    codes = _codes(text, settings=AUTO)
    assert (2, "NPU401") in codes and (2, "NPU191") not in codes
    assert (3, "NPU191") in codes


def test_library_advice_for_the_transfer_route_is_said_once_per_program(tmp_path):
    # mmdet 3.3.0: 333 modules import mmengine and each got the same NPU191 advice; the program's
    # start (tools/train.py, a console script's module, `__main__.py`) gets it once.
    # (each uses CUDA, so the auto route patches the program: NPU191 speaks of its libraries there)
    text = "import torch\nimport mmengine\nfrom mmengine.runner import Runner\nDEVICE = 'cuda'\n"
    main = text + "\n\nif __name__ == '__main__':\n    Runner.from_cfg({})\n"
    assert (2, "NPU191") not in _codes(text, str(tmp_path / "mmdet" / "models" / "detr.py"), AUTO)
    assert [c for c in _codes(main, str(tmp_path / "tools" / "train.py"), AUTO) if c[1] == "NPU191"] == [(2, "NPU191")]
    assert (2, "NPU191") in _codes(text, str(tmp_path / "mmdet" / "__main__.py"), AUTO)


def test_advice_one_setting_answers_is_said_once_per_module():
    # transformers' layoutlm: eight nn.Embedding(...) in one module, eight NPU702 findings whose
    # answer is one torch.use_deterministic_algorithms(True).
    text = ("import torch\nimport torch.nn.functional as F\n\n\ndef build(x, w):\n"
            "    a = torch.nn.Embedding(10, 4)\n    b = torch.nn.Embedding(10, 4)\n    return F.embedding(x, w)\n")
    settings = Settings(select=("NPU702",))
    findings = [f for f in Engine(settings).check_text(text).findings if f.code == "NPU702"]
    assert [f.start.line for f in findings] == [6]
    assert [r.start.line for r in findings[0].related] == [7, 8]
    answered = "import torch\ntorch.use_deterministic_algorithms(True)\n" + text.split("\n", 1)[1]
    assert not [f for f in Engine(settings).check_text(answered).findings if f.code == "NPU702"]


def test_a_name_read_after_hasattr_asked_for_it_is_not_reported():
    text = ('import torch\n'
            'if hasattr(torch.cuda, "get_arch_list") and len(torch.cuda.get_arch_list()) > 0:\n'
            '    g = torch.cuda.get_arch_list()[0]\n'
            'h = torch.cuda.get_arch_list() if hasattr(torch.cuda, "get_arch_list") else None\n'
            'k = hasattr(torch.cuda, "jiterator") and torch.cuda.get_arch_list()\n')
    codes = _codes(text)
    assert (2, "NPU101") in codes and (4, "NPU101") in codes
    assert [line for line, code in codes if code == "NPU102"] == [5]  # a guard for another name


def test_a_library_name_handed_on_by_a_local_alias_is_said_where_it_is_assigned():
    # peft's tests/test_loraplus.py: `optimizer_cls = bnb.optim.Adam8bit`, then
    # `create_loraplus_optimizer(optimizer_cls=optimizer_cls)`: one finding, the hand-on related.
    text = ("import bitsandbytes as bnb\n\n\ndef build(model, make):\n"
            "    optimizer_cls = bnb.optim.Adam8bit\n    other = optimizer_cls\n"
            "    make(optimizer_cls=other)\n    return optimizer_cls(model.parameters())\n")
    findings = [f for f in Engine().check_text(text).findings if f.code == "NPU403"]
    assert [f.start.line for f in findings] == [5, 8]  # the assignment, and the call (its own advice)
    assert [r.start.line for r in findings[0].related] == [6, 7]


def test_a_name_imported_from_torch_cuda_is_said_at_the_import_and_its_uses_are_related():
    # fairscale optim/grad_scaler.py, accelerate checkpointing.py, kornia: each use carried the
    # import line's edit again.
    text = ("import torch\nfrom torch.cuda.amp.grad_scaler import GradScaler as TorchGradScaler\n"
            "from torch.cuda.amp import autocast\n\n\nclass Scaler(TorchGradScaler):\n    pass\n\n\n"
            "def step(scaler: TorchGradScaler):\n    with autocast(enabled=True):\n        pass\n")
    findings = [f for f in Engine().check_text(text).findings if f.code == "NPU101"]
    assert [f.start.line for f in findings] == [2, 3]
    assert [r.start.line for r in findings[0].related] == [6, 10]
    assert [r.start.line for r in findings[1].related] == [11]
    assert any(e.start.line == 11 for e in findings[1].fix.edits)  # the use's `"npu", ` stays in the fix


def test_a_use_whose_fix_is_not_the_imports_keeps_its_finding():
    # `from torch import npu as cuda` does not turn `cuda.CUDAGraph` into `NPUGraph`.
    text = "import torch\nfrom torch import cuda\ncuda.synchronize()\ngraph = cuda.CUDAGraph()\n"
    findings = [f for f in Engine().check_text(text).findings if f.code == "NPU101"]
    assert [f.start.line for f in findings] == [2, 4]
    assert [r.start.line for r in findings[0].related] == [3]


def test_an_unsupported_api_is_reported_where_it_may_run_not_where_it_is_only_named():
    # deepspeed's flops profiler wraps F.avg_pool3d (its name twice on one line), keys hooks by
    # nn.RNN and tests isinstance(m, (nn.RNN, nn.RNNCell)): six NPU303 findings, none of them a run.
    text = ("import torch.nn as nn\nimport torch.nn.functional as F\n\n"
            "F.avg_pool3d = wrap(F.avg_pool3d)\n"
            "HOOKS = {nn.RNN: 'rnn_hook'}\n"
            "def is_rnn(module):\n    return isinstance(module, (nn.RNN, nn.RNNCell))\n"
            "def build(x):\n    return nn.RNN(2, 2), F.avg_pool3d(x, 2), map(F.adaptive_max_pool1d, [x])\n")
    findings = [f for f in Engine().check_text(text).findings if f.code == "NPU303"]
    assert [(f.start.line, f.start.column) for f in findings] == [(9, 11), (9, 25), (9, 49)]


def test_a_triton_kernel_with_stacked_decorators_is_one_finding():
    # deepspeed ops/sparse_attention/softmax.py: @triton.heuristics twice and @triton.jit on one kernel.
    text = ("import triton\n\n"
            "@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'])\n"
            "@triton.heuristics({'EVEN': lambda args: args['n'] % 64 == 0})\n"
            "@triton.jit\ndef add_kernel(x_ptr, n):\n    pass\n")
    findings = [f for f in Engine().check_text(text).findings if f.code in ("NPU402", "NPU403")]
    assert [(f.code, f.start.line) for f in findings] == [("NPU402", 3)]
    assert [r.start.line for r in findings[0].related] == [4, 5]


def test_uses_of_one_library_in_one_statement_with_the_same_advice_are_one_finding():
    # ultralytics' exporter and yolov5's export.py: `trt.Logger(trt.Logger.INFO)`; two timings
    # of Triton's benchmark helper in one expression.
    text = ("import tensorrt as trt\nimport triton\n"
            "logger = trt.Logger(trt.Logger.INFO)\n"
            "ratio = lambda f, g: (triton.testing.do_bench(f) / triton.testing.do_bench(g),)\n"
            "other = trt.Builder(logger)\n")
    findings = [f for f in Engine(Settings()).check_text(text).findings if f.code == "NPU403"]
    assert [(f.start.line, f.start.column) for f in findings] == [(3, 9), (4, 22), (5, 8)]
    assert [r.start.column for r in findings[0].related] == [20]
    assert [r.start.column for r in findings[1].related] == [51]


EVERY_RULE = Settings(select=tuple(f"NPU{n}" for n in range(10)) + ("NPU606", "NPU930", "NPU931"))


def _said(text: str, settings: Settings = Settings()) -> list:
    return [(f.start.line, f.code, f.message, [(r.start.line, r.message) for r in f.related])
            for f in Engine(settings).check_text(text).findings]


def test_one_call_is_reported_by_the_rule_that_says_most_about_it():
    # torchmetrics' adjusted_mutual_info_score (lgamma), monai's simplelayers (heaviside) and
    # itk_torch_bridge (eye, here given a device: made on the CPU, it is NPU304's no more),
    # torchmetrics' fid (.double()): two rules on one call each.
    text = ("import torch\n"
            "def f(a, f):\n"
            "    g = torch.lgamma(a + 1)\n"
            "    u = torch.heaviside(f, a)\n"
            "    e = torch.eye(3, dtype=torch.float64, device=a.device)\n"
            "    h = f.float().double()\n"
            "    return g, u, e, h\n")
    said = _said(text, EVERY_RULE)
    assert [(line, code) for line, code, _m, _r in said] == [(3, "NPU301"), (4, "NPU301"), (5, "NPU304"),
                                                            (6, "NPU606")]
    heaviside, eye = said[1][3], said[2][3]
    assert [(line, message.split(":")[0]) for line, message in heaviside] == [(4, "NPU303")]
    assert [(line, message.split(":")[0]) for line, message in eye] == [(5, "NPU606")]
    # The default run keeps what NPU303 says (as NPU301's related), and a rule whose owner is
    # off still speaks.
    assert [(line, code) for line, code, _m, _r in _said(text)] == [(3, "NPU301"), (4, "NPU301"), (5, "NPU304")]
    without_owners = Settings(select=EVERY_RULE.select, ignore=("NPU301", "NPU304"))
    assert [(line, code) for line, code, _m, _r in _said(text, without_owners)] == [
        (3, "NPU930"), (4, "NPU303"), (5, "NPU606"), (6, "NPU606")]


def test_a_call_the_chip_lacks_is_not_also_dynamic_shape_advice():
    # FastVideo 0.2.1's qwen2_5_vl_custom.py: `cu_window_seqlens = torch.unique_consecutive(
    # cu_window_seqlens)`: unsupported on Atlas A2 (NPU303) and value-dependent in size (NPU610);
    # replacing the call answers both, so NPU610 is NPU303's related place. `torch.unique`, which
    # the chip has, keeps its advice.
    text = ("import torch\n"
            "def f(cu_window_seqlens, labels):\n"
            "    cu_window_seqlens = torch.unique_consecutive(cu_window_seqlens)\n"
            "    classes = torch.unique(labels)\n"
            "    return cu_window_seqlens, classes\n")
    said = _said(text, Settings(select=("ALL",)))
    assert [(line, code) for line, code, _m, _r in said] == [(3, "NPU303"), (4, "NPU610")]
    assert [message.split(":")[0] for _line, message in said[0][3]] == ["NPU610"]
    alone = Settings(select=("NPU610",))
    assert [(line, code) for line, code, _m, _r in _said(text, alone)] == [(3, "NPU610"), (4, "NPU610")]


def test_an_optimizer_with_a_fused_npu_class_is_one_finding_with_its_fallback_note():
    # demucs 4.1.0's train.py, e3nn 0.6.0's examples/tetris.py: `torch.optim.Adam(parameters, lr=...)`
    # has a fused NPU class (NPU510) and may fall back to the CPU (NPU931); the fused class replaces
    # the call, so the note is NPU510's related place. Near miss: `fused=True` already asks torch
    # for a fused step, NPU510 is quiet and the note stands alone; so it does with NPU510 off.
    text = ("import torch\n"
            "def build(model):\n"
            "    return torch.optim.Adam(model.parameters(), lr=1e-3)\n"
            "def build_fused(model):\n"
            "    return torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n")
    said = _said(text, Settings(select=("NPU510", "NPU931")))
    assert [(line, code) for line, code, _m, _r in said] == [(3, "NPU510"), (5, "NPU931")]
    assert [message.split(":")[0] for _line, message in said[0][3]] == ["NPU931"]
    alone = Settings(select=("NPU931",))
    assert [(line, code) for line, code, _m, _r in _said(text, alone)] == [(3, "NPU931"), (5, "NPU931")]


def test_float64_written_once_is_said_once_at_the_call_nearest_to_it():
    # ignite's ssim.py: `torch.mean(x, dims, dtype=torch.float64).sum()`; megatron's grad_scaler.py:
    # `self._scale.double().reciprocal()` (NPU304, NPU606 and NPU931 on one expression).
    text = ("import torch\n"
            "def f(total, x):\n"
            "    x, scale = x.float(), torch.full((1,), 65536.0, device='npu')\n"
            "    total += torch.mean(x, (1, 2), dtype=torch.float64).sum()\n"
            "    return total, scale.double().reciprocal()\n")
    said = _said(text, EVERY_RULE)
    assert [(line, code) for line, code, _m, _r in said] == [(4, "NPU304"), (5, "NPU304")]
    mean = said[0]
    assert "`torch.mean` is called with a float64 `dtype` (`torch.float64`)" in mean[2]
    assert [message.split(":")[0] for _line, message in mean[3]] == [
        "`torch.Tensor.sum` computes on this float64 result too", "NPU606"]
    assert [message.split(":")[0] for _line, message in said[1][3]] == ["NPU606"]


def test_float64_a_collective_reduces_in_place_is_said_once_where_it_is_made():
    # surya-ocr 0.22.1's rfdetr util/misc.py (torchvision references' SmoothedValue): `t =
    # torch.tensor([count, total], dtype=torch.float64, device="cuda")`, then `dist.all_reduce(t)`.
    # NPU304 advises making the tensor float32 where it is made (the collective works in place),
    # which is the change NPU606 asks for there: one finding, NPU606 its related place. Near miss:
    # an operator whose advice is a cast before the call leaves NPU606 on the statement that made it.
    text = ("import torch\n"
            "import torch.distributed as dist\n"
            "def synchronize(count, total, values):\n"
            "    t = torch.tensor([count, total], dtype=torch.float64, device='npu')\n"
            "    dist.barrier()\n"
            "    dist.all_reduce(t)\n"
            "    m = torch.tensor(values, dtype=torch.float64, device='npu')\n"
            "    return t.tolist(), torch.nn.functional.gelu(m)\n")
    said = _said(text, EVERY_RULE)
    assert [(line, code) for line, code, _m, _r in said] == [(6, "NPU304"), (7, "NPU606"), (8, "NPU304")]
    assert "make the tensor float32 where it is made" in said[0][2]
    assert [(line, message.split(":")[0]) for line, message in said[0][3]] == [(4, "NPU606")]
    assert said[2][3] == []


def test_a_library_imported_in_many_places_is_one_finding_with_the_others_related():
    # accelerate 0.34.2 tests/test_quantization.py: bitsandbytes imported in eleven tests.
    text = ("import torch\n\n\ndef test_a():\n    from bitsandbytes.nn import Int8Params\n    return Int8Params\n\n\n"
            "def test_b():\n    import bitsandbytes as bnb\n    return bnb\n")
    findings = [f for f in Engine(Settings()).check_text(text).findings if f.code == "NPU401"]
    assert [f.start.line for f in findings] == [5]
    assert [(r.start.line, r.message) for r in findings[0].related if "imported here" in r.message] == [
        (10, "`bitsandbytes` is imported here too")]


def test_libraries_the_patch_misleads_are_named_in_one_finding_per_module():
    # mmpose's demos and tools import mmcv and mmengine: two NPU191 findings per module, one cause.
    text = ("import torch\nfrom mmcv.transforms import Compose\nimport mmengine\nimport mmcv\n"
            "if __name__ == '__main__':\n    torch.cuda.synchronize()\n")
    findings = [f for f in Engine(AUTO).check_text(text).findings if f.code == "NPU191"]
    assert [f.start.line for f in findings] == [2]
    assert "`mmcv`, `mmengine` may take CUDA-only code paths" in findings[0].message
    assert [(r.start.line, r.message) for r in findings[0].related] == [(3, "`mmengine` is imported here")]


def test_a_statement_calling_one_api_again_is_one_finding_per_rule():
    # pyro's conjugate.py: torch.lgamma three times on one line made three NPU301; audiocraft's
    # `fft.irfft(fft.rfft(signal) * fft.rfft(kernel))` two NPU930 for rfft. One computation to change.
    text = ("import torch\n\n\ndef f(v, a, s, k):\n"
            "    x = torch.lgamma(1 + v) + torch.lgamma(a) - torch.lgamma(v + a)\n"
            "    y = torch.fft.irfft(torch.fft.rfft(s) * torch.fft.rfft(k))\n"
            "    return x, y, torch.lgamma(a)\n")
    findings = Engine(Settings(select=("ALL",))).check_text(text).findings
    lgamma = [f for f in findings if f.code == "NPU301" and f.start.line == 5]
    assert len(lgamma) == 1 and len(lgamma[0].related) == 2
    assert not [f for f in findings if f.code == "NPU930" and f.start.line == 5]  # owned by NPU301, all three
    assert [(f.start.line, f.code) for f in findings if f.code in ("NPU301", "NPU930")].count((7, "NPU301")) == 1
    rfft = [f for f in findings if f.code == "NPU930" and f.start.line == 6 and f.message.startswith("`torch.fft.rfft`")]
    assert len(rfft) == 1 and len(rfft[0].related) == 1
