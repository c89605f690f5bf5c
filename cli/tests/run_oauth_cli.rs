//! `server.auth` and the `--auth-*` flags: a run against an OAuth-protected
//! server gets its token headlessly (discovery from the 401, RFC 9728 and
//! RFC 8414), sends it on every request, renews it when the server refuses
//! it mid-run, and never shows a token or secret in any output.
//!
//! The server here is a small protected MCP endpoint with its own
//! authorization server, on one listener (plain threads, one request per
//! connection).

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use cli_support::{mcpcheck, outcome, scratch, write};
use serde_json::{Value, json};

const CLIENT_ID: &str = "suite-client";
const CLIENT_SECRET: &str = "cs-7f1e9a0b2c4d6e8f";
/// The refresh token the fake authorization server issued beforehand.
const PRE_ISSUED: &str = "rt-preissued-5c0ffee1d2";

/// What the fake server saw and issued.
#[derive(Default)]
struct Seen {
    /// Every access token issued, with when it stops being accepted.
    tokens: Vec<(String, Instant)>,
    /// The `grant_type` and `resource` of every token request.
    grants: Vec<(String, String)>,
    /// MCP requests refused with 401.
    refused: usize,
    /// Paths asked for, in order.
    paths: Vec<String>,
    /// Every refresh token issued, the live one last.
    refresh: Vec<String>,
}

struct Fake {
    base: String,
    seen: Arc<Mutex<Seen>>,
}

/// A protected MCP endpoint at `/mcp` whose tokens live `ttl`, with the
/// authorization server's metadata, token endpoint and the resource
/// metadata on the same origin.
fn fake_server(ttl: Duration) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Seen>> = Arc::new(Mutex::new(Seen {
        refresh: vec![PRE_ISSUED.to_string()],
        ..Seen::default()
    }));
    let (b, s) = (base.clone(), seen.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (b, s) = (b.clone(), s.clone());
            std::thread::spawn(move || handle(stream, &b, &s, ttl));
        }
    });
    Fake { base, seen }
}

fn handle(mut stream: TcpStream, base: &str, seen: &Mutex<Seen>, ttl: Duration) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (
        parts.next().unwrap_or_default().to_string(),
        parts.next().unwrap_or_default().to_string(),
    );
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let len: usize = header("content-length")
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let body = String::from_utf8_lossy(&body).into_owned();
    let path = target.split('?').next().unwrap_or_default().to_string();
    seen.lock().unwrap().paths.push(path.clone());
    let (status, extra, out) = answer(&method, &path, header, &body, base, seen, ttl);
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{out}",
        out.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}

fn form(body: &str) -> Vec<(String, String)> {
    body.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.replace("%3A", ":").replace("%2F", "/")))
        .collect()
}

fn answer(
    method: &str,
    path: &str,
    header: impl Fn(&str) -> Option<String>,
    body: &str,
    base: &str,
    seen: &Mutex<Seen>,
    ttl: Duration,
) -> (&'static str, String, String) {
    let ok = |v: Value| ("200 OK", String::new(), v.to_string());
    match (method, path) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => ok(json!({
            "resource": format!("{base}/mcp"),
            "authorization_servers": [base],
        })),
        ("GET", "/.well-known/oauth-authorization-server") => ok(json!({
            "issuer": base,
            "token_endpoint": format!("{base}/token"),
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        })),
        // Approves at once, but answers with a state of its own: a forged
        // or mixed-up redirect.
        ("GET", "/authorize") => (
            "302 Found",
            "Location: http://127.0.0.1:9/mcpcheck/callback?code=c0de&state=not-the-one-sent\r\n"
                .into(),
            String::new(),
        ),
        ("POST", "/token") => {
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"))
            );
            let f = form(body);
            let get = |k: &str| {
                f.iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            let mut s = seen.lock().unwrap();
            s.grants.push((get("grant_type"), get("resource")));
            if get("grant_type") == "refresh_token" {
                // A public client: the refresh token alone, rotated on use.
                if s.refresh.last() != Some(&get("refresh_token")) {
                    return (
                        "400 Bad Request",
                        String::new(),
                        json!({"error": "invalid_grant"}).to_string(),
                    );
                }
                let token = format!("at-{}-{}", s.tokens.len(), uuid_like());
                let next = format!("rt-{}-{}", s.refresh.len(), uuid_like());
                s.tokens.push((token.clone(), Instant::now() + ttl));
                s.refresh.push(next.clone());
                return ok(
                    json!({"access_token": token, "token_type": "Bearer", "refresh_token": next}),
                );
            }
            if header("authorization").as_deref() != Some(expected.as_str())
                || get("grant_type") != "client_credentials"
            {
                return (
                    "401 Unauthorized",
                    String::new(),
                    json!({"error": "invalid_client"}).to_string(),
                );
            }
            let token = format!("at-{}-{}", s.tokens.len(), uuid_like());
            s.tokens.push((token.clone(), Instant::now() + ttl));
            // No `expires_in`: the client learns the token expired from a 401.
            ok(json!({"access_token": token, "token_type": "Bearer"}))
        }
        (_, "/mcp") => mcp(method, header, body, base, seen),
        _ => ("404 Not Found", String::new(), "{}".into()),
    }
}

