"""`--jobs N` gives the output of `--jobs 1`; the result cache gives the output of a fresh run."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, fixture_files, rewrite_later, run_tool

from npu_lint.frontends import cli
from npu_lint.knowledge import location as rules_location
from npu_lint.knowledge.fingerprint import package_fingerprint
from npu_lint.run import parallel, result_cache

SNIPPETS = (
    "import torch\nx = torch.randn(3)\ny = x.cuda()\n",
    "import torch\ntorch.cuda.synchronize()\nprint(torch.cuda.device_count())\n",
    "import torch\ndevice = torch.device('cuda:0')\n",
    "import torch.nn as nn\nmodel = nn.DataParallel(nn.Linear(2, 2))\n",
    "import torch.distributed as dist\ndist.init_process_group(backend='nccl')\n",
    "from torch.cuda import amp\nscaler = amp.GradScaler()\n",
    "import torch\ntorch.backends.cudnn.benchmark = True\n",
    "import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n",
    "def plain(a, b):\n    return a + b  # no trigger word here\n",
    "import torch\nev = torch.cuda.Event()\nev.record()  # noqa: NPU101\n",
)


def _generated_tree(root: Path, count: int = 20) -> Path:
    """count files mixing the snippets, plus a syntax error and an undecodable file."""
    root.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        parts = [SNIPPETS[(number + k) % len(SNIPPETS)] for k in range(1 + number % 4)]
        folder = root / f"pkg{number % 3}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod_{number:02d}.py").write_text("\n".join(parts), encoding="utf-8")
    (root / "broken.py").write_text("import torch\nx.cuda(\n", encoding="utf-8")
    (root / "latin.py").write_bytes(b"# coding: ascii\nx = '\xe9'.cuda()\n")
    return root


def _check(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_tool("npu_lint", "check", *args, cwd=cwd)


@pytest.mark.parametrize("output", ["text", "json"])
def test_jobs_2_prints_what_jobs_1_prints_on_the_fixtures(tmp_path, output):
    files = [str(p) for p in fixture_files()]
    one = _check("--no-cache", "--jobs", "1", "--format", output, *files, cwd=tmp_path)
    two = _check("--no-cache", "--jobs", "2", "--format", output, *files, cwd=tmp_path)
    assert one.returncode == two.returncode == 1, one.stderr + two.stderr
    assert one.stdout and one.stdout == two.stdout
    assert one.stderr == two.stderr


def test_jobs_2_prints_what_jobs_1_prints_on_generated_files(tmp_path):
    tree = _generated_tree(tmp_path / "tree")
    one = _check("--no-cache", "--jobs", "1", str(tree), cwd=tmp_path)
    two = _check("--no-cache", "--jobs", "2", str(tree), cwd=tmp_path)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    assert "syntax-error" in one.stdout and "unreadable" in one.stdout
    json_one = _check("--no-cache", "--jobs", "1", "--format", "json", str(tree), cwd=tmp_path)
    json_three = _check("--no-cache", "--jobs", "3", "--format", "json", str(tree), cwd=tmp_path)
    assert json_one.stdout == json_three.stdout and len(json.loads(json_one.stdout)) > 40
    assert json_one.stderr == json_three.stderr


def test_the_pool_is_used_and_keeps_file_order(tmp_path, monkeypatch):
    tree = _generated_tree(tmp_path / "tree")
    paths = sorted(str(p) for p in tree.rglob("*.py"))
    used = []
    real = parallel._run_pool
    monkeypatch.setattr(parallel, "_run_pool", lambda *a, **k: used.append(1) or real(*a, **k))
    settings = cli.load_settings(str(tree))
    pooled = parallel.check_files(paths, settings, jobs=2)
    inline = parallel.check_files(paths, settings, jobs=1)
    assert used == [1]
    assert [r.path for r in pooled] == paths
    assert [(r.findings, r.problems) for r in pooled] == [(r.findings, r.problems) for r in inline]


def test_fix_jobs_2_writes_what_jobs_1_writes(tmp_path):
    for jobs in ("1", "2"):
        tree = tmp_path / f"j{jobs}"
        tree.mkdir()
        for path in fixture_files():
            shutil.copy(path, tree / path.name)
        proc = run_tool("npu_lint", "fix", "--unsafe-fixes", "--jobs", jobs, str(tree), cwd=tree)
        assert proc.returncode in (0, 1), proc.stderr
    assert {p.name: p.read_bytes() for p in (tmp_path / "j1").glob("*.py")} == \
           {p.name: p.read_bytes() for p in (tmp_path / "j2").glob("*.py")}


# -- the cache, in this process so that misses can be counted ---------------

class _InProcess:
    """`npu-lint check --jobs 1 ...` in this process: (exit status, stdout); `linted` names the files checked."""

    def __init__(self):
        self.linted: list[str] = []

    def __call__(self, *args: str) -> tuple[int, str]:
        self.linted.clear()
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = cli.main(["check", "--jobs", "1", *args])
        return code, buffer.getvalue()


def _forget_fingerprints() -> None:
    """Hash npu-lint's code and data again (both hashes are computed once per process)."""
    result_cache.fingerprint.cache_clear()
    package_fingerprint.cache_clear()


