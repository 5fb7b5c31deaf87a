"""The per-release torch_npu facts: loader behaviour (offline) and the generator's --check (network)."""
from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from npu_lint.knowledge import release_data
from npu_lint.knowledge.release_data import (
    apply_changes, default_release, facts, first_release_with, load_release_data, normalize_release, releases,
    releases_with
)

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data" / "torch_npu_releases.yaml"
NEWEST = "2.14.0"


def test_releases_are_the_supported_lines_oldest_first():
    assert releases()[0] == "2.1.0.post17"
    assert default_release() == releases()[-1] == NEWEST
    assert len(releases()) == 13
    assert [facts(r).torch_version for r in releases()][:3] == ["2.1.0", "2.3.1", "2.4.0"]


@pytest.mark.parametrize("text, exact", [
    ("2.13", "2.13.0"), ("2.13.0", "2.13.0"), (" 2.14.0 ", "2.14.0"),
    ("2.1", "2.1.0.post17"), ("2.1.0", "2.1.0.post17"), ("2.1.0.post17", "2.1.0.post17"),
    ("2.10", "2.10.0.post7"),
])
def test_normalize_release_accepts_short_and_exact_forms(text, exact):
    assert normalize_release(text) == exact


@pytest.mark.parametrize("text", ["2.2", "2.1.0.post8", "3", "", "latest"])
def test_normalize_release_rejects_unsupported_with_the_supported_list(text):
    with pytest.raises(ValueError, match=r"supported: 2\.1\.0\.post17, .*2\.14\.0"):
        normalize_release(text)


def test_newest_release_matches_the_design_numbers():
    newest = facts(default_release())
    assert len(newest.npu_all) == 144
    assert len(newest.torch_cuda_fn_white_list) == 24
    assert len(newest.torch_fn_white_list) == 47
    assert len(newest.torch_tensor_fn_white_list) == 8
    assert len(newest.torch_module_fn_white_list) == 2
    assert newest.device_kwargs == {"device", "device_type", "map_location", "device_id"}
    assert newest.has_npu_extension


def test_cuda_only_names_are_not_offered_by_torch_npu():
    npu_all = facts(default_release()).npu_all
    assert "synchronize" in npu_all and "NPUGraph" in npu_all
    for cuda_only in ("nvtx", "jiterator", "get_arch_list", "get_gencode_flags", "memory_usage",
                      "power_draw", "temperature", "clock_rate", "cudart", "tunable",
                      "CUDAPluggableAllocator"):
        assert cuda_only not in npu_all


def test_submodules_of_torch_npu_npu():
    submodules = facts(default_release()).npu_submodules
    assert {"amp", "random", "memory", "streams", "graphs", "mstx"} <= set(submodules)
    assert {"autocast", "GradScaler", "custom_fwd", "custom_bwd"} <= submodules["amp"]
    assert "ExternalStream" in submodules["streams"]


def test_first_release_with_names_added_later():
    assert first_release_with("torch_cuda_fn_white_list", "get_rng_state") == "2.13.0"
    assert first_release_with("npu_all", "set_op_timeout_ms") == "2.6.0.post5"
    assert first_release_with("npu_submodules.mstx", "annotate") == "2.7.1.post11"
    assert first_release_with("npu_all", "synchronize") == releases()[0]
    assert first_release_with("npu_all", "nvtx") is None


def test_releases_with_shows_gaps_between_post_releases():
    # 2.8.0.post5 is older than 2.7.1.post11 and lacks what that post-release added.
    having = releases_with("npu_all", "ExternalStream")
    assert "2.7.1.post11" in having and "2.8.0.post5" not in having


def test_first_release_with_an_unknown_fact_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown release fact"):
        first_release_with("npu_everything", "x")
    with pytest.raises(ValueError, match="not a set"):
        first_release_with("has_npu_extension", "x")


def test_transfer_to_npu_patches_read_from_the_wheel():
    newest = facts(default_release())
    assert newest.module_patches["torch.cuda"] == "torch_npu.npu"
    assert newest.module_patches["torch.cuda.amp"] == "torch_npu.npu.amp"
    assert newest.module_patches["torch.profiler.ProfilerActivity.CUDA"] == \
        "torch_npu.profiler.ProfilerActivity.NPU"
    assert newest.aliases["torch.Tensor.cuda"] == "torch.Tensor.npu"
    assert newest.aliases["torch.Tensor.is_cuda"] == "torch.Tensor.is_npu"
    assert newest.aliases["torch.nn.Module.cuda"] == "torch.nn.Module.npu"
    assert newest.aliases["torch.cuda.CUDAGraph"] == "torch.npu.NPUGraph"
    assert newest.aliases["torch.cuda.DoubleTensor"] == "torch.npu.FloatTensor"
    assert newest.aliases["torch.distributed.is_nccl_available"] == "torch.distributed.is_hccl_available"
    assert "torch.distributed.init_process_group" in newest.wrapped["_wrapper_hccl"]
    assert newest.string_replacements["_wrapper_hccl"]["nccl"] == "hccl"
    # list references are expanded: torch.{torch_fn_white_list} -> torch.zeros, ...
    assert {"torch.zeros", "torch.Tensor.to", "torch.nn.Module.to_empty",
            "torch.cuda.set_device"} <= newest.device_rewritten


