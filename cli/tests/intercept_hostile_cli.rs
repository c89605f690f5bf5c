//! `mcpcheck intercept` against hostile servers: an answer with a huge
//! `Content-Length` or an endless body is refused with a 502 and the
//! session goes on; a stalled stream ends; a server that exits while
//! another process holds its output still ends the session; and the
//! secrets the trace masks (and those on the server's command line) are
//! `***` in the capture and on stderr too.

mod cli_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli_support::{mcpcheck, scratch, write};
use serde_json::Value;

/// What the fake upstream answers every request with.
#[derive(Clone, Copy)]
enum Upstream {
    /// `Content-Length: 10^12`, then data until the connection drops.
    HugeLength,
    /// A chunked JSON body that never ends.
    EndlessBody,
    /// An event stream's headers, then nothing.
    SilentStream,
}

/// A fake Streamable HTTP server answering every request as `mode` says;
/// its URL.
fn upstream(mode: Upstream) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, mode));
        }
    });
    url
}

fn answer(mut stream: TcpStream, mode: Upstream) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let chunk = vec![b' '; 64 * 1024];
    match mode {
        Upstream::HugeLength => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n",
            );
            while stream.write_all(&chunk).is_ok() {}
        }
        Upstream::EndlessBody => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
            while stream.write_all(&framed).is_ok() {}
        }
        Upstream::SilentStream => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
            );
            std::thread::sleep(Duration::from_secs(60));
        }
    }
}

/// `intercept --http` in front of `url` for `duration`, with `extra`: its
/// own URL, and the child.
fn start_http(
    url: &str,
    capture: &std::path::Path,
    extra: &[&str],
) -> (std::process::Child, String) {
    let mut child = mcpcheck()
        .args([
            "intercept",
            "--http",
            "127.0.0.1:0",
            "--url",
            url,
            "--format",
            "json",
        ])
        .arg("--capture")
        .arg(capture)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start intercept");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().expect("stderr"))
        .read_line(&mut line)
        .expect("its first line");
    let own = line
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (child, own)
}

/// The exit code and JSON report of an intercept that ends by itself.
fn wait_report(mut child: std::process::Child) -> (Option<i32>, Value) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "intercept did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    let report = err
        .find("{\n")
        .and_then(|at| serde_json::from_str(&err[at..]).ok())
        .unwrap_or_else(|| panic!("no report in {err}"));
    (child.wait().expect("wait").code(), report)
}

/// A POST of `initialize` to `url`: status and body.
fn post(url: &str) -> (u16, String) {
    let (host, path) = url
        .strip_prefix("http://")
        .and_then(|r| r.split_once('/'))
        .expect("a URL");
    let mut stream = TcpStream::connect(host).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

#[test]
fn an_answer_too_long_to_pass_on_is_a_502_and_the_session_goes_on() {
    for (name, mode) in [
        ("huge-length", Upstream::HugeLength),
        ("endless-body", Upstream::EndlessBody),
    ] {
        let d = scratch(&format!("intercept-{name}"));
        let capture = d.join("c.json");
        let (child, url) = start_http(&upstream(mode), &capture, &["--duration", "8s"]);
        for _ in 0..2 {
            let (status, text) = post(&url);
            assert_eq!(status, 502, "{name}: {text:.300}");
            assert!(text.contains("longer than 80 MiB"), "{name}: {text:.300}");
        }
        let (_, report) = wait_report(child);
        let notes = report["notes"].to_string();
        assert!(notes.contains("longer than 80 MiB"), "{name}: {report}");
        assert!(capture.exists(), "{name}: the capture is written");
    }
}

#[test]
fn a_stream_the_server_stops_sending_on_ends_after_the_request_timeout() {
    let d = scratch("intercept-silent");
    let capture = d.join("c.json");
    let (child, url) = start_http(
        &upstream(Upstream::SilentStream),
        &capture,
        &["--duration", "10s", "--request-timeout", "2s"],
    );
    let began = Instant::now();
    let (status, _) = post(&url);
    assert_eq!(status, 200);
    assert!(
        began.elapsed() < Duration::from_secs(8),
        "the stream stayed open {:?}",
        began.elapsed()
    );
    let _ = wait_report(child);
}

#[test]
fn a_server_that_exits_ends_the_session_even_when_its_output_is_held_open() {
    let d = scratch("intercept-held");
    let capture = d.join("c.json");
    let mut child = mcpcheck()
        .args(["intercept", "--capture"])
        .arg(&capture)
        .args([
            "--",
            "sh",
            "-c",
            "setsid sleep 30 & echo '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}'; exit 0",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start intercept");
    // The client keeps its side open: only the server's exit can end it.
    let _client_input = child.stdin.take();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "intercept did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    assert!(err.contains("still held its output open"), "{err}");
    assert!(capture.exists(), "the capture is written");
}

#[test]
fn secrets_the_trace_masks_are_hidden_in_the_capture_and_on_stderr() {
    let d = scratch("intercept-secrets");
    let capture = d.join("c.json");
    let trace = d.join("t.jsonl");
    // Says its command line on stderr, and echoes every tools/call back.
    let server = write(
        &d,
        "server.sh",
        r#"echo "started with $*" >&2
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      echo "called: $line" >&2
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"you sent hunter2-secret-pw"}]}}\n' "$id" ;;
  esac
done
"#,
    );
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"me","password":"hunter2-secret-pw"}}}"#,
    ]
    .join("\n")
        + "\n";
    let mut child = mcpcheck()
        .args(["intercept", "--capture"])
        .arg(&capture)
        .arg("--trace")
        .arg(&trace)
        .args(["--", "sh"])
        .arg(&server)
        .args(["--api-key", "sk-cmdline-0123456789"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start intercept");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write");
    // Let the answer come back before the client goes.
    std::thread::sleep(Duration::from_millis(1500));
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    let capture = std::fs::read_to_string(&capture).expect("a capture");
    let trace = std::fs::read_to_string(&trace).expect("a trace");
    for (what, text) in [
        ("stderr", err.as_ref()),
        ("capture", &capture),
        ("trace", &trace),
    ] {
        assert!(!text.contains("hunter2-secret-pw"), "{what}: {text}");
        assert!(!text.contains("sk-cmdline-0123456789"), "{what}: {text}");
    }
    assert!(err.contains("started with --api-key ***"), "{err}");
    assert!(capture.contains("you sent ***"), "{capture}");
    assert!(trace.contains(r#""password":"***""#), "{trace}");
}
