//! Who is calling. On HTTP, `--api-key` and `--bearer` make every request
//! prove itself with `X-API-Key: KEY` or `Authorization: Bearer TOKEN`; the
//! caller is then known by the *label* of the credential that matched
//! (`api-key#1`, `bearer#2`, numbered in command-line order), never by the
//! secret itself. Without credentials configured, and on stdio, every caller
//! is `anonymous`.

use std::sync::Arc;

use http::HeaderMap;

/// The identity of a caller, as `whoami` and the audit log report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(Arc<str>);

impl Identity {
    pub fn anonymous() -> Self {
        Self(Arc::from("anonymous"))
    }

    /// An identity known by `label` (an OAuth client: `oauth:CLIENT_ID`).
    pub fn named(label: String) -> Self {
        Self(Arc::from(label))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The header that carries an API key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The credentials the server accepts.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    api_keys: Vec<String>,
    bearers: Vec<String>,
    /// `--oauth`: bearer tokens from the built-in authorization server are
    /// accepted too (checked by `oauth::OAuth`, not here).
    oauth: bool,
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No credential was presented.
    Missing,
    /// A credential was presented and matched nothing.
    Invalid,
}

impl Credentials {
    pub fn new(api_keys: Vec<String>, bearers: Vec<String>) -> Self {
        Self {
            api_keys,
            bearers,
            oauth: false,
        }
    }

    /// These credentials, and the tokens of the built-in authorization server.
    pub fn with_oauth(mut self) -> Self {
        self.oauth = true;
        self
    }

    pub fn required(&self) -> bool {
        !self.api_keys.is_empty() || !self.bearers.is_empty() || self.oauth
    }

    /// The identity of the request with these headers.
    pub fn authenticate(&self, headers: &HeaderMap) -> Result<Identity, Refusal> {
        if !self.required() {
            return Ok(Identity::anonymous());
        }
        let api_key = headers
            .get(API_KEY_HEADER)
            .map(|v| v.as_bytes().trim_ascii());
        let bearer = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| bearer_token(v.as_bytes()));
        if api_key.is_none() && !headers.contains_key(http::header::AUTHORIZATION) {
            return Err(Refusal::Missing);
        }
        if let Some(presented) = api_key
            && let Some(n) = position(&self.api_keys, presented)
        {
            return Ok(Identity(Arc::from(format!("api-key#{n}"))));
        }
        if let Some(presented) = bearer
            && let Some(n) = position(&self.bearers, presented)
        {
            return Ok(Identity(Arc::from(format!("bearer#{n}"))));
        }
        Err(Refusal::Invalid)
    }

    /// Whether bearer tokens are accepted (OAuth's scheme, which the
    /// protected-resource metadata describes).
    pub fn bearer(&self) -> bool {
        !self.bearers.is_empty() || self.oauth
    }

    /// The `WWW-Authenticate` challenges a 401 carries: one per scheme the
    /// server accepts; the Bearer one names `resource_metadata` when given
    /// (RFC 9728 §5.1).
    pub fn challenges(&self, refusal: Refusal, resource_metadata: Option<&str>) -> Vec<String> {
        let mut challenges = Vec::new();
        if self.bearer() {
            let mut bearer = match refusal {
                Refusal::Missing => r#"Bearer realm="mcpcheck""#.to_owned(),
                Refusal::Invalid => r#"Bearer realm="mcpcheck", error="invalid_token""#.to_owned(),
            };
            if let Some(url) = resource_metadata {
                bearer.push_str(&format!(r#", resource_metadata="{url}""#));
            }
            challenges.push(bearer);
        }
        if !self.api_keys.is_empty() {
            challenges.push(r#"ApiKey realm="mcpcheck", header="X-API-Key""#.to_owned());
        }
        challenges
    }
}

/// The token of an `Authorization: Bearer TOKEN` header (scheme
/// case-insensitive, per RFC 9110).
pub fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let value = value.trim_ascii();
    let (scheme, token) = value.split_at_checked(6)?;
    (scheme.eq_ignore_ascii_case(b"bearer") && token.first() == Some(&b' '))
        .then(|| token.trim_ascii())
        .filter(|token| !token.is_empty())
}

/// 1-based position of `presented` among `secrets`. Every secret is compared
/// in full, so the time taken does not reveal how much of a guess was right.
fn position(secrets: &[String], presented: &[u8]) -> Option<usize> {
    let mut found = None;
    for (i, secret) in secrets.iter().enumerate() {
        if constant_time_eq(secret.as_bytes(), presented) && found.is_none() {
            found = Some(i + 1);
        }
    }
    found
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn without_credentials_everyone_is_anonymous() {
        let creds = Credentials::default();
        assert_eq!(creds.authenticate(&headers(&[])), Ok(Identity::anonymous()));
    }

    #[test]
    fn credentials_are_known_by_their_label() {
        let creds = Credentials::new(vec!["k1".into(), "k2".into()], vec!["t1".into()]);
        let who = |h| {
            creds
                .authenticate(&headers(h))
                .map(|i| i.as_str().to_owned())
        };
        assert_eq!(who(&[("x-api-key", "k2")]), Ok("api-key#2".into()));
        assert_eq!(
            who(&[("authorization", "Bearer t1")]),
            Ok("bearer#1".into())
        );
        assert_eq!(
            who(&[("authorization", "bearer  t1 ")]),
            Ok("bearer#1".into())
        );
        assert_eq!(who(&[]), Err(Refusal::Missing));
        assert_eq!(who(&[("x-api-key", "nope")]), Err(Refusal::Invalid));
        assert_eq!(
            who(&[("authorization", "Bearer k1")]),
            Err(Refusal::Invalid)
        );
        assert_eq!(
            who(&[("authorization", "Basic dTpw")]),
            Err(Refusal::Invalid)
        );
    }

    #[test]
    fn challenges_name_each_accepted_scheme() {
        let creds = Credentials::new(vec!["k".into()], vec!["t".into()]);
        let challenges = creds.challenges(Refusal::Invalid, None);
        assert_eq!(challenges.len(), 2);
        assert!(challenges[0].starts_with("Bearer "));
        assert!(challenges[0].contains("invalid_token"));
        assert!(challenges[1].starts_with("ApiKey "));
        let named = creds.challenges(Refusal::Missing, Some("http://h/.well-known/x"));
        assert_eq!(
            named[0],
            r#"Bearer realm="mcpcheck", resource_metadata="http://h/.well-known/x""#
        );
    }
}
