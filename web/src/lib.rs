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
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

mod runner;

/// The label expectation documents carry in diagnostics.
const EXPECT_FILE: &str = "<expect>";
const RESPONSE_FILE: &str = "<response>";
const TRACE_FILE: &str = "<trace>";
const TRAJECTORY_FILE: &str = "<trajectory>";
const CAPTURE_FILE: &str = "<capture>";

/// The TypeScript the Rust signatures cannot say: the shapes JavaScript may
/// pass in (text, or objects the core reads as JSON) and the error the
/// exports throw. Every result type (`TestResult`, `CheckResult`,
/// `InvariantsReport`, `SuiteValidation`, `Diagnostic`, …) is derived from
/// the core's Rust types (its `ts` feature), and every function signature
/// from the exports below.
#[wasm_bindgen(typescript_custom_section)]
const TS_INPUTS: &str = r#"
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

/** A captured MCP session (docs/capture.md): `exchanges` of
 * `{request, response}` with `server_capabilities`, or a list of sessions;
 * as JSON text or as an object. */
export type Capture = string | { [key: string]: unknown } | { [key: string]: unknown }[];

/** A problem in an input (the core's `DiagnosticDoc`). */
export type Diagnostic = DiagnosticDoc;

/** Check one response against an expectation document; returns the test
 * outcome (`status` is `pass`, `fail` or `error`). Throws a
 * {@link McpcheckError} when the expectations or the response cannot be
 * read. (Written here: wasm-bindgen cannot give a typed parameter the `?`
 * of an optional one.) */
export function checkResponse(expect: Expectations, response: McpResponse, options?: CheckOptions): TestResult;

/** What a server lists, for {@link lintListing}: a `tools/list` result
 * (`{tools: [...]}`), an object with any of `tools`, `prompts`, `resources`
 * and `resourceTemplates`, or a JSON-RPC response wrapping one; as JSON text
 * or as an object. */
export type Listing = string | { [key: string]: unknown };

/** How {@link lintListing} judges. */
export interface LintOptions {
  /** Codes of rules not to run (`"E103"`); an unknown code throws. */
  skip_rules?: string[];
  /** Warnings count as failures for `passed`. */
  strict?: boolean;
  /** What the report calls the listing (its `subject`; default `"listing"`,
   * the CLI names the file). */
  name?: string;
}

/** How a finding weighs on the verdict (docs/findings.md): `error` fails,
 * `warning` (recommended, not met) fails only when asked, `note` never. */
export type FindingLevel = "error" | "warning" | "note";

/** What every findings document counts. */
export interface FindingCounts {
  error: number;
  warning: number;
  note: number;
}

/** One lint finding (docs/lint.md lists the codes). */
export interface LintFinding {
  code: string;
  family: "lint";
  level: FindingLevel;
  severity: "error" | "warning" | "info";
  kind: "tool" | "prompt" | "resource" | "resource_template" | "listing";
  /** The tool or prompt name, the resource URI or the template. */
  item: string;
  /** The same as `item` (mcp-assert's field name). */
  tool: string;
  /** RFC 6901 pointer to the offending field in the listing as given. */
  field: string;
  message: string;
  evidence: string;
}

/** What `mcpcheck lint --format json` prints, plus `ok`. */
export interface LintReport {
  version: 1;
  command: "lint";
  /** What the listing is called (the `name` option). */
  subject: string;
  /** No error (with `strict`, no warning either). */
  passed: boolean;
  counts: FindingCounts;
  findings: LintFinding[];
  errors: number;
  warnings: number;
}

/** Lint a server's listing, as `mcpcheck lint --listing` does. Throws a
 * {@link McpcheckError} when the input is not a listing or an option is
 * wrong. */
export function lintListing(listing: Listing, options?: LintOptions): LintReport;

/** How {@link scanListing} judges. */
export interface ScanOptions {
  /** Codes of rules not to run (`"S501"`); an unknown code throws. */
  skip_rules?: string[];
  /** The least severe finding that fails `passed` (default `"high"`). */
  fail_on?: "high" | "medium" | "low" | "info";
  /** The label findings name the server by (default `"listing"`; an array
   * of listings is labelled `name#1`, `name#2`, …). */
  name?: string;
}

