//! What a load run found (`mcpcheck load`): every request's latency and
//! outcome in, the figures, the verdict and the reports out.
//!
//! The CLI sends the requests and measures them; this module decides. Each
//! answer is first checked against its expectations (by [`crate::score`], as
//! in a run), so a wrong answer under load counts as a failure, not only a
//! slow one. Every request ends in one [`Class`]:
//!
//! | class | meaning |
//! | --- | --- |
//! | `ok` | answered, and every expectation held |
//! | `wrong_answer` | answered with a result the expectations reject |
//! | `rpc_error` | answered with a JSON-RPC error the expectations do not allow |
//! | `timeout` | no answer within the request timeout |
//! | `transport` | the connection failed, closed or carried something unreadable |
//! | `connect` | a session could not be opened (the server did not start or initialize) |
//!
//! Latencies are over every request (errors included), in milliseconds;
//! percentiles are nearest-rank (p95 is the smallest latency at least 95 %
//! of the requests did not exceed). The error rate is the share of requests
//! that are not `ok`.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::score::round3;

fn ser_round<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round3(*x))
}

/// How one request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Ok,
    WrongAnswer,
    RpcError,
    Timeout,
    Transport,
    Connect,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Ok,
        Class::WrongAnswer,
        Class::RpcError,
        Class::Timeout,
        Class::Transport,
        Class::Connect,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Class::Ok => "ok",
            Class::WrongAnswer => "wrong_answer",
            Class::RpcError => "rpc_error",
            Class::Timeout => "timeout",
            Class::Transport => "transport",
            Class::Connect => "connect",
        }
    }
}

/// The class of an answered request: `ok` when its checks passed, otherwise
/// `rpc_error` when the answer was a JSON-RPC error, else `wrong_answer`.
pub fn classify_answer(checks_passed: bool, rpc_error: bool) -> Class {
    match (checks_passed, rpc_error) {
        (true, _) => Class::Ok,
        (false, true) => Class::RpcError,
        (false, false) => Class::WrongAnswer,
    }
}

/// One request, as measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// From sending to the answer (or giving up), in microseconds.
    pub latency_us: u64,
    pub class: Class,
}

/// A request that did not end `ok`, with what was sent and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Which request of the run it was (0-based, in the order they were sent).
    pub request: u64,
    /// The call's label: the test's name, or the tool's.
    pub call: String,
    pub tool: String,
    /// The arguments sent.
    pub arguments: Value,
    pub class: Class,
    /// The failing checks' reasons, the error, or what went wrong.
    pub detail: String,
}

/// Latency figures, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    #[serde(serialize_with = "ser_round")]
    pub min: f64,
    #[serde(serialize_with = "ser_round")]
    pub mean: f64,
    #[serde(serialize_with = "ser_round")]
    pub p50: f64,
    #[serde(serialize_with = "ser_round")]
    pub p90: f64,
    #[serde(serialize_with = "ser_round")]
    pub p95: f64,
    #[serde(serialize_with = "ser_round")]
    pub p99: f64,
    #[serde(serialize_with = "ser_round")]
    pub max: f64,
}

/// One bar of the latency histogram: requests with `from_ms <= latency < to_ms`
/// (the last bar includes its upper end).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    #[serde(serialize_with = "ser_round")]
    pub from_ms: f64,
    #[serde(serialize_with = "ser_round")]
    pub to_ms: f64,
    pub count: u64,
}

/// How many bars the histogram has.
pub const BINS: usize = 20;

/// How many failures a report keeps (the first ones, in request order).
pub const FAILURES_KEPT: usize = 10;

/// What the run was, as the report states it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// The server: `stdio://…` or a URL.
    pub target: String,
    /// Sessions (HTTP) or server processes (stdio) at once.
    pub concurrency: u32,
    /// The requested rate (requests per second over all sessions), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// The calls the requests cycle through.
    pub calls: Vec<String>,
}

