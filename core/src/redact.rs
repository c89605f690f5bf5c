//! Secret redaction: what a suite hands a server as credentials never shows
//! in a report or a capture; it is replaced by `***`.
//!
//! A [`Redactor`] knows the secret values, and replaces them wherever they
//! occur — inside longer strings too — in text, in JSON (strings and object
//! keys), and in a results document. It also always hides:
//!
//! - the value after `Authorization:` / `Proxy-Authorization:` (and the JSON
//!   or `key=value` spellings of the same),
//! - a bearer token (`Bearer` followed by 8 or more token characters),
//! - in JSON, the value of any member named `Authorization`,
//!   `Proxy-Authorization`, `Cookie`, `Set-Cookie`, or a header the suite
//!   names (compared without regard to case).
//!
//! Which values are secret:
//!
//! - every header value the suite sets (and, for `Bearer TOKEN` and the
//!   other authorization schemes, the token alone), at least 4 characters
//!   long — except headers that only describe the request (`Accept`,
//!   `Content-Type`, `User-Agent`, `MCP-Protocol-Version`, …);
//! - an environment value of at least 4 characters whose variable's name
//!   looks secret (it contains `TOKEN`, `KEY`, `SECRET`, `PASS`, `AUTH`,
//!   `CREDENTIAL`, `COOKIE`, `SESSION`, `PRIVATE` or `DSN`, in any case);
//! - in any environment value, whatever its name: what looks like a live
//!   credential (the patterns of scan's S602: `ghp_…`, `sk-…`, `AKIA…`, a
//!   JWT, a private key block) and the password of a URL
//!   (`postgres://user:PASSWORD@host/db`);
//! - the values of the names a server's `redact.secret` lists (env variables
//!   or headers, any length);
//! - anything given to [`Redactor::secret`] (no length rule).
//!
//! Other environment values are not secret, whatever their length: a marker
//! (`ACCEPTANCE_MARKER: mcpcheck-42`), a log level or a path is shown, so an
//! answer that quotes one is recorded as it was and replays the same. The
//! names a server's `redact.keep` lists are never hidden, whatever their
//! name or value looks like.
//!
//! The caller supplies values already expanded (`${TOKEN}` resolved);
//! [`Redactor::for_suite`] does that for a loaded suite with an environment
//! lookup, since core reads no environment itself.

use std::cell::RefCell;

use regex::Regex;
use serde_json::Value;

use crate::results::{Results, TestResult};
use crate::suite::{Server, SuiteFile};
use crate::template::expand_env;

/// What replaces a secret.
pub const REDACTED: &str = "***";

/// JSON members whose value is always a credential (lower case).
const SECRET_MEMBERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// Headers that describe a request rather than authorize it (lower case):
/// their values are not hidden, so `Accept: application/json` does not turn
/// every `application/json` in a report into `***`.
const PLAIN_HEADERS: [&str; 9] = [
    "accept",
    "accept-encoding",
    "accept-language",
    "cache-control",
    "content-type",
    "mcp-protocol-version",
    "origin",
    "referer",
    "user-agent",
];

/// Authorization schemes whose parameter is hidden on its own too.
const AUTH_SCHEMES: [&str; 6] = ["bearer", "basic", "token", "digest", "apikey", "negotiate"];

/// Whether a header only describes the request (`Accept`, `Content-Type`,
/// `User-Agent`, …), so its value is not a secret; every other header's is.
pub fn header_is_plain(name: &str) -> bool {
    PLAIN_HEADERS.contains(&name.trim().to_ascii_lowercase().as_str())
}

/// Parts of an environment variable's name that mark its value as secret.
pub const SECRET_NAME_PARTS: [&str; 10] = [
    "TOKEN",
    "KEY",
    "SECRET",
    "PASS",
    "AUTH",
    "CREDENTIAL",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "DSN",
];

/// Whether an environment variable's name says its value is secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAME_PARTS.iter().any(|p| upper.contains(p))
}

