"""npu-lint: find CUDA-only PyTorch code and migrate it to Ascend NPUs."""
__version__ = "0.1.0"


def register(linter) -> None:
    """pylint's plugin entry point: `pylint --load-plugins npu_lint`."""
    from npu_lint.frontends.pylint_plugin import register as register_checkers

    register_checkers(linter)