/// Text no test could guess: the time in nanoseconds.
fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}")
}

fn mcp(
    method: &str,
    header: impl Fn(&str) -> Option<String>,
    body: &str,
    base: &str,
    seen: &Mutex<Seen>,
) -> (&'static str, String, String) {
    let sent = header("authorization").unwrap_or_default();
    let valid = {
        let s = seen.lock().unwrap();
        s.tokens
            .iter()
            .any(|(t, until)| sent == format!("Bearer {t}") && Instant::now() < *until)
    };
    if !valid {
        seen.lock().unwrap().refused += 1;
        return (
            "401 Unauthorized",
            format!(
                "WWW-Authenticate: Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"\r\n"
            ),
            String::new(),
        );
    }
    if method != "POST" {
        return ("405 Method Not Allowed", String::new(), String::new());
    }
    let msg: Value = serde_json::from_str(body).unwrap_or_default();
    let Some(id) = msg.get("id").cloned() else {
        return ("202 Accepted", String::new(), String::new());
    };
    let result = match msg["method"].as_str().unwrap_or_default() {
        "initialize" => json!({
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "protected", "version": "1"},
        }),
        "tools/list" => json!({"tools": [
            {"name": "whoami", "inputSchema": {"type": "object"}},
            {"name": "wait", "inputSchema": {"type": "object"}},
        ]}),
        "tools/call" => {
            if msg["params"]["name"] == "wait" {
                std::thread::sleep(Duration::from_millis(1300));
            }
            // Echoes the credentials it got, as a careless server might.
            json!({"content": [{"type": "text", "text": format!("you sent {sent}")}]})
        }
        _ => json!({}),
    };
    (
        "200 OK",
        String::new(),
        json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
    )
}

/// A suite against `base` whose `auth` block is `auth`.
fn suite(base: &str, auth: &str, tests: &[(&str, &str, &str)]) -> String {
    let mut out = format!(
        "servers:\n  protected:\n    transport: http\n    url: {base}/mcp\n    auth:\n{auth}tests:\n"
    );
    for (name, tool, expect) in tests {
        out.push_str(&format!(
            "  - name: {name}\n    server: protected\n    assert:\n      tool: {tool}\n      expect: {expect}\n"
        ));
    }
    out
}

const CLIENT_CREDENTIALS: &str = "      type: client_credentials\n      client_id: suite-client\n      client_secret: ${RUN_OAUTH_SECRET}\n";

