"""The torch model: stubs of torch's public API for astroid, built from ``torch_api.json``.

``install()`` makes astroid answer every ``torch``/``torch_npu`` module from stubs, with or
without torch installed, so inference is fast and gives the same results everywhere.
``public_names()``/``has_module()`` expose the recorded API to rules.  The data is written by
``python -m npu_lint.knowledge.torch_model.generate`` (see ``data.py`` for its layout).
"""

from __future__ import annotations

from npu_lint.knowledge.torch_model.data import ancestors, has_module, public_names, submodules, torch_version

__all__ = ["install", "ancestors", "has_module", "public_names", "submodules", "torch_version"]


def install(manager=None) -> None:
    """Serve torch stubs from astroid's module cache (idempotent, cheap when repeated)."""
    # Imported here so that reading the data (rules, generator) does not import astroid.
    from npu_lint.knowledge.torch_model.hook import install as _install  # pylint: disable=import-outside-toplevel

    _install(manager)
