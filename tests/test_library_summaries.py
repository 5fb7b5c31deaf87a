"""NPU420's facts: the ast-only function graph of a library, the shipped summaries, the on-the-fly
analysis of an installed library, the library-versions setting, and the generator's --check."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from npu_lint.analysis import installed_libraries
from npu_lint.analysis.library_cuda import analyse_package
from npu_lint.config.files import ConfigError, load_settings
from npu_lint.config.settings import Settings, parse_library_versions
from npu_lint.engine.engine import Engine
from npu_lint.knowledge import library_summaries
from npu_lint.knowledge.library_summaries import SUMMARISED, summary, versions

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data" / "library_summaries.yaml"

SYNTHETIC = {
    "lib/__init__.py": "from .train import Scaler, make_scaler, build\nfrom .dist import setup\n",
    "lib/train.py": '''
        import torch
        from lib.devices import pick

        class Scaler:
            def __init__(self, enabled=True):
                self.scaler = torch.cuda.amp.GradScaler(enabled=enabled)

        def make_scaler():
            return Scaler()

        def build(model, device="cuda"):
            return model.to(device)

        def build_cpu(model):
            return build(model, device="cpu")

        def guarded(x):
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            return x

        def ternary():
            return "cuda" if torch.cuda.is_available() else "cpu"

        def early_return(x):
            if not torch.cuda.is_available():
                return x
            return x.cuda()

        def caught():
            try:
                torch.cuda.synchronize()
            except RuntimeError:
                pass

        def calls_pick():
            return pick()

        def branch(flag):
            if flag:
                make_scaler()

        def _private():
            torch.cuda.synchronize()
    ''',
    "lib/devices.py": '''
        import torch
        from accelerate.utils import is_npu_available

        def pick():
            if is_npu_available():
                return torch.device("npu")
            return torch.device("cuda")

        def sync_npu_aware():
            if hasattr(torch, "npu"):
                torch.npu.synchronize()
            else:
                torch.cuda.synchronize()
    ''',
    "lib/dist.py": '''
        import torch.distributed as dist

        def setup(backend="nccl"):
            dist.init_process_group(backend)

        def setup_forwarding(launcher, backend="nccl"):
            return _setup_npu_aware(backend)

        def setup_per_launcher(launcher, backend="nccl"):
            if launcher == "mpi":
                return setup(backend)
            return _setup_npu_aware(backend)

        def _setup_npu_aware(backend):
            if is_npu_available():
                backend = "hccl"
            dist.init_process_group(backend)
    ''',
    "lib/tests/test_train.py": "def test_cuda(x):\n    return x.cuda()\n",
}


@pytest.fixture(scope="module")
def synthetic():
    files = [(path, textwrap.dedent(text)) for path, text in SYNTHETIC.items()]
    return analyse_package(files, "lib")


def test_constructor_building_a_cuda_grad_scaler_is_bound(synthetic):
    bound, _aliases = synthetic
    use = bound["lib.train.Scaler"]
    assert (use.path, use.use, use.param) == ("lib/train.py", "torch.cuda.amp.GradScaler(enabled=enabled)", None)
    assert use.line == 7


def test_a_cuda_device_default_records_the_parameter(synthetic):
    bound, _ = synthetic
    assert bound["lib.train.build"].param == "device"
    assert bound["lib.dist.setup"].param == "backend"
    assert "lib.train.build_cpu" not in bound  # it passes the device


def test_calling_a_bound_function_propagates_with_the_chain(synthetic):
    bound, _ = synthetic
    use = bound["lib.train.make_scaler"]
    assert use.via == "lib.train.Scaler" and use.line == 7


@pytest.mark.parametrize("name", [
    "lib.train.guarded", "lib.train.ternary", "lib.train.early_return", "lib.train.caught",
    "lib.devices.pick", "lib.devices.sync_npu_aware", "lib.train.calls_pick", "lib.train.branch",
    "lib.dist.setup_forwarding", "lib.dist.setup_per_launcher", "lib.train._private", "lib.tests.test_train.test_cuda",
])
def test_guarded_npu_aware_conditional_private_and_test_code_stay_quiet(synthetic, name):
    bound, _ = synthetic
    assert name not in bound


def test_public_re_exports_are_aliases(synthetic):
    _, aliases = synthetic
    assert aliases["lib.Scaler"] == "lib.train.Scaler"
    assert aliases["lib.setup"] == "lib.dist.setup"


# -- the shipped summaries --------------------------------------------------------------------------

def test_every_summarised_library_is_in_the_data_and_the_triggers():
    document = yaml.safe_load(DATA.read_text(encoding="utf-8"))["libraries"]
    assert set(document) == SUMMARISED
    assert {"timm", "transformers", "accelerate", "torchvision", "mmengine", "fairseq",
            "pytorch_lightning"} <= SUMMARISED


def test_shipped_data_is_small():
    assert DATA.stat().st_size < 300_000


def test_versions_default_to_the_newest_and_fall_back_to_an_older_summarised_one():
    assert versions("timm") == ("0.9.16", "1.0.15")
    assert summary("timm").version == "1.0.15"
    assert summary("timm", "0.9.16").version == "0.9.16"
    assert summary("timm", "0.9.12").version == "0.9.16"  # older than all: the oldest
    assert summary("timm", "1.0.3").version == "0.9.16"
    assert summary("timm", "2.0").version == "1.0.15"
    assert summary("not-a-library") is None


def test_lookup_resolves_re_exports_and_methods_of_re_exported_classes():
    timm = summary("timm", "0.9.16")
    assert timm.lookup("timm.utils.NativeScaler")[0] == "timm.utils.cuda.NativeScaler"
    assert timm.lookup("timm.utils.ModelEmaV2") is None
    transformers = summary("transformers", "4.46.3")
    assert transformers.lookup("transformers.OffloadedCache.prefetch_layer")[0] == \
        "transformers.cache_utils.OffloadedCache.prefetch_layer"


# -- the setting ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ({"timm": "0.9.16"}, (("timm", "0.9.16"),)),
    ("timm=0.9.16, pytorch-lightning=2.4.0", (("pytorch_lightning", "2.4.0"), ("timm", "0.9.16"))),
])
def test_library_versions_are_parsed(value, expected):
    assert parse_library_versions(value) == expected


@pytest.mark.parametrize("value", ["timm", "=1.0", ["timm"], {"timm": ""}])
def test_bad_library_versions_are_errors(value):
    with pytest.raises(ValueError):
        parse_library_versions(value)


def test_library_versions_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nlibrary-versions = {timm = "0.9.16"}\n')
    assert load_settings(str(tmp_path)).library_version("timm") == "0.9.16"
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nlibrary-versions = ["timm"]\n')
    with pytest.raises(ConfigError, match="library-versions"):
        load_settings(str(tmp_path))


def _codes(text: str, settings: Settings = Settings()) -> list[tuple[int, str]]:
    """NPU420's (line, message); every rule runs, as the on-the-fly analysis relies on the others
    to let a file in."""
    result = Engine(settings).check_text(textwrap.dedent(text), "train.py")
    assert not result.problems, result.problems
    return [(f.start.line, f.message) for f in result.findings if f.code == "NPU420"]


def test_the_version_setting_changes_the_answer():
    text = "from timm.utils import NativeScaler\nscaler = NativeScaler()\n"
    newest = _codes(text)
    old = _codes(text, Settings(library_versions=(("timm", "0.9.16"),)))
    assert "timm 1.0.15" in newest[0][1] and "pass `device=\"npu\"`" in newest[0][1]
    assert "timm 0.9.16" in old[0][1] and "GradScaler" in old[0][1]


def test_finding_carries_the_library_line_and_an_unsafe_fix():
    result = Engine(Settings(select=("NPU420",))).check_text(
        "import torch\nfrom timm.utils import NativeScaler\nscaler = NativeScaler()\n", "train.py")
    finding, = result.findings
    related, = finding.related
    assert (related.path, related.start.line) == ("timm/utils/cuda.py", 49)
    assert finding.fix.applicability.value == "unsafe"
    assert finding.fix.edits[0].content == 'device="npu"'


# -- on the fly: an installed library without a summary ---------------------------------------------

FAKE_LIBRARY = {
    "fakelib/__init__.py": "from .helpers import make_scaler, sync\n",
    "fakelib/helpers.py": (
        "import torch\n\n"
        "def make_scaler():\n    return torch.cuda.amp.GradScaler()\n\n"
        "def sync():\n    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n"
    ),
    "fakelib-1.2.dist-info/METADATA": "Metadata-Version: 2.1\nName: fakelib\nVersion: 1.2\n",
    "fakelib-1.2.dist-info/top_level.txt": "fakelib\n",
}
USER = "import torch\nimport fakelib\n\nscaler = fakelib.make_scaler()\nfakelib.sync()\nx = torch.zeros(1).cuda()\n"


def _install_fake(site: Path) -> None:
    for path, text in FAKE_LIBRARY.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")


def test_installed_library_without_summary_is_analysed_and_cached(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _install_fake(site)
    monkeypatch.setenv("NPU_LINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(site))
    installed_libraries.installed_summary.cache_clear()
    try:
        found = _codes(USER)
        assert [line for line, _ in found] == [4]
        assert "fakelib 1.2" in found[0][1]
        assert (tmp_path / "cache" / "libraries" / "analysed" / "fakelib-1.2.json").exists()
        assert "fakelib" not in sys.modules  # located and read, never imported
    finally:
        installed_libraries.installed_summary.cache_clear()


@pytest.mark.parametrize("distribution", ["fakelib", "py-fake-lib"])
def test_the_version_comes_from_the_distribution_by_name_or_by_its_top_level_modules(tmp_path, distribution):
    """Found by the metadata folder's name (most libraries) or, for a library distributed under
    another name (`yaml` in PyYAML), by the modules it installs."""
    site = tmp_path / "site"
    _install_fake(site)
    (site / "fakelib-1.2.dist-info").rename(site / f"{distribution.replace('-', '_')}-1.2.dist-info")
    metadata = site / f"{distribution.replace('-', '_')}-1.2.dist-info" / "METADATA"
    metadata.write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 1.2\n")
    (site / "otherlib-3.0.dist-info").mkdir()
    (site / "otherlib-3.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: otherlib\nVersion: 3.0\n")
    assert installed_libraries._version(site, "fakelib") == "1.2"
    assert installed_libraries._version(site, "missinglib") is None


def test_a_folder_without_distribution_metadata_is_the_users_code(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _install_fake(site)
    for path in list((site / "fakelib-1.2.dist-info").iterdir()):
        path.unlink()
    monkeypatch.setenv("NPU_LINT_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(site))
    installed_libraries.installed_summary.cache_clear()
    try:
        assert _codes(USER) == []
    finally:
        installed_libraries.installed_summary.cache_clear()


def test_a_summarised_library_ignores_what_is_installed(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "timm" / "utils").mkdir(parents=True)
    (site / "timm" / "__init__.py").write_text("")
    (site / "timm" / "utils" / "__init__.py").write_text("def NativeScaler():\n    pass\n")
    (site / "timm-9.9.dist-info").mkdir()
    (site / "timm-9.9.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: timm\nVersion: 9.9\n")
    monkeypatch.syspath_prepend(str(site))
    text = "from timm.utils import NativeScaler\nscaler = NativeScaler()\n"
    assert "timm 1.0.15" in _codes(text)[0][1]


@pytest.mark.parametrize("installed", [False, True])
def test_fixture_answers_do_not_depend_on_installed_libraries(tmp_path, installed):
    """The fixture through the CLI with fake timm/transformers/mmengine/fairseq on PYTHONPATH or not."""
    import json
    import os

    env = dict(os.environ, NPU_LINT_CACHE=str(tmp_path / "cache"))
    if installed:
        site = tmp_path / "site"
        for package in ("timm", "transformers", "mmengine", "fairseq"):
            (site / package).mkdir(parents=True)
            (site / package / "__init__.py").write_text("import torch\ndef f():\n    return torch.zeros(1).cuda()\n")
            (site / f"{package}-0.0.1.dist-info").mkdir()
            (site / f"{package}-0.0.1.dist-info" / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.0.1\n")
        env["PYTHONPATH"] = str(site)
    fixture = REPO / "tests" / "fixtures" / "third_party_calls.py"
    proc = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--format", "json", "--no-cache",
                           "--select", "NPU420", str(fixture)], capture_output=True, text=True, env=env, cwd=REPO)
    rows = sorted((f["location"]["row"], f["message"]) for f in json.loads(proc.stdout))
    expected = json.loads((REPO / "tests" / "golden" / "third_party_calls.json").read_text(encoding="utf-8"))
    assert [list(r) for r in rows] == expected


# -- speed: files that import no summarised library never load the summaries --------------------------

def test_a_file_without_a_summarised_import_never_loads_the_data(monkeypatch):
    library_summaries._document.cache_clear()
    library_summaries.summary.cache_clear()
    calls = []
    original = library_summaries._document.__wrapped__
    monkeypatch.setattr(library_summaries, "_document", lambda: calls.append(1) or original())
    engine = Engine(Settings())
    engine.check_text("import torch\nx = torch.zeros(1).cuda()\n", "train.py")
    assert calls == []
    only = Engine(Settings(select=("NPU420",)))
    assert not only.checks_for_text("import torch\nx = torch.zeros(1).cuda()  # timm\n")
    assert only.checks_for_text("from timm.utils import NativeScaler\n")


def test_summaries_load_in_a_fraction_of_a_second():
    library_summaries._document.cache_clear()
    start = time.perf_counter()
    library_summaries._document()
    assert time.perf_counter() - start < 1.0


# -- the generator -------------------------------------------------------------------------------------

@pytest.mark.network
def test_generator_check_says_the_committed_data_is_current():
    proc = subprocess.run([sys.executable, "-m", "npu_lint.generate.library_summaries", "--check"],
                          capture_output=True, text=True, cwd=REPO, timeout=3600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("command", [
    ["flake8", "--select", "NPU420", "--library-versions", "timm=0.9.16"],
    ["pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", "library-call-cuda-bound",
     "--library-versions", "timm=0.9.16", "--score", "n", "--persistent", "n"],
    ["npu_lint", "check", "--no-cache", "--select", "NPU420", "--library-versions", "timm=0.9.16"],
])
def test_every_front_end_takes_the_library_versions_option(tmp_path, command):
    script = tmp_path / "train.py"
    script.write_text("from timm.utils import NativeScaler\nscaler = NativeScaler()\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", *command, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert "timm 0.9.16" in proc.stdout, proc.stdout + proc.stderr
