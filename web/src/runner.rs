//! `SuiteRunner`: the npm package's `runSuite` drives a suite's tests
//! through core's sans-I/O test runner (`mcpcheck_core::runner`). The
//! JavaScript side owns the transport (the user's own MCP client), the clock
//! and the files; every decision (which request goes out, with which
//! parameters, how an answer ends the test, the verdict) is the core's, the
//! same as `mcpcheck run`'s.
//!
//! Steps and inputs cross as plain JSON objects (pkg/lib/run-suite.cjs
//! documents them); the class is internal to the package, so it has no
//! TypeScript declaration of its own.

use std::collections::BTreeMap;

use mcpcheck_core::results::{Results, TestResult};
use mcpcheck_core::runner::{Context, Input, Mocks, Reply, RequestKind, Step, TestRun, Wait};
use mcpcheck_core::suite::{self, Test};
use mcpcheck_core::{api, template};
use serde_json::{Map, Value, json};
use wasm_bindgen::prelude::*;

use crate::{argument_error, from_js, input_error, js_kind, load_error, option_error, set_ok};
use crate::{test_result_js, to_js};

/// A loaded suite and the test being run.
#[wasm_bindgen(skip_typescript)]
pub struct SuiteRunner {
    tests: Vec<Test>,
    context: Context,
    has_fixture: bool,
    run: Option<TestRun>,
    mocks: Mocks,
    /// The results of the tests run so far, in the order they ended.
    done: Vec<TestResult>,
}

/// Put a `{name: string}` option into `into`.
fn string_map(v: &Value, what: &str, into: &mut BTreeMap<String, String>) -> Result<(), JsValue> {
    let bad = || option_error(&format!("`{what}` must map names to strings"));
    let Value::Object(o) = v else {
        return Err(bad());
    };
    for (k, v) in o {
        into.insert(k.clone(), v.as_str().ok_or_else(bad)?.to_string());
    }
    Ok(())
}

/// A plain object of these keys (a null value leaves its key out).
fn obj(pairs: Vec<(&str, Value)>) -> JsValue {
    let mut m = Map::new();
    for (k, v) in pairs {
        if !v.is_null() {
            m.insert(k.to_string(), v);
        }
    }
    to_js(&m)
}

/// What a step's input is, or why it is not one.
// A String error: the message is handed to JavaScript as the step's error text.
fn input_of(v: &Value) -> Result<Input, String> {
    let Value::Object(o) = v else {
        return Err("a step's input must be an object".into());
    };
    let one = |key: &str| (o.len() == 1).then(|| o.get(key)).flatten();
    if one("notSent").is_some() {
        return Ok(Input::NotSent);
    }
    if let Some(files) = one("files") {
        return api::files_from_json(files, "files")
            .map(Input::Files)
            .map_err(|e| e.to_string());
    }
    if let Some(trace) = one("trace") {
        let file = trace.get("file").and_then(Value::as_str);
        let text = trace.get("text").unwrap_or(&Value::Null);
        return match (file, text) {
            (Some(f), Value::Null) => Ok(Input::Trace {
                file: f.into(),
                text: None,
            }),
            (Some(f), Value::String(t)) => Ok(Input::Trace {
                file: f.into(),
                text: Some(t.clone()),
            }),
            _ => Err("`trace` must be {file: string, text: string or null}".into()),
        };
    }
    if let Some(why) = one("unreadable") {
        let why = why.as_str().ok_or("`unreadable` must be a string")?;
        return Ok(Input::Unreadable(why.into()));
    }
    if let Some(list) = one("waited") {
        let list = list.as_array().ok_or("`waited` must be a list")?;
        return Ok(Input::Waited(list.clone()));
    }
    let mut reply = Reply::default();
    let some = |v: &Value| (!v.is_null()).then(|| v.clone());
    for (k, v) in o {
        match k.as_str() {
            // `null` too: a result that is not an object is the core's to
            // call a protocol error.
            "result" => reply.result = Some(v.clone()),
            "error" => reply.error = some(v),
            "failure" if v.is_null() => {}
            "failure" => reply.failure = Some(v.as_str().ok_or("`failure` must be text")?.into()),
            "durationMs" => {
                let ms = v.as_f64().filter(|m| *m >= 0.0);
                reply.duration_ms = ms.ok_or("`durationMs` must be a number >= 0")? as u64;
            }
            "progressToken" => reply.progress_token = some(v),
            "notifications" => {
                let list = v.as_array().ok_or("`notifications` must be a list")?;
                reply.notifications = list.clone();
            }
            other => return Err(format!("a step's input has no key `{other}`")),
        }
    }
    Ok(Input::Reply(reply))
}