/** One scan finding (docs/scan.md lists the codes and the attacks). */
export interface ScanFinding {
  code: string;
  family: "scan";
  level: FindingLevel;
  severity: "high" | "medium" | "low" | "info";
  server: string;
  kind: "tool" | "prompt" | "resource" | "resource_template" | "listing";
  /** The tool or prompt name, the resource URI or template. */
  item: string;
  /** RFC 6901 pointer to the offending field in the listing as given. */
  field: string;
  message: string;
  /** The offending text, escaped and at most 120 characters. */
  evidence: string;
  /** Byte offsets of the offending text in the field's string value. */
  span?: [number, number];
}

/** What `mcpcheck scan --format json` prints, plus `ok`. */
export interface ScanReport {
  version: 1;
  command: "scan";
  /** The servers' labels, comma-separated. */
  subject: string;
  /** No finding at `fail_on` or above. */
  passed: boolean;
  counts: FindingCounts;
  findings: ScanFinding[];
}

/** Scan a server's listing (or an array of listings, one per server, also
 * checked against each other for shadowing) for tool poisoning, hidden
 * text, exfiltration targets, secrets and side channels, as `mcpcheck scan
 * --listing` does. Throws a {@link McpcheckError} when the input is not a
 * listing or an option is wrong. */
export function scanListing(listing: Listing | Listing[], options?: ScanOptions): ScanReport;

/** The error every export throws on an input it cannot read (the class
 * is exported by the package's entry points; `name` is `"McpcheckError"`). */
export interface McpcheckError extends Error {
  name: "McpcheckError";
  /** Which kind of problem: a text or document that cannot be read
   * (`MCPCHECK_INVALID_INPUT`), an argument of the wrong kind, e.g. a number
   * where text is expected (`MCPCHECK_INVALID_ARGUMENT`), or an unknown or
   * wrong option (`MCPCHECK_INVALID_OPTION`). */
  code: "MCPCHECK_INVALID_INPUT" | "MCPCHECK_INVALID_ARGUMENT" | "MCPCHECK_INVALID_OPTION";
  /** Every problem found, in order (empty for a problem that is not in a
   * text, e.g. a bad option). */
  diagnostics: Diagnostic[];
  /** The diagnostics with source excerpts, as the CLI prints them. */
  rendered: string;
}

/** How {@link validateSuite} loads the suite. */
export interface ValidateOptions {
  /** The suite runs on a client it is given ({@link runSuite}), so a test
   * needs no `server` block. */
  forClient?: boolean;
}

/** Load a suite file (either form) and report every problem in it, as
 * `mcpcheck validate` does; `fileName` (default `suite.yaml`) names it in
 * the diagnostics. The problems are the result; it throws a
 * {@link McpcheckError} when given something other than text, or an
 * unknown option. */
export function validateSuite(yamlText: string, fileName?: string, options?: ValidateOptions): SuiteValidation;

/** How {@link captureTimeline} gives the messages. */
export interface TimelineOptions {
  /** Each message as a string holding its text exactly as the capture has
   * it (key order, number spelling, escapes), not as a parsed value. */
  verbatim?: boolean;
}

/** A capture's sessions as a timeline: each exchange summed up (method, id,
 * how it was answered) with its messages as written (values, or their text
 * with `verbatim`), for showing the capture next to its report. Throws a
 * {@link McpcheckError} when the input is not a usable capture. */
export function captureTimeline(capture: Capture, options?: TimelineOptions): TimelineSession[];

/** `ok`: the one success spelling of every result the package returns. */
export interface TestResult {
  /** `status` is `"pass"`. */
  ok: boolean;
}
export interface CheckResult {
  /** `status` is `"pass"`. */
  ok: boolean;
}
export interface InvariantsReport {
  /** The same as `passed`. */
  ok: boolean;
}
export interface LintReport {
  /** The same as `passed`. */
  ok: boolean;
}
export interface ScanReport {
  /** The same as `passed`. */
  ok: boolean;
}
"#;

/// What went wrong, as the `code` of the thrown error (the npm package's
/// `McpcheckError`): stable strings a caller can branch on.
#[derive(Clone, Copy)]
enum ErrorCode {
    /// A text or document could not be read (the diagnostics say where).
    Input,
    /// An argument of the wrong kind: a number where text was expected,
    /// bytes that are not UTF-8, a missing argument.
    Argument,
    /// An option that does not exist or has a wrong value.
    Option,
}

impl ErrorCode {
    fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Input => "MCPCHECK_INVALID_INPUT",
            ErrorCode::Argument => "MCPCHECK_INVALID_ARGUMENT",
            ErrorCode::Option => "MCPCHECK_INVALID_OPTION",
        }
    }
}

