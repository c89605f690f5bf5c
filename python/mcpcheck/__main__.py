"""``python -m mcpcheck ARGS``: the mcpcheck binary with ARGS."""

from __future__ import annotations

import os
import subprocess
import sys

from mcpcheck import find_mcpcheck_bin


def main() -> int:
    binary = find_mcpcheck_bin()
    if os.name == "nt":
        return subprocess.call([binary, *sys.argv[1:]])
    os.execv(binary, [binary, *sys.argv[1:]])
    return 0  # not reached: execv replaces the process


if __name__ == "__main__":
    sys.exit(main())
