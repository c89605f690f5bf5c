//! mcpcheck-web: wasm-bindgen exports of the mcpcheck core.
//!
//! A translator, nothing more: each export turns its JavaScript arguments
//! into JSON values, calls one function of `mcpcheck_core::api`, and turns
//! the result back into a plain JavaScript object (the shapes of the results
//! document). A problem with the input crosses as a thrown `Error` whose
//! message is the core's, with the core's diagnostics attached. No check, path
//! or score is decided here; the npm package `mcpcheck` and the playground
//! both load this module, so they give the CLI's verdicts word for word.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

use mcpcheck_core::api;
use mcpcheck_core::diag::{self, Diagnostic, Paint};
use mcpcheck_core::suite;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The label expectation documents carry in diagnostics.
const EXPECT_FILE: &str = "<expect>";
const RESPONSE_FILE: &str = "<response>";
const TRACE_FILE: &str = "<trace>";
const TRAJECTORY_FILE: &str = "<trajectory>";
const CAPTURE_FILE: &str = "<capture>";

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** An expectation document, as `mcpcheck check --expect` reads it: `expect`
 * in either form (mcp-assert's map or a list of `{target, matcher, weight,
 * name}` items) with optional `threshold`, `derivedMetrics`, `name` and
 * `method` (default `tools/call`). A document without `expect` is read as the
 * `expect` itself. Given as YAML/JSON text or as an object. */
export type Expectations = string | { [key: string]: unknown } | unknown[];

/** A response: a raw MCP result (`{content: [...]}`), a JSON-RPC response
 * envelope, or an Observation; as JSON text or as an object. */
export type McpResponse = string | { [key: string]: unknown };

/** Inputs a check may need that are not in the response. Every key is
 * optional. */
export interface CheckOptions {
  /** Today's date (`YYYY-MM-DD`) for `dates_within_days`. */
  today?: string;
  /** File contents after the call, by path as the expectation wrote it;
   * `null` means the file does not exist. */
  files?: { [path: string]: string | null };
  /** File contents before the call (for `file_unchanged`). */
  files_before?: { [path: string]: string | null };
  /** The progress token sent with the call. */
  progress_token?: unknown;
}

/** A trace: YAML/JSON text, a JSONL audit log, a list of `{tool, args}`
 * calls, or an object with a `trace` list. */
export type Trace =
  | string
  | { tool: string; args?: { [key: string]: unknown } }[]
  | { trace: { tool: string; args?: { [key: string]: unknown } }[] };

/** Trajectory assertions (`order`, `presence`, `absence`, `args_contain`):
 * text, a list, or an object with a `trajectory` list (optionally `name` and
 * `threshold`). */
export type TrajectoryAssertions = string | unknown[] | { [key: string]: unknown };

export type TestStatus = "pass" | "fail" | "error" | "skip";
export type CheckStatus = "pass" | "fail" | "error";

/** One check of a test: what was expected, what was found, and why it
 * failed. */
export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** The path the check looked at, e.g. `text` or `json.results[*].id`. */
  target: string;
  /** The matcher, e.g. `contains`, `json_path`, `schema`. */
  matcher: string;
  expected: string;
  actual: string;
  /** One line; absent when the check passed. */
  reason?: string;
  weight: number;
  /** The assert-set the check belongs to. */
  set?: string;
  /** The line of the check in the expectation text. */
  line?: number;
}

export interface SetResult {
  name: string;
  score: number;
  threshold: number;
  weight: number;
  passed: boolean;
}

export interface MetricResult {
  name: string;
  value: number;
  threshold?: number;
  passed?: boolean;
  /** Names the metric's formula referenced that matched nothing. */
  unresolved?: string[];
}

/** One test outcome: an element of the results document's `tests`. */
export interface TestResult {
  name: string;
  file: string;
  line?: number;
  status: TestStatus;
  duration_ms: number;
  /** The reasons of the failing checks, or why the test could not run. */
  message?: string;
  checks: CheckResult[];
  /** The weighted score, rounded to three decimals, when a threshold is set. */
  score?: number;
  threshold?: number;
  sets?: SetResult[];
  derived_metrics?: MetricResult[];
  warnings?: string[];
  /** Only in results of `mcpcheck run --trials`; never from this package. */
  trials?: Trials;
}

/** A test run several times (`mcpcheck run --trials N`). */
export interface Trials {
  /** The trials in which the test ran (skipped trials are not counted). */
  count: number;
  /** How many of them passed. */
  passed: number;
  /** Passed at least once. */
  pass_at_k: boolean;
  /** Passed every time. */
  pass_hat_k: boolean;
  /** Every trial's status, in trial order (skipped ones included). */
  statuses: TestStatus[];
}

/** A problem in an input, with its position (1-based lines and columns,
 * counted in characters; `null` for input given as an object). */
export interface Diagnostic {
  severity: "error" | "warning";
  file: string;
  line: number | null;
  column: number | null;
  end_line: number | null;
  end_column: number | null;
  message: string;
  /** What to do about it, e.g. "did you mean `not_error`?". */
  hint: string | null;
}

/** What `validateSuite` found in one suite file. */
export interface SuiteValidation {
  file: string;
  /** No diagnostic is an error. */
  ok: boolean;
  /** The tests the file defines. */
  tests: { name: string; line: number }[];
  diagnostics: Diagnostic[];
  /** The diagnostics as `mcpcheck validate` prints them (source excerpt,
   * caret, hint), without colour. */
  rendered: string;
}

/** The error every export throws on an input it cannot read. */
export interface McpcheckError extends Error {
  /** Every problem found, in order (empty for a problem that is not in a
   * text, e.g. a bad option). */
  diagnostics: Diagnostic[];
  /** The diagnostics with source excerpts, as the CLI prints them. */
  rendered: string;
}

/** Check one response against an expectation document; returns the test
 * outcome (`status` is `pass`, `fail` or `error`). Throws a
 * {@link McpcheckError} when the expectations or the response cannot be
 * read. */
export function checkResponse(expect: Expectations, response: McpResponse, options?: CheckOptions): TestResult;

/** Check a trace against trajectory assertions; throws a
 * {@link McpcheckError} when either cannot be read. */
export function checkTrajectory(trace: Trace, assertions: TrajectoryAssertions): TestResult;

/** A captured MCP session (docs/capture.md): `exchanges` of
 * `{request, response}` with `server_capabilities`, or a list of sessions;
 * as JSON text or as an object. */
export type Capture = string | { [key: string]: unknown } | { [key: string]: unknown }[];

/** One violated invariant. */
export interface InvariantFinding {
  /** The rule, `INV-NNN`. */
  id: string;
  /** The rule's family, e.g. `lifecycle`, `capability`, `error-envelope`. */
  category: string;
  message: string;
  /** The index of the offending exchange in its session; `null` for a
   * finding about the session as a whole. */
  exchange: number | null;
}

/** The invariants report (`mcpcheck invariants --format json`). */
export interface InvariantsReport {
  version: 1;
  /** Every invariant holds and no hazard was found. */
  passed: boolean;
  /** One entry per session, in capture order; findings are violations only. */
  sessions: { server_label: string | null; findings: InvariantFinding[] }[];
  /** Composition hazards (captures of two or more sessions). */
  hazards: { kind: string; servers: string[]; message: string }[];
}

/** Check a captured session against the conformance invariants, as
 * `mcpcheck invariants` does; throws a {@link McpcheckError} when the input
 * is not a usable capture. */
export function checkCapture(capture: Capture): InvariantsReport;

/** Load a suite file (either form) and report every problem in it, as
 * `mcpcheck validate` does. Never throws: the problems are the result. */
export function validateSuite(yamlText: string, fileName?: string): SuiteValidation;
"#;

/// Throw-able error: `message` is the core's; `diagnostics` and `rendered`
/// carry the detail.
fn error(message: &str, diags: &[Diagnostic], source: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(message);
    let list: Vec<Value> = diags.iter().map(api::diagnostic_json).collect();
    let rendered = diag::render(diags, &|_| source, Paint::Plain);
    // Setting a property on a fresh Error object cannot fail; if it somehow
    // did, the message alone still reaches the caller.
    let _ = js_sys::Reflect::set(&err, &"diagnostics".into(), &to_js(&list));
    let _ = js_sys::Reflect::set(&err, &"rendered".into(), &rendered.into());
    err.into()
}

/// The error for diagnostics found while loading `source`.
fn load_error(diags: &[Diagnostic], source: Option<&str>) -> JsValue {
    let message = diags
        .iter()
        .map(Diagnostic::one_line)
        .collect::<Vec<_>>()
        .join("\n");
    error(&message, diags, source)
}

fn plain_error(message: &str) -> JsValue {
    error(message, &[], None)
}

/// A serializable value as a plain JavaScript object.
fn to_js<T: Serialize>(v: &T) -> JsValue {
    match serde_json::to_string(v) {
        Ok(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}

/// A JavaScript argument as JSON: a string stays a string (text for the
/// core to parse), anything else goes through `JSON.stringify`.
fn from_js(v: &JsValue, what: &str) -> Result<Value, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if v.is_undefined() {
        return Err(plain_error(&format!("{what} is missing")));
    }
    let text = js_sys::JSON::stringify(v)
        .map_err(|_| plain_error(&format!("{what} cannot be converted to JSON")))?;
    let Some(text) = text.as_string() else {
        return Err(plain_error(&format!("{what} cannot be converted to JSON")));
    };
    serde_json::from_str(&text).map_err(|e| plain_error(&format!("{what} is not JSON: {e}")))
}

/// The mcpcheck version (the crates and the npm package move together).
#[wasm_bindgen]
pub fn version() -> String {
    mcpcheck_core::VERSION.to_string()
}

/// Check one response against an expectation document. Returns the test
/// outcome (`status` is `pass`, `fail` or `error`); throws when the
/// expectations or the response cannot be read. (TypeScript: see the
/// declarations above.)
#[wasm_bindgen(js_name = checkResponse, skip_typescript)]
pub fn check_response(
    expect: JsValue,
    response: JsValue,
    options: Option<js_sys::Object>,
) -> Result<JsValue, JsValue> {
    let expect = from_js(&expect, "the expectation document")?;
    let doc = api::load_expect_value(EXPECT_FILE, &expect)
        .map_err(|d| load_error(&d, expect.as_str()))?;
    let response = match from_js(&response, "the response")? {
        Value::String(text) => {
            api::load_response(RESPONSE_FILE, &text).map_err(|d| load_error(&[d], Some(&text)))?
        }
        v => v,
    };
    let options = match &options {
        Some(o) => from_js(o, "the options")?,
        None => Value::Null,
    };
    let facts = api::facts_from_json(&options).map_err(|e| plain_error(&e))?;
    Ok(to_js(&api::check_response(&doc, response, &facts)))
}

/// Check a trace against trajectory assertions. Returns the test outcome;
/// throws when either cannot be read.
#[wasm_bindgen(js_name = checkTrajectory, skip_typescript)]
pub fn check_trajectory(trace: JsValue, assertions: JsValue) -> Result<JsValue, JsValue> {
    let trace = from_js(&trace, "the trace")?;
    let entries =
        api::load_trace_value(TRACE_FILE, &trace).map_err(|d| load_error(&d, trace.as_str()))?;
    let assertions = from_js(&assertions, "the trajectory assertions")?;
    let doc = api::load_trajectory_value(TRAJECTORY_FILE, &assertions)
        .map_err(|d| load_error(&d, assertions.as_str()))?;
    Ok(to_js(&api::check_trajectory(&doc, &entries)))
}

/// Check a capture against the conformance invariants. Returns the
/// invariants report; throws when the input is not a usable capture.
#[wasm_bindgen(js_name = checkCapture, skip_typescript)]
pub fn check_capture(capture: JsValue) -> Result<JsValue, JsValue> {
    let text = match from_js(&capture, "the capture")? {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let report =
        api::check_capture(CAPTURE_FILE, &text).map_err(|d| load_error(&d, Some(&text)))?;
    // Parsed from the CLI's own text, so the object's keys come in the
    // documented order and `JSON.stringify(report, null, 2)` is byte for byte
    // what `mcpcheck invariants --format json` prints.
    Ok(js_sys::JSON::parse(&report).unwrap_or(JsValue::NULL))
}

/// Load a suite file (either form) and report every problem in it, as
/// `mcpcheck validate` does. Never throws for a bad suite: the problems are
/// the result.
#[wasm_bindgen(js_name = validateSuite, skip_typescript)]
pub fn validate_suite(yaml_text: &str, file_name: Option<String>) -> JsValue {
    let file = file_name.unwrap_or_else(|| "suite.yaml".to_string());
    let loaded = suite::load(&file, yaml_text);
    let tests: Vec<Value> = loaded
        .suite
        .tests
        .iter()
        .map(|t| serde_json::json!({"name": t.name, "line": t.line}))
        .collect();
    let diagnostics: Vec<Value> = loaded
        .diagnostics
        .iter()
        .map(api::diagnostic_json)
        .collect();
    let rendered = diag::render(&loaded.diagnostics, &|_| Some(yaml_text), Paint::Plain);
    to_js(&serde_json::json!({
        "file": file,
        "ok": !loaded.has_errors(),
        "tests": tests,
        "diagnostics": diagnostics,
        "rendered": rendered,
    }))
}
