"""Names bound by `from .x import *` of the project's own modules (fastai's layout)."""
from __future__ import annotations

import os

from conftest import run_tool

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

USES = "from .torch_imports import *\n\n\ndef setup(gpu):\n    torch.cuda.set_device(gpu)\n"


def _package(tmp_path, torch_imports: str):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "torch_imports.py").write_text(torch_imports)
    module = package / "core.py"
    module.write_text(USES)
    return module


def _codes(module) -> list[str]:
    result = Engine(Settings()).check_text(module.read_text(), str(module))
    return [finding.code for finding in result.findings]


def test_fix_imports_torch_npu_after_the_star_import(tmp_path):
    # Before torch 2.5 torch does not load torch_npu itself: `torch.npu` needs the import here.
    module = _package(tmp_path, "import torch\n")
    proc = run_tool("npu_lint", "fix", "--diff", "--target-torch-npu", "2.1", str(module))
    assert " from .torch_imports import *\n+import torch_npu\n" in proc.stdout
    assert "+    torch.npu.set_device(gpu)\n" in proc.stdout


def test_a_changed_star_imported_module_is_read_again(tmp_path):
    module = _package(tmp_path, "import torch\n")
    assert _codes(module) == ["NPU101"]
    torch_imports = module.parent / "torch_imports.py"
    torch_imports.write_text("torch = None  # no longer torch\n")
    status = os.stat(torch_imports)
    os.utime(torch_imports, ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))
    assert _codes(module) == []


def test_a_library_star_import_is_not_followed(tmp_path):
    module = tmp_path / "script.py"
    module.write_text("from numpy import *\n\ntorch.cuda.set_device(0)\n")
    assert _codes(module) == []
