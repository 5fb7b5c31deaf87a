"""A name handed to the project's own helper in another module, which only looks it up as a key
(torch-fidelity 0.4: metric_ppl.py's `cuda = get_kwarg("cuda", kwargs)` with helpers.py's
`def get_kwarg(name, kwargs): return kwargs.get(name, DEFAULTS[name])`)."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

CALLER = """\
import torch
from pkg.helpers import get_kwarg


def calculate_ppl(input_id, **kwargs):
    cuda = get_kwarg("cuda", kwargs)
    return cuda
"""

HELPERS = """\
from pkg.defaults import DEFAULTS


def get_kwarg(name, kwargs):
    return kwargs.get(name, DEFAULTS[name])
"""


def _codes(tmp_path, helpers: str) -> list[str]:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text(helpers)
    module = package / "metric_ppl.py"
    module.write_text(CALLER)
    result = Engine(Settings()).check_text(module.read_text(), str(module))
    return [finding.code for finding in result.findings]


def test_a_name_the_own_helper_only_looks_up_is_a_key(tmp_path):
    assert _codes(tmp_path, HELPERS) == []


def test_a_name_the_own_helper_also_uses_as_a_device_is_ported(tmp_path):
    device = HELPERS.replace("return kwargs.get(name, DEFAULTS[name])", "return torch.device(name)")
    assert _codes(tmp_path, "import torch\n" + device) == ["NPU111"]


def test_a_name_the_own_helper_looks_up_in_the_environment_is_ported(tmp_path):
    environment = HELPERS.replace("kwargs.get(name, DEFAULTS[name])", "os.environ.get(name, DEFAULTS[name])")
    assert _codes(tmp_path, "import os\n" + environment) == ["NPU111"]