/// The outcome of a load run: the results document of `load --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    pub setup: Setup,
    pub requests: u64,
    pub ok: u64,
    /// Requests per class, every class listed (zeros included), in
    /// [`Class::ALL`] order.
    pub classes: Vec<(Class, u64)>,
    /// Requests not `ok`, over all requests (0–1).
    #[serde(serialize_with = "ser_round")]
    pub error_rate: f64,
    /// From the first request sent to the last answer, in milliseconds.
    pub elapsed_ms: u64,
    /// Requests per second over the elapsed time.
    #[serde(serialize_with = "ser_round")]
    pub throughput: f64,
    pub latency_ms: Latency,
    pub histogram: Vec<Bin>,
    /// The first failures, in request order (at most [`FAILURES_KEPT`]).
    pub failures: Vec<Failure>,
}

/// The nearest-rank percentile `p` (0–100) of sorted values; 0 when empty.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len();
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    sorted[rank.clamp(1, n) - 1]
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// The figures of a run from its samples (in the order sent), the failures
/// the driver kept, and the elapsed time in microseconds.
pub fn summarize(
    setup: Setup,
    samples: &[Sample],
    mut failures: Vec<Failure>,
    elapsed_us: u64,
) -> LoadReport {
    let requests = samples.len() as u64;
    let count = |c: Class| samples.iter().filter(|s| s.class == c).count() as u64;
    let classes: Vec<(Class, u64)> = Class::ALL.iter().map(|c| (*c, count(*c))).collect();
    let ok = count(Class::Ok);
    let mut sorted: Vec<u64> = samples.iter().map(|s| s.latency_us).collect();
    sorted.sort_unstable();
    let sum: u128 = sorted.iter().map(|x| u128::from(*x)).sum();
    let latency = if sorted.is_empty() {
        Latency::default()
    } else {
        Latency {
            min: ms(sorted[0]),
            mean: sum as f64 / sorted.len() as f64 / 1000.0,
            p50: ms(percentile(&sorted, 50.0)),
            p90: ms(percentile(&sorted, 90.0)),
            p95: ms(percentile(&sorted, 95.0)),
            p99: ms(percentile(&sorted, 99.0)),
            max: ms(sorted[sorted.len() - 1]),
        }
    };
    failures.sort_by_key(|f| f.request);
    failures.truncate(FAILURES_KEPT);
    LoadReport {
        setup,
        requests,
        ok,
        classes,
        error_rate: if requests == 0 {
            0.0
        } else {
            (requests - ok) as f64 / requests as f64
        },
        elapsed_ms: elapsed_us / 1000,
        throughput: if elapsed_us == 0 {
            0.0
        } else {
            requests as f64 / (elapsed_us as f64 / 1_000_000.0)
        },
        latency_ms: latency,
        histogram: histogram(&sorted),
        failures,
    }
}

/// [`BINS`] equal bars from the lowest to the highest latency.
fn histogram(sorted: &[u64]) -> Vec<Bin> {
    let (Some(lo), Some(hi)) = (sorted.first(), sorted.last()) else {
        return Vec::new();
    };
    let (lo, hi) = (*lo, (*hi).max(*lo + 1));
    let width = (hi - lo).div_ceil(BINS as u64).max(1);
    let mut bins: Vec<Bin> = (0..BINS as u64)
        .map(|i| Bin {
            from_ms: ms(lo + i * width),
            to_ms: ms(lo + (i + 1) * width),
            count: 0,
        })
        .collect();
    for v in sorted {
        let i = (((v - lo) / width) as usize).min(BINS - 1);
        bins[i].count += 1;
    }
    bins
}

/// The limits `--max-p95` and `--max-error-rate` set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Milliseconds.
    pub max_p95_ms: Option<f64>,
    /// A share, 0–1.
    pub max_error_rate: Option<f64>,
}

