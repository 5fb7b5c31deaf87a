"""Fixed programs start (issue 13 item 5): every fix case, fixed for the oldest and the newest target,
imports and runs its module-level code under fake torch / torch_npu packages of that release
(tests/fake_torch.py). No real torch or NPU."""
from __future__ import annotations

import pytest
from conftest import REPO, run_tool
from fake_torch import NEWEST, OLDEST, run_modules, write_site

CASES = REPO / "tests" / "fix_cases"
CASE_NAMES = sorted(p.name[: -len(".input.py")] for p in CASES.glob("*.input.py"))


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    return {release: write_site(tmp_path_factory.mktemp(f"site-{release}"), release) for release in (OLDEST, NEWEST)}


def _args(text: str) -> list[str]:
    first = text.splitlines()[0] if text else ""
    return first[len("# args:"):].split() if first.startswith("# args:") else []


def _params() -> list:
    return list(_each_param())


def _each_param():
    for name in CASE_NAMES:
        for release in (OLDEST, NEWEST):
            yield pytest.param(name, release, id=f"{name}-{release}")


def _starts(site, folder, text: str) -> str | None:
    (folder / "program.py").write_text(text, encoding="utf-8")
    return run_modules(site, [folder], ["program"], cwd=folder)["program"]


@pytest.mark.parametrize("name, release", _params())
def test_fixed_case_starts(name, release, sites, tmp_path):
    source = (CASES / f"{name}.input.py").read_text(encoding="utf-8")
    args = _args(source)
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    proc = run_tool("npu_lint", "fix", "--unsafe-fixes", "--target-torch-npu", release, *args, str(path))
    if "agnostic" in args and release == OLDEST:
        assert proc.returncode == 2 and "torch.accelerator" in proc.stderr, "older targets refuse the agnostic route"
        return
    assert proc.returncode in (0, 1), proc.stderr
    before = _starts(sites[release], tmp_path, source)
    after = _starts(sites[release], tmp_path, path.read_text(encoding="utf-8"))
    # A case may use what the release lacks before the fix; the fix must not make it worse.
    assert after is None or after == before, f"the fixed program stops on {release}: {after}"


def test_the_harness_models_registration_and_autoload(sites, tmp_path):
    old, new = sites[OLDEST], sites[NEWEST]
    assert "AttributeError" in _starts(old, tmp_path, "import torch\ntorch.npu.synchronize()\n")
    assert _starts(old, tmp_path, "import torch\nimport torch_npu\ntorch.npu.synchronize()\n") is None
    assert "ModuleNotFoundError" in _starts(old, tmp_path, "import torch\nfrom torch.npu.amp import autocast\n")
    assert _starts(new, tmp_path, "import torch\nfrom torch.npu.amp import autocast\ntorch.npu.synchronize()\n") is None
    (tmp_path / "program.py").write_text("import torch\ntorch.npu.synchronize()\n")
    off = run_modules(new, [tmp_path], ["program"], cwd=tmp_path, env={"TORCH_DEVICE_BACKEND_AUTOLOAD": "0"})
    assert "AttributeError" in off["program"], "autoload off: torch.npu needs `import torch_npu`"
    # Names a release lacks, and names torch_npu does not offer under torch.npu.
    assert "AttributeError" in _starts(old, tmp_path, "import torch\ntorch.amp.GradScaler('npu')\n")
    assert "ModuleNotFoundError" in _starts(old, tmp_path, "import torch.accelerator\n")
    assert _starts(new, tmp_path, "import torch\ntorch.accelerator.current_accelerator().type\n") is None
    assert "AttributeError" in _starts(new, tmp_path, "import torch\ntorch.npu.get_arch_list()\n")
    # What the harness does not model stays permissive: classes, decorators, third-party modules.
    program = ("import numpy_not_installed as np\nimport torch\nfrom torch import nn\n"
               "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
               "@torch.no_grad()\ndef f():\n    return 1\nassert f() == 1\nnet = Net().cuda().half()\n")
    assert _starts(new, tmp_path, program) is None


# -- the four real projects (DESIGN.md section 7) ---------------------------------------------------

# Dependency pins the projects check at import time (transformers: dependency_versions_check).
PINNED = {"tokenizers": "0.12.1"}
DATA_SUFFIXES = (".yaml", ".yml", ".json", ".txt")


def _copy_with_data(project, folder):
    """The project's Python files (as tests/realcode.py extracts them) and its data files from the
    sdist, which some packages read at import time (ultralytics/cfg/default.yaml)."""
    import shutil
    import tarfile

    import realcode

    shutil.copytree(realcode.extract(project), folder)
    with tarfile.open(realcode.fetch_sdist(project), "r:gz") as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if member.isfile() and member.name.endswith(DATA_SUFFIXES) and parts[0] == project.folder \
                    and ".." not in parts and len(parts) > 1:
                destination = folder.joinpath(*parts[1:])
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.extractfile(member).read())
    return [folder if root == "." else folder / root for root in project.roots]


def _outcomes(site, roots, cwd):
    from fake_torch import module_names

    names = [name for root in roots for name in module_names(root)]
    results = run_modules(site, roots, names, cwd=cwd)
    base = str(roots[0].parent if len(roots) > 1 else roots[0])
    return {name.replace(base, "<project>"): error for name, error in results.items()}


def _real_projects():
    import realcode

    return [pytest.param(project, release, strategy, id=f"{project.name}-{release}-{strategy}")
            for project in realcode.PROJECTS
            for release, strategy in ((OLDEST, "manual"), (NEWEST, "manual"), (NEWEST, "agnostic"))]


@pytest.mark.slow
@pytest.mark.network
@pytest.mark.parametrize("project, release, strategy", _real_projects())
def test_fixed_real_projects_start(project, release, strategy, tmp_path):
    """`fix --unsafe-fixes` for the target, then every module's top-level code under the harness: a
    module that started before the fix must start after it. Failures of the unfixed project (missing
    data, Python 3.11 incompatibilities) are not counted."""
    site = write_site(tmp_path / "site", release, PINNED)
    before_roots = _copy_with_data(project, tmp_path / "before" / project.folder)
    after_roots = _copy_with_data(project, tmp_path / "after" / project.folder)
    proc = run_tool("npu_lint", "fix", "--unsafe-fixes", "--target-torch-npu", release, "--strategy", strategy,
                    *map(str, after_roots), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    (tmp_path / "run").mkdir()
    before = _outcomes(site, before_roots, tmp_path / "run")
    after = _outcomes(site, after_roots, tmp_path / "run")
    started = [name for name, error in before.items() if error is None]
    broken = {name: after[name] for name in started if after.get(name) is not None}
    print(f"{project.name} for {release} ({strategy}): {len(before)} modules, {len(started)} start unfixed, "
          f"{len(broken)} stop after the fix: {broken}")
    # Before `import torch_npu` was placed ahead of what reaches torch.npu, the oldest target
    # stopped on `from torch.npu... import`; nothing may stop now.
    assert not broken
