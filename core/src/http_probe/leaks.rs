//! H301, H302, H303: what error answers leak. Each rule reports once, at the
//! first error answer that shows it, and counts the others.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::rules::Rule;
use super::{Answer, Observations, Push, call_succeeded, evidence};

/// A pattern compiled on first use. The patterns are constant and tested to
/// compile; should one not, its rule finds nothing.
type Pattern = LazyLock<Option<Regex>>;

/// Stack frames and trace headers of common runtimes: Node/V8, Python, Rust,
/// Java (and Kotlin, Scala), Go, .NET.
static STACK_TRACE: Pattern = LazyLock::new(|| {
    Regex::new(concat!(
        r"\bat (?:[^\s()]+ )?\(?(?:/|[A-Za-z]:[\\/]|file://|node:)[^\s()]*:\d+:\d+\)?",
        r#"|Traceback \(most recent call last\)|\bFile "[^"]+", line \d+"#,
        r"|\bpanicked at ",
        r"|\bat (?:[\w$]+\.)+[\w$<>]+\((?:[\w$-]+\.(?:java|kt|scala):\d+|Native Method|Unknown Source)\)",
        r"|\bgoroutine \d+ \[[a-z ]+\]",
        r"|\bat [\w.<>`]+\([^)]*\) in [^\n]+:line \d+",
    ))
    .ok()
});

/// Absolute paths under the usual roots of Unix machines, Windows drive paths
/// and `file:` URLs.
static FILE_PATH: Pattern = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:^|[\s"'(=:,\[])("#,
        r#"/(?:home|Users|root|usr|var|opt|srv|etc|app|tmp|private|mnt|workspace|build|src|lib|proc|data|run|snap|nix)(?:/[^\s"'():,\]]+)+"#,
        r#"|[A-Za-z]:\\(?:[^\s\\"'():,]+\\)+[^\s\\"'():,]*"#,
        r#"|file:///[^\s"'()]+)"#,
    ))
    .ok()
});

/// The error answers the rules read, each with the probe that got it.
fn error_answers(o: &Observations) -> Vec<(String, &Answer)> {
    let mut out: Vec<(String, &Answer)> = o
        .error_bodies
        .iter()
        .map(|e| (e.probe.clone(), &e.answer))
        .collect();
    out.extend(
        o.hidden_calls
            .iter()
            .filter(|c| !call_succeeded(&c.answer))
            .map(|c| (format!("hidden-tool:{}", c.tool), &c.answer)),
    );
    if let Some(auth) = &o.unauthenticated {
        out.push(("auth".to_string(), &auth.answer));
    }
    out
}

/// The texts of an answer: every string in its JSON-RPC messages (so a trace
/// inside a JSON string is read with its line breaks), or the body itself
/// when it holds no JSON.
fn texts(answer: &Answer) -> Vec<String> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let messages = answer.messages();
    if messages.is_empty() {
        return vec![answer.body.clone()];
    }
    let mut out = Vec::new();
    for message in &messages {
        strings(message, &mut out);
    }
    out
}

/// The first hit of `find` in the answers, its probe, and how many answers hit.
fn first_hit(
    answers: &[(String, Vec<String>)],
    find: impl Fn(&str) -> Option<String>,
) -> Option<(String, String, usize)> {
    let mut first = None;
    let mut count = 0;
    for (probe, texts) in answers {
        if let Some(hit) = texts.iter().find_map(|t| find(t)) {
            count += 1;
            if first.is_none() {
                first = Some((probe.clone(), hit));
            }
        }
    }
    first.map(|(probe, hit)| (probe, hit, count))
}

fn more(count: usize) -> String {
    if count > 1 {
        format!(" (and in {} more error answers)", count - 1)
    } else {
        String::new()
    }
}

/// H301, H302, H303.
pub(super) fn judge(o: &Observations, push: &mut Push<'_>) {
    let answers: Vec<(String, Vec<String>)> = error_answers(o)
        .into_iter()
        .map(|(probe, answer)| (probe, texts(answer)))
        .collect();
    let trace = |t: &str| {
        let re = STACK_TRACE.as_ref()?;
        re.find(t).map(|m| {
            let line_start = t[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = t[m.end()..].find('\n').map_or(t.len(), |i| m.end() + i);
            t[line_start..line_end].trim().to_string()
        })
    };
    if let Some((probe, hit, count)) = first_hit(&answers, trace) {
        push(
            Rule::StackTrace,
            &probe,
            format!("the error answer carries a stack trace{}", more(count)),
            evidence(&hit),
        );
    }
    let path = |t: &str| {
        let re = FILE_PATH.as_ref()?;
        re.captures(t)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
    };
    if let Some((probe, hit, count)) = first_hit(&answers, path) {
        push(
            Rule::FilePath,
            &probe,
            format!(
                "the error answer names an absolute file path of the server's machine{}",
                more(count)
            ),
            evidence(&hit),
        );
    }
    let secret = |t: &str| {
        crate::scan::secrets(t)
            .first()
            .map(|&(s, e)| crate::scan::secret_evidence(&t[s..e]))
    };
    if let Some((probe, hit, count)) = first_hit(&answers, secret) {
        push(
            Rule::SecretInError,
            &probe,
            format!(
                "the error answer carries what looks like a live credential{}",
                more(count)
            ),
            evidence(&hit),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile() {
        assert!(STACK_TRACE.is_some());
        assert!(FILE_PATH.is_some());
    }
}