/// Whether the run stayed within `limits`, and why not. Without a
/// `max_error_rate`, any request that is not `ok` fails the run (a wrong
/// answer is never tolerated by default).
pub fn judge(r: &LoadReport, limits: &Limits) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(max) = limits.max_p95_ms
        && r.latency_ms.p95 > max
    {
        reasons.push(format!(
            "p95 latency {} ms is above --max-p95 {} ms",
            round3(r.latency_ms.p95),
            round3(max)
        ));
    }
    let bad = r.requests - r.ok;
    match limits.max_error_rate {
        Some(max) if r.error_rate > max => reasons.push(format!(
            "error rate {}% ({bad} of {}) is above --max-error-rate {}%",
            round3(r.error_rate * 100.0),
            r.requests,
            round3(max * 100.0)
        )),
        None if bad > 0 => reasons.push(format!(
            "{bad} of {} requests did not get a right answer",
            r.requests
        )),
        _ => {}
    }
    if r.requests == 0 {
        reasons.push("no request was sent".into());
    }
    reasons
}

fn classes_line(r: &LoadReport) -> String {
    r.classes
        .iter()
        .filter(|(c, n)| *n > 0 && *c != Class::Ok)
        .map(|(c, n)| format!("{} {n}", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the terminal shows.
pub fn text(r: &LoadReport) -> String {
    let l = &r.latency_ms;
    let mut s = format!(
        "{} requests to {} over {} ({} at once{}) in {:.2} s: {:.1} requests/s\n",
        r.requests,
        r.setup.target,
        r.setup.calls.join(", "),
        r.setup.concurrency,
        r.setup
            .rate
            .map(|x| format!(", at most {x}/s"))
            .unwrap_or_default(),
        r.elapsed_ms as f64 / 1000.0,
        r.throughput
    );
    s.push_str(&format!(
        "latency ms: p50 {:.2}  p90 {:.2}  p95 {:.2}  p99 {:.2}  max {:.2}  (min {:.2}, mean {:.2})\n",
        l.p50, l.p90, l.p95, l.p99, l.max, l.min, l.mean
    ));
    let classes = classes_line(r);
    s.push_str(&format!(
        "right answers: {} of {} (error rate {:.2}%){}\n",
        r.ok,
        r.requests,
        r.error_rate * 100.0,
        if classes.is_empty() {
            String::new()
        } else {
            format!(": {classes}")
        }
    ));
    for f in &r.failures {
        s.push_str(&format!(
            "  #{} {} {} {}: {}\n",
            f.request,
            f.class.as_str(),
            f.call,
            compact(&f.arguments),
            crate::truncate(&f.detail, 300)
        ));
    }
    s
}

fn compact(v: &Value) -> String {
    crate::truncate(&v.to_string(), 200)
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown summary: the figures as a table, the classes, the first failures.
pub fn markdown(r: &LoadReport) -> String {
    let l = &r.latency_ms;
    let mut s = format!(
        "## mcpcheck load: {}\n\n{} requests over {} ({} at once{}).\n\n",
        md_cell(&r.setup.target),
        r.requests,
        md_cell(&r.setup.calls.join(", ")),
        r.setup.concurrency,
        r.setup
            .rate
            .map(|x| format!(", at most {x}/s"))
            .unwrap_or_default()
    );
    s.push_str("| requests | right | error rate | throughput | p50 | p90 | p95 | p99 | max |\n");
    s.push_str("|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    s.push_str(&format!(
        "| {} | {} | {:.2}% | {:.1}/s | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms |\n\n",
        r.requests,
        r.ok,
        r.error_rate * 100.0,
        r.throughput,
        l.p50,
        l.p90,
        l.p95,
        l.p99,
        l.max
    ));
    s.push_str("| class | requests |\n|:--|--:|\n");
    for (c, n) in &r.classes {
        s.push_str(&format!("| {} | {n} |\n", c.as_str()));
    }
    if !r.failures.is_empty() {
        s.push_str("\n### First failures\n\n| request | class | call | arguments | detail |\n|--:|:--|:--|:--|:--|\n");
        for f in &r.failures {
            s.push_str(&format!(
                "| {} | {} | {} | <code>{}</code> | {} |\n",
                f.request,
                f.class.as_str(),
                md_cell(&f.call),
                md_cell(&compact(&f.arguments)),
                md_cell(&crate::truncate(&f.detail, 300))
            ));
        }
    }
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The latency histogram as a standalone SVG image, with the p50, p95 and
/// p99 marked.
pub fn svg(r: &LoadReport) -> String {
    const W: f64 = 640.0;
    const H: f64 = 320.0;
    const LEFT: f64 = 56.0;
    const RIGHT: f64 = 16.0;
    const TOP: f64 = 40.0;
    const BOTTOM: f64 = 48.0;
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"20\" font-size=\"13\">{}: latency of {} requests (ms)</text>\n",
        xml(&r.setup.target),
        r.requests
    );
    let (Some(first), Some(last)) = (r.histogram.first(), r.histogram.last()) else {
        s.push_str(&format!(
            "<text x=\"{LEFT}\" y=\"{}\">no requests</text>\n</svg>\n",
            TOP + 20.0
        ));
        return s;
    };
    let (lo, hi) = (first.from_ms, last.to_ms.max(first.from_ms + 0.001));
    let x_of = |v: f64| LEFT + (v - lo) / (hi - lo) * plot_w;
    let top = r
        .histogram
        .iter()
        .map(|b| b.count)
        .max()
        .unwrap_or(1)
        .max(1);
    let bar_w = plot_w / r.histogram.len() as f64;
    for (i, b) in r.histogram.iter().enumerate() {
        let h = b.count as f64 / top as f64 * plot_h;
        s.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#4a7fb5\"><title>{:.2}–{:.2} ms: {}</title></rect>\n",
            LEFT + i as f64 * bar_w + 0.5,
            TOP + plot_h - h,
            (bar_w - 1.0).max(0.5),
            h,
            b.from_ms,
            b.to_ms,
            b.count
        ));
    }
    // Axes, with the ends and the middle labelled.
    let base = TOP + plot_h;
    s.push_str(&format!(
        "<line x1=\"{LEFT}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\" stroke=\"black\"/>\n<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{base}\" stroke=\"black\"/>\n",
        LEFT + plot_w
    ));
    for v in [lo, (lo + hi) / 2.0, hi] {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{v:.2}</text>\n",
            x_of(v),
            base + 16.0
        ));
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{top}</text>\n<text x=\"{}\" y=\"{base}\" text-anchor=\"end\">0</text>\n",
        LEFT - 6.0,
        TOP + 4.0,
        LEFT - 6.0
    ));
    for (name, v, colour) in [
        ("p50", r.latency_ms.p50, "#2e7d32"),
        ("p95", r.latency_ms.p95, "#ef6c00"),
        ("p99", r.latency_ms.p99, "#c62828"),
    ] {
        let x = x_of(v.clamp(lo, hi));
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{base}\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/>\n<text x=\"{x:.1}\" y=\"{}\" fill=\"{colour}\" text-anchor=\"middle\">{name} {v:.2}</text>\n",
            TOP - 4.0
        ));
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} right, error rate {:.2}%, {:.1} requests/s</text>\n</svg>\n",
        LEFT + plot_w / 2.0,
        H - 10.0,
        r.ok,
        r.error_rate * 100.0,
        r.throughput
    ));
    s
}