@pytest.fixture()
def counted(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _forget_fingerprints()
    runner = _InProcess()
    real = parallel.lint_bytes

    def spy(engine, data, path):
        runner.linted.append(os.path.basename(path))
        return real(engine, data, path)

    monkeypatch.setattr(parallel, "lint_bytes", spy)
    yield runner
    _forget_fingerprints()


def test_second_run_answers_from_the_cache(tmp_path, counted):
    tree = _generated_tree(tmp_path / "tree")
    first = counted(str(tree))
    assert len(counted.linted) == 22
    cache = tmp_path / ".npu_lint_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    second = counted(str(tree))
    assert second == first
    # the unreadable file is never stored; everything else is
    assert counted.linted == ["latin.py"]
    json_first = counted("--format", "json", str(tree))
    assert counted.linted == ["latin.py"]  # the format is not part of the key
    assert json.loads(json_first[1])


def test_a_changed_file_is_checked_again(tmp_path, counted):
    tree = _generated_tree(tmp_path / "tree")
    counted(str(tree))
    target = tree / "pkg0" / "mod_00.py"
    target.write_text(target.read_text() + "torch.cuda.empty_cache()\n", encoding="utf-8")
    code, out = counted(str(tree))
    assert sorted(counted.linted) == ["latin.py", "mod_00.py"]
    assert code == 1 and "empty_cache" in out
    assert counted(str(tree)) == (code, out)


def test_other_settings_miss_the_cache(tmp_path, counted):
    tree = _generated_tree(tmp_path / "tree")
    default = counted(str(tree))
    selected = counted("--select", "NPU101", str(tree))
    assert len(counted.linted) == 22
    assert selected != default
    assert counted("--select", "NPU101", str(tree)) == selected and counted.linted == ["latin.py"]
    (tmp_path / "tree" / "pyproject.toml").write_text('[tool.npu-lint]\nignore = ["NPU101"]\n', encoding="utf-8")
    counted(str(tree))
    assert len(counted.linted) == 22


def test_changed_rule_data_misses_the_cache(tmp_path, counted, monkeypatch):
    tree = _generated_tree(tmp_path / "tree")
    first = counted(str(tree))
    copied = tmp_path / "rules"
    shutil.copytree(REPO / "rules", copied)
    (copied / "cuda-api.yaml").write_text((copied / "cuda-api.yaml").read_text() + "\n# changed\n")
    monkeypatch.setattr(rules_location, "rules_dir", lambda: copied)
    _forget_fingerprints()
    assert counted(str(tree)) == first
    assert len(counted.linted) == 22


def test_another_version_misses_the_cache(tmp_path, counted, monkeypatch):
    tree = _generated_tree(tmp_path / "tree")
    first = counted(str(tree))
    monkeypatch.setattr(result_cache, "__version__", "999.0")
    _forget_fingerprints()
    assert counted(str(tree)) == first
    assert len(counted.linted) == 22


@pytest.mark.parametrize("damage", [
    b"", b"{", b"not json at all", b"[]", b"null",
    b'{"format": 1}',
    "keep the header, spoil the findings",
])
def test_a_corrupt_entry_is_a_miss(tmp_path, counted, damage):
    tree = _generated_tree(tmp_path / "tree")
    first = counted(str(tree))
    entries = sorted((tmp_path / ".npu_lint_cache" / "results").rglob("*.json"))
    assert len(entries) == 21
    for entry in entries:
        if isinstance(damage, str):
            data = json.loads(entry.read_text(encoding="utf-8"))
            data["findings"] = [{"code": 1}] if data["findings"] else "x"
            entry.write_text(json.dumps(data), encoding="utf-8")
        else:
            entry.write_bytes(damage)
    assert counted(str(tree)) == first
    assert len(counted.linted) == 22
    assert counted(str(tree)) == first and counted.linted == ["latin.py"]  # rewritten


def test_no_cache_writes_nothing_and_an_unwritable_folder_is_no_error(tmp_path, counted):
    tree = _generated_tree(tmp_path / "tree")
    first = counted("--no-cache", str(tree))
    assert not (tmp_path / ".npu_lint_cache").exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert counted("--cache-dir", str(blocker), str(tree)) == first
    assert counted("--cache-dir", str(tmp_path / "elsewhere"), str(tree)) == first
    assert len(counted.linted) == 22
    assert counted("--cache-dir", str(tmp_path / "elsewhere"), str(tree)) == first
    assert counted.linted == ["latin.py"]


def test_the_cache_folder_is_not_checked(tmp_path, counted):
    tree = _generated_tree(tmp_path / "tree")
    (tmp_path / "tree" / ".npu_lint_cache").mkdir()
    (tmp_path / "tree" / ".npu_lint_cache" / "stray.py").write_text("import torch\ntorch.cuda.init()\n")
    code, out = counted(str(tree))
    assert ".npu_lint_cache" not in out


def test_two_concurrent_runs_both_succeed(tmp_path):
    tree = _generated_tree(tmp_path / "tree", count=40)
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    command = [sys.executable, "-m", "npu_lint", "check", "--jobs", "2", str(tree)]
    runs = [subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1], [err for _, err in outputs]
    assert outputs[0] == outputs[1]
    assert not any(p.name.startswith(".tmp-") for p in (tmp_path / ".npu_lint_cache").rglob("*"))
    again = _check(str(tree), cwd=tmp_path)
    assert (again.stdout.encode(), again.returncode) == (outputs[0][0], 1)
    fresh = _check("--no-cache", str(tree), cwd=tmp_path)
    assert fresh.stdout == again.stdout


def test_bad_jobs_values(tmp_path):
    proc = _check("--jobs", "-1", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2 and "--jobs" in proc.stderr
    proc = _check("--jobs", "many", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2
    assert _check("--jobs", "0", str(tmp_path), cwd=tmp_path).returncode == 0


def test_the_text_of_extend_rules_files_is_part_of_the_key(tmp_path):
    from npu_lint.config.settings import Settings

    extra = tmp_path / "extra.yaml"
    extra.write_text("rules: []\n")
    settings = Settings(extend_rules=(str(extra),))
    before = result_cache.ResultCache.for_settings(tmp_path, settings).prefix
    assert result_cache.ResultCache.for_settings(tmp_path, settings).prefix == before
    extra.write_text("rules: []\n# edited\n")
    assert result_cache.ResultCache.for_settings(tmp_path, settings).prefix != before
    assert result_cache.ResultCache.for_settings(tmp_path, Settings()).prefix != before


def test_a_changed_star_imported_module_misses_the_cache(tmp_path, counted):
    # fastai's modules get `torch` only from `from .torch_imports import *`: their findings change
    # when that module does, though their own bytes do not.
    package = tmp_path / "tree" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "torch_imports.py").write_text("import torch\n")
    (package / "core.py").write_text("from .torch_imports import *\n\ntorch.cuda.set_device(0)\n")
    code, out = counted(str(package / "core.py"))
    assert code == 1 and "set_device" in out
    assert counted(str(package / "core.py")) == (code, out) and counted.linted == []
    (package / "torch_imports.py").write_text("torch = None\n")
    code, out = counted(str(package / "core.py"))
    assert counted.linted == ["core.py"] and code == 0


def test_a_project_module_that_starts_importing_torch_npu_misses_the_cache(tmp_path, counted):
    # NPU120 looks through the program's own package for `import torch_npu` (ColossalAI's
    # accelerator does it): adding it there must clear the finding on the unchanged program.
    tree = tmp_path / "tree"
    (tree / "mypkg").mkdir(parents=True)
    (tree / "mypkg" / "__init__.py").write_text("from . import devices\n")
    (tree / "mypkg" / "devices.py").write_text("import torch\n")
    script = tree / "train.py"
    script.write_text("import torch\nimport mypkg\n\nif __name__ == '__main__':\n    torch.ones(1).cuda()\n")
    code, out = counted(str(script))
    assert "NPU120" in out
    assert counted(str(script)) == (code, out) and counted.linted == []
    (tree / "mypkg" / "devices.py").write_text("import torch\nimport torch_npu\n")
    code, out = counted(str(script))
    assert counted.linted == ["train.py"] and "NPU120" not in out


def test_a_changed_module_of_the_folder_misses_the_cache(tmp_path, counted):
    # A CUDA class whose NPU sibling lives in another module of its folder is left alone
    # (analysis/npu_siblings.py; ColossalAI's accelerator/ layout): writing or deleting that
    # sibling changes the findings of the unchanged CUDA module.
    folder = tmp_path / "tree" / "accelerator"
    folder.mkdir(parents=True)
    cuda_module = folder / "cuda_accelerator.py"
    cuda_module.write_text("import torch\n\nfrom .base import BaseAccelerator\n\n\n"
                           "class CudaAccelerator(BaseAccelerator):\n"
                           "    def synchronize(self):\n        torch.cuda.synchronize()\n")
    (folder / "cpu_accelerator.py").write_text("from .base import BaseAccelerator\n\n\n"
                                               "class CpuAccelerator(BaseAccelerator):\n    pass\n")
    code, out = counted(str(cuda_module))
    assert code == 1 and "NPU101" in out
    assert counted(str(cuda_module)) == (code, out) and counted.linted == []
    sibling = folder / "npu_accelerator.py"
    sibling.write_text("from .base import BaseAccelerator\n\n\nclass NpuAccelerator(BaseAccelerator):\n    pass\n")
    code, out = counted(str(cuda_module))
    assert counted.linted == ["cuda_accelerator.py"] and code == 0
    assert counted(str(cuda_module)) == (code, out) and counted.linted == []
    sibling.write_text("from .base import BaseAccelerator\n\n\nclass NpuAccelerator:\n    pass\n")
    code, out = counted(str(cuda_module))
    assert counted.linted == ["cuda_accelerator.py"] and code == 1
    sibling.unlink()
    (folder / "ascend_accelerator.py").write_text(
        "from .base import BaseAccelerator\n\n\nclass AscendAccelerator(BaseAccelerator):\n    pass\n")
    code, out = counted(str(cuda_module))
    assert counted.linted == ["cuda_accelerator.py"] and code == 0


def test_a_setup_py_that_stops_building_a_cuda_extension_misses_the_cache(tmp_path, counted):
    # NPU413 knows `from . import blur_ext` is CUDA code from setup.py (basicsr's make_cuda_ext):
    # the module's findings change when setup.py does, though its own bytes do not.
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("")
    setup = tree / "setup.py"
    setup.write_text("from torch.utils.cpp_extension import CUDAExtension\n"
                     "CUDAExtension(name='pkg.blur_ext', sources=['blur.cu'])\n")
    module = tree / "pkg" / "blur.py"
    module.write_text("from . import blur_ext\n\ndef blur(x):\n    if x.device.type == 'cpu':\n        return x\n"
                      "    return blur_ext.blur(x)\n")
    code, out = counted(str(module))
    assert "NPU413" in out
    assert counted(str(module)) == (code, out) and counted.linted == []
    setup.write_text("from torch.utils.cpp_extension import CppExtension\n"
                     "CppExtension(name='pkg.blur_ext', sources=['blur.cpp'])\n")
    code, out = counted(str(module))
    assert counted.linted == ["blur.py"] and "NPU413" not in out


def test_a_module_whose_decorator_stops_compiling_a_kernel_misses_the_cache(tmp_path, counted):
    # trl's chunked_divergence.py compiles its kernels with `_jit` from chunked_logprob.py: its
    # findings change when that decorator does, though its own bytes do not.
    package = tmp_path / "tree" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    helpers = package / "helpers.py"
    helpers.write_text("import triton\n\ndef _jit(fn):\n    return triton.jit(fn)\n")
    module = package / "kernels.py"
    module.write_text("import triton.language as tl\nfrom .helpers import _jit\n\n"
                      "@_jit\ndef kernel(x_ptr):\n    tl.store(x_ptr, tl.load(x_ptr))\n")
    code, out = counted(str(module))
    assert "NPU402" not in out and "NPU403" not in out
    assert counted(str(module)) == (code, out) and counted.linted == []
    helpers.write_text("def _jit(fn):\n    return fn\n")
    code, out = counted(str(module))
    assert counted.linted == ["kernels.py"] and "NPU403" in out


def test_a_module_whose_import_stops_building_cuda_code_misses_the_cache(tmp_path, counted):
    # cogdl's spmm_utils.py imports operators/spmm.py only under `torch.cuda.is_available()`, and
    # that import compiles a .cu file: the test stays CUDA's while the module builds CUDA code, and
    # is ported once it no longer does, though spmm_utils.py's own bytes do not change.
    package = tmp_path / "tree" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    built = package / "spmm.py"
    built.write_text("from torch.utils.cpp_extension import load\n\n"
                     "_spmm = load(name='spmm', sources=['spmm.cpp', 'spmm_kernel.cu'])\n")
    module = package / "spmm_utils.py"
    module.write_text("import torch\n\n\ndef init():\n    if torch.cuda.is_available():\n"
                      "        from .spmm import _spmm\n        return _spmm\n    return None\n")
    code, out = counted(str(module))
    assert "NPU101" not in out
    assert counted(str(module)) == (code, out) and counted.linted == []
    rewrite_later(built, "import torch\n\n_spmm = torch.sparse.mm\n")
    code, out = counted(str(module))
    assert counted.linted == ["spmm_utils.py"] and "NPU101" in out


def test_a_module_whose_flag_stops_saying_a_cuda_build_loaded_misses_the_cache(tmp_path, counted):
    # torchani's `device.type == "cuda" and CUAEV_IS_INSTALLED` keeps its "cuda" while the flag,
    # set in the project module it is imported from, says setup.py's CUDA build loaded.
    tree = tmp_path / "tree"
    package = tree / "pkg"
    package.mkdir(parents=True)
    (tree / "setup.py").write_text("from setuptools import setup\n"
                                   "from torch.utils.cpp_extension import CUDAExtension\n"
                                   "setup(name='pkg', ext_modules=[CUDAExtension('pkg.cuaev', ['aev.cu'])])\n")
    (package / "__init__.py").write_text("")
    flags = package / "csrc.py"
    flags.write_text("import torch\n\ntry:\n    torch.ops.load_library('cuaev.so')\n"
                     "    CUAEV_IS_INSTALLED = True\nexcept OSError:\n    CUAEV_IS_INSTALLED = False\n")
    module = package / "infer.py"
    module.write_text("import torch\n\nfrom pkg.csrc import CUAEV_IS_INSTALLED\n\n\n"
                      "def strategy(device):\n    if device.type == 'cuda' and CUAEV_IS_INSTALLED:\n"
                      "        return 'fused'\n    return 'reference'\n")
    code, out = counted(str(module))
    assert "NPU111" not in out
    assert counted(str(module)) == (code, out) and counted.linted == []
    rewrite_later(flags, "CUAEV_IS_INSTALLED = True\n")
    code, out = counted(str(module))
    assert counted.linted == ["infer.py"] and "NPU111" in out


def test_a_module_whose_imported_class_changes_misses_the_cache(tmp_path, counted):
    # torchbearer's `Trial(...).cuda()`: Trial, defined in another module of the project (and
    # re-exported by the package), is no torch value, so its own cuda() is no finding. Once the
    # class becomes a Module, `.cuda()` moves a Module again.
    package = tmp_path / "tree" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .trial import *\n")
    trial = package / "trial.py"
    trial.write_text("class Trial(object):\n    def cuda(self):\n        return self\n")
    module = package / "run.py"
    module.write_text("from pkg import Trial\n\n\ndef main():\n    trial = Trial()\n    trial.cuda()\n")
    code, out = counted(str(module))
    assert "NPU103" not in out
    assert counted(str(module)) == (code, out) and counted.linted == []
    rewrite_later(trial, "from torch import nn\n\n\nclass Trial(nn.Module):\n    pass\n")
    code, out = counted(str(module))
    assert counted.linted == ["run.py"] and "moves this Module" in out, out
