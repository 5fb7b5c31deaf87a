import os
import sys

# `python -m npu_lint` puts the working directory first on sys.path; the `npu-lint` script puts
# its own folder there. From a project's root astroid would then find the project's modules and
# infer through them (`make().cuda()` a Tensor, where `npu-lint` says "could not be inferred"),
# so one command would answer two ways, and the result cache tracks none of those modules.
if not sys.flags.safe_path and sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
    del sys.path[0]

from npu_lint.frontends.launcher import main  # noqa: E402

sys.exit(main())
