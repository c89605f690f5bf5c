//! The server a command connects to once: `--server CMD`, or `--url URL`
//! with `--transport`, `--header`s and the `--auth-*` flags. Shared by
//! `conformance`, `generate`, `audit` and the other commands that reach one
//! server; `run` and `ci` take [`AuthArgs`] alone.

use clap::{Args, ValueEnum};
use mcpcheck_core::suite::{Auth, Grant};

use crate::client::Endpoint;
use crate::client::auth::{AuthConfig, AuthError, Authorizer};
use crate::error::Error;

/// Where the server is.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// The server to start on stdio (split like a shell would).
    #[arg(
        long,
        value_name = "CMD",
        conflicts_with = "url",
        required_unless_present = "url"
    )]
    pub server: Option<String>,

    /// The server's URL (Streamable HTTP, or legacy SSE with --transport sse).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// The HTTP transport for --url.
    #[arg(long, value_enum, default_value_t = HttpTransport::Http, requires = "url")]
    pub transport: HttpTransport,

    /// An HTTP header for --url, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "HEADER", requires = "url")]
    pub headers: Vec<String>,

    /// Run the --server command in this container image: `docker run --rm
    /// -i [-v FIXTURE:FIXTURE] IMAGE CMD` (podman when docker is not
    /// installed).
    #[arg(long, value_name = "IMAGE", conflicts_with = "url")]
    pub docker: Option<String>,

    #[command(flatten)]
    pub auth: AuthArgs,
}

/// OAuth for a server reached over HTTP: the `--auth-*` flags, the same
/// keys as a suite's `server.auth`. Each value may read the environment
/// with `${NAME}` (quote it for the shell), which keeps secrets off the
/// command line.
#[derive(Debug, Clone, Default, Args)]
pub struct AuthArgs {
    /// Get an OAuth access token with this grant and send it as
    /// `Authorization: Bearer` on every HTTP request (renewed when it
    /// expires or the server answers 401).
    #[arg(long, value_name = "GRANT", value_parser = Grant::NAMES.to_vec())]
    pub auth_type: Option<String>,

    /// The OAuth client id (without it, `authorization_code` registers a
    /// client when the authorization server allows it).
    #[arg(long, value_name = "ID", requires = "auth_type")]
    pub auth_client_id: Option<String>,

    /// The OAuth client secret, e.g. '${CLIENT_SECRET}'.
    #[arg(long, value_name = "SECRET", requires = "auth_type")]
    pub auth_client_secret: Option<String>,

    /// The scope to ask for.
    #[arg(long, value_name = "SCOPE", requires = "auth_type")]
    pub auth_scope: Option<String>,

    /// The resource the token is for (RFC 8707; default: the server URL).
    #[arg(long, value_name = "URI", requires = "auth_type")]
    pub auth_resource: Option<String>,

    /// The token endpoint; without it, it is discovered from the server's
    /// 401 (RFC 9728, then RFC 8414).
    #[arg(long, value_name = "URL", requires = "auth_type")]
    pub auth_token_url: Option<String>,

    /// A pre-issued refresh token, for `--auth-type refresh_token`.
    #[arg(long, value_name = "TOKEN", requires = "auth_type")]
    pub auth_refresh_token: Option<String>,
}

impl AuthArgs {
    /// `--auth-client-id` with `--auth-client-secret`, when both are given.
    pub fn client(&self) -> Option<(String, String)> {
        self.auth_client_id
            .clone()
            .zip(self.auth_client_secret.clone())
    }

    /// The flags as a suite's `auth` block (values as written), or what
    /// is missing.
    pub fn block(&self) -> crate::error::Result<Option<Auth>> {
        let Some(grant) = self.auth_type.as_deref() else {
            return Ok(None);
        };
        let grant = Grant::parse(grant).ok_or_else(|| format!("unknown --auth-type {grant}"))?;
        let auth = Auth {
            grant,
            client_id: self.auth_client_id.clone(),
            client_secret: self.auth_client_secret.clone(),
            scope: self.auth_scope.clone(),
            resource: self.auth_resource.clone(),
            token_url: self.auth_token_url.clone(),
            refresh_token: self.auth_refresh_token.clone(),
        };
        // The same rules as the suite keys, in flag words.
        auth.check().map_err(|(message, _)| {
            message
                .replace("`type: ", "`--auth-type ")
                .replace("`client_", "`--auth-client-")
                .replace("`refresh_token`", "`--auth-refresh-token`")
        })?;
        Ok(Some(auth))
    }
}

/// The run's authorizer for `url`, from an `auth` block whose values go
/// through `expand` (`${NAME}`, `{{var}}`) first.
pub fn authorizer(
    url: &str,
    auth: &Auth,
    mut expand: impl FnMut(&str) -> String,
) -> Result<Authorizer, AuthError> {
    let mut text = |v: &Option<String>| v.as_deref().map(&mut expand);
    let cfg = AuthConfig {
        grant: auth.grant,
        client_id: text(&auth.client_id),
        client_secret: text(&auth.client_secret),
        scope: text(&auth.scope),
        resource: text(&auth.resource),
        token_url: text(&auth.token_url),
        refresh_token: text(&auth.refresh_token),
    };
    Authorizer::shared(url, cfg)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HttpTransport {
    /// Streamable HTTP.
    Http,
    /// Legacy HTTP+SSE.
    Sse,
}

impl TargetArgs {
    /// The endpoint the flags describe (in its container with --docker), or
    /// what is wrong with them.
    pub fn endpoint(&self) -> crate::error::Result<Endpoint> {
        Ok(self.contain(self.bare_endpoint()?, None))
    }

    /// `endpoint` in the --docker container, with `fixture` mounted; as it
    /// is without --docker.
    pub fn contain(&self, endpoint: Endpoint, fixture: Option<&std::path::Path>) -> Endpoint {
        match (&self.docker, endpoint) {
            (Some(image), Endpoint::Stdio { command, args, env }) => {
                crate::client::container::wrap(image, command, args, env, &[], fixture)
            }
            (_, other) => other,
        }
    }

    /// The endpoint the flags describe, outside any container.
    pub fn bare_endpoint(&self) -> crate::error::Result<Endpoint> {
        if let Some(cmd) = &self.server {
            if self.auth.auth_type.is_some() {
                return Err("--auth-type is for a server reached over HTTP (--url)".into());
            }
            let argv = shlex::split(cmd)
                .filter(|a| !a.is_empty())
                .ok_or_else(|| format!("cannot split --server {cmd:?}: check its quotes"))?;
            let (command, rest) = argv
                .split_first()
                .ok_or_else(|| Error::from("--server is empty"))?;
            return Ok(Endpoint::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
                env: Vec::new(),
            });
        }
        let url = self
            .url
            .clone()
            .ok_or_else(|| Error::from("give --server CMD or --url URL"))?;
        let mut headers = Vec::new();
        for h in &self.headers {
            let (k, v) = h
                .split_once(':')
                .ok_or_else(|| format!("--header {h:?}: write it as `Name: value`"))?;
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let auth = match self.auth.block()? {
            Some(block) => Some(
                authorizer(&url, &block, |v| {
                    mcpcheck_core::template::expand_env(v, &|n| std::env::var(n).ok()).0
                })
                .map_err(|e| Error::Usage(e.to_string()))?,
            ),
            None => None,
        };
        Ok(match self.transport {
            HttpTransport::Http => Endpoint::Http { url, headers, auth },
            HttpTransport::Sse => Endpoint::Sse { url, headers, auth },
        })
    }
}
