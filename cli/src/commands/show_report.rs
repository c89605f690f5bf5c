//! `mcpcheck show-report DIR`: serve an HTML report (`--html DIR`) on
//! 127.0.0.1 and print its URL; `--open` opens it in a browser. The report
//! also opens from `file://`; serving it is for a browser that refuses
//! local files, or a machine reached over an SSH tunnel.
//!
//! Only the report's own files are served (nothing outside DIR, no
//! listing), to loopback only, with the Host checked against DNS
//! rebinding; every answer carries the page's Content-Security-Policy.

use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::error::Result;
use crate::output::err;

/// Serve an HTML report on 127.0.0.1 and print its URL.
#[derive(Debug, Args)]
#[command(after_help = concat!(
    "Write a report with `mcpcheck run --html DIR` (or `--report html=DIR`; doctor, audit, fuzz \
and the other analyses take --html too). It also opens from file:// with no server. Stop \
serving with Ctrl-C.\n\n",
    crate::help::docs_line!("reports")
))]
pub struct ShowReportArgs {
    /// The report's folder (the one given to --html).
    #[arg(value_name = "DIR")]
    dir: PathBuf,

    /// The port on 127.0.0.1 (default: a free one).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,

    /// Also open the report in a browser (xdg-open, open or start, whichever
    /// this system has).
    #[arg(long)]
    open: bool,
}

/// The policy the page itself declares, sent with every answer too.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

struct Site {
    root: PathBuf,
    hosts: Vec<String>,
}

pub fn main(args: &ShowReportArgs) -> Result<ExitCode> {
    if !args.dir.join("index.html").is_file() || !args.dir.join("data").join("index.js").is_file() {
        return Err(format!(
            "{} is not an HTML report (no index.html and data/index.js): write one with `mcpcheck run --html {}`",
            args.dir.display(),
            args.dir.display()
        )
        .into());
    }
    let root = args
        .dir
        .canonicalize()
        .map_err(|e| format!("cannot read {}: {e}", args.dir.display()))?;
    crate::error::runtime()?.block_on(serve(root, args.port, args.open))
}

async fn serve(root: PathBuf, port: u16, open: bool) -> Result<ExitCode> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let url = format!("http://{local}/");
    let site = Arc::new(Site {
        root,
        hosts: vec![
            format!("127.0.0.1:{}", local.port()),
            format!("localhost:{}", local.port()),
        ],
    });
    crate::output::out(&format!("{url}\n"));
    err(&format!(
        "mcpcheck show-report: serving {} at {url} (Ctrl-C to stop)\n",
        site.root.display()
    ));
    if open && let Err(e) = open_browser(&url) {
        err(&format!("mcpcheck show-report: {e}; open {url} yourself\n"));
    }
    let stop = crate::serve::http::stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                };
                let site = site.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let site = site.clone();
                        async move { Ok::<_, Infallible>(site.answer(&request)) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(std::time::Duration::from_secs(10))
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            () = &mut stop => break,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// No opener of the system could be started; `tried` lists them.
#[derive(Debug, thiserror::Error)]
#[error("no browser could be opened (none of {tried} is installed)")]
struct NoBrowser {
    tried: String,
}

/// Open `url` with the system's opener; an error when there is none.
fn open_browser(url: &str) -> std::result::Result<(), NoBrowser> {
    let openers: &[(&str, &[&str])] = if cfg!(target_os = "macos") {
        &[("open", &[])]
    } else if cfg!(windows) {
        &[("cmd", &["/C", "start", ""])]
    } else {
        &[
            ("xdg-open", &[]),
            ("sensible-browser", &[]),
            ("x-www-browser", &[]),
        ]
    };
    for (program, args) in openers {
        let started = std::process::Command::new(program)
            .args(*args)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if started.is_ok() {
            return Ok(());
        }
    }
    let names: Vec<&str> = openers.iter().map(|(p, _)| *p).collect();
    Err(NoBrowser {
        tried: names.join(", "),
    })
}

/// The file a request path names inside `root`, or `None` for a path that
/// leaves it (`..`, an absolute path, a link out of it).
fn file_of(root: &Path, path: &str) -> Option<PathBuf> {
    let path = percent_decode(path)?;
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    let rel = Path::new(&rel);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = root.join(rel).canonicalize().ok()?;
    (file.starts_with(root) && file.is_file()).then_some(file)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    (!text.contains('\0')).then_some(text)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

impl Site {
    fn answer(&self, request: &Request<Incoming>) -> Response<Full<Bytes>> {
        let plain = |status: StatusCode, text: &str| {
            let mut r = Response::new(Full::new(Bytes::from(text.to_string())));
            *r.status_mut() = status;
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            r
        };
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !self.hosts.iter().any(|h| h == host) {
            return plain(
                StatusCode::FORBIDDEN,
                "this report is served to 127.0.0.1 only\n",
            );
        }
        if request.method() != hyper::Method::GET && request.method() != hyper::Method::HEAD {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "only GET\n");
        }
        let Some(file) = file_of(&self.root, request.uri().path()) else {
            return plain(StatusCode::NOT_FOUND, "not a file of this report\n");
        };
        match std::fs::read(&file) {
            Ok(bytes) => {
                let mut r = Response::new(Full::new(Bytes::from(bytes)));
                let h = r.headers_mut();
                h.insert(
                    header::CONTENT_TYPE,
                    header::HeaderValue::from_static(content_type(&file)),
                );
                h.insert(
                    header::CONTENT_SECURITY_POLICY,
                    header::HeaderValue::from_static(CSP),
                );
                h.insert(
                    header::CACHE_CONTROL,
                    header::HeaderValue::from_static("no-store"),
                );
                h.insert(
                    header::X_CONTENT_TYPE_OPTIONS,
                    header::HeaderValue::from_static("nosniff"),
                );
                h.insert(
                    header::REFERRER_POLICY,
                    header::HeaderValue::from_static("no-referrer"),
                );
                r
            }
            Err(e) => plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("cannot read it: {e}\n"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_reports_own_files_are_served() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::write(root.join("index.html"), "x").unwrap();
        std::fs::write(root.join("data/index.js"), "x").unwrap();
        std::fs::write(dir.path().parent().unwrap().join("outside.txt"), "x").ok();
        assert_eq!(file_of(&root, "/"), Some(root.join("index.html")));
        assert_eq!(
            file_of(&root, "/data/index.js"),
            Some(root.join("data/index.js"))
        );
        assert_eq!(
            file_of(&root, "/data%2Findex.js"),
            Some(root.join("data/index.js"))
        );
        assert_eq!(file_of(&root, "/../outside.txt"), None);
        assert_eq!(file_of(&root, "/data/../../outside.txt"), None);
        assert_eq!(file_of(&root, "/%2e%2e/outside.txt"), None);
        assert_eq!(file_of(&root, "/data/"), None, "no listing");
        assert_eq!(file_of(&root, "/missing.js"), None);
        assert_eq!(file_of(&root, "/a%00b"), None);
    }
}