def test_apis_config_keeps_real_is_available_for_libraries():
    config = facts(default_release()).apis_config
    assert set(config) == {"transformers", "accelerate", "peft", "trl"}
    assert sum(len(e.functions) + len(e.methods) for e in config.values()) == 28
    assert "transformers.utils.import_utils.is_torch_cuda_available" in config["transformers"].functions
    assert config["transformers"].min_version == "4.32.0"


def test_npu_ops_and_provenance():
    newest = facts(NEWEST)
    assert len(newest.npu_ops) == 119 and "npu_fusion_attention" in newest.npu_ops
    assert newest.torch_version == "2.14.0"
    assert newest.wheel.startswith("torch_npu-2.14.0-") and len(newest.sha256) == 64


def test_facts_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts(NEWEST).npu_all = frozenset()
    with pytest.raises(TypeError):
        facts(NEWEST).npu_submodules["amp"] = frozenset()


def test_loading_needs_no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the loader opened a socket")
    monkeypatch.setattr(socket, "socket", refuse)
    data = load_release_data(DATA)
    assert data.releases == releases()


# -- validation: a broken file names the file and the field --------------------------------------

def _broken(tmp_path, change):
    document = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    change(document)
    path = tmp_path / "torch_npu_releases.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, field", [
    (lambda d: d["base"].pop("npu_all"), "release 2.1.0.post17: field npu_all: missing"),
    (lambda d: d["releases"][2].update(sha256=5), "field releases[2].sha256: expected a string"),
    (lambda d: d.pop("changes"), "field changes: missing"),
    (lambda d: d["base"].update(has_npu_extension="yes"), "field has_npu_extension: expected true or false"),
    (lambda d: d["base"]["transfer_to_npu"].update(aliases=["no arrow"]), "transfer_to_npu/aliases[0]"),
    (lambda d: d["changes"]["2.3.1.post6"].update(npu_all={"added": "x"}),
     "field changes[2.3.1.post6][npu_all].added: expected a list"),
    (lambda d: d["changes"].pop("2.13.0"), "field changes: keys must be the releases"),
    (lambda d: d["base"].update(surprise=[]), "field surprise: unknown"),
    (lambda d: d.update(schema=99), "field schema: version 99"),
])
def test_validation_errors_name_file_and_field(tmp_path, change, field):
    path = _broken(tmp_path, change)
    with pytest.raises(ValueError) as raised:
        load_release_data(path)
    assert str(raised.value).startswith(str(path))
    assert field in str(raised.value)


def test_not_yaml_is_a_value_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("releases: [", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.yaml: not valid YAML"):
        load_release_data(path)


# -- the change scheme ------------------------------------------------------------------------------

def test_encoded_changes_rebuild_the_next_release():
    from npu_lint.generate.torch_npu_releases import encode_change
    before = {"a": ["x", "y"], "b/c": "1", "gone": ["z"], "same": [1]}
    after = {"a": ["y", "w"], "b/c": "2", "new": [], "same": [1]}
    change = encode_change(before, after)
    assert change == {"a": {"added": ["w"], "removed": ["x"]}, "b/c": {"value": "2"},
                      "gone": {"deleted": True}, "new": {"value": []}}
    assert apply_changes(before, change, "test") == {**after, "a": ["w", "y"]}


def test_the_shipped_file_is_found_from_a_source_checkout():
    assert Path(str(release_data.data_resource())).resolve() == DATA.resolve()


# -- the generator, against PyPI -----------------------------------------------------------------------

@pytest.mark.network
def test_committed_data_matches_the_wheels():
    result = subprocess.run(
        [sys.executable, "-m", "npu_lint.generate.torch_npu_releases", "--check", "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr


def test_which_targets_load_torch_npu_on_import_torch():
    # The wheel's `[torch.backends] torch_npu = torch_npu:_autoload` entry point, from 2.5.1.post1 on;
    # torch itself loads such entry points from 2.5 on.
    assert releases_with_autoload() == releases()[3:]
    assert facts("2.5.1.post1").autoload_entry_point == "torch_npu:_autoload"
    assert facts("2.4.0.post4").autoload_entry_point is None
    assert [facts(r).torch_loads_torch_npu for r in releases()[:4]] == [False, False, False, True]
    assert release_data.torch_autoloads_backends("2.5.0")
    assert not release_data.torch_autoloads_backends("2.4.1")
    assert release_data.torch_autoloads_backends("2.10.0")


def releases_with_autoload():
    return tuple(r for r in releases() if facts(r).autoload_entry_point is not None)


def test_names_torch_npu_npu_binds_outside_its_all_are_facts_too():
    # deepspeed and fairscale use torch.cuda.default_generators and _lazy_call; torch_npu/npu/__init__.py
    # defines both without listing them in __all__, and torch.npu is that module.
    for release in releases():
        unlisted = facts(release).npu_unlisted
        assert {"default_generators", "_lazy_call", "_lazy_init"} <= unlisted
        assert not unlisted & facts(release).npu_all
        assert not {"os", "torch", "Tuple", "__getattr__"} & unlisted  # other modules' names, dunders
    assert "_LegacyStorage" not in facts(default_release()).npu_unlisted  # deleted again with `del`