/// Replaces secrets with `***`.
#[derive(Clone, Debug)]
pub struct Redactor {
    /// Literal secret values, longest first (so a secret containing another
    /// is hidden whole).
    secrets: Vec<String>,
    /// Lower-case JSON member names whose values are hidden.
    members: Vec<String>,
    authorization: Option<Regex>,
    bearer: Option<Regex>,
    /// Upper-case names (env or header) whose values are always hidden.
    secret_names: Vec<String>,
    /// Upper-case names whose values are never hidden.
    keep_names: Vec<String>,
}

/// The password of a URL with credentials (`scheme://user:PASSWORD@host`):
/// group 1.
static URL_PASSWORD: std::sync::LazyLock<Option<Regex>> = std::sync::LazyLock::new(|| {
    Regex::new(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@").ok()
});

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new()
    }
}

impl Redactor {
    /// A redactor that hides only `Authorization` values and bearer tokens.
    pub fn new() -> Redactor {
        Redactor {
            secrets: Vec::new(),
            members: SECRET_MEMBERS.iter().map(|s| s.to_string()).collect(),
            // The patterns are constant; should one not compile the redactor
            // still hides every literal secret.
            // The value ends at a quote, a line end or an escaped quote
            // (`\"` in JSON text: the backslash stays, so the JSON does
            // too); one that opens an object or a list is a member named
            // `authorization` (a report's), not a credential.
            authorization: Regex::new(
                r#"(?i)(\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?)((?:[^"'\\\s{\[]|\\[^"])(?:[^"'\\\r\n]|\\[^"])*)"#,
            )
            .ok(),
            bearer: Regex::new(r"(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*").ok(),
            secret_names: Vec::new(),
            keep_names: Vec::new(),
        }
    }

    /// Names whose values are secret whatever the rule says (a server's
    /// `redact.secret`), and names whose values are not (`redact.keep`).
    pub fn names(&mut self, secret: &[String], keep: &[String]) -> &mut Self {
        for (list, names) in [
            (&mut self.secret_names, secret),
            (&mut self.keep_names, keep),
        ] {
            for n in names {
                let upper = n.trim().to_ascii_uppercase();
                if !upper.is_empty() && !list.contains(&upper) {
                    list.push(upper);
                }
            }
        }
        self
    }

    fn kept(&self, name: &str) -> bool {
        self.keep_names.contains(&name.trim().to_ascii_uppercase())
    }

    fn marked_secret(&self, name: &str) -> bool {
        self.secret_names
            .contains(&name.trim().to_ascii_uppercase())
    }

