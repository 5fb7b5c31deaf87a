import sys

from npu_lint.frontends.cli import main

sys.exit(main())
