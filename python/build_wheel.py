"""Build the mcpcheck-cli wheel from an already built mcpcheck binary.

    python3 python/build_wheel.py --binary PATH --target TRIPLE --version V --out DIR

The wheel is what maturin's `bindings = "bin"` makes, written here with the
standard library so that any binary can go in (CI packages the one `cargo
test` built; the release workflow the cross-compiled ones): the binary as
`mcpcheck_cli-V.data/scripts/mcpcheck` (pip and uv install it beside
Python's own scripts), the `mcpcheck` Python package (the binary's finder,
`python -m mcpcheck`, the pytest plugin), and the `.dist-info` metadata with
the `pytest11` entry point. Reproducible: entries in a fixed order, every
timestamp SOURCE_DATE_EPOCH (or --epoch), fixed permissions, so the same
binary gives the same bytes.

The platform tag comes from the target; on Linux the glibc version in it is
the newest one the binary's symbols ask for (read from the binary), so pip
installs it exactly where it runs.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import re
import sys
import time
import zipfile
from pathlib import Path

DIST = "mcpcheck-cli"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGE_FILES = ["__init__.py", "__main__.py", "pytest_plugin.py"]
SUMMARY = (
    "Deterministic tests for MCP servers: the mcpcheck command line tool (native binary) "
    "and a pytest plugin that runs mcpcheck suites as pytest tests."
)

# Rust targets whose wheels we know how to tag; the Linux glibc part is
# filled in from the binary.
ARCH = {"x86_64": "x86_64", "aarch64": "aarch64"}


class BuildError(Exception):
    pass


def platform_tag(target: str, binary: bytes) -> str:
    arch, _, rest = target.partition("-")
    if rest.endswith("linux-gnu"):
        if arch not in ARCH:
            raise BuildError(f"no wheel tag for the target {target}")
        major, minor = glibc_needed(binary)
        return f"manylinux_{major}_{minor}_{ARCH[arch]}"
    if rest.endswith("linux-musl"):
        if arch not in ARCH:
            raise BuildError(f"no wheel tag for the target {target}")
        return f"musllinux_1_2_{ARCH[arch]}"
    if target == "x86_64-apple-darwin":
        return "macosx_10_12_x86_64"  # rustc's minimum for this target
    if target == "aarch64-apple-darwin":
        return "macosx_11_0_arm64"
    if target == "x86_64-pc-windows-msvc":
        return "win_amd64"
    raise BuildError(
        f"no wheel tag for the target {target}: known are *-linux-gnu, *-linux-musl "
        "(x86_64, aarch64), x86_64-apple-darwin, aarch64-apple-darwin, x86_64-pc-windows-msvc"
    )


def glibc_needed(binary: bytes) -> tuple[int, int]:
    """The newest GLIBC_x.y symbol version the binary refers to (2.17 when
    it names none newer: manylinux2014's floor)."""
    versions = {(int(a), int(b)) for a, b in re.findall(rb"GLIBC_(\d+)\.(\d+)", binary)}
    if not binary.startswith(b"\x7fELF"):
        raise BuildError("the binary is not an ELF file, but the target is Linux")
    return max(versions | {(2, 17)})


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def metadata(version: str) -> str:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    headers = [
        "Metadata-Version: 2.4",
        f"Name: {DIST}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "Keywords: mcp,model-context-protocol,testing,pytest,conformance",
        "License-Expression: MIT OR Apache-2.0",
        "License-File: LICENSE-MIT",
        "License-File: LICENSE-APACHE",
        "Classifier: Development Status :: 4 - Beta",
        "Classifier: Environment :: Console",
        "Classifier: Framework :: Pytest",
        "Classifier: Intended Audience :: Developers",
        "Classifier: Programming Language :: Rust",
        "Classifier: Topic :: Software Development :: Testing",
        "Requires-Python: >=3.8",
        "Project-URL: Repository, https://github.com/mcpcheck/mcpcheck",
        "Project-URL: Documentation, https://github.com/mcpcheck/mcpcheck/blob/main/docs/install.md",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(headers) + "\n\n" + readme


def build(binary_path: Path, target: str, version: str, out: Path, epoch: int) -> Path:
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise BuildError(f"version {version!r} is not MAJOR.MINOR.PATCH")
    binary = binary_path.read_bytes()
    tag = f"py3-none-{platform_tag(target, binary)}"
    exe = "mcpcheck.exe" if "windows" in target else "mcpcheck"
    name = DIST.replace("-", "_")
    dist_info = f"{name}-{version}.dist-info"
    data = f"{name}-{version}.data"

    files: list[tuple[str, bytes, int]] = []
    for f in PACKAGE_FILES:
        files.append((f"mcpcheck/{f}", (HERE / "mcpcheck" / f).read_bytes(), 0o644))
    files.append((f"{data}/scripts/{exe}", binary, 0o755))
    files.append((f"{dist_info}/METADATA", metadata(version).encode(), 0o644))
    wheel = (
        "Wheel-Version: 1.0\n"
        "Generator: mcpcheck scripts/package\n"
        "Root-Is-Purelib: false\n"
        f"Tag: {tag}\n"
    )
    files.append((f"{dist_info}/WHEEL", wheel.encode(), 0o644))
    entry_points = "[pytest11]\nmcpcheck = mcpcheck.pytest_plugin\n"
    files.append((f"{dist_info}/entry_points.txt", entry_points.encode(), 0o644))
    for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
        files.append((f"{dist_info}/licenses/{lic}", (ROOT / lic).read_bytes(), 0o644))
    files.append((f"{dist_info}/top_level.txt", b"mcpcheck\n", 0o644))

    record = "".join(f"{path},{record_hash(content)},{len(content)}\n" for path, content, _ in files)
    record += f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode(), 0o644))

    out.mkdir(parents=True, exist_ok=True)
    wheel_path = out / f"{name}-{version}-{tag}.whl"
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # a zip cannot say before 1980
    buf = io.BytesIO()
    # The dist-info last, RECORD at the very end, as the wheel spec recommends.
    with zipfile.ZipFile(buf, "w") as z:
        for path, content, mode in files:
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so the mode below is read
            info.external_attr = (0o100000 | mode) << 16
            z.writestr(info, content, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    wheel_path.write_bytes(buf.getvalue())
    return wheel_path


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", required=True, type=Path, help="the mcpcheck binary to package")
    p.add_argument("--target", required=True, help="the Rust target the binary was built for")
    p.add_argument("--version", required=True, help="the version (the workspace's)")
    p.add_argument("--out", required=True, type=Path, help="the folder to write the wheel into")
    p.add_argument(
        "--epoch",
        type=int,
        default=int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")),
        help="the timestamp of every entry (default: SOURCE_DATE_EPOCH, else 1980-01-01)",
    )
    args = p.parse_args(argv)
    if not args.binary.is_file():
        print(f"build_wheel: --binary {args.binary}: no such file", file=sys.stderr)
        return 2
    try:
        print(build(args.binary, args.target, args.version, args.out, args.epoch))
    except BuildError as e:
        print(f"build_wheel: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