/// Pretty JSON of the report.
pub fn to_json(r: &LoadReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// An answer as the statelessness check compares it: the result without
/// its `_meta`, the JSON-RPC error's code and message, or why none came.
pub fn comparable_answer(
    result: Option<&Value>,
    error: Option<&Value>,
    failure: Option<&str>,
) -> Value {
    if let Some(f) = failure {
        return serde_json::json!({"failure": f});
    }
    if let Some(e) = error {
        return serde_json::json!({"error": {"code": e.get("code"), "message": e.get("message")}});
    }
    let mut r = result.cloned().unwrap_or(Value::Null);
    if let Some(o) = r.as_object_mut() {
        o.remove("_meta");
    }
    serde_json::json!({ "result": r })
}

/// A request whose answer, sent round-robin over the instances, differs from
/// the answer one instance gave to the same request in the same sequence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// The request's place in the sequence (0-based).
    pub request: u64,
    pub call: String,
    /// The instance that answered it in the round-robin sequence.
    pub instance: String,
    /// What the single instance answered.
    pub single: Value,
    /// What the round-robin sequence got.
    pub spread: Value,
}

/// The outcome of the statelessness check (`load --instances`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatelessReport {
    pub instances: Vec<String>,
    /// The calls the sequence cycles through.
    pub calls: Vec<String>,
    pub requests: u64,
    /// Requests answered alike by one instance and round-robin.
    pub equal: u64,
    /// Requests for which one of the two sequences got no answer.
    pub unanswered: u64,
    /// The first differences (at most [`FAILURES_KEPT`]), in sequence order.
    pub differences: Vec<Difference>,
    /// How many requests differ in all.
    pub differ: u64,
}

