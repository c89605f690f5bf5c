//! `mcpcheck load`: many sessions (HTTP) or server processes (stdio) at
//! once, sending a suite's tool calls (or one `--call`) and checking every
//! answer against its expectations; throughput, latency percentiles and
//! errors by class, gated by `--max-p95` and `--max-error-rate`. The figures,
//! the verdict and the reports are core's ([`mcpcheck_core::load`]).
//!
//! Always bounded: at most [`MAX_REQUESTS`] requests and [`MAX_DURATION`]
//! of sending, each request with its timeout. A `--url` that is not on this
//! machine is refused unless `--allow-remote` is given.
//!
//! Exit codes: 0 within the limits; 1 not (by default any request without a
//! right answer); 2 usage or configuration error.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use mcpcheck_core::Facts;
use mcpcheck_core::api;
use mcpcheck_core::diag;
use mcpcheck_core::expect::Expectations;
use mcpcheck_core::load::{self, Class, Failure, Limits, Sample, Setup};
use mcpcheck_core::observation::{self, Method};
use mcpcheck_core::score::{self, Verdict};
use mcpcheck_core::suite::{self, Action};
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::client::handler::Mocks;
use crate::client::{Endpoint, Session};
use crate::error::{Result, ValueError, verdict};
use crate::files::{display, read_text, suite_files};
use crate::output::{err, out, paint_for_stderr, parse_duration};
use crate::reports::{parse_percent, write_file};
use crate::target::{HttpTransport, TargetArgs};

/// The most requests one run sends.
pub const MAX_REQUESTS: u64 = 100_000;
/// The longest one run sends requests.
pub const MAX_DURATION: Duration = Duration::from_secs(600);
/// The most sessions or server processes at once.
pub const MAX_CONCURRENCY: u32 = 256;
/// Requests sent without `--requests` or `--duration`.
pub const DEFAULT_REQUESTS: u64 = 1_000;
/// A session is replaced by a fresh one after this many requests (its
/// answers are let go of as they are read, so what one session holds stays
/// small however large they are).
pub const REQUESTS_PER_SESSION: u64 = 1_000;
/// A server that could not be started (or reached) this many times in a
/// row, with no session opened between, ends the run: sending on would only
/// start it again and again.
pub const MAX_CONNECT_FAILURES: u32 = 10;
/// The first wait after a session could not be opened; it doubles with
/// every failure in a row, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to open a session.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Load-test a server: concurrent sessions, every answer checked.
#[derive(Debug, Args)]
#[command(after_help = crate::help::docs_line!("load"))]
pub struct LoadArgs {
    /// The server to start on stdio, once per session (split like a shell
    /// would).
    #[arg(long, value_name = "CMD", conflicts_with_all = ["url", "instances"], required_unless_present_any = ["url", "instances"])]
    server: Option<String>,

    /// The server's URL (Streamable HTTP, or legacy SSE with --transport sse).
    #[arg(long, value_name = "URL", conflicts_with = "instances")]
    url: Option<String>,

    /// The HTTP transport for --url and --instances.
    #[arg(long, value_enum, default_value_t = HttpTransport::Http)]
    transport: HttpTransport,

    /// An HTTP header for --url and --instances, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "HEADER")]
    headers: Vec<String>,

    /// Check statelessness instead of load: the same sequence of requests
    /// sent to the first instance alone, then round-robin over all of them
    /// (at least two URLs, comma-separated), must get the same answers.
    #[arg(long, value_name = "URL,URL…", value_delimiter = ',', num_args = 1.., conflicts_with_all = ["concurrency", "rate", "duration", "max_p95", "max_error_rate", "svg"])]
    instances: Vec<String>,

    /// Suite files or directories whose tool tests give the calls and their
    /// expectations (tests with setup steps, templates, file or notification
    /// checks, roots/sampling/elicitation answers, a skip, or another kind of
    /// block are left out); the suites' own servers are not used.
    #[arg(long = "suite", value_name = "PATH", num_args = 1.., required_unless_present = "call", conflicts_with = "call")]
    suites: Vec<PathBuf>,

    /// Call this tool (instead of --suite).
    #[arg(long, value_name = "TOOL")]
    call: Option<String>,

