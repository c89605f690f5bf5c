//! The URL probed: where its protected-resource metadata is (H401 to H403)
//! and whether it travels in plaintext (H601).

use std::net::IpAddr;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::rules::Rule;
use super::{Answer, MetadataFetch, Observations, Push, evidence};

/// The parts of an `http(s)://` URL the rules need.
struct Parts<'u> {
    /// Lowercase scheme.
    scheme: String,
    /// Lowercase host, without IPv6 brackets.
    host: String,
    /// `host[:port]` as written (lowercased), without user information.
    authority: String,
    /// The path, without query or fragment.
    path: &'u str,
}

fn parse(url: &str) -> Option<Parts<'_>> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let after = &rest[end..];
    let path = &after[..after.find(['?', '#']).unwrap_or(after.len())];
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, h)| h)
        .to_ascii_lowercase();
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default().to_string()
    } else {
        authority.split(':').next().unwrap_or_default().to_string()
    };
    if host.is_empty() {
        return None;
    }
    Some(Parts {
        scheme: scheme.to_ascii_lowercase(),
        host,
        authority,
        path,
    })
}

/// Whether `host` (a name or an address, IPv6 with or without brackets) is
/// loopback: `localhost`, a name under `.localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

static RESOURCE_METADATA: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:^|[\s,])resource_metadata\s*=\s*(?:"([^"]*)"|([^\s,]+))"#).ok()
});

/// The `resource_metadata` URL of the answer's `WWW-Authenticate` challenges
/// (RFC 9728 §5.1), the first one given.
pub fn resource_metadata(answer: &Answer) -> Option<String> {
    let re = RESOURCE_METADATA.as_ref()?;
    answer.headers_named("www-authenticate").find_map(|value| {
        re.captures(value)
            .and_then(|c| c.get(1).or_else(|| c.get(2)))
            .map(|m| m.as_str().to_string())
    })
}

/// Where a client looks for the protected-resource metadata of `url` after
/// the 401 `answer`, in order: the challenge's `resource_metadata` when it
/// names one, else the well-known URI with the endpoint's path, then at the
/// root (MCP 2025-11-25, basic/authorization).
pub fn metadata_urls(url: &str, answer: &Answer) -> Vec<String> {
    if let Some(named) = resource_metadata(answer) {
        return vec![named];
    }
    let Some(parts) = parse(url) else {
        return Vec::new();
    };
    let origin = format!("{}://{}", parts.scheme, parts.authority);
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    let path = parts.path.trim_end_matches('/');
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// H401, H402, H403: only when the request without credentials got a 401.
pub(super) fn judge_auth(o: &Observations, push: &mut Push<'_>) {
    let Some(auth) = &o.unauthenticated else {
        return;
    };
    if auth.answer.status != 401 {
        return;
    }
    let challenges: Vec<&str> = auth.answer.headers_named("www-authenticate").collect();
    if challenges.is_empty() {
        push(
            Rule::NoChallenge,
            "auth",
            "the request without credentials got 401 without a WWW-Authenticate header".into(),
            auth.answer.evidence(),
        );
    } else if resource_metadata(&auth.answer).is_none() {
        push(
            Rule::NoResourceMetadata,
            "auth",
            "the 401's WWW-Authenticate names no resource_metadata URL".into(),
            evidence(&format!("WWW-Authenticate: {}", challenges.join(", "))),
        );
    }
    if let Some((message, shown)) = metadata_problem(&o.url, &auth.metadata) {
        push(Rule::BadResourceMetadata, "auth", message, evidence(&shown));
    }
}

/// What is wrong with the metadata fetched, if anything.
fn metadata_problem(url: &str, fetches: &[MetadataFetch]) -> Option<(String, String)> {
    let found = fetches.iter().find_map(|f| {
        f.answer
            .as_ref()
            .filter(|a| a.status == 200)
            .map(|a| (f, a))
    });
    let Some((fetch, answer)) = found else {
        let tried: Vec<String> = fetches
            .iter()
            .map(|f| match (&f.answer, &f.error) {
                (Some(a), _) => format!("{} → HTTP {}", f.url, a.status),
                (None, Some(e)) => format!("{} → {e}", f.url),
                (None, None) => format!("{} → no answer", f.url),
            })
            .collect();
        return Some((
            "no protected-resource metadata (RFC 9728) could be fetched".into(),
            if tried.is_empty() {
                "nothing to fetch".into()
            } else {
                tried.join("; ")
            },
        ));
    };
    let at = &fetch.url;
    let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(answer.body.trim()) else {
        return Some((
            format!("the protected-resource metadata at {at} is not a JSON object"),
            answer.evidence(),
        ));
    };
    let Some(resource) = doc.get("resource").and_then(Value::as_str) else {
        return Some((
            format!("the protected-resource metadata at {at} has no `resource`"),
            answer.evidence(),
        ));
    };
    let servers_ok = doc
        .get("authorization_servers")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty() && s.iter().all(Value::is_string));
    if !servers_ok {
        return Some((
            format!("the protected-resource metadata at {at} lists no `authorization_servers`"),
            answer.evidence(),
        ));
    }
    if !same_resource(resource, url) {
        return Some((
            format!("the protected-resource metadata at {at} is for `{resource}`, not for {url}"),
            format!("\"resource\": \"{resource}\""),
        ));
    }
    None
}