#[wasm_bindgen]
impl SuiteRunner {
    /// Load `yaml` (named `file` in results and diagnostics) with
    /// `options`: `env`, `vars`, `fixture`, `today`, `defaultSettleMs`.
    #[wasm_bindgen(constructor)]
    pub fn new(yaml: JsValue, file: JsValue, options: JsValue) -> Result<SuiteRunner, JsValue> {
        let Some(text) = yaml.as_string() else {
            return Err(argument_error(&format!(
                "the suite must be YAML text (a string), not {}",
                js_kind(&yaml)
            )));
        };
        let file = match file.as_string() {
            Some(f) => f,
            None if file.is_undefined() || file.is_null() => "suite.yaml".into(),
            None => {
                return Err(argument_error(&format!(
                    "the file name must be a string, not {}",
                    js_kind(&file)
                )));
            }
        };
        let options = if options.is_undefined() || options.is_null() {
            Value::Null
        } else {
            from_js(&options, "the options")?
        };
        let empty = Map::new();
        let options = match &options {
            Value::Null => &empty,
            Value::Object(o) => o,
            _ => return Err(option_error("the options must be an object")),
        };
        // Every test runs on the caller's client: none needs a `server`.
        let mut context = Context {
            default_settle_ms: mcpcheck_core::runner::DEFAULT_SETTLE_MS,
            client_given: true,
            ..Context::default()
        };
        let mut has_fixture = false;
        for (k, v) in options {
            match k.as_str() {
                "env" => string_map(v, k, &mut context.fallback_env)?,
                "vars" => string_map(v, k, &mut context.vars)?,
                "fixture" => {
                    let dir = v
                        .as_str()
                        .ok_or_else(|| option_error("`fixture` must be a directory path"))?;
                    context.vars.insert("fixture".into(), dir.into());
                    has_fixture = true;
                }
                "today" => {
                    let facts = api::facts_from_json(&json!({ "today": v }))
                        .map_err(|e| option_error(&e.to_string()))?;
                    context.today = facts.today;
                }
                "defaultSettleMs" => {
                    let ms = v.as_f64().filter(|m| *m >= 0.0).ok_or_else(|| {
                        option_error("`defaultSettleMs` must be a number of milliseconds")
                    })?;
                    context.default_settle_ms = ms as u64;
                }
                other => {
                    return Err(option_error(&format!(
                        "unknown option `{other}` (expected env, vars, fixture, today, defaultSettleMs)"
                    )));
                }
            }
        }
        let loaded = suite::load_for_client(&file, &text);
        if loaded.has_errors() {
            return Err(load_error(&loaded.diagnostics, Some(&text)));
        }
        let suite = loaded.suite;
        if !suite.hooks.is_empty() {
            return Err(input_error(&format!(
                "{file} has `hooks`, shell commands that runSuite does not run in-process; run this suite with `mcpcheck run`, or remove its hooks"
            )));
        }
        // The file's `env`, each value expanded once from the given
        // environment, is read before it (as `mcpcheck run` does).
        for (k, v) in &suite.env {
            let fallback = &context.fallback_env;
            let value = template::expand_env(v, &|n| fallback.get(n).cloned()).0;
            context.env.insert(k.clone(), value);
        }
        Ok(SuiteRunner {
            tests: suite.tests,
            context,
            has_fixture,
            run: None,
            mocks: Mocks::default(),
            done: Vec::new(),
        })
    }