    /// The arguments of --call, as a JSON object.
    #[arg(
        long,
        value_name = "JSON",
        requires = "call",
        conflicts_with = "suites"
    )]
    args: Option<String>,

    /// What --call's answers must satisfy: an expectation file as `mcpcheck
    /// check --expect` reads. Default: not a tool error (`not_error: true`).
    #[arg(
        long,
        value_name = "FILE",
        requires = "call",
        conflicts_with = "suites"
    )]
    expect: Option<PathBuf>,

    /// Sessions (HTTP) or server processes (stdio) sending at once.
    #[arg(long, short = 'c', value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_CONCURRENCY)))]
    concurrency: u32,

    /// At most R requests per second over all sessions (e.g. 50 or 50/s).
    #[arg(long, value_name = "R", value_parser = parse_rate)]
    rate: Option<f64>,

    /// Send for this long (at most 10m), instead of a number of requests.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "requests")]
    duration: Option<Duration>,

    /// Send this many requests (at most 100000; default 1000).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=MAX_REQUESTS))]
    requests: Option<u64>,

    /// How long one request may take before it counts as a timeout.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    timeout: Duration,

    /// Fail (exit 1) when the 95th percentile latency is above this (e.g. 250ms).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    max_p95: Option<Duration>,

    /// Fail when more than PCT percent of the requests got no right answer.
    /// Without it, any such request fails the run.
    #[arg(long, value_name = "PCT", value_parser = parse_percent)]
    max_error_rate: Option<f64>,

    /// Allow a --url that is not on this machine (loopback).
    #[arg(long, conflicts_with = "server")]
    allow_remote: bool,

    /// Print the report as JSON on stdout instead of text.
    #[arg(long)]
    json: bool,

    /// Write the report as Markdown (a table of the figures) to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,

    /// Write the latency histogram as an SVG image to FILE.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    #[command(flatten)]
    progress: crate::progress::ProgressArgs,

    /// The MCP protocol version to ask for at initialize.
    #[arg(long, value_name = "VERSION", default_value = "2025-11-25")]
    protocol_version: String,
}

/// `50`, `50/s` or `50/sec`: requests per second, above 0.
fn parse_rate(s: &str) -> Result<f64, ValueError> {
    let n = s.trim();
    let n = n
        .strip_suffix("/sec")
        .or_else(|| n.strip_suffix("/s"))
        .unwrap_or(n);
    match n.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err(ValueError::Rate(s.to_string())),
    }
}

/// One call the requests cycle through.
struct Call {
    label: String,
    tool: String,
    args: Value,
    expect: Expectations,
}

fn has_template(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("{{") || s.contains("${"),
        Value::Array(a) => a.iter().any(has_template),
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| has_template(&Value::String(k.clone())) || has_template(v)),
        _ => false,
    }
}

/// The calls of `--suite`: every plain tool test.
fn calls_of_suites(paths: &[PathBuf]) -> Result<Vec<Call>> {
    let mut calls = Vec::new();
    let mut left_out = 0usize;
    for f in suite_files(paths)? {
        let name = display(&f);
        let text = read_text(&f)?;
        let loaded = suite::load(&name, &text);
        if loaded.has_errors() {
            let lookup = |n: &str| (n == name).then_some(text.as_str());
            return Err(crate::error::Error::Diagnostics(format!(
                "{}mcpcheck load: fix the errors above (`mcpcheck validate` lists them) and run again\n",
                diag::render(&loaded.diagnostics, &lookup, paint_for_stderr())
            )));
        }
        for t in loaded.suite.tests {
            let (after, before) = t.expect.file_paths();
            // Load sessions answer no server request (roots, sampling,
            // elicitation) and wait for no notification.
            let mocked = t.server.as_ref().is_some_and(|s| {
                s.client.roots.is_some()
                    || s.client.sampling.is_some()
                    || s.client.elicitation.is_some()
            });
            match &t.action {
                Action::Tool { tool, args }
                    if t.setup.is_empty()
                        && t.skip.is_none()
                        && t.skip_unless_env.is_empty()
                        && after.is_empty()
                        && before.is_empty()
                        && !mocked
                        && !t.watches_notifications()
                        && !has_template(args)
                        && !tool.contains("{{") =>
                {
                    calls.push(Call {
                        label: t.name.clone(),
                        tool: tool.clone(),
                        args: args.clone(),
                        expect: t.expect.clone(),
                    });
                }
                _ => left_out += 1,
            }
        }
    }
    if left_out > 0 {
        err(&format!(
            "mcpcheck load: left out {left_out} test(s) that are not plain tool calls (setup, templates, file checks, notifications, client mocks, skip, or another block)\n"
        ));
    }
    if calls.is_empty() {
        return Err("the suites have no plain tool test to send: give --suite with tool tests, or --call TOOL".into());
    }
    Ok(calls)
}