    /// Hide `value` wherever it occurs (ignored when empty).
    pub fn secret(&mut self, value: &str) -> &mut Self {
        if !value.is_empty() && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_string());
            self.secrets
                .sort_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
        }
        self
    }

    /// An environment variable the suite sets or references: its value is
    /// hidden when the module's rule says it is secret.
    pub fn env(&mut self, name: &str, value: &str) -> &mut Self {
        if self.kept(name) {
            return self;
        }
        if self.marked_secret(name) || (value.chars().count() >= 4 && looks_secret(name)) {
            self.secret(value);
            return self;
        }
        for (start, end) in crate::scan::secrets(value) {
            self.secret(&value[start..end]);
        }
        if let Some(re) = URL_PASSWORD.as_ref() {
            let passwords: Vec<String> = re
                .captures_iter(value)
                .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
                .filter(|p| p.chars().count() >= 4)
                .collect();
            for p in passwords {
                self.secret(&p);
            }
        }
        self
    }

    /// A header the suite sets: its value is hidden (for `SCHEME TOKEN`
    /// the token alone too), and so is any JSON member with its name —
    /// unless it is a header that only describes the request (`Accept`,
    /// `Content-Type`, `User-Agent`, …).
    pub fn header(&mut self, name: &str, value: &str) -> &mut Self {
        let lower = name.trim().to_ascii_lowercase();
        if self.marked_secret(name) && !value.is_empty() {
            self.secret(value);
        }
        if lower.is_empty() || self.kept(name) || header_is_plain(&lower) {
            return self;
        }
        if !self.members.contains(&lower) {
            self.members.push(lower);
        }
        if value.chars().count() >= 4 {
            self.secret(value);
        }
        if let Some((scheme, token)) = value.trim().split_once(' ') {
            let token = token.trim();
            if AUTH_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str())
                && token.chars().count() >= 4
            {
                self.secret(token);
            }
        }
        self
    }

    /// Every secret of a server: its environment, headers and `auth`
    /// secrets, expanded with `env`, and every variable they reference as
    /// `${NAME}`. A variable its command line or URL references is a secret
    /// only when its name says so (`API_KEY`, `TOKEN`, …): `${MCP_URL}` is
    /// an address, and hiding it would hide every label built from it.
    pub fn server(&mut self, server: &Server, env: &dyn Fn(&str) -> Option<String>) -> &mut Self {
        self.names(&server.redact.secret, &server.redact.keep);
        let referenced = RefCell::new(Vec::<String>::new());
        let lookup = |name: &str| {
            referenced.borrow_mut().push(name.to_string());
            env(name)
        };
        for (name, value) in &server.env {
            let (v, _) = expand_env(value, &lookup);
            self.env(name, &v);
        }
        for (name, value) in &server.headers {
            let (v, _) = expand_env(value, &lookup);
            self.header(name, &v);
        }
        // An `auth` block's client secret and refresh token.
        for value in server
            .auth
            .iter()
            .flat_map(|a| a.client_secret.iter().chain(&a.refresh_token))
        {
            let (v, _) = expand_env(value, &lookup);
            self.secret(&v);
        }
        let in_env_or_headers = referenced.take();
        for s in server.url.iter().chain(&server.args).chain(&server.command) {
            let _ = expand_env(s, &lookup);
        }
        let in_command_or_url = referenced.into_inner();
        for name in &in_env_or_headers {
            if let Some(v) = env(name) {
                self.env(name, &v);
            }
        }
        for name in in_command_or_url.iter().filter(|n| looks_secret(n)) {
            if let Some(v) = env(name) {
                self.env(name, &v);
            }
        }
        self
    }

    /// Every secret a loaded suite names: its own environment and that of
    /// each test's server, expanded with `env`.
    pub fn for_suite(files: &[SuiteFile], env: &dyn Fn(&str) -> Option<String>) -> Redactor {
        let mut r = Redactor::new();
        // Every server's `redact` first: the file's `env` is every server's.
        for s in files
            .iter()
            .flat_map(|f| &f.tests)
            .filter_map(|t| t.server.as_ref())
        {
            r.names(&s.redact.secret, &s.redact.keep);
        }
        for f in files {
            for (name, value) in &f.env {
                let (v, _) = expand_env(value, env);
                r.env(name, &v);
                for referenced in referenced_names(value) {
                    if let Some(v) = env(&referenced) {
                        r.env(&referenced, &v);
                    }
                }
            }
            for t in &f.tests {
                if let Some(s) = &t.server {
                    r.server(s, env);
                }
            }
        }
        r
    }

    /// The secret values known (longest first).
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// `s` with every secret, `Authorization` value and bearer token hidden.
    pub fn redact_str(&self, s: &str) -> String {
        let mut out = s.to_string();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        if let Some(re) = &self.authorization {
            out = re
                .replace_all(&out, |c: &regex::Captures| format!("{}{REDACTED}", &c[1]))
                .into_owned();
        }
        if let Some(re) = &self.bearer {
            out = re
                .replace_all(&out, |c: &regex::Captures| format!("{}{REDACTED}", &c[1]))
                .into_owned();
        }
        out
    }

    fn hides_member(&self, key: &str) -> bool {
        let lower = key.to_ascii_lowercase();
        self.members.contains(&lower)
    }

    /// A copy of `v` with every string (and object key) redacted, and the
    /// value of every credential member replaced by `"***"`.
    pub fn redact_json(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.redact_str(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|x| self.redact_json(x)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, x)| {
                        let value = if self.hides_member(k) && !x.is_null() {
                            Value::String(REDACTED.into())
                        } else {
                            self.redact_json(x)
                        };
                        (self.redact_str(k), value)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A copy of one test's result with every text field redacted.
    pub fn redact_test(&self, t: &TestResult) -> TestResult {
        let r = |s: &String| self.redact_str(s);
        let mut t = t.clone();
        t.name = r(&t.name);
        t.file = r(&t.file);
        t.message = r(&t.message);
        for c in &mut t.checks {
            c.name = r(&c.name);
            c.target = r(&c.target);
            c.matcher = r(&c.matcher);
            c.expected = r(&c.expected);
            c.actual = r(&c.actual);
            c.expected_value = self.redact_json(&c.expected_value);
            c.actual_value = c.actual_value.as_ref().map(|v| self.redact_json(v));
            c.path = c
                .path
                .as_ref()
                .map(|p| p.iter().map(|v| self.redact_json(v)).collect());
            c.reason = r(&c.reason);
            c.set = c.set.as_ref().map(r);
        }
        for s in &mut t.sets {
            s.name = r(&s.name);
        }
        for m in &mut t.derived_metrics {
            m.name = r(&m.name);
            m.unresolved = m.unresolved.iter().map(r).collect();
        }
        t.warnings = t.warnings.iter().map(r).collect();
        for a in &mut t.attempts {
            a.message = r(&a.message);
        }
        t.tags = t.tags.iter().map(r).collect();
        t.server = r(&t.server);
        t
    }

    /// A copy of a results document with every test (and metric name)
    /// redacted. The numbers are kept as they are: recomputing them from a
    /// document read back would round twice.
    pub fn redact_results(&self, results: &Results) -> Results {
        let mut out = results.clone();
        out.tests = results.tests.iter().map(|t| self.redact_test(t)).collect();
        for m in &mut out.metric_rollups {
            m.name = self.redact_str(&m.name);
        }
        out
    }
}

/// The `${NAME}` references in a string.
fn referenced_names(s: &str) -> Vec<String> {
    let names = RefCell::new(Vec::new());
    let _ = expand_env(s, &|n| {
        names.borrow_mut().push(n.to_string());
        None
    });
    names.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with(secrets: &[&str]) -> Redactor {
        let mut r = Redactor::new();
        for s in secrets {
            r.secret(s);
        }
        r
    }

    #[test]
    fn an_authorization_value_in_json_text_keeps_the_json_whole() {
        let doc =
            json!({"evidence": "send Authorization: Bearer\"} and Authorization: s3cr3t-value"});
        let shown = Redactor::new().redact_str(&doc.to_string());
        let back: Value = serde_json::from_str(&shown).expect("still JSON");
        let text = back["evidence"].as_str().unwrap_or_default();
        assert!(text.contains("Authorization: ***\"}"), "{text}");
        assert!(!text.contains("s3cr3t"), "{text}");
        let report = "{\n  \"authorization\": {\n    \"findings\": []\n  }\n}";
        assert_eq!(Redactor::new().redact_str(report), report);
    }

    #[test]
    fn an_auth_blocks_secret_and_refresh_token_are_hidden() {
        let loaded = crate::suite::load(
            "a.yaml",
            "name: t\nserver:\n  transport: http\n  url: http://h/mcp\n  auth:\n    type: refresh_token\n    client_id: c\n    client_secret: ${CS}\n    refresh_token: rt-written-here\nassert: {tool: t}\n",
        );
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let env = |n: &str| (n == "CS").then(|| "from-the-environment".to_string());
        let r = Redactor::for_suite(std::slice::from_ref(&loaded.suite), &env);
        assert_eq!(
            r.redact_str("c from-the-environment rt-written-here"),
            "c *** ***"
        );
    }

    #[test]
    fn a_servers_redact_block_is_read_and_covers_the_files_env() {
        let yaml = "env:\n  RUN_ID: abcd\n  API_TOKEN: tok-1234\nserver:\n  command: srv\n  env:\n    ACCEPTANCE_MARKER: mcpcheck-42\n  redact:\n    secret: [run_id]\n    keep: [API_TOKEN]\ntests:\n  - name: t\n    assert: {tool: echo}\n";
        let loaded = crate::suite::load("t.yaml", yaml);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let r = Redactor::for_suite(&[loaded.suite], &|_| None);
        assert_eq!(
            r.redact_str("abcd tok-1234 mcpcheck-42"),
            "*** tok-1234 mcpcheck-42"
        );
        let bad = "name: t\nserver:\n  command: srv\n  redact:\n    secret: [A]\n    keep: [a]\n    hide: [B]\nassert: {tool: echo}\n";
        let loaded = crate::suite::load("t.yaml", bad);
        let messages: Vec<String> = loaded
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("`A` is in both `redact.secret` and `redact.keep`")),
            "{messages:?}"
        );
        assert!(messages.iter().any(|m| m.contains("hide")), "{messages:?}");
    }

    #[test]
    fn strings() {
        let table: &[(&[&str], &str, &str)] = &[
            (&["sk-123456"], "token sk-123456 leaked", "token *** leaked"),
            (&["sk-123456"], "twice sk-123456sk-123456", "twice ******"),
            // The longer secret wins over the one it contains.
            (&["abcd", "abcdefgh"], "x abcdefgh y", "x *** y"),
            (
                &[],
                "Authorization: Bearer abc.def-ghi",
                "Authorization: ***",
            ),
            (&[], "authorization=Basic dXNlcjpwYXNz", "authorization=***"),
            (
                &[],
                r#"{"Authorization": "Bearer x"}"#,
                r#"{"Authorization": "***"}"#,
            ),
            (
                &[],
                "Proxy-Authorization: secret",
                "Proxy-Authorization: ***",
            ),
            (&[], "send Bearer eyJhbGciOi.xyz now", "send Bearer *** now"),
            // Too short to be a token: prose stays.
            (&[], "a bearer token is", "a bearer token is"),
            (&[], "nothing to hide", "nothing to hide"),
            (
                &[""],
                "empty secrets are ignored",
                "empty secrets are ignored",
            ),
        ];
        for (secrets, input, want) in table {
            assert_eq!(with(secrets).redact_str(input), *want, "{input}");
        }
    }

    #[test]
    fn env_and_header_rules() {
        let table: &[(&str, &str, bool)] = &[
            ("API_TOKEN", "abcd", true),
            ("API_TOKEN", "abc", false),
            ("gh_auth", "ghp_1", true),
            ("NODE_ENV", "test", false),
            ("NODE_ENV", "production", false),
            // A marker is not a secret, however long.
            ("ACCEPTANCE_MARKER", "mcpcheck-42", false),
            ("LOG_DIR", "/var/log/some-long-place", false),
            ("DEBUG", "1", false),
            ("MY_PASSWORD", "hunter2", true),
            ("SENTRY_DSN", "https://abc@o1.ingest.sentry.io/2", true),
            // A credential's own shape, whatever the name.
            ("GH", "ghp_0123456789abcdefghij0123456789abcdef", true),
        ];
        for (name, value, hidden) in table {
            let mut r = Redactor::new();
            r.env(name, value);
            assert_eq!(
                r.secrets().contains(&value.to_string()),
                *hidden,
                "{name}={value}"
            );
        }
        // The password of a URL, not the rest of it.
        let mut r = Redactor::new();
        r.env("DATABASE_URL", "postgres://app:hunter22@db.local:5432/main");
        assert_eq!(
            r.redact_str("postgres://app:hunter22@db.local:5432/main"),
            "postgres://app:***@db.local:5432/main"
        );
        // redact.secret and redact.keep: env names and headers, any case.
        let mut r = Redactor::new();
        r.names(
            &["run_label".into(), "X-Trace".into()],
            &["SESSION_MARKER".into()],
        );
        r.env("RUN_LABEL", "ab");
        r.env("session_marker", "marker-value-1");
        r.header("X-Trace", "t1");
        r.header("Accept", "application/json");
        assert_eq!(
            r.redact_str("ab marker-value-1 t1 application/json"),
            "*** marker-value-1 *** application/json"
        );
        let mut r = Redactor::new();
        r.names(&["Accept".into()], &["X-Api-Key".into()]);
        r.header("Accept", "application/json");
        r.header("X-Api-Key", "k3y-value");
        assert_eq!(r.redact_str("application/json k3y-value"), "*** k3y-value");

        let mut r = Redactor::new();
        r.header("X-Api-Key", "k3y-value");
        r.header("Authorization", "Token abcdef");
        r.header("Content-Type", "application/json");
        r.header("X-Trace", "run 12345");
        assert_eq!(r.redact_str("used k3y-value"), "used ***");
        assert_eq!(r.redact_str("token abcdef alone"), "token *** alone");
        // Headers that only describe the request are not secrets.
        assert_eq!(
            r.redact_str("sent application/json"),
            "sent application/json"
        );
        // A value is hidden whole; only an authorization scheme's token alone.
        assert_eq!(r.redact_str("x run 12345 y 12345"), "x *** y 12345");
    }

    #[test]
    fn json_values_keys_and_credential_members() {
        let mut r = Redactor::new();
        r.header("X-Api-Key", "k3y-value");
        r.secret("hunter22");
        let v = json!({
            "headers": {"x-api-key": "anything", "AUTHORIZATION": "Bearer q", "Accept": "json"},
            "args": ["hunter22", {"hunter22": 1}],
            "cookie": null,
            "n": 5
        });
        assert_eq!(
            r.redact_json(&v),
            json!({
                "headers": {"x-api-key": "***", "AUTHORIZATION": "***", "Accept": "json"},
                "args": ["***", {"***": 1}],
                "cookie": null,
                "n": 5
            })
        );
    }

    #[test]
    fn results_documents() {
        let mut t = TestResult::fail(
            "uses sk-live-0001",
            "a.yaml",
            Some(1),
            "got sk-live-0001",
            3,
        );
        t.warnings
            .push("header Authorization: Bearer zzzzzzzzzz sent".into());
        let r = with(&["sk-live-0001"]).redact_results(&Results::new(vec![t], 3));
        let json = r.to_json();
        assert!(!json.contains("sk-live-0001"), "{json}");
        assert!(!json.contains("zzzzzzzzzz"), "{json}");
        assert_eq!(r.tests[0].name, "uses ***");
        assert_eq!(r.tests[0].message, "got ***");
        assert_eq!(r.summary.failed, 1);
    }

    #[test]
    fn suites_expand_and_collect_referenced_variables() {
        let yaml = "name: t\nserver:\n  command: srv\n  args: [\"--key=${ARG_SECRET}\"]\n  env:\n    API_TOKEN: \"${TOKEN}\"\n    LEVEL: info\n  \nassert:\n  tool: echo\n  args: {}\n  expect:\n    not_error: true\n";
        let loaded = crate::suite::load("t.yaml", yaml);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let env = |n: &str| match n {
            "TOKEN" => Some("tok-abcdefgh".to_string()),
            "ARG_SECRET" => Some("argsecret99".to_string()),
            _ => None,
        };
        let r = Redactor::for_suite(&[loaded.suite], &env);
        assert_eq!(
            r.redact_str("tok-abcdefgh argsecret99 info"),
            "*** *** info"
        );
    }

    #[test]
    fn an_address_from_the_environment_is_not_a_secret_but_a_key_in_it_is() {
        let yaml = "name: t\nserver:\n  url: \"${MCP_URL}?key=${API_KEY}\"\n  headers:\n    X-Api-Key: \"${HEADER_VAR}\"\nassert:\n  tool: echo\n  args: {}\n  expect:\n    not_error: true\n";
        let loaded = crate::suite::load("t.yaml", yaml);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let env = |n: &str| match n {
            "MCP_URL" => Some("http://127.0.0.1:3000/mcp".to_string()),
            "API_KEY" => Some("k-12345678".to_string()),
            "HEADER_VAR" => Some("plainvalue1".to_string()),
            _ => None,
        };
        let r = Redactor::for_suite(&[loaded.suite], &env);
        assert_eq!(
            r.redact_str("http://127.0.0.1:3000/mcp?key=k-12345678 plainvalue1"),
            "http://127.0.0.1:3000/mcp?key=*** ***"
        );
    }
}
