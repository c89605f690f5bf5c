"""mcpcheck: deterministic tests for MCP (Model Context Protocol) servers.

This package carries the native ``mcpcheck`` binary (installed as a script
beside Python's own) and a pytest plugin (:mod:`mcpcheck.pytest_plugin`).
:func:`find_mcpcheck_bin` says where the binary is.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

__all__ = ["find_mcpcheck_bin"]


def _exe() -> str:
    return "mcpcheck" + (sysconfig.get_config_var("EXE") or "")


def _user_scheme() -> str:
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        return "osx_framework_user"
    return "posix_user"


def find_mcpcheck_bin() -> str:
    """The path of the ``mcpcheck`` binary installed with this package.

    Looked for where pip, uv and pipx put scripts: the scripts directory of
    this environment, then of the user scheme (``pip install --user``), then
    beside the package (``pip install --target``), then on ``PATH``.
    Raises :class:`FileNotFoundError` naming every place looked at.
    """
    exe = _exe()
    places = [
        Path(sysconfig.get_path("scripts")),
        Path(sysconfig.get_path("scripts", scheme=_user_scheme())),
        Path(__file__).resolve().parent.parent / "bin",
    ]
    for place in places:
        candidate = place / exe
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(exe)
    if found:
        return found
    looked = ", ".join(str(p) for p in places)
    raise FileNotFoundError(
        f"the {exe} binary of the mcpcheck-cli package was not found (looked in {looked} "
        "and on PATH); reinstall it with `pip install --force-reinstall mcpcheck-cli`"
    )