/// The call of `--call`.
fn the_call(args: &LoadArgs, tool: &str) -> Result<Call> {
    let arguments: Value = match &args.args {
        None => json!({}),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            format!("--args is not JSON ({e}): give an object, e.g. '{{\"message\": \"hi\"}}'")
        })?,
    };
    if !arguments.is_object() {
        return Err("--args must be a JSON object (the tool's arguments by name)".into());
    }
    let expect = match &args.expect {
        Some(path) => {
            let name = display(path);
            let text = read_text(path)?;
            api::load_expect(&name, &text)
                .map_err(|d| {
                    let lookup = |n: &str| (n == name).then_some(text.as_str());
                    crate::error::Error::Diagnostics(diag::render(&d, &lookup, paint_for_stderr()))
                })?
                .expect
        }
        None => {
            api::load_expect("--call", "not_error: true")
                .map_err(|_| "the default expectation did not load")?
                .expect
        }
    };
    Ok(Call {
        label: tool.to_string(),
        tool: tool.to_string(),
        args: arguments,
        expect,
    })
}

/// Whether `url`'s host is this machine.
fn is_loopback(url: &str) -> Result<bool, ValueError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| ValueError::Url {
        url: url.to_string(),
        detail: e.to_string(),
    })?;
    let host = parsed
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Ok(match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host == "localhost" || host.ends_with(".localhost"),
    })
}

/// What every worker shares.
struct Plan {
    endpoint: Endpoint,
    protocol_version: String,
    calls: Vec<Call>,
    next: AtomicU64,
    max_requests: u64,
    start: Deadline,
    end: Deadline,
    rate: Option<f64>,
    timeout: Duration,
    facts: Facts,
    /// Sessions that could not be opened in a row, over every worker (a
    /// session opened sets it back to 0).
    connect_failures: AtomicU32,
    /// Set when [`MAX_CONNECT_FAILURES`] was reached: every worker stops.
    given_up: AtomicBool,
}

/// How long to wait after the `failures`-th session in a row could not be
/// opened: [`FIRST_BACKOFF`], doubled each time, at most [`MAX_BACKOFF`].
fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

/// What one worker measured: (request number, sample) and its failures.
type Measured = (Vec<(u64, Sample)>, Vec<Failure>);