/// Throw-able error named `McpcheckError`: `message` is the core's; `code`
/// says which kind of problem it is; `diagnostics` and `rendered` carry the
/// detail.
fn error(code: ErrorCode, message: &str, diags: &[Diagnostic], source: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("McpcheckError");
    let list: Vec<Value> = diags.iter().map(api::diagnostic_json).collect();
    let rendered = diag::render(diags, &|_| source, Paint::Plain);
    // Setting a property on a fresh Error object cannot fail; if it somehow
    // did, the message alone still reaches the caller.
    let _ = js_sys::Reflect::set(&err, &"code".into(), &code.as_str().into());
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
    error(ErrorCode::Input, &message, diags, source)
}

/// An input that is readable but not what the export takes.
fn input_error(message: &str) -> JsValue {
    error(ErrorCode::Input, message, &[], None)
}

fn argument_error(message: &str) -> JsValue {
    error(ErrorCode::Argument, message, &[], None)
}

fn option_error(message: &str) -> JsValue {
    error(ErrorCode::Option, message, &[], None)
}

/// Set `ok` (the one success spelling of every export) on a result object.
fn set_ok(target: &JsValue, ok: bool) {
    // Setting a property on an object parsed from JSON cannot fail.
    let _ = js_sys::Reflect::set(target, &"ok".into(), &JsValue::from_bool(ok));
}

/// A test result as JavaScript: the results document's shape, with `ok` on
/// the test and on each of its checks (`status` is `pass`), and the text
/// `mcpcheck check` prints for it under the registered symbol
/// `mcpcheck.text` (not enumerable, so `JSON.stringify` and the shape are
/// unchanged), which the package's `formatResult` returns.
fn test_result_js(result: &mcpcheck_core::results::TestResult) -> JsValue {
    use mcpcheck_core::report::text::{TextOptions, test_block};
    use mcpcheck_core::results::{CheckStatus, TestStatus};
    let js = to_js(result);
    set_ok(&js, result.status == TestStatus::Pass);
    let text = test_block(
        result,
        TextOptions {
            paint: Paint::Plain,
            all_checks: true,
        },
    );
    let descriptor = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&descriptor, &"value".into(), &text.into());
    if let Ok(object) = js.clone().dyn_into::<js_sys::Object>() {
        let key = js_sys::Symbol::for_("mcpcheck.text");
        js_sys::Object::define_property(&object, &key.into(), &descriptor);
    }
    if let Ok(checks) = js_sys::Reflect::get(&js, &"checks".into()) {
        let checks = js_sys::Array::from(&checks);
        for (js_check, check) in checks.iter().zip(&result.checks) {
            set_ok(&js_check, check.status == CheckStatus::Pass);
        }
    }
    js
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
    // Bytes (a Node Buffer, a Uint8Array, an ArrayBuffer) are text in UTF-8,
    // not an object of numbered keys.
    let bytes = (v.is_instance_of::<js_sys::Uint8Array>()
        || v.is_instance_of::<js_sys::ArrayBuffer>())
    .then(|| js_sys::Uint8Array::new(v).to_vec());
    if let Some(bytes) = bytes {
        return String::from_utf8(bytes)
            .map(Value::String)
            .map_err(|e| argument_error(&format!("{what} is bytes that are not UTF-8 text: {e}")));
    }
    if v.is_undefined() {
        return Err(argument_error(&format!("{what} is missing")));
    }
    let text = js_sys::JSON::stringify(v)
        .map_err(|_| argument_error(&format!("{what} cannot be converted to JSON")))?;
    let Some(text) = text.as_string() else {
        return Err(argument_error(&format!(
            "{what} cannot be converted to JSON"
        )));
    };
    serde_json::from_str(&text).map_err(|e| argument_error(&format!("{what} is not JSON: {e}")))
}

/// The mcpcheck version (the crates and the npm package move together).
#[wasm_bindgen]
pub fn version() -> String {
    mcpcheck_core::VERSION.to_string()
}

/// Check one response against an expectation document; returns the test
/// outcome (`status` is `pass`, `fail` or `error`). Throws a
/// {@link McpcheckError} when the expectations or the response cannot be
/// read.
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
        v => match api::response_kind_error(&v) {
            Some(message) => return Err(input_error(&message)),
            None => v,
        },
    };
    let options = match &options {
        Some(o) => from_js(o, "the options")?,
        None => Value::Null,
    };
    let facts = api::facts_from_json(&options).map_err(|e| option_error(&e.to_string()))?;
    let result = api::check_response(&doc, response, &facts).map_err(|why| input_error(&why))?;
    Ok(test_result_js(&result))
}