impl StatelessReport {
    /// Whether every request got an answer, the same from either sequence.
    pub fn stateless(&self) -> bool {
        self.differ == 0 && self.unanswered == 0 && self.requests > 0
    }
}

/// Compare the answers of the same sequence of requests sent to one instance
/// (`single`) and round-robin over `instances` (`spread`, request i to
/// instance i mod n). `call_of[i]` names request i's call.
pub fn compare_stateless(
    instances: Vec<String>,
    calls: Vec<String>,
    call_of: &[String],
    single: &[Value],
    spread: &[Value],
) -> StatelessReport {
    let n = single.len().min(spread.len()).min(call_of.len());
    let mut equal = 0u64;
    let mut unanswered = 0u64;
    let mut differ = 0u64;
    let mut differences = Vec::new();
    for i in 0..n {
        let (a, b) = (&single[i], &spread[i]);
        if a.get("failure").is_some() || b.get("failure").is_some() {
            unanswered += 1;
        } else if a == b {
            equal += 1;
            continue;
        } else {
            differ += 1;
        }
        if differences.len() < FAILURES_KEPT {
            differences.push(Difference {
                request: i as u64,
                call: call_of[i].clone(),
                instance: instances
                    .get(i % instances.len().max(1))
                    .cloned()
                    .unwrap_or_default(),
                single: a.clone(),
                spread: b.clone(),
            });
        }
    }
    StatelessReport {
        instances,
        calls,
        requests: n as u64,
        equal,
        unanswered,
        differences,
        differ,
    }
}

/// What the terminal shows for the statelessness check.
pub fn stateless_text(r: &StatelessReport) -> String {
    let mut s = format!(
        "{} requests over {} ({}), round-robin over {} instances, against one instance alone: {}\n",
        r.requests,
        r.calls.len(),
        r.calls.join(", "),
        r.instances.len(),
        if r.stateless() {
            "every answer the same (stateless)".to_string()
        } else {
            format!(
                "{} the same, {} different, {} unanswered (not stateless)",
                r.equal, r.differ, r.unanswered
            )
        }
    );
    for d in &r.differences {
        s.push_str(&format!(
            "  #{} {} at {}: alone {}, round-robin {}\n",
            d.request,
            d.call,
            d.instance,
            compact(&d.single),
            compact(&d.spread)
        ));
    }
    s
}

