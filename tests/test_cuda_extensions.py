"""The CUDA extensions a project's setup.py builds, read with ast: by the class, or by a name
setup.py binds that class to (detectron2's and MinkowskiEngine's setup.py)."""
from __future__ import annotations

import textwrap

import pytest

from npu_lint.config.cuda_extensions import cuda_extensions


@pytest.mark.parametrize("setup_py, built", [
    ("CUDAExtension('pkg._C', sources)", {"pkg._C"}),
    ("extension = CppExtension\nif cuda:\n    extension = CUDAExtension\nextension('pkg._C', sources)", {"pkg._C"}),
    ("Extension = CUDAExtension if cuda else CppExtension\nExtension(name='pkg._C', sources=s)", {"pkg._C"}),
    # Near misses: C++ only, or a name never bound to CUDAExtension
    ("extension = CppExtension\nextension('pkg._C', sources)", set()),
    ("Extension('pkg._C', sources)", set()),
])
def test_names_bound_to_cuda_extension(tmp_path, setup_py, built):
    (tmp_path / "setup.py").write_text(textwrap.dedent(setup_py) + "\n")
    assert cuda_extensions(str(tmp_path)) == built