/// Check a trace against trajectory assertions; returns the test outcome.
/// Throws a {@link McpcheckError} when either cannot be read.
#[wasm_bindgen(js_name = checkTrajectory, unchecked_return_type = "TestResult")]
pub fn check_trajectory(
    #[wasm_bindgen(unchecked_param_type = "Trace")] trace: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TrajectoryAssertions")] assertions: JsValue,
) -> Result<JsValue, JsValue> {
    let trace = from_js(&trace, "the trace")?;
    let entries =
        api::load_trace_value(TRACE_FILE, &trace).map_err(|d| load_error(&d, trace.as_str()))?;
    let assertions = from_js(&assertions, "the trajectory assertions")?;
    let doc = api::load_trajectory_value(TRAJECTORY_FILE, &assertions)
        .map_err(|d| load_error(&d, assertions.as_str()))?;
    Ok(test_result_js(&api::check_trajectory(&doc, entries)))
}

/// Check a captured session against the conformance invariants, as
/// `mcpcheck invariants` does; returns the invariants report. Throws a
/// {@link McpcheckError} when the input is not a usable capture.
#[wasm_bindgen(js_name = checkCapture, unchecked_return_type = "InvariantsReport")]
pub fn check_capture(
    #[wasm_bindgen(unchecked_param_type = "Capture")] capture: JsValue,
) -> Result<JsValue, JsValue> {
    let text = match from_js(&capture, "the capture")? {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let report =
        api::check_capture(CAPTURE_FILE, &text).map_err(|d| load_error(&d, Some(&text)))?;
    // Parsed from the CLI's own text, so the object's keys come in the
    // documented order and `JSON.stringify(report, null, 2)` is byte for byte
    // what `mcpcheck invariants --format json` prints, plus `ok` (= `passed`).
    let js = js_sys::JSON::parse(&report).unwrap_or(JsValue::NULL);
    let passed = js_sys::Reflect::get(&js, &"passed".into()).is_ok_and(|v| v.is_truthy());
    set_ok(&js, passed);
    Ok(js)
}

/// How `captureTimeline` gives the messages.
#[derive(Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct TimelineOptions {
    verbatim: bool,
}

/// A capture's sessions as a timeline (typed in `TS_INPUTS`).
#[wasm_bindgen(js_name = captureTimeline, skip_typescript)]
pub fn capture_timeline(capture: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let text = match from_js(&capture, "the capture")? {
        Value::String(text) => text,
        other => other.to_string(),
    };
    let options: TimelineOptions = options_from_js(&options)?;
    let timeline = api::capture_timeline(CAPTURE_FILE, &text, options.verbatim)
        .map_err(|d| load_error(&d, Some(&text)))?;
    Ok(js_sys::JSON::parse(&timeline).unwrap_or(JsValue::NULL))
}

/// The options of `lintListing`: the core's, and the name the report calls
/// the listing by (the CLI names its file).
#[derive(Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct LintJsOptions {
    skip_rules: Vec<String>,
    strict: bool,
    name: Option<String>,
}

/// Lint a server's listing, as `mcpcheck lint --listing` does (typed in
/// `TS_INPUTS`).
#[wasm_bindgen(js_name = lintListing, skip_typescript)]
pub fn lint_listing(listing: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    use mcpcheck_core::lint::{self, LintOptions};
    let listing = listing_from_js(&listing)?;
    let js: LintJsOptions = options_from_js(&options)?;
    let options = LintOptions {
        skip_rules: js.skip_rules,
        strict: js.strict,
    };
    let findings = lint::lint_listing(&listing, &options).map_err(|e| match e {
        lint::LintInputError::UnknownRule { .. } => option_error(&e.to_string()),
        _ => input_error(&e.to_string()),
    })?;
    // Parsed from the CLI's own text, so the keys come in the documented
    // order and the report is what `mcpcheck lint --format json` prints.
    let passed = lint::passed(&findings, options.strict);
    let name = js.name.unwrap_or_else(|| "listing".to_string());
    let doc = lint::report(findings, options.strict, &name);
    let report = js_sys::JSON::parse(&mcpcheck_core::findings::render::json::render(&doc))
        .unwrap_or(JsValue::NULL);
    let _ = js_sys::Reflect::set(&report, &"passed".into(), &JsValue::from_bool(passed));
    set_ok(&report, passed);
    Ok(report)
}