#[test]
fn client_credentials_found_by_discovery_reach_a_protected_server_and_no_secret_is_shown() {
    let fake = fake_server(Duration::from_secs(600));
    let dir = scratch("oauth-cc");
    let file = write(
        &dir,
        "oauth.yaml",
        &suite(
            &fake.base,
            CLIENT_CREDENTIALS,
            &[
                (
                    "sends a bearer token",
                    "whoami",
                    "{contains: [\"you sent Bearer\"]}",
                ),
                // Fails on purpose: its message quotes the echoed token.
                ("quotes the token", "whoami", "{not_contains: [\"Bearer\"]}"),
            ],
        ),
    );
    let junit = dir.join("junit.xml");
    let captures = dir.join("captures");
    let o = mcpcheck()
        .env("RUN_OAUTH_SECRET", CLIENT_SECRET)
        .args(["run", "--json", "-j", "1", "--junit"])
        .arg(&junit)
        .arg("--capture")
        .arg(&captures)
        .arg("--suite")
        .arg(&file)
        .output()
        .expect("run mcpcheck");
    let (code, stdout, stderr) = outcome(&o);
    let results: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let statuses: Vec<&str> = results["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(statuses, ["pass", "fail"], "{stdout}\n{stderr}");
    assert_eq!(code, Some(1));

    let seen = fake.seen.lock().unwrap();
    // One token for the whole run, asked for the server's URL (RFC 8707),
    // after the first request's 401 led to the metadata.
    assert_eq!(
        seen.grants,
        [(
            "client_credentials".to_string(),
            format!("{}/mcp", fake.base)
        )]
    );
    assert_eq!(
        seen.refused, 1,
        "only the first request goes without a token"
    );
    let first_paths: Vec<&str> = seen.paths.iter().take(4).map(String::as_str).collect();
    assert_eq!(
        first_paths,
        [
            "/mcp",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
            "/token"
        ]
    );
    let token = seen.tokens[0].0.clone();
    drop(seen);

    let mut shown = vec![("stdout", stdout.clone()), ("stderr", stderr)];
    shown.push((
        "junit",
        std::fs::read_to_string(&junit).expect("junit written"),
    ));
    let mut n_captures = 0;
    for entry in std::fs::read_dir(&captures).expect("captures written") {
        let path = entry.expect("entry").path();
        shown.push(("capture", std::fs::read_to_string(&path).expect("capture")));
        n_captures += 1;
    }
    assert!(n_captures >= 2, "a capture per test");
    let failed = &results["tests"][1];
    assert!(
        failed.to_string().contains("you sent"),
        "the failure quotes the answer: {failed}"
    );
    for (what, text) in &shown {
        assert!(
            !text.contains(&token),
            "the access token is in {what}: {text}"
        );
        assert!(
            !text.contains(CLIENT_SECRET),
            "the client secret is in {what}: {text}"
        );
    }
}

#[test]
fn a_token_refused_mid_run_is_renewed_once_and_the_request_sent_again() {
    // Tokens live one second; `wait` takes longer, so the request after it
    // carries a token the server no longer accepts.
    let fake = fake_server(Duration::from_secs(1));
    let dir = scratch("oauth-renew");
    let file = write(
        &dir,
        "oauth.yaml",
        &suite(
            &fake.base,
            CLIENT_CREDENTIALS,
            &[
                ("before", "whoami", "{contains: [\"Bearer\"]}"),
                ("slow", "wait", "{contains: [\"Bearer\"]}"),
                ("after", "whoami", "{contains: [\"Bearer\"]}"),
            ],
        ),
    );
    let o = mcpcheck()
        .env("RUN_OAUTH_SECRET", CLIENT_SECRET)
        .args(["run", "--json", "-j", "1", "--reuse-server"])
        .arg("--suite")
        .arg(&file)
        .output()
        .expect("run mcpcheck");
    let (code, stdout, stderr) = outcome(&o);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let seen = fake.seen.lock().unwrap();
    assert!(
        seen.grants.len() >= 2,
        "a second token after the first expired: {:?}",
        seen.grants
    );
    assert!(seen.refused >= 2, "the stale token was refused");
}

#[test]
fn auth_flags_replace_the_suite_block_and_a_wrong_secret_is_a_clear_error_without_it() {
    let fake = fake_server(Duration::from_secs(600));
    let dir = scratch("oauth-flags");
    let file = write(
        &dir,
        "oauth.yaml",
        &format!(
            "name: t\nserver:\n  transport: http\n  url: {}/mcp\nassert:\n  tool: whoami\n  expect: {{contains: [\"Bearer\"]}}\n",
            fake.base
        ),
    );
    let token_url = format!("{}/token", fake.base);
    let run = |secret: &str| {
        outcome(
            &mcpcheck()
                .env("FLAG_SECRET", secret)
                .args(["run", "--auth-type", "client_credentials"])
                .args(["--auth-client-id", CLIENT_ID])
                .args(["--auth-client-secret", "${FLAG_SECRET}"])
                .args(["--auth-token-url", &token_url])
                .arg("--suite")
                .arg(&file)
                .output()
                .expect("run mcpcheck"),
        )
    };
    let (code, stdout, stderr) = run(CLIENT_SECRET);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    // With token_url, no discovery and no 401 first.
    assert_eq!(fake.seen.lock().unwrap().refused, 0);

    let (code, stdout, stderr) = run("not-the-secret-0000");
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("refused the client_credentials grant: HTTP 401 Unauthorized: invalid_client"),
        "{all}"
    );
    assert!(!all.contains("not-the-secret-0000"), "{all}");

    let (code, _, stderr) = outcome(
        &mcpcheck()
            .args([
                "run",
                "--auth-type",
                "client_credentials",
                "--auth-client-id",
                "x",
            ])
            .arg("--suite")
            .arg(&file)
            .output()
            .expect("run mcpcheck"),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "`--auth-type client_credentials` needs `--auth-client-id` and `--auth-client-secret`"
        ),
        "{stderr}"
    );
}