    /// The tests, in file order: `[{index, name, file, line, timeoutMs,
    /// skip}]`, `timeoutMs` the test's own `timeout` (or null), `skip` why
    /// the test is skipped (or null).
    pub fn tests(&self) -> JsValue {
        use mcpcheck_core::results::TestStatus;
        let list: Vec<Value> = self
            .tests
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let refusal = TestRun::new(t, self.context.clone()).refusal(self.has_fixture);
                let skip = refusal
                    .filter(|r| r.status == TestStatus::Skip)
                    .map(|r| r.message);
                json!({"index": i, "name": t.name, "file": t.file, "line": t.line,
                       "timeoutMs": t.timeout_ms, "skip": skip})
            })
            .collect();
        to_js(&list)
    }

    /// Begin test `index`: its first step.
    pub fn start(&mut self, index: usize) -> Result<JsValue, JsValue> {
        let test = self
            .tests
            .get(index)
            .ok_or_else(|| argument_error(&format!("there is no test {index}")))?;
        let mut run = TestRun::new(test, self.context.clone());
        if let Some(result) = run.refusal(self.has_fixture) {
            self.run = None;
            self.mocks = Mocks::default();
            return Ok(self.finish(result));
        }
        self.mocks = run.mocks();
        self.run = Some(run);
        self.next(JsValue::NULL, 0.0)
    }

    /// The step after `input` (`null`: the first); `elapsed_ms` is how
    /// long the test has run, for its result's `duration_ms`.
    pub fn next(&mut self, input: JsValue, elapsed_ms: f64) -> Result<JsValue, JsValue> {
        let input = if input.is_null() {
            Input::Start
        } else {
            let v = from_js(&input, "the step's input")?;
            input_of(&v).map_err(|e| argument_error(&e))?
        };
        let run = self
            .run
            .as_mut()
            .ok_or_else(|| argument_error("no test is running: call start first"))?;
        let step = run.next(input);
        let mut result = match step {
            Step::Send(r) => {
                let (kind, key, value) = match r.kind {
                    RequestKind::Setup(i) => ("setup", "index", Value::from(i)),
                    RequestKind::SetLogLevel(l) => ("setLogLevel", "level", l.into()),
                    RequestKind::Subscribe(u) => ("subscribe", "uri", u.into()),
                    RequestKind::Unsubscribe(u) => ("unsubscribe", "uri", u.into()),
                    RequestKind::Action => ("action", "", Value::Null),
                };
                let params = r.params.unwrap_or_default();
                let s = vec![
                    ("type", "send".into()),
                    ("method", r.method.into()),
                    ("params", params),
                    ("kind", kind.into()),
                    (key, value),
                ];
                return Ok(obj(s));
            }
            Step::ReadFiles(list) => {
                let files = list
                    .into_iter()
                    .map(|(key, path)| Value::Array(vec![key.into(), path.into()]))
                    .collect();
                return Ok(obj(vec![
                    ("type", "readFiles".into()),
                    ("files", Value::Array(files)),
                ]));
            }
            Step::ReadTrace(path) => {
                return Ok(obj(vec![
                    ("type", "readTrace".into()),
                    ("path", path.into()),
                ]));
            }
            Step::Wait(Wait::For(ms)) => {
                return Ok(obj(vec![("type", "wait".into()), ("ms", ms.into())]));
            }
            Step::Wait(Wait::ResourceUpdated(uri)) => {
                return Ok(obj(vec![
                    ("type", "wait".into()),
                    ("resourceUpdated", uri.into()),
                ]));
            }
            Step::Done(result) => run.complete(*result),
            Step::End(e) => run.complete(run.ended(&e, e.message())),
        };
        result.duration_ms = elapsed_ms.max(0.0) as u64;
        self.run = None;
        Ok(self.finish(result))
    }

    /// The current test's answer to the server's `method` request (its
    /// mocks), or throws why there is none.
    pub fn answer(&self, method: &str, params: JsValue) -> Result<JsValue, JsValue> {
        let params = if params.is_undefined() {
            Value::Null
        } else {
            from_js(&params, "the request's params")?
        };
        self.mocks
            .answer(method, &params)
            .map(|v| to_js(&v))
            .map_err(|e| input_error(&e.to_string()))
    }

    /// The results document of the tests run since the last call (in the
    /// order they ended), as `mcpcheck run --json` prints it, with `ok` on
    /// it, its tests and their checks.
    pub fn results(&mut self, duration_ms: f64) -> JsValue {
        let results = Results::new(std::mem::take(&mut self.done), duration_ms.max(0.0) as u64);
        let doc = to_js(&results);
        let list = js_sys::Array::new();
        for t in &results.tests {
            list.push(&test_result_js(t));
        }
        let _ = js_sys::Reflect::set(&doc, &"tests".into(), &list);
        set_ok(&doc, results.ok());
        doc
    }
}

impl SuiteRunner {
    /// Keep `result` for the results document; `{type: 'done', result}`.
    fn finish(&mut self, result: TestResult) -> JsValue {
        let step = obj(vec![("type", "done".into())]);
        let _ = js_sys::Reflect::set(&step, &"result".into(), &test_result_js(&result));
        self.done.push(result);
        step
    }
}