/// The options of `scanListing`: the core's, and the label findings name the
/// server by.
#[derive(Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
struct ScanJsOptions {
    skip_rules: Vec<String>,
    fail_on: Option<mcpcheck_core::scan::Severity>,
    name: Option<String>,
}

/// Scan a listing (or an array of them, one per server) as `mcpcheck scan
/// --listing` does (typed in `TS_INPUTS`).
#[wasm_bindgen(js_name = scanListing, skip_typescript)]
pub fn scan_listing(listing: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    use mcpcheck_core::scan;
    let listing = listing_from_js(&listing)?;
    let options: ScanJsOptions = options_from_js(&options)?;
    let name = options.name.unwrap_or_else(|| "listing".to_string());
    let servers = scan::servers_in(&name, listing).map_err(|e| input_error(&e.to_string()))?;
    let options = scan::ScanOptions {
        skip_rules: options.skip_rules,
        fail_on: options.fail_on.unwrap_or(scan::Severity::High),
    };
    let findings = scan::scan_listings(&servers, &options).map_err(|e| match e {
        scan::ScanInputError::UnknownRule { .. } => option_error(&e.to_string()),
        _ => input_error(&e.to_string()),
    })?;
    // The CLI's own text, parsed: the report `mcpcheck scan --format json`
    // prints, key for key.
    let passed = scan::passed(&findings, options.fail_on);
    let doc = scan::report(findings, options.fail_on, &servers);
    let report = js_sys::JSON::parse(&mcpcheck_core::findings::render::json::render(&doc))
        .unwrap_or(JsValue::NULL);
    let _ = js_sys::Reflect::set(&report, &"passed".into(), &JsValue::from_bool(passed));
    set_ok(&report, passed);
    Ok(report)
}

/// A listing given as JSON text or as a value.
fn listing_from_js(listing: &JsValue) -> Result<Value, JsValue> {
    match from_js(listing, "the listing")? {
        Value::String(text) => serde_json::from_str(&text).map_err(|e| {
            input_error(&format!(
                "the listing is not JSON: {e} (line {}, column {})",
                e.line(),
                e.column()
            ))
        }),
        other => Ok(other),
    }
}

/// An options object (absent: the defaults).
fn options_from_js<T: serde::de::DeserializeOwned + Default>(
    options: &JsValue,
) -> Result<T, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(T::default());
    }
    serde_json::from_value(from_js(options, "the options")?)
        .map_err(|e| option_error(&format!("the options: {e}")))
}

/// Load a suite file (either form) and report every problem in it, as
/// `mcpcheck validate` does. The problems are the result; it throws only
/// when given something other than text, or a wrong option.
#[wasm_bindgen(js_name = validateSuite, skip_typescript)]
pub fn validate_suite(
    yaml_text: JsValue,
    file_name: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    let Some(text) = yaml_text.as_string() else {
        return Err(argument_error(&format!(
            "the suite must be YAML text (a string), not {}",
            js_kind(&yaml_text)
        )));
    };
    let file = if file_name.is_undefined() || file_name.is_null() {
        "suite.yaml".to_string()
    } else {
        file_name.as_string().ok_or_else(|| {
            argument_error(&format!(
                "the file name must be a string, not {}",
                js_kind(&file_name)
            ))
        })?
    };
    // `{forClient?: boolean}`, read by hand: a serde type of its own costs
    // the module more than these lines.
    let mut for_client = false;
    if !options.is_undefined() && !options.is_null() {
        let Value::Object(o) = from_js(&options, "the options")? else {
            return Err(option_error("the options must be an object"));
        };
        for (k, v) in o {
            match (k.as_str(), v) {
                ("forClient", Value::Bool(b)) => for_client = b,
                ("forClient", _) => return Err(option_error("`forClient` must be a boolean")),
                (other, _) => {
                    return Err(option_error(&format!(
                        "the options: unknown field `{other}`, expected `forClient`"
                    )));
                }
            }
        }
    }
    Ok(to_js(&api::validate_suite(&file, &text, for_client)))
}

/// What a JavaScript value is, for messages.
fn js_kind(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if v.is_undefined() {
        "undefined".into()
    } else if js_sys::Array::is_array(v) {
        "an array".into()
    } else {
        let kind = v.js_typeof().as_string().unwrap_or_default();
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {kind}")
    }
}
