"""Generate data/torch_surface.yaml: per paired torch release, the torch names fixes write.

    python -m npu_lint.generate.torch_surface           # (re)write the data file
    python -m npu_lint.generate.torch_surface --check   # exit 1 if the committed file is stale

Read statically (zip + ast, never imported) from the aarch64 CPU torch wheels in
`~/.cache/npu-lint/torch-wheels`. From torch 2.11 on, PyPI's aarch64 wheels are CUDA builds of over
400 MB; their facts are kept by hand below (HAND_KEPT), each with its source, and marked so in the file.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import zipfile
from pathlib import Path

from npu_lint.generate.wheel_cache import cache_root
from npu_lint.generate.yaml_output import dump_yaml, write_or_check

GENERATOR = "python -m npu_lint.generate.torch_surface"
DEFAULT_OUTPUT = Path(__file__).resolve().parents[2] / "data" / "torch_surface.yaml"
# The torch each supported torch_npu line pairs with (data/torch_npu_releases.yaml), oldest first.
TORCH_RELEASES = ("2.1.0", "2.3.1", "2.4.0", "2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.0", "2.10.0",
                  "2.11.0", "2.12.0", "2.13.0", "2.14.0")
# Top-level names fixes may write, found as `def NAME` in the file that defines them.
DEFINED = {
    "torch.get_device_module": "torch/__init__.py",
    "torch.distributed.get_default_backend_for_device": "torch/distributed/distributed_c10d.py",
}
# torch.cuda.amp names torch deprecates for `torch.amp.X(device_type)`: file -> public names.
DEPRECATION_FILES = {
    "torch/cuda/amp/autocast_mode.py": ("autocast", "custom_fwd", "custom_bwd"),
    "torch/cuda/amp/grad_scaler.py": ("GradScaler",),
}

_SOURCE_NOTE = ("torch {version}: a CUDA build of over 400 MB on PyPI (aarch64); read once by hand "
                "(wheel sha256 {sha}), then deleted. Hand-kept.")
# torch.accelerator `__all__` and the names that carry over, for the releases not read here.
_ACCELERATOR_2_10 = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream",
                     "device_count", "device_index", "empty_cache", "get_device_capability", "get_memory_info",
                     "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
                     "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
                     "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
                     "synchronize"]
HAND_KEPT = {
    "2.11.0": {"source": _SOURCE_NOTE.format(version="2.11.0", sha="d91aac77..."),
               "accelerator": _ACCELERATOR_2_10},
    # Not read: only the names present both in 2.11.0 and in 2.13.0 are assumed.
    "2.12.0": {"source": "torch 2.12.0: wheel NOT read (426 MB). Unverified: assumed to have what both "
                         "2.11.0 and 2.13.0 have.",
               "accelerator": _ACCELERATOR_2_10},
    "2.13.0": {"source": _SOURCE_NOTE.format(version="2.13.0", sha="092790c6..."),
               "accelerator": _ACCELERATOR_2_10 + ["Graph", "empty_host_cache"]},
    "2.14.0": {"source": _SOURCE_NOTE.format(version="2.14.0", sha="4dbea8a1..."),
               "accelerator": _ACCELERATOR_2_10 + ["Graph", "empty_host_cache"]},
}
# torch.amp, get_device_module, get_default_backend_for_device and the torch.cuda.amp deprecations
# are present in every read release from where they start; for hand-kept releases they carry over
# from 2.10.0 (research notes: torch.amp.GradScaler and the deprecations seen in 2.11, 2.13, 2.14).


def wheel_path(folder: Path, version: str) -> Path | None:
    found = sorted(folder.glob(f"torch-{version}-cp311-*.whl"))
    return found[0] if found else None


def _public_bound_names(source: str) -> list[str]:
    """Names a module binds at its top level by import or definition (public ones)."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return sorted(n for n in names if not n.startswith("_"))


def _dunder_all(source: str) -> list[str]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return sorted(ast.literal_eval(node.value))
    return []