/// Whether `resource` identifies the server at `url`: the same URL (scheme
/// and host in any case, a trailing `/` aside), or its origin.
fn same_resource(resource: &str, url: &str) -> bool {
    let (Some(r), Some(u)) = (parse(resource), parse(url)) else {
        return false;
    };
    let same_origin = r.scheme == u.scheme && r.authority == u.authority;
    let r_path = r.path.trim_end_matches('/');
    same_origin && (r_path == u.path.trim_end_matches('/') || r_path.is_empty())
}

/// H601.
pub(super) fn judge_transport(url: &str, push: &mut Push<'_>) {
    let Some(parts) = parse(url) else {
        return;
    };
    if parts.scheme == "http" && !is_loopback_host(&parts.host) {
        push(
            Rule::PlaintextHttp,
            "transport",
            format!(
                "the server is reached over plaintext http:// at `{}`, which is not a loopback host",
                parts.host
            ),
            evidence(url),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_taken_apart() {
        let p = parse("HTTP://user:pw@[::1]:8080/mcp?x#y");
        assert!(p.is_some());
        let p = p.unwrap_or_else(|| unreachable!());
        assert_eq!(
            (
                p.scheme.as_str(),
                p.host.as_str(),
                p.authority.as_str(),
                p.path
            ),
            ("http", "::1", "[::1]:8080", "/mcp")
        );
        assert!(parse("no scheme").is_none());
        assert!(parse("http:///path").is_none());
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "LOCALHOST",
            "a.localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "[::1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "example.com",
            "10.0.0.1",
            "0.0.0.0",
            "::",
            "localhost.example",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn metadata_is_looked_for_where_the_spec_says() {
        let bare = Answer::default();
        assert_eq!(
            metadata_urls("http://127.0.0.1:9/mcp", &bare),
            [
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:9/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            metadata_urls("https://a.example/", &bare),
            ["https://a.example/.well-known/oauth-protected-resource"]
        );
        let named = Answer {
            status: 401,
            headers: vec![(
                "WWW-Authenticate".into(),
                r#"Bearer realm="x", resource_metadata="https://a.example/meta""#.into(),
            )],
            body: String::new(),
        };
        assert_eq!(
            metadata_urls("https://a.example/mcp", &named),
            ["https://a.example/meta"]
        );
    }

    #[test]
    fn resources_match_by_url_or_origin() {
        assert!(same_resource(
            "http://127.0.0.1:9/mcp",
            "http://127.0.0.1:9/mcp"
        ));
        assert!(same_resource(
            "HTTP://127.0.0.1:9/mcp/",
            "http://127.0.0.1:9/mcp"
        ));
        assert!(same_resource(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/mcp"
        ));
        assert!(!same_resource(
            "http://127.0.0.1:9/other",
            "http://127.0.0.1:9/mcp"
        ));
        assert!(!same_resource(
            "https://evil.example/mcp",
            "http://127.0.0.1:9/mcp"
        ));
        assert!(!same_resource("not a url", "http://127.0.0.1:9/mcp"));
    }
}