async fn worker(plan: Arc<Plan>) -> Measured {
    let mut samples = Vec::new();
    let mut failures = Vec::new();
    let mut session: Option<Session> = None;
    let mut used = 0u64;
    loop {
        if plan.given_up.load(Ordering::Relaxed) {
            break;
        }
        let n = plan.next.fetch_add(1, Ordering::Relaxed);
        if n >= plan.max_requests {
            break;
        }
        if let Some(rate) = plan.rate {
            let at = plan.start + Duration::from_secs_f64(n as f64 / rate);
            if at >= plan.end {
                break;
            }
            tokio::time::sleep_until(at).await;
        }
        if Deadline::now() >= plan.end {
            break;
        }
        let call = &plan.calls[(n % plan.calls.len() as u64) as usize];
        if used >= REQUESTS_PER_SESSION
            && let Some(mut s) = session.take()
        {
            s.close().await;
        }
        if session.is_none() {
            let began = Instant::now();
            match Session::connect(
                &plan.endpoint,
                &plan.protocol_version,
                &Mocks::default(),
                Deadline::now() + plan.timeout,
            )
            .await
            {
                Ok(s) => {
                    plan.connect_failures.store(0, Ordering::Relaxed);
                    session = Some(s);
                    used = 0;
                }
                Err(e) => {
                    samples.push((
                        n,
                        Sample {
                            latency_us: began.elapsed().as_micros() as u64,
                            class: Class::Connect,
                        },
                    ));
                    if failures.len() < load::FAILURES_KEPT {
                        failures.push(failure(n, call, Class::Connect, e.message));
                    }
                    // Do not start a server that will not start again and
                    // again: wait longer after each failure in a row, and
                    // stop after too many.
                    let in_a_row = plan.connect_failures.fetch_add(1, Ordering::Relaxed) + 1;
                    if in_a_row >= MAX_CONNECT_FAILURES {
                        plan.given_up.store(true, Ordering::Relaxed);
                        break;
                    }
                    tokio::time::sleep(backoff(in_a_row)).await;
                    continue;
                }
            }
        }
        let Some(s) = session.as_mut() else { continue };
        used += 1;
        let params = json!({"name": call.tool, "arguments": call.args});
        let began = Instant::now();
        let reply = s
            .request("tools/call", Some(params), Deadline::now() + plan.timeout)
            .await;
        let latency_us = began.elapsed().as_micros() as u64;
        let (class, detail) = match &reply.failure {
            Some(f) => {
                let class = if f.starts_with("no answer to tools/call in time") {
                    Class::Timeout
                } else {
                    Class::Transport
                };
                // The session may be unusable: the next request opens another.
                if let Some(mut s) = session.take() {
                    s.close().await;
                }
                (class, f.clone())
            }
            None => {
                let obs = observation::observe(
                    &Method::ToolsCall,
                    reply.result.clone(),
                    reply.error.clone(),
                    Vec::new(),
                    Some(reply.duration_ms),
                );
                let scored = score::score(&call.expect, &obs, &plan.facts);
                let passed = scored.verdict == Verdict::Pass;
                (
                    load::classify_answer(passed, reply.error.is_some()),
                    scored.summary(),
                )
            }
        };
        samples.push((n, Sample { latency_us, class }));
        if class != Class::Ok && failures.len() < load::FAILURES_KEPT {
            failures.push(failure(n, call, class, detail));
        }
        // The answer was judged: let go of it, so a long session of large
        // answers holds only what is in flight.
        if let Some(s) = session.as_ref() {
            s.tap.release_upto(reply.end);
        }
    }
    if let Some(mut s) = session.take() {
        s.close().await;
    }
    (samples, failures)
}

/// What a load run's progress counts: with `--duration`, seconds of how
/// many; else requests sent of how many. (item, total, unit).
fn progress_count(plan: &Plan, duration: Option<Duration>) -> (&'static str, usize, &'static str) {
    match duration {
        Some(d) => ("seconds", d.as_secs().max(1) as usize, "s"),
        None => ("requests", plan.max_requests as usize, "sent"),
    }
}

/// How far a load run is: seconds since it started, or requests sent.
fn progress_done(plan: &Plan, duration: Option<Duration>) -> usize {
    match duration {
        Some(_) => Deadline::now()
            .saturating_duration_since(plan.start)
            .as_secs() as usize,
        None => plan.next.load(Ordering::Relaxed).min(plan.max_requests) as usize,
    }
}