def read_torch_wheel(path: Path) -> dict:
    """{'names': [...], 'deprecated': [...]} of one torch wheel."""
    with zipfile.ZipFile(path) as wheel:
        files = set(wheel.namelist())

        def text(name: str) -> str:
            return wheel.read(name).decode("utf-8")

        names = {f"torch.amp.{n}" for n in _public_bound_names(text("torch/amp/__init__.py"))}
        if "torch/accelerator/__init__.py" in files:
            names.add("torch.accelerator")
            names.update(f"torch.accelerator.{n}" for n in _dunder_all(text("torch/accelerator/__init__.py")))
        for name, file in DEFINED.items():
            if re.search(rf"^def {name.rsplit('.', 1)[1]}\(", text(file), re.M):
                names.add(name)
        deprecated = set()
        for file, public in DEPRECATION_FILES.items():
            source = text(file) if file in files else ""
            for name in public:
                if re.search(rf"`torch\.cuda\.amp\.{name}\(args\.\.\.\)` is deprecated", source):
                    deprecated.add(f"torch.cuda.amp.{name}")
    return {"names": sorted(names), "deprecated": sorted(deprecated)}


def _hand_kept(version: str, previous: dict) -> dict:
    entry = HAND_KEPT[version]
    names = {n for n in previous["names"] if not n.startswith("torch.accelerator.")}
    names.update(f"torch.accelerator.{n}" for n in entry["accelerator"])
    return {"names": sorted(names), "deprecated": previous["deprecated"]}


def build(folder: Path) -> dict:
    per_release, sources = {}, {}
    previous = None
    for version in TORCH_RELEASES:
        if version in HAND_KEPT:
            facts, sources[version] = _hand_kept(version, previous), HAND_KEPT[version]["source"]
        else:
            path = wheel_path(folder, version)
            if path is None:
                raise SystemExit(f"{GENERATOR}: torch {version} wheel not in {folder}; "
                                 f"pip download --no-deps --platform manylinux2014_aarch64 "
                                 f"--python-version 3.11 torch=={version}")
            facts, sources[version] = read_torch_wheel(path), f"read from {path.name}"
        per_release[version] = facts
        previous = facts
    return _compact(per_release, sources)


def _compact(per_release: dict, sources: dict) -> dict:
    """The oldest release in full, every later one as what it adds and removes."""
    releases = {}
    previous = None
    for version, facts in per_release.items():
        entry = {"source": sources[version]}
        for key in ("names", "deprecated"):
            if previous is None:
                entry[key] = facts[key]
            else:
                added = sorted(set(facts[key]) - set(previous[key]))
                removed = sorted(set(previous[key]) - set(facts[key]))
                if added:
                    entry[f"{key}_added"] = added
                if removed:
                    entry[f"{key}_removed"] = removed
        releases[version] = entry
        previous = facts
    return {"generated_by": GENERATOR, "releases": releases}


HEADER = """\
# Generated by `{generator}`; do not edit by hand (`--check` tells when it is stale).
# Per torch release paired with a torch_npu release: the torch names fixes write (torch.amp.*,
# torch.accelerator.*, torch.get_device_module, torch.distributed.get_default_backend_for_device)
# and the torch.cuda.amp names torch deprecates. The oldest release is listed in full; each later
# one lists `names_added` / `names_removed` / `deprecated_added` / `deprecated_removed`.
# `source` says where each release's facts come from; "Hand-kept" ones were not read by this generator.
"""


def render(document: dict) -> str:
    return HEADER.format(generator=GENERATOR) + dump_yaml(document)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=GENERATOR, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the data file is stale")
    parser.add_argument("--wheels", type=Path, default=cache_root() / "torch-wheels")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    text = render(build(args.wheels))
    return 0 if write_or_check(args.output, text, args.check, GENERATOR) else 1


if __name__ == "__main__":
    sys.exit(main())