/// `mcpcheck serve --http --oauth` on a free port, killed when dropped.
struct Served {
    child: std::process::Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_oauth(extra: &[&str]) -> Served {
    let mut child = mcpcheck()
        .args(["serve", "--http", "127.0.0.1:0", "--oauth"])
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start mcpcheck serve");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.split("listening on ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_string)
        })
        .expect("serve prints its URL");
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
    Served { child, url }
}

/// Runs the composed suite `text` (its `{url}` replaced) with `--json`:
/// exit code, the statuses of its tests, stdout and stderr.
fn run_suite(name: &str, text: &str, url: &str) -> (Option<i32>, Vec<String>, String, String) {
    let dir = scratch(name);
    let file = write(&dir, "suite.yaml", &text.replace("{url}", url));
    let (code, stdout, stderr) = outcome(
        &mcpcheck()
            .env("SERVE_OAUTH_SECRET", CLIENT_SECRET)
            .args(["run", "--json", "-j", "1", "--suite"])
            .arg(&file)
            .output()
            .expect("run mcpcheck"),
    );
    let results: Value = serde_json::from_str(&stdout).unwrap_or_default();
    let statuses = results["tests"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| t["status"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    (code, statuses, stdout, stderr)
}

#[test]
fn serve_oauth_client_credentials_by_discovery_from_the_server_block_alone() {
    let served = serve_oauth(&["--oauth-client", &format!("{CLIENT_ID}:{CLIENT_SECRET}")]);
    let suite = format!(
        "servers:\n  s:\n    transport: http\n    url: \"{{url}}\"\n    auth:\n{CLIENT_CREDENTIALS}\
         tests:\n  - name: who\n    server: s\n    assert: {{tool: whoami, expect: {{contains: [\"oauth:{CLIENT_ID}\"]}}}}\n\
         \x20 - name: echo\n    server: s\n    assert: {{tool: echo, args: {{message: hi}}, expect: {{equals: hi}}}}\n"
    )
    .replace("RUN_OAUTH_SECRET", "SERVE_OAUTH_SECRET");
    let (code, statuses, stdout, stderr) = run_suite("serve-cc", &suite, &served.url);
    assert_eq!(statuses, ["pass", "pass"], "{stdout}\n{stderr}");
    assert_eq!(code, Some(0));
    assert!(!format!("{stdout}{stderr}").contains(CLIENT_SECRET));
}

#[test]
fn serve_oauth_authorization_code_with_pkce_and_a_registered_client() {
    let served = serve_oauth(&[]);
    let suite = "servers:\n  s:\n    transport: http\n    url: \"{url}\"\n    auth: {type: authorization_code}\n\
         tests:\n  - name: who\n    server: s\n    assert: {tool: whoami, expect: {contains: [\"oauth:client-\"]}}\n";
    let (code, statuses, stdout, stderr) = run_suite("serve-code", suite, &served.url);
    assert_eq!(statuses, ["pass"], "{stdout}\n{stderr}");
    assert_eq!(code, Some(0));
}

#[test]
fn serve_oauth_a_one_second_token_is_renewed_mid_run() {
    let served = serve_oauth(&["--oauth-token-ttl", "1"]);
    // `slow` outlasts the token, so the last test needs a new one.
    let suite = "servers:\n  s:\n    transport: http\n    url: \"{url}\"\n    auth: {type: authorization_code}\n\
         tests:\n  - name: before\n    server: s\n    assert: {tool: whoami, expect: {contains: [\"oauth:client-\"]}}\n\
         \x20 - name: outlast the token\n    server: s\n    assert: {tool: slow, args: {ms: 1500}, expect: {contains: [slept]}}\n\
         \x20 - name: after\n    server: s\n    assert: {tool: whoami, expect: {contains: [\"oauth:client-\"]}}\n";
    let (code, statuses, stdout, stderr) = run_suite("serve-ttl", suite, &served.url);
    assert_eq!(statuses, ["pass", "pass", "pass"], "{stdout}\n{stderr}");
    assert_eq!(code, Some(0));
}

#[test]
fn a_pre_issued_refresh_token_is_exchanged_and_its_rotated_successor_used_next() {
    let fake = fake_server(Duration::from_secs(1));
    let dir = scratch("oauth-refresh");
    let file = write(
        &dir,
        "oauth.yaml",
        &suite(
            &fake.base,
            "      type: refresh_token\n      refresh_token: ${RUN_OAUTH_RT}\n",
            &[
                ("before", "whoami", "{contains: [\"Bearer\"]}"),
                ("slow", "wait", "{contains: [\"Bearer\"]}"),
                ("after", "whoami", "{contains: [\"Bearer\"]}"),
            ],
        ),
    );
    let o = mcpcheck()
        .env("RUN_OAUTH_RT", PRE_ISSUED)
        .args(["run", "-j", "1", "--reuse-server", "--suite"])
        .arg(&file)
        .output()
        .expect("run mcpcheck");
    let (code, stdout, stderr) = outcome(&o);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let seen = fake.seen.lock().unwrap();
    let grants: Vec<&str> = seen.grants.iter().map(|(g, _)| g.as_str()).collect();
    // At least one renewal after the first exchange (more on a slow
    // machine, where a one-second token may lapse more often); each used
    // the refresh token the previous answer rotated in, or the fake server
    // would have refused it.
    assert!(
        grants.len() >= 2 && grants.iter().all(|g| *g == "refresh_token"),
        "{grants:?}\n{stdout}\n{:?} refused {}",
        seen.paths,
        seen.refused
    );
    assert_eq!(seen.refresh.len(), grants.len() + 1);
    let all = format!("{stdout}{stderr}");
    for secret in seen
        .refresh
        .iter()
        .chain(seen.tokens.iter().map(|(t, _)| t))
    {
        assert!(!all.contains(secret.as_str()), "{secret} is shown: {all}");
    }
}

#[test]
fn serve_oauth_generate_reaches_the_server_with_the_auth_flags() {
    let served = serve_oauth(&["--oauth-client", &format!("{CLIENT_ID}:{CLIENT_SECRET}")]);
    let dir = scratch("serve-generate");
    let generate = |auth: bool| {
        let mut c = mcpcheck();
        c.env("GEN_SECRET", CLIENT_SECRET)
            .args(["generate", "--url", &served.url, "--output"])
            .arg(dir.join(if auth { "with" } else { "without" }));
        if auth {
            c.args(["--auth-type", "client_credentials"])
                .args(["--auth-client-id", CLIENT_ID])
                .args(["--auth-client-secret", "${GEN_SECRET}"]);
        }
        outcome(&c.output().expect("run mcpcheck generate"))
    };
    let (code, stdout, stderr) = generate(false);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    let (code, stdout, stderr) = generate(true);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(dir.join("with/echo.yaml").is_file(), "{stdout}\n{stderr}");
    assert!(!format!("{stdout}{stderr}").contains(CLIENT_SECRET));
}

#[test]
fn serve_oauth_legacy_sse_gets_its_token_before_the_stream_opens() {
    let served = serve_oauth(&["--oauth-client", &format!("{CLIENT_ID}:{CLIENT_SECRET}")]);
    let sse = served.url.replace("/mcp", "/sse");
    // serve's tokens are for its MCP endpoint, so that is the resource.
    let suite = format!(
        "servers:\n  s:\n    transport: sse\n    url: \"{sse}\"\n    auth:\n{CLIENT_CREDENTIALS}      resource: \"{{url}}\"\n\
         tests:\n  - name: who\n    server: s\n    assert: {{tool: whoami, expect: {{contains: [\"oauth:{CLIENT_ID}\"]}}}}\n"
    )
    .replace("RUN_OAUTH_SECRET", "SERVE_OAUTH_SECRET");
    let (code, statuses, stdout, stderr) = run_suite("serve-sse", &suite, &served.url);
    assert_eq!(statuses, ["pass"], "{stdout}\n{stderr}");
    assert_eq!(code, Some(0));
}

#[test]
fn an_authorization_redirect_with_another_state_is_refused() {
    let fake = fake_server(Duration::from_secs(600));
    let dir = scratch("oauth-state");
    let file = write(
        &dir,
        "oauth.yaml",
        &suite(
            &fake.base,
            "      type: authorization_code\n      client_id: suite-client\n",
            &[("who", "whoami", "{contains: [\"Bearer\"]}")],
        ),
    );
    let (code, stdout, stderr) = outcome(
        &mcpcheck()
            .args(["run", "--json", "--suite"])
            .arg(&file)
            .output()
            .expect("run mcpcheck"),
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let results: Value = serde_json::from_str(&stdout).expect("results JSON");
    let test = &results["tests"][0];
    assert_eq!(test["status"], "error", "{test}");
    assert!(
        test.to_string()
            .contains("redirected back with a `state` that is not the one sent"),
        "{test}"
    );
    let seen = fake.seen.lock().unwrap();
    assert!(seen.paths.iter().any(|p| p == "/authorize"));
    assert!(seen.grants.is_empty(), "the code was not exchanged");
}