/// Says how far the workers are, a few times a second, until aborted.
async fn watch_progress(
    plan: Arc<Plan>,
    duration: Option<Duration>,
    progress: crate::progress::Progress,
) {
    let (item, total, unit) = progress_count(&plan, duration);
    loop {
        let done = progress_done(&plan, duration).min(total);
        progress.tick(item, done, unit);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn failure(n: u64, call: &Call, class: Class, detail: String) -> Failure {
    Failure {
        request: n,
        call: call.label.clone(),
        tool: call.tool.clone(),
        arguments: call.args.clone(),
        class,
        detail,
    }
}

/// The endpoint of `--server`, or of one URL.
fn endpoint(args: &LoadArgs, url: Option<&str>) -> Result<Endpoint> {
    let target = TargetArgs {
        server: if url.is_some() {
            None
        } else {
            args.server.clone()
        },
        url: url.map(str::to_string),
        transport: args.transport,
        headers: args.headers.clone(),
        docker: None,
        auth: Default::default(),
    };
    if let Some(url) = url
        && !args.allow_remote
        && !is_loopback(url)?
    {
        return Err(format!(
            "{url} is not on this machine: load-testing someone else's server is refused; give --allow-remote if it is yours"
        )
        .into());
    }
    target.endpoint()
}

pub fn main(args: &LoadArgs) -> Result<ExitCode> {
    crate::client::tap::set_concurrency_flag("--concurrency");
    if args.server.is_some() && !args.headers.is_empty() {
        return Err("--header is for --url and --instances".into());
    }
    if args.server.is_some() && args.transport != HttpTransport::Http {
        return Err("--transport is for --url and --instances (--server speaks stdio)".into());
    }
    if !args.instances.is_empty() {
        return stateless_main(args);
    }
    let endpoint = endpoint(args, args.url.as_deref())?;
    let calls = match &args.call {
        Some(tool) => vec![the_call(args, tool)?],
        None => calls_of_suites(&args.suites)?,
    };
    if let Some(d) = args.duration
        && (d > MAX_DURATION || d.is_zero())
    {
        return Err("--duration must be above 0 and at most 10m".into());
    }
    let setup = Setup {
        target: endpoint.label(),
        concurrency: args.concurrency,
        rate: args.rate,
        calls: calls.iter().map(|c| c.label.clone()).collect(),
    };
    let runtime = crate::error::runtime()?;
    let report = runtime.block_on(async {
        crate::signals::clean_up_on_interrupt();
        let start = Deadline::now();
        let plan = Arc::new(Plan {
            endpoint,
            protocol_version: args.protocol_version.clone(),
            calls,
            next: AtomicU64::new(0),
            max_requests: match args.duration {
                Some(_) => MAX_REQUESTS,
                None => args.requests.unwrap_or(DEFAULT_REQUESTS),
            },
            start,
            end: start + args.duration.unwrap_or(MAX_DURATION),
            rate: args.rate,
            timeout: args.timeout,
            facts: Facts {
                today: Some(chrono::Utc::now().date_naive()),
                ..Facts::default()
            },
            connect_failures: AtomicU32::new(0),
            given_up: AtomicBool::new(false),
        });
        let began = Instant::now();
        let handles: Vec<_> = (0..args.concurrency)
            .map(|_| tokio::spawn(worker(plan.clone())))
            .collect();
        let (item, total, unit) = progress_count(&plan, args.duration);
        let progress = crate::progress::Progress::new(
            crate::progress::Mode::of(args.progress.quiet),
            "mcpcheck load: ",
            total,
        );
        progress.start(item);
        let watch = tokio::spawn(watch_progress(
            plan.clone(),
            args.duration,
            progress.clone(),
        ));
        let mut samples = Vec::new();
        let mut failures = Vec::new();
        for h in handles {
            if let Ok((s, f)) = h.await {
                samples.extend(s);
                failures.extend(f);
            }
        }
        let elapsed = began.elapsed().as_micros() as u64;
        watch.abort();
        let _ = watch.await;
        progress.tick(item, progress_done(&plan, args.duration).min(total), unit);
        progress.finish_item(item, &format!("{} answers", samples.len()));
        progress.finish();
        crate::client::stdio::reap_all().await;
        samples.sort_by_key(|(n, _)| *n);
        let samples: Vec<Sample> = samples.into_iter().map(|(_, s)| s).collect();
        let given_up = plan.given_up.load(Ordering::Relaxed);
        (
            load::summarize(setup, &samples, failures, elapsed),
            given_up,
        )
    });
    let (report, given_up) = report;
    let limits = Limits {
        max_p95_ms: args.max_p95.map(|d| d.as_secs_f64() * 1000.0),
        max_error_rate: args.max_error_rate.map(|p| p / 100.0),
    };
    let reasons = load::judge(&report, &limits);
    if let Some(path) = &args.markdown {
        write_file(path, &load::markdown(&report))?;
    }
    if let Some(path) = &args.svg {
        write_file(path, &load::svg(&report))?;
    }
    if args.json {
        out(&format!("{}\n", load::to_json(&report)));
    } else {
        out(&load::text(&report));
    }
    for r in &reasons {
        err(&format!("mcpcheck load: {r}\n"));
    }
    if given_up {
        err(&format!(
            "mcpcheck load: stopped early: a session could not be opened {MAX_CONNECT_FAILURES} times in a row (waiting up to {} s between attempts); the server does not start, or cannot be reached\n",
            MAX_BACKOFF.as_secs()
        ));
    }
    Ok(verdict(reasons.is_empty() && !given_up))
}

/// Requests the statelessness check sends without `--requests`.
pub const DEFAULT_STATELESS_REQUESTS: u64 = 100;

/// Send `calls` in sequence (request i: call i mod calls), request i to
/// `sessions[i mod sessions]`; each answer in comparable form.
async fn sequence(
    sessions: &mut [Session],
    calls: &[Call],
    requests: u64,
    timeout: Duration,
    progress: (&crate::progress::Progress, &str),
) -> Vec<Value> {
    let (progress, item) = progress;
    let mut answers = Vec::new();
    let count = sessions.len().max(1) as u64;
    progress.restart(requests as usize, "");
    progress.start(item);
    for i in 0..requests {
        progress.tick(item, i as usize, "sent");
        let call = &calls[(i % calls.len() as u64) as usize];
        let s = &mut sessions[(i % count) as usize];
        let params = json!({"name": call.tool, "arguments": call.args});
        let reply = s
            .request("tools/call", Some(params), Deadline::now() + timeout)
            .await;
        answers.push(load::comparable_answer(
            reply.result.as_ref(),
            reply.error.as_ref(),
            reply.failure.as_deref(),
        ));
        s.tap.release_upto(reply.end);
    }
    progress.tick(item, requests as usize, "sent");
    progress.finish_item(item, "done");
    answers
}

/// Open one session per endpoint, or say which could not be opened.
async fn open_all(endpoints: &[(String, Endpoint)], args: &LoadArgs) -> Result<Vec<Session>> {
    let mut sessions = Vec::new();
    for (url, e) in endpoints {
        match Session::connect(
            e,
            &args.protocol_version,
            &Mocks::default(),
            Deadline::now() + args.timeout,
        )
        .await
        {
            Ok(s) => sessions.push(s),
            Err(err) => {
                for mut s in sessions {
                    s.close().await;
                }
                return Err(format!("cannot open a session with {url}: {}", err.message).into());
            }
        }
    }
    Ok(sessions)
}

/// `load --instances`: one logical client's requests, to one instance alone
/// and then round-robin over all, must get the same answers.
fn stateless_main(args: &LoadArgs) -> Result<ExitCode> {
    if args.instances.len() < 2 {
        return Err(
            "--instances needs at least two URLs, comma-separated (the same server running twice)"
                .into(),
        );
    }
    let endpoints: Vec<(String, Endpoint)> = args
        .instances
        .iter()
        .map(|u| endpoint(args, Some(u.trim())).map(|e| (u.trim().to_string(), e)))
        .collect::<Result<_>>()?;
    let calls = match &args.call {
        Some(tool) => vec![the_call(args, tool)?],
        None => calls_of_suites(&args.suites)?,
    };
    let requests = args.requests.unwrap_or(DEFAULT_STATELESS_REQUESTS);
    let runtime = crate::error::runtime()?;
    let progress = crate::progress::Progress::new(
        crate::progress::Mode::of(args.progress.quiet),
        "mcpcheck load: ",
        0,
    );
    let done = runtime.block_on(async {
        let mut alone = open_all(&endpoints[..1], args).await?;
        let single = sequence(
            &mut alone,
            &calls,
            requests,
            args.timeout,
            (&progress, "requests to one instance"),
        )
        .await;
        for mut s in alone {
            s.close().await;
        }
        let mut all = open_all(&endpoints, args).await?;
        let spread = sequence(
            &mut all,
            &calls,
            requests,
            args.timeout,
            (&progress, "requests over every instance"),
        )
        .await;
        for mut s in all {
            s.close().await;
        }
        Ok::<_, crate::error::Error>((single, spread))
    });
    progress.finish();
    let (single, spread) = done?;
    let call_of: Vec<String> = (0..requests)
        .map(|i| calls[(i % calls.len() as u64) as usize].label.clone())
        .collect();
    let report = load::compare_stateless(
        endpoints.iter().map(|(u, _)| u.clone()).collect(),
        calls.iter().map(|c| c.label.clone()).collect(),
        &call_of,
        &single,
        &spread,
    );
    if let Some(path) = &args.markdown {
        write_file(path, &load::stateless_markdown(&report))?;
    }
    if args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ));
    } else {
        out(&load::stateless_text(&report));
    }
    Ok(verdict(report.stateless()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_after_a_failed_start_doubles_up_to_its_bound() {
        assert_eq!(backoff(1), FIRST_BACKOFF);
        assert_eq!(backoff(2), FIRST_BACKOFF * 2);
        assert_eq!(backoff(4), FIRST_BACKOFF * 8);
        assert_eq!(backoff(7), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
