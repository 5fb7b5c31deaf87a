"""The `npu-lint` command: asks a warm process when one runs (`npu-lint daemon start`), else runs
the CLI here. Imports nothing heavy before it knows which."""
from __future__ import annotations

import sys


def main() -> int:
    from npu_lint.frontends import warm_client

    argv = sys.argv[1:]
    if warm_client.wanted(argv):
        status = warm_client.run(argv)
        if status is not None:
            return status
    from npu_lint.frontends.cli import main as run_here

    return run_here()
