//! A client secret reaches only the server's origin (or a `token_url` the
//! user names): a protected server whose authorization-server metadata
//! names a token endpoint elsewhere gets a clear refusal, and that endpoint
//! gets nothing. Protected-resource metadata for another resource (RFC 9728
//! §3.3) and authorization-server metadata of another issuer (RFC 8414
//! §3.3) are not used.

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use cli_support::{mcpcheck, outcome, scratch, write};
use serde_json::json;

const SECRET: &str = "cs-origin-4b1d9e77";

/// What a listener answers a request (method, path, its own origin) with:
/// status line and body.
type Answer = dyn Fn(&str, &str, &str) -> (&'static str, String) + Send + Sync;

/// A plain HTTP listener (one request per connection) that records every
/// request as `METHOD PATH` plus its headers and body.
struct Listener {
    base: String,
    seen: Arc<Mutex<Vec<String>>>,
}

fn listen(
    answer: impl Fn(&str, &str, &str) -> (&'static str, String) + Send + Sync + 'static,
) -> Listener {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (s, b) = (seen.clone(), base.clone());
    let answer: Arc<Answer> = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (s, b, a) = (s.clone(), b.clone(), answer.clone());
            std::thread::spawn(move || handle(stream, &b, &s, &*a));
        }
    });
    Listener { base, seen }
}

fn handle(mut stream: TcpStream, base: &str, seen: &Mutex<Vec<String>>, answer: &Answer) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut record = line.trim().to_string();
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        record.push('\n');
        record.push_str(h.trim());
    }
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    record.push('\n');
    record.push_str(&String::from_utf8_lossy(&body));
    seen.lock().unwrap().push(record);
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, out) = answer(method, path, base);
    let extra = if path == "/mcp" {
        format!(
            "WWW-Authenticate: Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"\r\n"
        )
    } else {
        String::new()
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{out}",
        out.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}

/// The token endpoint elsewhere: it refuses every request, and records it.
fn elsewhere() -> Listener {
    listen(|_, _, _| {
        (
            "400 Bad Request",
            json!({"error": "invalid_client"}).to_string(),
        )
    })
}

/// A protected server whose metadata says `resource`, `issuer` and
/// `token_endpoint` (`{base}` stands for its own origin).
fn protected(resource: &'static str, issuer: &'static str, token: String) -> Listener {
    listen(move |_, path, base| {
        let fill = |s: &str| s.replace("{base}", base);
        match path {
            "/.well-known/oauth-protected-resource/mcp" => (
                "200 OK",
                json!({"resource": fill(resource), "authorization_servers": [base]}).to_string(),
            ),
            "/.well-known/oauth-authorization-server" => (
                "200 OK",
                json!({"issuer": fill(issuer), "token_endpoint": fill(&token),
                       "authorization_endpoint": format!("{base}/authorize")})
                .to_string(),
            ),
            "/mcp" => (
                "401 Unauthorized",
                json!({"error": "unauthorized"}).to_string(),
            ),
            _ => ("404 Not Found", "{}".into()),
        }
    })
}

/// Runs one client_credentials test against `server` (with `extra` auth
/// keys): (exit code, stdout, stderr).
fn run_against(name: &str, server: &Listener, extra: &str) -> (Option<i32>, String, String) {
    let d = scratch(name);
    let suite = write(
        &d,
        "suite.yaml",
        &format!(
            "name: protected\nserver:\n  transport: http\n  url: {}/mcp\n  auth:\n    type: client_credentials\n    client_id: suite-client\n    client_secret: ${{ORIGIN_SECRET}}\n{extra}assert:\n  tool: echo\n  expect: {{not_error: true}}\n",
            server.base
        ),
    );
    outcome(
        &mcpcheck()
            .env("ORIGIN_SECRET", SECRET)
            .args([
                "run",
                "--suite",
                suite.to_str().unwrap(),
                "--timeout",
                "10s",
            ])
            .output()
            .expect("start mcpcheck"),
    )
}

#[test]
fn a_client_secret_is_not_sent_to_a_token_endpoint_on_another_origin() {
    let other = elsewhere();
    let server = protected("{base}/mcp", "{base}", format!("{}/token", other.base));
    let (code, out, err) = run_against("origin-refused", &server, "");
    assert_eq!(code, Some(1), "{out}\n{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("on another origin than the server"), "{text}");
    assert!(text.contains("token_url"), "says what to do: {text}");
    assert!(!text.contains(SECRET), "{text}");
    assert!(
        other.seen.lock().unwrap().is_empty(),
        "the other origin got a request: {:?}",
        other.seen.lock().unwrap()
    );
}

#[test]
fn a_token_url_the_user_names_is_where_the_secret_goes() {
    let other = elsewhere();
    let server = protected("{base}/mcp", "{base}", format!("{}/token", other.base));
    let named = format!("    token_url: {}/token\n", other.base);
    let (code, out, err) = run_against("origin-named", &server, &named);
    assert_eq!(code, Some(1), "the fake refuses the grant: {out}\n{err}");
    let seen = other.seen.lock().unwrap();
    assert!(
        seen.iter().any(|r| r.starts_with("POST /token")),
        "the named endpoint was asked: {seen:?}"
    );
}

#[test]
fn metadata_for_another_resource_or_issuer_is_not_used() {
    let server = protected(
        "http://elsewhere.invalid/mcp",
        "{base}",
        "{base}/token".into(),
    );
    let (code, out, err) = run_against("origin-resource", &server, "");
    assert_eq!(code, Some(1), "{out}\n{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("RFC 9728"), "{text}");
    assert!(text.contains("http://elsewhere.invalid/mcp"), "{text}");
    assert!(
        !server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.starts_with("POST /token")),
        "no token was asked for"
    );

    let server = protected(
        "{base}/mcp",
        "http://elsewhere.invalid",
        "{base}/token".into(),
    );
    let (code, out, err) = run_against("origin-issuer", &server, "");
    assert_eq!(code, Some(1), "{out}\n{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("RFC 8414"), "{text}");
    assert!(
        !server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.starts_with("POST /token")),
        "no token was asked for"
    );
}

#[test]
fn probe_does_not_send_the_auth_client_secret_to_another_origin() {
    let other = elsewhere();
    let server = protected("{base}/mcp", "{base}", format!("{}/token", other.base));
    let (_, out, err) = outcome(
        &mcpcheck()
            .args([
                "probe",
                "--url",
                &format!("{}/mcp", server.base),
                "--auth",
                "--auth-client",
                &format!("probe-client:{SECRET}"),
            ])
            .output()
            .expect("start mcpcheck"),
    );
    let text = format!("{out}{err}");
    assert!(text.contains("on another origin than the server"), "{text}");
    assert!(
        other.seen.lock().unwrap().is_empty(),
        "the other origin got a request: {:?}",
        other.seen.lock().unwrap()
    );
}
