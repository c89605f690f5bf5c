"""pytest plugin: every test of your mcpcheck suites is a pytest item.

Name the suites in pytest's configuration::

    # pytest.ini                       # or pyproject.toml
    [pytest]                           [tool.pytest.ini_options]
    mcpcheck_suites = evals/           mcpcheck_suites = ["evals/"]
    mcpcheck_args = --timeout 1m       mcpcheck_args = "--timeout 1m"

and ``pytest`` shows one item per suite test (``evals/search.yaml::search
finds rust``). Each passes, fails with mcpcheck's own failure text (every
failing check with what was expected, what came back and why), or is skipped
with mcpcheck's reason. ``-k``, ``-x``/``--maxfail`` and ``--junitxml`` work
as for any test; ``pytest -p no:mcpcheck`` turns the plugin off.

The selected tests run as one ``mcpcheck run`` (in parallel, as the command
line runs them) when the first of them is reached; with ``-x`` or
``--maxfail`` (and in pytest-xdist's workers) each test runs on its own, so
the run stops at the failure.
mcpcheck runs in the rootdir (the folder of the configuration file), so the
suites' relative paths mean what they mean to ``mcpcheck run`` started
there.

The fixture ``mcpcheck_run(suite, server=None, *, fixture=None,
filter=None, args=())`` runs a suite and returns the results document
(``mcpcheck run --json``, a dict) for asserts of your own.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import pytest

from mcpcheck import find_mcpcheck_bin

SUITE_SUFFIXES = (".yaml", ".yml")
_STATE = pytest.StashKey["_State"]()


class McpcheckError(Exception):
    """mcpcheck could not run: its exit code was 2 (a usage or suite error,
    whose text is the message) or it could not be started."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "mcpcheck_suites",
        type="paths",
        default=[],
        help="mcpcheck suite files or folders (relative to the configuration file): "
        "each of their tests is a pytest item",
    )
    parser.addini(
        "mcpcheck_args",
        type="args",
        default=[],
        help="more arguments for `mcpcheck run` (for example --server CMD, --fixture DIR, "
        "--timeout 1m)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_STATE] = _State(config)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = parent.config.stash[_STATE]
    if file_path.suffix in SUITE_SUFFIXES and state.is_suite_file(file_path):
        return McpcheckFile.from_parent(parent, path=file_path)
    return None


@pytest.fixture
def mcpcheck_run(pytestconfig: pytest.Config) -> Callable[..., dict[str, Any]]:
    """Run a suite with ``mcpcheck run --json`` and return the results document.

    ``suite`` is a file or folder (relative paths from the rootdir);
    ``server`` overrides every stdio server's command (``--server``);
    ``fixture`` is a fixture folder (``--fixture``); ``filter`` a glob or a
    list of globs (``--filter``); ``args`` more arguments. A failing test is
    in the document (``summary.failed``); a suite that cannot run raises
    :class:`McpcheckError` with mcpcheck's message.
    """
    state = pytestconfig.stash[_STATE]

    def run(
        suite: str | os.PathLike[str],
        server: str | None = None,
        *,
        fixture: str | os.PathLike[str] | None = None,
        filter: str | Sequence[str] | None = None,
        args: Sequence[str] = (),
    ) -> dict[str, Any]:
        cmd = ["run", "--suite", os.fspath(suite), "--json"]
        if server is not None:
            cmd += ["--server", server]
        if fixture is not None:
            cmd += ["--fixture", os.fspath(fixture)]
        globs = [filter] if isinstance(filter, str) else list(filter or [])
        for glob in globs:
            cmd += ["--filter", glob]
        cmd += list(args)
        proc = state.mcpcheck(cmd)
        if proc.returncode not in (0, 1):
            raise McpcheckError(_said(proc))
        return json.loads(proc.stdout)

    return run


class _State:
    """The plugin's settings and the results of the tests that ran."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.root = Path(config.rootpath)
        self.suites = [Path(p).resolve() for p in config.getini("mcpcheck_suites")]
        self.args: list[str] = list(config.getini("mcpcheck_args"))
        self.results: dict[tuple[str, str], _Outcome] = {}
        # Each suite file's tests as listed, before -k or -m deselect any.
        self.listed: dict[str, set[str]] = {}
        self._binary: str | None = None

    def is_suite_file(self, path: Path) -> bool:
        path = path.resolve()
        return any(path == s or s in path.parents for s in self.suites)

    def relative(self, path: Path) -> str:
        """The path mcpcheck is given: from the rootdir when inside it."""
        if not _inside(path, self.root):
            return str(path)
        return Path(os.path.relpath(path.resolve(), self.root.resolve())).as_posix()

    def mcpcheck(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        if self._binary is None:
            try:
                self._binary = find_mcpcheck_bin()
            except FileNotFoundError as e:
                raise McpcheckError(str(e)) from None
        env = dict(os.environ, NO_COLOR="1")
        try:
            return subprocess.run(
                [self._binary, *args],
                cwd=self.root,
                env=env,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                check=False,
            )
        except OSError as e:
            raise McpcheckError(f"cannot start {self._binary}: {e}") from None

    def run_items(self, items: Sequence["McpcheckItem"]) -> None:
        """Run these items' tests in one `mcpcheck run` and keep each outcome."""
        files = list(dict.fromkeys(item.spec_file for item in items))
        cmd = ["run"]
        for f in files:
            cmd += ["--suite", f]
        chosen = {item.key for item in items}
        whole = all({(f, n) for n in self.listed.get(f, ())} <= chosen for f in files)
        if not whole:
            for item in items:
                cmd += ["--filter", f"{_glob_escape(item.spec_file)}:{_glob_escape(item.test_name)}"]
        with tempfile.TemporaryDirectory(prefix="mcpcheck-pytest-") as tmp:
            junit = Path(tmp) / "junit.xml"
            cmd += ["--json", "--junit", str(junit), *self.args]
            try:
                proc = self.mcpcheck(cmd)
            except McpcheckError as e:
                for item in items:
                    self.results[item.key] = _Outcome("error", str(e), "")
                return
            if proc.returncode not in (0, 1):
                said = _said(proc)
                for item in items:
                    self.results[item.key] = _Outcome("error", said, "")
                return
            texts = _junit_texts(junit) if junit.exists() else {}
        doc = json.loads(proc.stdout)
        for test in doc.get("tests", []):
            key = (test.get("file", ""), test["name"])
            self.results[key] = _Outcome(
                test["status"],
                test.get("message", ""),
                texts.get(key, ""),
                test,
            )
        for item in items:
            self.results.setdefault(
                item.key,
                _Outcome(
                    "error",
                    f"mcpcheck did not report {item.test_name!r} of {item.spec_file}",
                    "",
                ),
            )


def _all_items(session: pytest.Session) -> Iterator["McpcheckItem"]:
    return (i for i in session.items if isinstance(i, McpcheckItem))


class _Outcome:
    def __init__(self, status: str, message: str, detail: str, test: dict[str, Any] | None = None) -> None:
        self.status = status
        self.message = message
        self.detail = detail
        self.test = test or {}


class McpcheckFile(pytest.File):
    """A suite file: one item per test, as `mcpcheck run --list` names them."""

    def collect(self) -> Iterable["McpcheckItem"]:
        state = self.config.stash[_STATE]
        spec_file = state.relative(self.path)
        proc = state.mcpcheck(["run", "--suite", spec_file, "--list", "--json"])
        if proc.returncode != 0:
            raise McpcheckError(_said(proc))
        tests = json.loads(proc.stdout)["tests"]
        for test in tests:
            state.listed.setdefault(test["file"], set()).add(test["name"])
        for test in tests:
            yield McpcheckItem.from_parent(
                self,
                name=test["name"],
                spec_file=test["file"],
                line=int(test.get("line") or 1),
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[override]
        if isinstance(excinfo.value, McpcheckError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class McpcheckFailure(Exception):
    """A suite test that did not pass: mcpcheck's text for it."""


class McpcheckItem(pytest.Item):
    """One test of a suite file."""

    def __init__(self, *, spec_file: str, line: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec_file = spec_file
        self.test_name = self.name
        self.line = line

    @property
    def key(self) -> tuple[str, str]:
        return (self.spec_file, self.test_name)

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        if self.key not in state.results:
            # With -x/--maxfail each test runs alone, so the run stops at the
            # failure; so under pytest-xdist, whose workers each run a share.
            if self.config.option.maxfail or hasattr(self.config, "workerinput"):
                batch: list[McpcheckItem] = [self]
            else:
                batch = [i for i in _all_items(self.session) if i.key not in state.results]
                if self not in batch:
                    batch.append(self)
            state.run_items(batch)
        outcome = state.results[self.key]
        test = outcome.test
        if "duration_ms" in test:
            self.user_properties.append(("mcpcheck.duration_ms", test["duration_ms"]))
        if test.get("score") is not None:
            self.user_properties.append(("mcpcheck.score", test["score"]))
        if outcome.status == "pass":
            return
        if outcome.status == "skip":
            reason = outcome.message or "skipped by mcpcheck"
            try:
                # Reported at the test's file and line (as a skip mark is),
                # not at this line of the plugin.
                skip = pytest.skip.Exception(reason, _use_item_location=True)
            except TypeError:  # a pytest without that argument
                skip = pytest.skip.Exception(reason)
            raise skip
        label = {"fail": "FAIL", "error": "ERROR"}.get(outcome.status, outcome.status.upper())
        text = outcome.detail or outcome.message
        raise McpcheckFailure(f"{label}  {self.test_name} ({self.spec_file}:{self.line})\n{text}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None):  # type: ignore[override]
        if isinstance(excinfo.value, (McpcheckFailure, McpcheckError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.line - 1, f"mcpcheck: {self.test_name}"


def _said(proc: subprocess.CompletedProcess[str]) -> str:
    text = (proc.stderr or "").strip() or (proc.stdout or "").strip()
    return text or f"mcpcheck exited with {proc.returncode}"


def _inside(path: Path, root: Path) -> bool:
    path, root = path.resolve(), root.resolve()
    return path == root or root in path.parents


def _glob_escape(text: str) -> str:
    """`text` as a glob that matches only itself: each glob character as a
    one-character class."""
    out = []
    for ch in text:
        if ch in "*?[]{}":
            out.append(f"[{ch}]")
        elif ch == "\\":
            out.append("[\\\\]")
        else:
            out.append(ch)
    return "".join(out)


def _junit_texts(path: Path) -> dict[tuple[str, str], str]:
    """Each failing or erroring test's text in mcpcheck's JUnit report: every
    failing check with what was expected, what came back and why."""
    texts: dict[tuple[str, str], str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        for tag in ("failure", "error"):
            node = case.find(tag)
            if node is not None:
                key = (case.get("file", ""), case.get("name", ""))
                texts[key] = (node.text or node.get("message") or "").rstrip()
    return texts
