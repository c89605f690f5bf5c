"""The pytest plugin of the installed mcpcheck-cli wheel, end to end: real
pytest runs (subprocesses) over real suites against `mcpcheck serve`."""

from __future__ import annotations

import subprocess
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import mcpcheck
from mcpcheck import find_mcpcheck_bin

BIN = find_mcpcheck_bin()
SERVER = f"server:\n  command: {BIN}\n  args: [serve]\n"


def echo_test(name: str, message: str, expect: str) -> str:
    return f"name: {name}\n{SERVER}assert:\n  tool: echo\n  args: {{message: {message}}}\n  expect:\n{expect}"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with a mixed suite: 3 passing tests, 2 failing, 1 skipped."""
    evals = pytester.mkdir("evals")
    (evals / "a_echo.yaml").write_text(echo_test("echo returns its message", "hello", "    equals: hello\n"))
    (evals / "b_goodbye.yaml").write_text(
        echo_test("echo says goodbye", "hello", "    contains: [goodbye]\n    equals: bye\n")
    )
    (evals / "c_skip.yaml").write_text(
        echo_test("needs a token", "hi", "    contains: [hi]\n").replace(
            "server:", "skip_unless_env: [MCPCHECK_PLUGIN_TEST_UNSET]\nserver:", 1
        )
    )
    (evals / "nested").mkdir()
    (evals / "nested" / "d_composed.yaml").write_text(
        f"servers:\n  s:\n    command: {BIN}\n    args: [serve]\ntests:\n"
        "  - name: add works\n    server: s\n"
        "    assert: {tool: add, args: {a: 2, b: 3}, expect: {contains: ['5']}}\n"
        "  - name: 'add {wrong} answer?*'\n    server: s\n"
        "    assert: {tool: add, args: {a: 2, b: 3}, expect: {contains: ['6']}}\n"
        "  - name: lorem is not empty\n    server: s\n"
        "    assert: {tool: echo, args: {message: lorem}, expect: {not_empty: true}}\n"
    )
    # Not a suite folder: its YAML is not collected.
    pytester.mkdir("data")
    (pytester.path / "data" / "config.yaml").write_text("not: a suite\n")
    pytester.makeini("[pytest]\nmcpcheck_suites = evals/\n")
    return pytester


def test_the_plugin_and_binary_come_from_the_installed_wheel() -> None:
    source = Path(__file__).resolve().parents[1]
    assert source not in Path(mcpcheck.__file__).resolve().parents, mcpcheck.__file__
    assert Path(BIN).parent == Path(sysconfig.get_path("scripts")), BIN


def test_one_item_per_suite_test(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--collect-only", "-q")
    assert result.ret == 0, result.stdout.str()
    items = [line for line in result.outlines if "::" in line]
    assert items == [
        "evals/a_echo.yaml::echo returns its message",
        "evals/b_goodbye.yaml::echo says goodbye",
        "evals/c_skip.yaml::needs a token",
        "evals/nested/d_composed.yaml::add works",
        "evals/nested/d_composed.yaml::add {wrong} answer?*",
        "evals/nested/d_composed.yaml::lorem is not empty",
    ]


def test_each_item_passes_fails_or_skips_with_mcpchecks_text(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-rs")
    result.assert_outcomes(passed=3, failed=2, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*FAIL  echo says goodbye (evals/b_goodbye.yaml:1)",
            "*✗ contains (line 9)",
            "*expected: contains 'goodbye'",
            "*actual:   'hello'",
            "*reason:   expected text to contain 'goodbye'",
            "*✗ equals (line 10)",
            "*reason:   expected exact match: want 'bye', got 'hello'",
        ]
    )
    result.stdout.fnmatch_lines(["*FAIL  add {wrong} answer[?][*] (evals/nested/d_composed.yaml:9)"])
    result.stdout.fnmatch_lines(["SKIPPED *skip_unless_env: MCPCHECK_PLUGIN_TEST_UNSET is not set"])
    # No Python traceback: the failure is mcpcheck's text alone.
    assert "Traceback" not in result.stdout.str()
    assert "pytest_plugin.py" not in result.stdout.str()


def test_junitxml_is_valid_and_carries_the_failure_text(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--junitxml=report.xml")
    assert result.ret == 1
    root = ET.parse(project.path / "report.xml").getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors")) == (
        "6",
        "2",
        "1",
        "0",
    )
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert set(cases) == {
        "echo returns its message",
        "echo says goodbye",
        "needs a token",
        "add works",
        "add {wrong} answer?*",
        "lorem is not empty",
    }
    failure = cases["echo says goodbye"].find("failure")
    assert failure is not None
    assert "reason:   expected text to contain 'goodbye'" in (failure.text or "")
    assert cases["needs a token"].find("skipped") is not None
    assert cases["echo returns its message"].find("failure") is None


def test_k_runs_only_the_selected_tests(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-k", "echo and not goodbye", "-v")
    result.assert_outcomes(passed=1, deselected=5)
    result.stdout.fnmatch_lines(["*a_echo.yaml::echo returns its message PASSED*"])
    # A name with glob characters is selected exactly.
    result = project.runpytest_subprocess("-k", "wrong")
    result.assert_outcomes(failed=1, deselected=5)


def test_x_stops_at_the_first_failure(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-x")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])


def test_p_no_mcpcheck_turns_the_plugin_off(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-p", "no:mcpcheck", "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "yaml::" not in result.stdout.str()


def test_pyproject_ini_options(pytester: pytest.Pytester) -> None:
    (pytester.mkdir("suites") / "echo.yaml").write_text(echo_test("echo", "hi", "    equals: hi\n"))
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nmcpcheck_suites = ["suites"]\n')
    result = pytester.runpytest_subprocess("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*suites/echo.yaml::echo PASSED*"])


def test_mcpcheck_args_reach_the_run(project: pytest.Pytester) -> None:
    # --server replaces every stdio server: a server that does not exist errors every test.
    project.makeini("[pytest]\nmcpcheck_suites = evals/nested\nmcpcheck_args = --server /nonexistent/mcp-server\n")
    result = project.runpytest_subprocess()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*ERROR  add works*", "*/nonexistent/mcp-server*was not found*"])


def test_a_suite_with_errors_is_a_collection_error_with_mcpchecks_diagnostic(project: pytest.Pytester) -> None:
    (project.path / "evals" / "broken.yaml").write_text(f"name: broken\n{SERVER}assert:\n  tool: echo\n  expct: {{}}\n")
    result = project.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting evals/broken.yaml*",
            "error: unknown key `expct` in `assert`",
            " --> evals/broken.yaml:7:3",
            "*hint: did you mean `expect`?",
        ]
    )


def test_the_mcpcheck_run_fixture_returns_the_results_document(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_custom=f"""
import pytest
from mcpcheck.pytest_plugin import McpcheckError