/// A Markdown summary of the statelessness check.
pub fn stateless_markdown(r: &StatelessReport) -> String {
    let mut s = format!(
        "## mcpcheck load: statelessness over {} instances\n\n{}\n\n| requests | same | different | unanswered |\n|--:|--:|--:|--:|\n| {} | {} | {} | {} |\n",
        r.instances.len(),
        if r.stateless() {
            "Every answer round-robin over the instances was the one a single instance gave."
        } else {
            "Some answers depend on which instance had the earlier requests: **not stateless**."
        },
        r.requests,
        r.equal,
        r.differ,
        r.unanswered
    );
    if !r.differences.is_empty() {
        s.push_str(
            "\n| request | call | instance | alone | round-robin |\n|--:|:--|:--|:--|:--|\n",
        );
        for d in &r.differences {
            s.push_str(&format!(
                "| {} | {} | {} | <code>{}</code> | <code>{}</code> |\n",
                d.request,
                md_cell(&d.call),
                md_cell(&d.instance),
                md_cell(&compact(&d.single)),
                md_cell(&compact(&d.spread))
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Setup {
        Setup {
            target: "http://127.0.0.1:1/mcp".into(),
            concurrency: 4,
            rate: None,
            calls: vec!["echo".into()],
        }
    }

    fn samples(latencies_ms: &[u64], bad: &[(usize, Class)]) -> Vec<Sample> {
        latencies_ms
            .iter()
            .enumerate()
            .map(|(i, ms)| Sample {
                latency_us: ms * 1000,
                class: bad
                    .iter()
                    .find(|(j, _)| *j == i)
                    .map_or(Class::Ok, |(_, c)| *c),
            })
            .collect()
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 95.0), 95);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&v, 100.0), 100);
        assert_eq!(percentile(&v, 0.0), 1);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
        // Ten values: p95 is the 10th (ceil(9.5)), p50 the 5th.
        let ten = [10, 20, 30, 40, 50, 60, 70, 80, 90, 1000];
        assert_eq!(percentile(&ten, 95.0), 1000);
        assert_eq!(percentile(&ten, 50.0), 50);
    }

    #[test]
    fn summary_counts_classes_rates_and_keeps_the_first_failures() {
        let lat: Vec<u64> = (1..=40).collect();
        let s = samples(
            &lat,
            &[
                (3, Class::WrongAnswer),
                (7, Class::Timeout),
                (8, Class::WrongAnswer),
            ],
        );
        let failures = (0..15)
            .rev()
            .map(|i| Failure {
                request: i,
                call: "echo".into(),
                tool: "echo".into(),
                arguments: serde_json::json!({"message": i}),
                class: Class::WrongAnswer,
                detail: "expected text to equal 'x'".into(),
            })
            .collect();
        let r = summarize(setup(), &s, failures, 2_000_000);
        assert_eq!((r.requests, r.ok), (40, 37));
        assert_eq!(r.classes[1], (Class::WrongAnswer, 2));
        assert_eq!(r.classes[3], (Class::Timeout, 1));
        assert!((r.error_rate - 0.075).abs() < 1e-9);
        assert!((r.throughput - 20.0).abs() < 1e-9);
        assert_eq!(r.elapsed_ms, 2000);
        assert_eq!((r.latency_ms.p50, r.latency_ms.p95), (20.0, 38.0));
        assert_eq!((r.latency_ms.min, r.latency_ms.max), (1.0, 40.0));
        assert!((r.latency_ms.mean - 20.5).abs() < 1e-9);
        assert_eq!(r.failures.len(), FAILURES_KEPT);
        assert_eq!(r.failures[0].request, 0);
        assert_eq!(r.histogram.len(), BINS);
        assert_eq!(r.histogram.iter().map(|b| b.count).sum::<u64>(), 40);
        let json: Value = serde_json::from_str(&to_json(&r)).unwrap();
        assert_eq!(json["classes"][1], serde_json::json!(["wrong_answer", 2]));
        assert_eq!(json["error_rate"], 0.075);
    }

    #[test]
    fn the_gate_fails_on_a_wrong_answer_unless_a_rate_allows_it() {
        let s = samples(&[5, 5, 5, 5, 50], &[(4, Class::WrongAnswer)]);
        let r = summarize(setup(), &s, Vec::new(), 1_000_000);
        let none = judge(&r, &Limits::default());
        assert_eq!(none, ["1 of 5 requests did not get a right answer"]);
        let allowed = Limits {
            max_error_rate: Some(0.2),
            ..Limits::default()
        };
        assert!(judge(&r, &allowed).is_empty());
        let strict = Limits {
            max_error_rate: Some(0.1),
            max_p95_ms: Some(10.0),
        };
        let reasons = judge(&r, &strict);
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("p95 latency 50 ms is above --max-p95 10 ms"));
        assert!(reasons[1].contains("error rate 20% (1 of 5) is above --max-error-rate 10%"));
        let empty = summarize(setup(), &[], Vec::new(), 0);
        assert_eq!(judge(&empty, &allowed), ["no request was sent"]);
    }

    #[test]
    fn reports_show_the_figures() {
        let s = samples(&[1, 2, 3, 4, 100], &[(4, Class::RpcError)]);
        let f = Failure {
            request: 4,
            call: "echo | pipe".into(),
            tool: "echo".into(),
            arguments: serde_json::json!({"message": "<x>"}),
            class: Class::RpcError,
            detail: "-32602: bad".into(),
        };
        let r = summarize(setup(), &s, vec![f], 500_000);
        let md = markdown(&r);
        assert!(md.contains("| 5 | 4 | 20.00% | 10.0/s | 3.00 ms |"), "{md}");
        assert!(md.contains("| rpc_error | 1 |"), "{md}");
        assert!(md.contains("echo \\| pipe"), "{md}");
        let t = text(&r);
        assert!(t.contains("p95 100.00"), "{t}");
        assert!(t.contains("rpc_error 1"), "{t}");
        let svg = svg(&r);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<rect ").count(), 1 + BINS);
        assert!(svg.contains("p95 100.00") && svg.contains("p50 3.00"));
        let none = super::svg(&summarize(setup(), &[], Vec::new(), 0));
        assert!(none.contains("no requests") && none.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn statelessness_compares_answers_in_sequence() {
        let ans = |t: &str| {
            comparable_answer(
                Some(
                    &serde_json::json!({"content": [{"type": "text", "text": t}], "_meta": {"x": 1}}),
                ),
                None,
                None,
            )
        };
        assert_eq!(
            ans("a"),
            serde_json::json!({"result": {"content": [{"type": "text", "text": "a"}]}})
        );
        let calls = vec!["echo".to_string()];
        let call_of = vec!["echo".to_string(); 4];
        let inst = vec!["u1".to_string(), "u2".to_string()];
        let same = compare_stateless(
            inst.clone(),
            calls.clone(),
            &call_of,
            &[ans("1"), ans("2"), ans("3"), ans("4")],
            &[ans("1"), ans("2"), ans("3"), ans("4")],
        );
        assert!(same.stateless());
        assert_eq!(same.equal, 4);
        assert!(stateless_text(&same).contains("every answer the same (stateless)"));
        // A per-instance counter: round-robin, each instance counts its own.
        let diff = compare_stateless(
            inst,
            calls,
            &call_of,
            &[ans("1"), ans("2"), ans("3"), ans("4")],
            &[ans("1"), ans("1"), ans("2"), ans("2")],
        );
        assert!(!diff.stateless());
        assert_eq!((diff.equal, diff.differ), (1, 3));
        assert_eq!(diff.differences[0].request, 1);
        assert_eq!(diff.differences[0].instance, "u2");
        let t = stateless_text(&diff);
        assert!(
            t.contains("1 the same, 3 different, 0 unanswered (not stateless)"),
            "{t}"
        );
        assert!(stateless_markdown(&diff).contains("| 4 | 1 | 3 | 0 |"));
        let lost = comparable_answer(None, None, Some("no answer"));
        let r = compare_stateless(
            vec!["u".into()],
            vec!["e".into()],
            &["e".to_string()],
            &[ans("1")],
            &[lost],
        );
        assert_eq!((r.unanswered, r.stateless()), (1, false));
        let e = comparable_answer(
            None,
            Some(&serde_json::json!({"code": -32602, "message": "bad", "data": 1})),
            None,
        );
        assert_eq!(
            e,
            serde_json::json!({"error": {"code": -32602, "message": "bad"}})
        );
    }
}