def test_document(mcpcheck_run):
    doc = mcpcheck_run("evals/b_goodbye.yaml")
    assert doc["version"] == 1
    assert doc["summary"]["failed"] == 1
    reasons = [c["reason"] for c in doc["tests"][0]["checks"] if c["status"] == "fail"]
    assert "expected text to contain 'goodbye'" in reasons

def test_server_and_filter(mcpcheck_run):
    doc = mcpcheck_run("evals/nested", server="{BIN} serve", filter="add*")
    assert [t["name"] for t in doc["tests"]] == ["add works", "add {{wrong}} answer?*"]
    assert [t["status"] for t in doc["tests"]] == ["pass", "fail"]

def test_a_suite_that_cannot_run_raises(mcpcheck_run):
    with pytest.raises(McpcheckError, match="evals/missing.yaml: No such file"):
        mcpcheck_run("evals/missing.yaml")
"""
    )
    result = project.runpytest_subprocess("test_custom.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_the_selected_tests_run_in_one_mcpcheck_run_except_under_x_or_in_xdist_workers(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpcheck import pytest_plugin

    runs: list[list[str]] = []
    real_run = subprocess.run

    def counting(cmd, *args, **kwargs):  # type: ignore[no-untyped-def]
        if cmd[1:2] == ["run"] and "--list" not in cmd:
            runs.append(cmd)
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(pytest_plugin.subprocess, "run", counting)
    project.runpytest_inprocess().assert_outcomes(passed=3, failed=2, skipped=1)
    assert len(runs) == 1, runs
    # Every test of every file selected: no --filter.
    assert "--filter" not in runs[0]

    # A file deselected as a whole is left out; the others run whole.
    runs.clear()
    project.runpytest_inprocess("-k", "not goodbye").assert_outcomes(passed=3, failed=1, skipped=1, deselected=1)
    assert len(runs) == 1, runs
    assert "evals/b_goodbye.yaml" not in runs[0] and "--filter" not in runs[0], runs[0]
    # Part of a file selected: each selected test is named exactly.
    runs.clear()
    project.runpytest_inprocess("-k", "not wrong").assert_outcomes(passed=3, failed=1, skipped=1, deselected=1)
    assert len(runs) == 1, runs
    assert runs[0].count("--filter") == 5, runs[0]

    runs.clear()
    project.runpytest_inprocess("-x").assert_outcomes(passed=1, failed=1)
    assert len(runs) == 2, runs

    runs.clear()
    project.makeconftest("def pytest_configure(config):\n    config.workerinput = {'workerid': 'gw0'}\n")
    project.runpytest_inprocess("-p", "no:junitxml").assert_outcomes(passed=3, failed=2, skipped=1)
    assert len(runs) == 6, runs
